package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
)

// Defaults of Config.
const (
	DefaultDebounce = 20 * time.Millisecond
	DefaultResync   = 30 * time.Second
	DefaultPoll     = 2 * time.Second
)

// ErrServerGone is returned by Run with Config.ExitWithServer when the
// multiplexer server it watched has exited.
var ErrServerGone = errors.New("the multiplexer server exited")

// Config configures an Engine.
type Config struct {
	// Paths are the agent dir's paths (sessions, breadcrumbs, live files).
	Paths config.Paths
	// Mux is the multiplexer; nil watches files only.
	Mux Multiplexer
	// Muxes are more multiplexers beside Mux (tmux and kitty side by side):
	// their panes join the same snapshot, each tagged with its Server, and
	// each is watched its own way (its doorbell, or a listing every Poll).
	Muxes []Multiplexer
	// WriteSnapshot keeps the snapshot in SnapshotDir(Paths.Agent) for
	// `xcsh status`.
	WriteSnapshot bool
	// Debounce coalesces bursts of changes; default DefaultDebounce.
	Debounce time.Duration
	// Resync is the period of the safety re-sync; default DefaultResync.
	Resync time.Duration
	// Poll is how often the panes of a multiplexer without a doorbell
	// (kitty) are listed; default DefaultPoll.
	Poll time.Duration
	// ExitWithServer ends Run (with ErrServerGone) once the servers it has
	// seen are gone, every one of them.
	ExitWithServer bool
	// OnError is told about errors Run survives; nil ignores them.
	OnError func(error)
}

// Stats count the engine's work, for tests and benchmarks.
type Stats struct {
	Passes      int64 // snapshot passes
	PaneQueries int64 // multiplexer pane listings
	Published   int64 // snapshots published (changed)
	Rings       int64 // doorbell rings heard
	FileEvents  int64 // fsnotify events heard
}

// Engine builds and publishes snapshots.
type Engine struct {
	cfg Config

	muxes []Multiplexer // Mux, then Muxes; set by New

	passMu  sync.Mutex // one pass at a time; guards the fields below
	ix      *session.Index
	panes   []MuxPane           // last listing, every multiplexer's
	byMux   [][]MuxPane         // last listing of each of muxes
	muxErrs []error             // last listing error of each of muxes
	seen    []bool              // each of muxes was listed at least once
	hosts   map[string]*Hosted  // pane key -> the tmux session it shows
	prev    map[string]paneTerm // pane key -> terminal, from the last listing
	terms   map[string]paneTerm // pane key -> terminal (cache: a leader's token never changes)
	known   map[string]bool     // session files seen to exist
	moved   map[string]string   // missing session file -> where it went ("" none), per sessionsGen
	gen     int64               // sessionsGen when moved was filled
	// sessionsGen changes when session files come, go or are renamed.
	sessionsGen atomic.Int64

	mu   sync.Mutex // guards cur and subs
	cur  Snapshot
	subs map[int]chan Snapshot
	nsub int

	passes, queries, published, rings, events atomic.Int64
}

// paneTerm is the terminal of a pane.
type paneTerm struct {
	pid        int
	key, token string
}

// New returns an engine; Run starts it, Sync makes one pass.
func New(cfg Config) *Engine {
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.Resync <= 0 {
		cfg.Resync = DefaultResync
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	var muxes []Multiplexer
	for _, m := range append([]Multiplexer{cfg.Mux}, cfg.Muxes...) {
		if m != nil {
			muxes = append(muxes, m)
		}
	}
	return &Engine{
		cfg:     cfg,
		muxes:   muxes,
		byMux:   make([][]MuxPane, len(muxes)),
		muxErrs: make([]error, len(muxes)),
		seen:    make([]bool, len(muxes)),
		ix:      session.OpenIndex(nil, cfg.Paths.Sessions),
		prev:    map[string]paneTerm{},
		terms:   map[string]paneTerm{},
		known:   map[string]bool{},
		subs:    map[int]chan Snapshot{},
	}
}

// Stats returns the work done so far.
func (e *Engine) Stats() Stats {
	return Stats{
		Passes: e.passes.Load(), PaneQueries: e.queries.Load(), Published: e.published.Load(),
		Rings: e.rings.Load(), FileEvents: e.events.Load(),
	}
}

// Current returns the last snapshot.
func (e *Engine) Current() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur
}

// Subscribe returns a channel that receives every published snapshot, the
// newest replacing one not yet received, and a function that ends the
// subscription.
func (e *Engine) Subscribe() (<-chan Snapshot, func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ch := make(chan Snapshot, 1)
	id := e.nsub
	e.nsub++
	e.subs[id] = ch
	if e.cur.Seq > 0 {
		ch <- e.cur
	}
	return ch, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		delete(e.subs, id)
	}
}

// Sync lists panes and makes one pass; one-shot commands use it.
func (e *Engine) Sync(ctx context.Context) (Snapshot, error) {
	return e.pass(ctx, true)
}

// muxSet is a set of the engine's multiplexers, bit i for muxes[i].
type muxSet uint64

// allMuxes is every multiplexer.
const allMuxes = ^muxSet(0)

// pass builds a snapshot (listing panes again when listPanes), keeps the
// breadcrumbs and live files fresh, and publishes the snapshot if it
// changed.
func (e *Engine) pass(ctx context.Context, listPanes bool) (Snapshot, error) {
	if listPanes {
		return e.passOf(ctx, allMuxes)
	}
	return e.passOf(ctx, 0)
}

// passOf is pass listing the panes of the multiplexers in which.
func (e *Engine) passOf(ctx context.Context, which muxSet) (Snapshot, error) {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	e.passes.Add(1)
	e.listMuxes(ctx, which)
	snap := e.build()
	snap.Server = e.serverName()
	err := e.muxErr()
	if err != nil {
		snap.Err = err.Error()
	}
	e.publish(snap)
	return e.Current(), err
}

// listMuxes lists the panes of the multiplexers in which and reports
// whether a listing or its error differs from the last. passMu must be
// held.
func (e *Engine) listMuxes(ctx context.Context, which muxSet) bool {
	changed := false
	for i, m := range e.muxes {
		if which&(1<<i) == 0 {
			continue
		}
		e.queries.Add(1)
		ps, err := m.Panes(ctx)
		if (err == nil) != (e.muxErrs[i] == nil) || (err != nil && err.Error() != e.muxErrs[i].Error()) {
			changed = true
		}
		e.muxErrs[i] = err
		switch {
		case err == nil:
			changed = changed || !e.seen[i] || !slices.Equal(ps, e.byMux[i])
			e.byMux[i], e.seen[i] = ps, true
		case isGone(err):
			changed = changed || e.byMux[i] != nil
			e.byMux[i] = nil
		}
	}
	if changed {
		e.panes = e.panes[:0]
		for _, ps := range e.byMux {
			e.panes = append(e.panes, ps...)
		}
	}
	if which != 0 && len(e.muxes) > 0 {
		old := e.hosts
		e.findHosts(ctx)
		changed = changed || !sameHosts(old, e.hosts)
	}
	return changed
}

// muxErr is the last listing error: the one multiplexer's as it is, several
// joined.
func (e *Engine) muxErr() error {
	var errs []error
	for _, err := range e.muxErrs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// serverName names the servers of the snapshot: "" without a multiplexer,
// their names joined by ", " with several.
func (e *Engine) serverName() string {
	names := make([]string, len(e.muxes))
	for i, m := range e.muxes {
		names[i] = m.Name()
	}
	return strings.Join(names, ", ")
}

// paneKey identifies a pane among every multiplexer's.
func paneKey(p MuxPane) string { return p.Server + "\x00" + p.ID }

// publish makes snap current when it differs from the current one.
func (e *Engine) publish(snap Snapshot) {
	e.mu.Lock()
	if e.cur.Seq > 0 && e.cur.same(snap) {
		e.mu.Unlock()
		return
	}
	snap.Seq = e.cur.Seq + 1
	snap.At = time.Now().UTC()
	snap.Writer = os.Getpid()
	e.cur = snap
	for _, ch := range e.subs {
		select {
		case <-ch:
		default:
		}
		ch <- snap
	}
	e.mu.Unlock()
	e.published.Add(1)
	if e.cfg.WriteSnapshot {
		if data, err := json.Marshal(snap); err == nil {
			path := filepath.Join(SnapshotDir(e.cfg.Paths.Agent), snapshotFileName(snap.Server))
			if err := writeFileAtomic(path, data); err != nil {
				e.report(err)
			}
		}
	}
}

func (e *Engine) report(err error) {
	if err != nil && e.cfg.OnError != nil {
		e.cfg.OnError(err)
	}
}

// removeSnapshotFile removes the engine's snapshot file when it is ours.
func (e *Engine) removeSnapshotFile() {
	if !e.cfg.WriteSnapshot {
		return
	}
	path := filepath.Join(SnapshotDir(e.cfg.Paths.Agent), snapshotFileName(e.serverName()))
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var s Snapshot
	if json.Unmarshal(data, &s) == nil && s.Writer == os.Getpid() {
		_ = os.Remove(path)
	}
}

// build joins panes, terminals, agents and sessions, and keeps breadcrumbs
// and live files fresh on the way.
func (e *Engine) build() Snapshot {
	// Panes and their terminals.
	cur := make(map[string]paneTerm, len(e.panes))
	for _, p := range e.panes {
		pk := paneKey(p)
		t, ok := e.terms[pk]
		if !ok || t.pid != p.PID {
			t = paneTerm{pid: p.PID, key: terminalKey(p.TTY), token: terminalToken(p.PID)}
			if t.token != "" {
				e.terms[pk] = t
			}
		}
		cur[pk] = t
	}
	closed := map[string]string{} // key -> token of panes that went away
	for id, t := range e.prev {
		if _, ok := cur[id]; !ok {
			closed[t.key] = t.token
			delete(e.terms, id)
		}
	}
	e.prev = cur

	// Agents: live files of running agents; the files of dead ones go.
	agents := e.readAgents()
	agentSessions := map[string]bool{}
	for _, a := range agents {
		if a.SessionFile != "" {
			agentSessions[filepath.Clean(a.SessionFile)] = true
		}
	}
	// Breadcrumbs.
	crumbs := e.freshenCrumbs(closed, agentSessions, agents)

	snap := Snapshot{Counts: map[string]int{}}
	byTerm := map[string]int{} // key+token -> index in agents
	for i, a := range agents {
		byTerm[a.live.TerminalKey+"\x00"+a.live.TerminalToken] = i
		byTerm[a.live.TerminalKey+"\x00"] = i
	}
	agentPIDs := map[int]bool{}
	for _, a := range agents {
		agentPIDs[a.PID] = true
	}
	paneOf := map[int]string{}
	for _, mp := range e.panes {
		t := cur[paneKey(mp)]
		p := Pane{MuxPane: mp, Key: t.key, Token: t.token, Hosts: e.hosts[paneKey(mp)]}
		p.Foreground, p.ForegroundCommand = foreground(mp.PID, agentPIDs)
		i, ok := byTerm[t.key+"\x00"+t.token]
		if !ok {
			i, ok = byTerm[t.key+"\x00"]
		}
		if ok && t.key != "" {
			a := agents[i]
			p.Agent = a.PID
			paneOf[a.PID] = mp.ID
			p.Session = &SessionRef{Path: a.SessionFile, ID: a.SessionID, Title: a.Title, Cwd: a.Cwd, Exists: fileExists(a.SessionFile)}
		} else if c, ok := crumbs[t.key]; ok && (c.Token == "" || c.Token == t.token) {
			p.Session = e.sessionRef(c.SessionPath())
		}
		snap.Panes = append(snap.Panes, p)
	}
	sortPanes(snap.Panes)
	for _, a := range agents {
		a.Agent.Pane = paneOf[a.PID]
		snap.Agents = append(snap.Agents, a.Agent)
		snap.Counts[a.State]++
	}
	return snap
}

// liveAgent is a running agent with its live file.
type liveAgent struct {
	Agent
	live agent.LiveStatus
}

// readAgents reads the live files; the files of agents that no longer run
// (gone, a zombie, or a new process with the same pid) are removed.
func (e *Engine) readAgents() []liveAgent {
	lives, err := agent.ReadLive(e.cfg.Paths.Agents)
	if err != nil {
		e.report(err)
		return nil
	}
	var out []liveAgent
	for _, l := range lives {
		if !running(l.PID, l.StartTime) {
			if err := os.Remove(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				e.report(err)
			}
			continue
		}
		out = append(out, liveAgent{
			Agent: Agent{
				PID: l.PID, State: l.State, Since: l.Since, UpdatedAt: l.UpdatedAt, Cwd: l.Cwd,
				SessionFile: l.SessionFile, SessionID: l.SessionID, Title: l.Title, Model: l.Model,
				TerminalKey: l.TerminalKey,
			},
			live: l,
		})
	}
	return out
}

// sessionRef describes the session at path from the index (cached by size
// and modification time).
func (e *Engine) sessionRef(path string) *SessionRef {
	r := &SessionRef{Path: path}
	if info, ok := e.ix.Info(path); ok {
		r.ID, r.Cwd, r.Exists = info.ID, info.Cwd, true
		if info.Title != nil {
			r.Title = *info.Title
		}
	}
	return r
}

func fileExists(path string) bool {
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
