package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
)

// Errors of the actions, for errors.Is.
var (
	// ErrBusyPane: the target pane runs an agent or another program, so
	// nothing is typed into it.
	ErrBusyPane = errors.New("pane is not an idle shell")
	// ErrNoTarget: the target matches no pane.
	ErrNoTarget = errors.New("no such pane")
	// ErrAmbiguousTarget: the target matches several panes.
	ErrAmbiguousTarget = errors.New("target matches several panes")
	// ErrNoAgent: no agent runs in the pane.
	ErrNoAgent = errors.New("no agent runs in the pane")
	// ErrNoMux: the action needs a multiplexer.
	ErrNoMux = errors.New("no terminal multiplexer")
)

// Actions launch, jump to and close agents.
type Actions struct {
	// Paths are the agent dir's paths.
	Paths config.Paths
	// Mux is the multiplexer acted on.
	Mux Multiplexer
	// Session configures session resolution and forking.
	Session session.Options
	// AgentCommand is the agent's command line; default {"xcsh"}.
	AgentCommand []string
	// Env is set in every new pane ("NAME=value"): tmux gives a pane its
	// server's environment, not the caller's, so the agent dir goes here.
	Env []string

	engine *Engine
}

// Engine is the engine the actions consult (one pass per action).
func (a *Actions) Engine() *Engine {
	if a.engine == nil {
		a.engine = New(Config{Paths: a.Paths, Mux: a.Mux})
	}
	return a.engine
}

// LaunchSpec says where and how to start an agent.
type LaunchSpec struct {
	// Kind is "split", "window" or "session" for a new pane; "" with Into
	// runs in the existing pane Target.
	Kind string
	// Horizontal splits side by side.
	Horizontal bool
	// Name names a new session or window.
	Name string
	// Target is the pane to split, the session (or a pane of it) to add a
	// window to, or with Into the pane to run in.
	Target string
	// Into runs the agent in the existing pane Target, which must be a
	// shell at its prompt.
	Into bool
	// Cwd is the new pane's directory; for a resume it must be the
	// session's own (a fork continues a session elsewhere).
	Cwd string
	// Resume and Fork name a session (id prefix or path); at most one.
	Resume, Fork string
	// Args go to the agent after its own session flags.
	Args []string
	// KeepShell leaves the user's shell in a new pane when the agent
	// exits, so `xcsh -c` there restarts it.
	KeepShell bool
	// Focus makes a new pane current.
	Focus bool
}

// LaunchResult is what Launch did.
type LaunchResult struct {
	Pane MuxPane `json:"pane"`
	// SessionFile is the session the pane's breadcrumb names ("" for a
	// fresh agent, which makes its own).
	SessionFile string `json:"sessionFile,omitempty"`
	// Command is the agent's command line.
	Command string `json:"command"`
	// Typed is true when the command was typed into an existing shell.
	Typed bool `json:"typed"`
}

var holdSeq atomic.Int64

// Launch starts an agent in a new pane, or types it into an idle shell
// pane. With Resume or Fork, the pane's breadcrumb names the session before
// anything starts in the pane, so `xcsh -c` there resumes it even if the
// agent is restarted; a fork's file is written first.
func (a *Actions) Launch(ctx context.Context, spec LaunchSpec) (LaunchResult, error) {
	if a.Mux == nil {
		return LaunchResult{}, ErrNoMux
	}
	if spec.Resume != "" && spec.Fork != "" {
		return LaunchResult{}, errors.New("launch: --resume and --fork exclude each other")
	}
	if spec.Into {
		return a.launchInto(ctx, spec)
	}
	cwd := spec.Cwd
	var sessionFile string
	var err error
	switch {
	case spec.Resume != "":
		sessionFile, cwd, err = a.resolveResume(spec.Resume, spec.Cwd)
	case spec.Fork != "":
		sessionFile, err = a.fork(spec.Fork, cwd)
	}
	if err != nil {
		return LaunchResult{}, err
	}
	argv := a.agentArgv(sessionFile, spec.Args)
	line := shJoin(argv)
	script := "exec " + line
	if spec.KeepShell {
		script = line + `; exec "${SHELL:-/bin/sh}"`
	}
	key := ""
	if sessionFile != "" {
		key = strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(holdSeq.Add(1), 10)
		if spec.KeepShell {
			script = a.Mux.Hold(key) + " && " + line + `; exec "${SHELL:-/bin/sh}"`
		} else {
			script = a.Mux.Hold(key) + " && exec " + line
		}
	}
	kind := spec.Kind
	if kind == "" {
		kind = "split"
	}
	p, err := a.Mux.Spawn(ctx, SpawnSpec{
		Kind: kind, Target: spec.Target, Horizontal: spec.Horizontal, Name: spec.Name,
		Cwd: cwd, Env: a.Env, Focus: spec.Focus,
		// Through /bin/sh whatever the user's shell is: the script is POSIX.
		Command: "exec /bin/sh -c " + shQuote(script),
	})
	if err != nil {
		return LaunchResult{}, err
	}
	res := LaunchResult{Pane: p, SessionFile: sessionFile, Command: line}
	if sessionFile == "" {
		return res, nil
	}
	if err := a.writeCrumb(p.TTY, p.PID, cwd, sessionFile); err != nil {
		_ = a.Mux.Kill(ctx, p.ID)
		return LaunchResult{}, err
	}
	if err := a.Mux.Release(ctx, key); err != nil {
		_ = a.Mux.Kill(ctx, p.ID)
		return LaunchResult{}, err
	}
	return res, nil
}

// launchInto types the agent's command into an idle shell pane.
func (a *Actions) launchInto(ctx context.Context, spec LaunchSpec) (LaunchResult, error) {
	snap, err := a.Engine().Sync(ctx)
	if err != nil {
		return LaunchResult{}, err
	}
	p, err := findPane(snap, spec.Target)
	if err != nil {
		return LaunchResult{}, err
	}
	if err := idleShell(p); err != nil {
		return LaunchResult{}, err
	}
	var sessionFile, cwd string
	switch {
	case spec.Resume != "":
		sessionFile, cwd, err = a.resolveResume(spec.Resume, spec.Cwd)
	case spec.Fork != "":
		cwd = p.Cwd
		if spec.Cwd != "" {
			cwd = spec.Cwd
		}
		sessionFile, err = a.fork(spec.Fork, cwd)
	default:
		cwd = spec.Cwd
	}
	if err != nil {
		return LaunchResult{}, err
	}
	line := shJoin(a.agentArgv(sessionFile, spec.Args))
	typed := line
	if cwd != "" && !sameDir(cwd, p.Cwd) {
		typed = "cd " + shQuote(cwd) + " && " + line
	}
	if sessionFile != "" {
		if cwd == "" {
			cwd = p.Cwd
		}
		if err := a.writeCrumb(p.TTY, p.PID, cwd, sessionFile); err != nil {
			return LaunchResult{}, err
		}
	}
	// Checked again right before typing: the shell may have started
	// something while the session was being resolved.
	if fg, comm := foreground(p.PID, map[int]bool{}); fg != FgShell {
		return LaunchResult{}, fmt.Errorf("%w: %s now runs %s", ErrBusyPane, p.ID, comm)
	}
	if err := a.Mux.SendText(ctx, p.ID, typed, true); err != nil {
		return LaunchResult{}, err
	}
	return LaunchResult{Pane: p.MuxPane, SessionFile: sessionFile, Command: typed, Typed: true}, nil
}

// idleShell refuses a pane where an agent or another program runs.
func idleShell(p Pane) error {
	switch {
	case p.Agent != 0:
		return fmt.Errorf("%w: an agent (pid %d) runs in %s", ErrBusyPane, p.Agent, p.ID)
	case p.Foreground == FgShell:
		return nil
	case p.ForegroundCommand != "":
		return fmt.Errorf("%w: %s runs %s", ErrBusyPane, p.ID, p.ForegroundCommand)
	default:
		return fmt.Errorf("%w: what runs in %s is unknown", ErrBusyPane, p.ID)
	}
}

// agentArgv is the agent command with --resume and the extra args.
func (a *Actions) agentArgv(sessionFile string, args []string) []string {
	argv := append([]string(nil), a.AgentCommand...)
	if len(argv) == 0 {
		argv = []string{"xcsh"}
	}
	if sessionFile != "" {
		argv = append(argv, "--resume", sessionFile)
	}
	return append(argv, args...)
}

// writeCrumb points the breadcrumb of the terminal on tty, led by leader,
// at sessionFile.
func (a *Actions) writeCrumb(tty string, leader int, cwd, sessionFile string) error {
	key := terminalKey(tty)
	if key == "" {
		return fmt.Errorf("pane tty %q gives no terminal key", tty)
	}
	// tmux reports a new pane's pid before its child has called setsid:
	// give the leader a moment to become the session leader.
	tok := terminalToken(leader)
	for i := 0; tok == "" && i < 50; i++ {
		time.Sleep(10 * time.Millisecond)
		tok = terminalToken(leader)
	}
	if tok == "" {
		return fmt.Errorf("pane leader %d: no generation token (did it exit?)", leader)
	}
	return breadcrumb.Write(a.Paths.TerminalSessions, key, breadcrumb.Crumb{Cwd: cwd, SessionFile: sessionFile, Token: tok})
}

func (a *Actions) sessionOptions() session.Options {
	o := a.Session
	if o.SessionsRoot == "" {
		o.SessionsRoot = a.Paths.Sessions
	}
	if o.BlobDir == "" {
		o.BlobDir = a.Paths.Blobs
	}
	return o
}

// resolveResume finds the session v names and the directory it belongs in.
func (a *Actions) resolveResume(v, cwd string) (path, dir string, err error) {
	opt := a.sessionOptions()
	base := cwd
	if base == "" {
		base, _ = os.Getwd()
	}
	ix := session.OpenIndex(nil, opt.SessionsRoot)
	d, err := session.Resolve(opt, ix, session.Request{Cwd: base, Resume: v, ResumeSet: true}, nil)
	if err != nil {
		return "", "", err
	}
	dir = d.OtherCwd
	if dir == "" {
		if info, ok := ix.Info(d.Path); ok {
			dir = info.Cwd
		}
	}
	if dir == "" {
		dir = base
	}
	if cwd != "" && !sameDir(cwd, dir) {
		return "", "", fmt.Errorf("session %s belongs to %s, not %s: fork it to continue it there", v, dir, cwd)
	}
	return d.Path, dir, nil
}

// fork writes a fork of the session v names, in cwd, and returns its file.
func (a *Actions) fork(v, cwd string) (string, error) {
	opt := a.sessionOptions()
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	d, err := session.Resolve(opt, nil, session.Request{Cwd: cwd, Fork: v}, nil)
	if err != nil {
		return "", err
	}
	m, err := session.ForkFrom(opt, d.Path, cwd, d.Dir)
	if err != nil {
		return "", err
	}
	file := m.SessionFile()
	if err := m.Close(); err != nil {
		return "", err
	}
	return file, nil
}

// Jump shows the pane target names on the user's client. target is a pane
// id ("%3"), a terminal key ("pts-3") or a session id prefix of the
// session a pane's agent or breadcrumb names. client names the client to
// move ("": the most recently active one, preferring one that shows
// the session of the pane fromPane, the caller's own, when it is one of the
// server's). It returns the pane and the client moved.
func (a *Actions) Jump(ctx context.Context, target, client, fromPane string) (Pane, string, error) {
	if a.Mux == nil {
		return Pane{}, "", ErrNoMux
	}
	snap, err := a.Engine().Sync(ctx)
	if err != nil {
		return Pane{}, "", err
	}
	p, err := findPane(snap, target)
	if err != nil {
		return Pane{}, "", err
	}
	prefer := ""
	if from, ok := snap.PaneByID(fromPane); ok && fromPane != "" {
		prefer = from.MuxSession
	}
	moved, err := a.Mux.Focus(ctx, p.ID, client, prefer)
	return p, moved, err
}

// findPane resolves a pane id, terminal key or session id prefix.
func findPane(snap Snapshot, target string) (Pane, error) {
	if target == "" {
		return Pane{}, fmt.Errorf("%w: empty target", ErrNoTarget)
	}
	for _, p := range snap.Panes {
		if p.ID == target || p.Key == target {
			return p, nil
		}
	}
	lt := strings.ToLower(target)
	var hits []Pane
	for _, p := range snap.Panes {
		if p.Session == nil {
			continue
		}
		id := strings.ToLower(p.Session.ID)
		base := strings.ToLower(strings.TrimSuffix(filepath.Base(p.Session.Path), ".jsonl"))
		if (id != "" && strings.HasPrefix(id, lt)) || strings.HasPrefix(base, lt) || p.Session.Path == target {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 0:
		return Pane{}, fmt.Errorf("%w: %q is no pane id, terminal key or session of a pane", ErrNoTarget, target)
	case 1:
		return hits[0], nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return Pane{}, fmt.Errorf("%w: %q matches %s", ErrAmbiguousTarget, target, strings.Join(ids, ", "))
}

// Close asks the agent in the pane target names to quit (SIGTERM, which
// ends the agent cleanly: its turn is cancelled, its session flushed and
// its live file removed) and waits up to timeout for it to exit.
func (a *Actions) Close(ctx context.Context, target string, timeout time.Duration) (Pane, error) {
	snap, err := a.Engine().Sync(ctx)
	if err != nil && a.Mux != nil {
		return Pane{}, err
	}
	p, err := findPane(snap, target)
	if err != nil {
		return Pane{}, err
	}
	if p.Agent == 0 {
		return p, fmt.Errorf("%w: %s", ErrNoAgent, p.ID)
	}
	pr, err := readProc(p.Agent)
	if err != nil {
		return p, fmt.Errorf("agent %d: %w", p.Agent, err)
	}
	if err := syscall.Kill(p.Agent, syscall.SIGTERM); err != nil {
		return p, fmt.Errorf("agent %d: %w", p.Agent, err)
	}
	deadline := time.Now().Add(timeout)
	for running(p.Agent, pr.StartTime) {
		if time.Now().After(deadline) {
			return p, fmt.Errorf("agent %d in %s did not exit within %s", p.Agent, p.ID, timeout)
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p, nil
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
