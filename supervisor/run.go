package supervisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// followUps are the extra passes after a pane closed: the agent that ran in
// it may take a moment to die, and its parent to reap it.
var followUps = []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, 600 * time.Millisecond, 2 * time.Second}

// confirmAfter is when a ring's listing is confirmed by another.
const confirmAfter = 250 * time.Millisecond

// Run starts the multiplexer connection and the watchers and publishes
// snapshots until ctx ends. The doorbell's hooks are removed on the way out.
func (e *Engine) Run(ctx context.Context) error {
	for _, d := range []string{e.cfg.Paths.Agents, e.cfg.Paths.TerminalSessions, e.cfg.Paths.Sessions} {
		if d != "" {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return err
			}
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	e.watchAll(w)

	mux := e.cfg.Mux
	started := false
	if mux != nil {
		if err := mux.Start(ctx); err != nil {
			e.report(err)
		} else {
			started = true
		}
		defer mux.Close()
	}
	defer e.removeSnapshotFile()

	var bell <-chan struct{}
	if mux != nil {
		bell = mux.Changes()
	}
	var poll <-chan time.Time
	if mux != nil && started && bell == nil {
		t := time.NewTicker(e.cfg.Poll)
		defer t.Stop()
		poll = t.C
	}
	resync := time.NewTicker(e.cfg.Resync)
	defer resync.Stop()
	// Until the multiplexer is reachable (a supervisor started from a tmux
	// config runs before the first session exists), try every second.
	var retry <-chan time.Time
	if mux != nil && !started {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		retry = t.C
	}

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	follow := time.NewTimer(time.Hour)
	follow.Stop()
	// confirm lists panes once more shortly after a ring: a ring can stand
	// for several changes, and one made while the previous listing ran
	// would otherwise wait for the next ring (seen with tmux 3.3a when
	// sessions are created in quick succession).
	confirm := time.NewTimer(time.Hour)
	confirm.Stop()
	pending, panesDirty, armed := false, false, false
	nextFollow := len(followUps)
	arm := func(panes bool) {
		pending = true
		panesDirty = panesDirty || panes
		if !armed {
			armed = true
			debounce.Reset(e.cfg.Debounce)
		}
	}
	doPass := func(panes bool) error {
		before := len(e.prevSnapshotPanes())
		snap, err := e.pass(ctx, panes)
		if err != nil && isGone(err) && e.cfg.ExitWithServer && e.seenServer() {
			return ErrServerGone
		}
		if err != nil && !isGone(err) {
			e.report(err)
		}
		if len(snap.Panes) < before {
			// A pane closed: look again a few times while its agent dies.
			nextFollow = 0
			follow.Reset(followUps[0])
		}
		return nil
	}
	if err := doPass(true); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-bell:
			e.rings.Add(1)
			arm(true)
		case <-poll:
			arm(true)
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("file watcher closed")
			}
			if e.fileEvent(w, ev) {
				e.events.Add(1)
				// An agent that starts or stops usually means a pane that
				// came or went: list panes too when that costs no process.
				arm(mux != nil && mux.Cheap())
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("file watcher closed")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: watch every directory again and look at
				// everything.
				e.watchAll(w)
				e.sessionsGen.Add(1)
				arm(true)
			} else {
				e.report(err)
			}
		case <-debounce.C:
			armed = false
			if pending {
				pending = false
				p := panesDirty
				panesDirty = false
				if err := doPass(p); err != nil {
					return err
				}
				if p {
					confirm.Reset(confirmAfter)
				}
			}
		case <-confirm.C:
			if err := doPass(true); err != nil {
				return err
			}
		case <-follow.C:
			if err := doPass(false); err != nil {
				return err
			}
			if nextFollow++; nextFollow < len(followUps) {
				follow.Reset(followUps[nextFollow] - followUps[nextFollow-1])
			}
		case <-retry:
			if err := mux.Start(ctx); err == nil {
				started, retry = true, nil
				bell = mux.Changes()
				arm(true)
			}
		case <-resync.C:
			e.watchAll(w)
			e.sessionsGen.Add(1)
			if err := doPass(true); err != nil {
				return err
			}
		}
	}
}

func (e *Engine) prevSnapshotPanes() []Pane { return e.Current().Panes }

func (e *Engine) seenServer() bool {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	return e.seen
}

// watchAll watches the live-file and breadcrumb dirs, the sessions dir and
// every session dir in it (fsnotify does not recurse). Adding a watch that
// exists is harmless.
func (e *Engine) watchAll(w *fsnotify.Watcher) {
	p := e.cfg.Paths
	for _, d := range []string{p.Agents, p.TerminalSessions, p.Sessions} {
		if d != "" {
			_ = w.Add(d)
		}
	}
	if p.Sessions == "" {
		return
	}
	ents, err := os.ReadDir(p.Sessions)
	if err != nil {
		return
	}
	for _, ent := range ents {
		if ent.IsDir() {
			_ = w.Add(filepath.Join(p.Sessions, ent.Name()))
		}
	}
}

// fileEvent sorts one event and reports whether it calls for a pass.
// Appends to session files (Write) are ignored: what the engine shows of a
// session comes from its agent's live file, and only files that come, go or
// are renamed matter for the breadcrumbs.
func (e *Engine) fileEvent(w *fsnotify.Watcher, ev fsnotify.Event) bool {
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") || ev.Op == fsnotify.Chmod {
		return false
	}
	dir := filepath.Dir(ev.Name)
	p := e.cfg.Paths
	switch {
	case dir == p.Agents, dir == p.TerminalSessions:
		return true
	case dir == p.Sessions:
		if ev.Has(fsnotify.Create) {
			if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
				// A new session dir: watch it, then look at what was written
				// into it before the watch existed (the next pass does).
				_ = w.Add(ev.Name)
			}
		}
		e.sessionsGen.Add(1)
		return true
	case filepath.Dir(dir) == p.Sessions:
		if ev.Op == fsnotify.Write {
			return false
		}
		e.sessionsGen.Add(1)
		return true
	}
	return false
}
