package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
	// WriteSnapshot keeps the snapshot in SnapshotDir(Paths.Agent) for
	// `xcsh status`.
	WriteSnapshot bool
	// Debounce coalesces bursts of changes; default DefaultDebounce.
	Debounce time.Duration
	// Resync is the period of the safety re-sync; default DefaultResync.
	Resync time.Duration
	// Poll is how often panes are listed when Mux has no doorbell; default
	// DefaultPoll.
	Poll time.Duration
	// ExitWithServer ends Run (with ErrServerGone) once the server it has
	// seen is gone.
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

	passMu sync.Mutex // one pass at a time; guards the fields below
	ix     *session.Index
	panes  []MuxPane // last listing
	muxErr error
	seen   bool                // the server was listed at least once
	prev   map[string]paneTerm // pane id -> terminal, from the last listing
	terms  map[string]paneTerm // pane id -> terminal (cache: a leader's token never changes)
	known  map[string]bool     // session files seen to exist
	moved  map[string]string   // missing session file -> where it went ("" none), per sessionsGen
	gen    int64               // sessionsGen when moved was filled
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
	return &Engine{
		cfg:   cfg,
		ix:    session.OpenIndex(nil, cfg.Paths.Sessions),
		prev:  map[string]paneTerm{},
		terms: map[string]paneTerm{},
		known: map[string]bool{},
		subs:  map[int]chan Snapshot{},
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

// pass builds a snapshot (listing panes again when listPanes), keeps the
// breadcrumbs and live files fresh, and publishes the snapshot if it
// changed.
func (e *Engine) pass(ctx context.Context, listPanes bool) (Snapshot, error) {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	e.passes.Add(1)
	if listPanes && e.cfg.Mux != nil {
		e.queries.Add(1)
		ps, err := e.cfg.Mux.Panes(ctx)
		e.muxErr = err
		if err == nil {
			e.panes, e.seen = ps, true
		} else if isGone(err) {
			e.panes = nil
		}
	}
	snap := e.build()
	if e.cfg.Mux != nil {
		snap.Server = e.cfg.Mux.Name()
	}
	if e.muxErr != nil {
		snap.Err = e.muxErr.Error()
	}
	e.publish(snap)
	return e.Current(), e.muxErr
}

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
	server := ""
	if e.cfg.Mux != nil {
		server = e.cfg.Mux.Name()
	}
	path := filepath.Join(SnapshotDir(e.cfg.Paths.Agent), snapshotFileName(server))
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
		t, ok := e.terms[p.ID]
		if !ok || t.pid != p.PID {
			t = paneTerm{pid: p.PID, key: terminalKey(p.TTY), token: terminalToken(p.PID)}
			if t.token != "" {
				e.terms[p.ID] = t
			}
		}
		cur[p.ID] = t
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
		t := cur[mp.ID]
		p := Pane{MuxPane: mp, Key: t.key, Token: t.token}
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
