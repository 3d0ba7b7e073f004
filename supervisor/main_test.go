package supervisor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

type tmuxServer = tmux.Server

// envStandIn turns the test binary into a stand-in agent (see standIn).
const envStandIn = "XCSH_SUPERVISOR_TEST_AGENT"

// xcshBin is the real xcsh, built once by TestMain.
var xcshBin string

func TestMain(m *testing.M) {
	if os.Getenv(envStandIn) != "" {
		os.Exit(standIn(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "xcsh-sup-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	xcshBin = filepath.Join(dir, "xcsh")
	build := exec.Command("go", "build", "-o", xcshBin, "github.com/xcsh-dev/xcsh/cmd/xcsh")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build xcsh: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// standIn is a long-running agent until the chat screen exists: like xcsh it
// detects its terminal, opens a session (--resume <file>, else a new one
// with one exchange), points its terminal's breadcrumb at it and keeps a
// live file. SIGTERM ends it cleanly (live file removed); SIGUSR1 makes it
// open a new session without touching the crumb, as an agent whose crumb
// write was lost; SIGHUP (a closed pane) kills it, leaving its live file.
func standIn(args []string) int {
	// Before anything is announced: a test signals as soon as it sees the
	// live file.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2)
	paths := config.Config{}.Resolve()
	opt := session.Options{SessionsRoot: paths.Sessions, BlobDir: paths.Blobs, Home: os.Getenv("HOME"), TmpDir: os.TempDir()}
	cwd, _ := os.Getwd()
	id, _ := terminal.Detect(nil)
	newSession := func() (string, string) {
		m := session.Create(opt, cwd, "")
		now := time.Now().UnixMilli()
		user, _ := json.Marshal(map[string]any{"role": "user", "content": "hello", "timestamp": now})
		asst, _ := json.Marshal(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "hi"}},
			"provider": "test", "model": "stand-in", "stopReason": "stop", "timestamp": now})
		_, _ = m.AppendMessage(user)
		_, _ = m.AppendMessage(asst)
		_ = m.Close()
		return m.SessionFile(), m.SessionID()
	}
	var file, sid string
	if len(args) >= 2 && args[0] == "--resume" {
		file = args[1]
		if info, ok := session.ReadSessionInfo(session.FileStorage{}, file); ok {
			sid = info.ID
		}
	} else {
		file, sid = newSession()
	}
	if id.Key != "" {
		_ = breadcrumb.Write(paths.TerminalSessions, id.Key, breadcrumb.Crumb{Cwd: cwd, SessionFile: file, Token: id.Token})
	}
	live := agent.NewLiveFile(paths.Agents, agent.Live{TerminalKey: id.Key, TerminalToken: id.Token, TTY: id.TTY, Cwd: cwd})
	set := func(state string) {
		_ = live.Update(state, func(l *agent.Live) { l.SessionFile, l.SessionID, l.Cwd = file, sid, cwd })
	}
	set(agent.StateIdle)
	for s := range sig {
		switch s {
		case syscall.SIGUSR1:
			file, sid = newSession()
			time.Sleep(20 * time.Millisecond) // the live file is newer than the crumb
			set(agent.StateIdle)
		case syscall.SIGUSR2:
			set(agent.StateBusy)
		default:
			_ = live.Remove()
			return 0
		}
	}
	return 0
}

// world is one test's private tmux server and agent dir.
type world struct {
	t     testing.TB
	name  string
	env   []string
	home  string
	paths config.Paths
	mux   *supervisor.Tmux
	act   *supervisor.Actions
	proj  string
}

var worldSeq atomic.Int64

func newWorld(t testing.TB) *world {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	sockDir, err := os.MkdirTemp("", "xsv")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	agentDir := filepath.Join(home, ".xcsh", "agent")
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMUX", "TMUX_PANE", "TMUX_TMPDIR", "HOME", "SHELL", "XCSH_AGENT_DIR", "PI_CODING_AGENT_DIR", "PI_CONFIG_DIR",
			"XDG_DATA_HOME", "XDG_STATE_HOME", "KITTY_WINDOW_ID", "WT_SESSION", "TERM_SESSION_ID", "WEZTERM_PANE":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TMUX_TMPDIR="+sockDir, "HOME="+home, "SHELL=/bin/sh", "PS1=$ ", "HISTFILE=",
		"XCSH_AGENT_DIR="+agentDir, "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0",
		"XCSH_TEST_SELF="+self)
	w := &world{t: t, env: env, home: home, proj: proj,
		name:  fmt.Sprintf("xcsh-sv-%d-%d", os.Getpid(), worldSeq.Add(1)),
		paths: config.Config{AgentDir: agentDir}.Resolve()}
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", w.name, "kill-server")
		cmd.Env = env
		_ = cmd.Run()
		_ = os.RemoveAll(sockDir)
	})
	w.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "220", "-y", "60", "-c", proj, "sh")
	w.mux = w.newMux()
	w.act = &supervisor.Actions{
		Paths: w.paths, Mux: w.mux,
		Session:      session.Options{Home: home, TmpDir: os.TempDir()},
		AgentCommand: []string{"env", envStandIn + "=1", self},
	}
	return w
}

func (w *world) newMux() *supervisor.Tmux {
	w.t.Helper()
	m, err := supervisor.NewTmux(w.server(), w.env)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = m.Close() })
	return m
}

func (w *world) tmux(args ...string) string {
	w.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", w.name}, args...)...)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// engine starts an engine on a mux of its own and returns it once it has
// published its first snapshot.
func (w *world) engine(ctx context.Context) (*supervisor.Engine, *supervisor.Tmux) {
	w.t.Helper()
	m := w.newMux()
	return startEngine(ctx, w.t, supervisor.Config{Paths: w.paths, Mux: m}), m
}

// startEngine runs an engine on cfg (writing its snapshot file, re-syncing
// once a minute) until the test ends, and returns it once it has published
// its first snapshot. The engine must stop cleanly when the test ends.
func startEngine(ctx context.Context, t testing.TB, cfg supervisor.Config) *supervisor.Engine {
	t.Helper()
	cfg.WriteSnapshot, cfg.Resync = true, time.Minute
	e := supervisor.New(cfg)
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(ctx)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("engine: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("engine did not stop")
		}
	})
	waitSnap(t, e, "the first snapshot", 10*time.Second, func(s supervisor.Snapshot) bool { return s.Seq > 0 })
	return e
}

// waitSnap waits for a snapshot that satisfies cond and returns it.
func waitSnap(t testing.TB, e *supervisor.Engine, what string, d time.Duration, cond func(supervisor.Snapshot) bool) supervisor.Snapshot {
	t.Helper()
	ch, stop := e.Subscribe()
	defer stop()
	deadline := time.After(d)
	s := e.Current()
	for !cond(s) {
		select {
		case s = <-ch:
		case <-deadline:
			b, _ := json.MarshalIndent(e.Current(), "", "  ")
			t.Fatalf("timed out after %s waiting for %s; stats %+v; last snapshot:\n%s", d, what, e.Stats(), b)
		}
	}
	return s
}

func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// server is the world's tmux server.
func (w *world) server() tmuxServer { return tmuxServer{Name: w.name} }

// paneHasAgent: the pane runs an agent whose live file and crumb exist.
func paneHasAgent(s supervisor.Snapshot, id string) bool {
	p, ok := s.PaneByID(id)
	return ok && p.Agent != 0 && p.Session != nil && p.Session.Exists
}

// seedSession writes a session with one exchange in cwd and returns it.
func (w *world) seedSession(cwd, text string) (path, id string) {
	w.t.Helper()
	opt := session.Options{SessionsRoot: w.paths.Sessions, BlobDir: w.paths.Blobs, Home: w.home, TmpDir: os.TempDir()}
	m := session.Create(opt, cwd, "")
	now := time.Now().UnixMilli()
	user, _ := json.Marshal(map[string]any{"role": "user", "content": text, "timestamp": now})
	asst, _ := json.Marshal(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}},
		"provider": "test", "model": "seed", "stopReason": "stop", "timestamp": now})
	if _, err := m.AppendMessage(user); err != nil {
		w.t.Fatal(err)
	}
	if _, err := m.AppendMessage(asst); err != nil {
		w.t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		w.t.Fatal(err)
	}
	return m.SessionFile(), m.SessionID()
}
