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

// Run starts the multiplexer connections and the watchers and publishes
// snapshots until ctx ends. The doorbells' hooks are removed on the way out.
// A multiplexer without a doorbell (kitty) is listed every Config.Poll and
// on file-watch signals.
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

	mw := e.watchMuxes(ctx)
	defer mw.close()
	defer e.removeSnapshotFile()

	// The poll ticks only while a multiplexer without a doorbell is in use.
	var poll <-chan time.Time
	var pollTicker *time.Ticker
	startPoll := func() {
		if mw.polled != 0 && pollTicker == nil {
			pollTicker = time.NewTicker(e.cfg.Poll)
			poll = pollTicker.C
		}
	}
	startPoll()
	defer func() {
		if pollTicker != nil {
			pollTicker.Stop()
		}
	}()
	resync := time.NewTicker(e.cfg.Resync)
	defer resync.Stop()
	// Until every multiplexer is reachable (a supervisor started from a
	// tmux config runs before the first session exists), try every second.
	var retry <-chan time.Time
	if mw.unstarted() != 0 {
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
	pending, armed := false, false
	var panesDirty muxSet // the multiplexers the next pass lists
	nextFollow := len(followUps)
	arm := func(panes muxSet) {
		pending = true
		panesDirty |= panes
		if !armed {
			armed = true
			debounce.Reset(e.cfg.Debounce)
		}
	}
	doPass := func(panes muxSet) error {
		before := len(e.prevSnapshotPanes())
		snap, err := e.passOf(ctx, panes)
		if err != nil && e.cfg.ExitWithServer && e.serversGone() {
			return ErrServerGone
		}
		for _, err := range splitErrors(err) {
			if !isGone(err) {
				e.report(err)
			}
		}
		if len(snap.Panes) < before {
			// A pane closed: look again a few times while its agent dies.
			nextFollow = 0
			follow.Reset(followUps[0])
		}
		return nil
	}
	if err := doPass(allMuxes); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-mw.notify:
			e.rings.Add(1)
			arm(mw.rang())
		case <-poll:
			if e.pollChanged(ctx, mw.polled) {
				arm(0) // the listing is fresh: the pass need not list again
			}
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("file watcher closed")
			}
			if e.fileEvent(w, ev) {
				e.events.Add(1)
				// An agent that starts or stops usually means a pane that
				// came or went: list panes too when that costs no process.
				arm(mw.cheap())
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
				arm(allMuxes)
			} else {
				e.report(err)
			}
		case <-debounce.C:
			armed = false
			if pending {
				pending = false
				p := panesDirty
				panesDirty = 0
				if err := doPass(p); err != nil {
					return err
				}
				if p&mw.evented != 0 {
					confirm.Reset(confirmAfter)
				}
			}
		case <-confirm.C:
			if err := doPass(mw.evented); err != nil {
				return err
			}
		case <-follow.C:
			if err := doPass(0); err != nil {
				return err
			}
			if nextFollow++; nextFollow < len(followUps) {
				follow.Reset(followUps[nextFollow] - followUps[nextFollow-1])
			}
		case <-retry:
			if now := mw.retry(ctx); now != 0 {
				startPoll()
				arm(now)
			}
			if mw.unstarted() == 0 {
				retry = nil
			}
		case <-resync.C:
			e.watchAll(w)
			e.sessionsGen.Add(1)
			if err := doPass(allMuxes); err != nil {
				return err
			}
		}
	}
}

func (e *Engine) prevSnapshotPanes() []Pane { return e.Current().Panes }

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
