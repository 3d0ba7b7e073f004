package supervisor_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/kitty/kittytest"
)

// The kitty tests run a real kitty under Xvfb (kittytest). Where kitty or
// Xvfb cannot start they skip and say why, unless XCSH_KITTY_REQUIRED is
// set.

// kittyInstance is a private kitty: its own X display, socket and
// environment, stopped in Cleanup.
type kittyInstance struct {
	addr string // "unix:<dir>/kitty.sock"
	cmd  *exec.Cmd
}

// kittyOptions configure startKittyFor.
type kittyOptions struct {
	// env is the environment of kitty and so of its windows (its
	// KITTY_*, TMUX*, DISPLAY and XDG_CONFIG_HOME are replaced).
	env []string
	// noRemoteControl starts kitty with --listen-on but without
	// allow_remote_control.
	noRemoteControl bool
	// args, when set, is the first window's program.
	args []string
}

// startKittyFor starts kitty on an X server of its own (without a window
// manager, an OS window that opens takes the focus from the others, so a
// test that looks at focus wants no other kitty there) and returns once it
// answers with its first window listed; with noRemoteControl, once the
// first window runs.
func startKittyFor(t testing.TB, o kittyOptions) *kittyInstance {
	t.Helper()
	if testing.Short() {
		t.Skip("real-kitty test; skipped with -short")
	}
	k := kittytest.Start(t, kittytest.Options{
		Env:             kittytest.Environ(o.env),
		NoRemoteControl: o.noRemoteControl,
		// Nothing to draw while nothing changes: the CPU figures are the
		// polling's, not a blinking cursor's.
		Args: append([]string{"-o", "cursor_blink_interval=0"}, o.args...),
	})
	return &kittyInstance{addr: k.Addr, cmd: k.Cmd}
}

// kworld is one kitty test's agent dir and kitty, with the supervisor's
// kitty back end and actions on it.
type kworld struct {
	t     testing.TB
	home  string
	proj  string
	paths config.Paths
	env   []string
	k     *kittyInstance
	mux   *supervisor.Kitty
	act   *supervisor.Actions
}

// newKittyWorld starts a kitty whose windows run /bin/sh in a HOME and
// agent dir of the test's own; the actions run the real xcsh.
func newKittyWorld(t testing.TB) *kworld {
	t.Helper()
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
		case "HOME", "SHELL", "XCSH_AGENT_DIR", "PI_CODING_AGENT_DIR", "PI_CONFIG_DIR", "XDG_DATA_HOME", "XDG_STATE_HOME",
			"XDG_RUNTIME_DIR", "WT_SESSION", "TERM_SESSION_ID", "WEZTERM_PANE", "ENV":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "SHELL=/bin/sh", "PS1=$ ", "HISTFILE=", "XCSH_AGENT_DIR="+agentDir,
		"GORACE=atexit_sleep_ms=0", "XCSH_TEST_SELF="+self)
	w := &kworld{t: t, home: home, proj: proj, env: env, paths: config.Config{AgentDir: agentDir}.Resolve()}
	w.k = startKittyFor(t, kittyOptions{env: env})
	w.mux = w.newMux()
	w.act = &supervisor.Actions{
		Paths: w.paths, Mux: w.mux,
		Session:      session.Options{Home: home, TmpDir: os.TempDir()},
		AgentCommand: []string{xcshBin},
	}
	return w
}

func (w *kworld) newMux() *supervisor.Kitty {
	w.t.Helper()
	m, err := supervisor.NewKitty(w.k.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = m.Close() })
	return m
}

// engine starts an engine on a kitty back end of its own (plus more) and
// returns it once it has published its first snapshot.
func (w *kworld) engine(ctx context.Context, more ...supervisor.Multiplexer) *supervisor.Engine {
	w.t.Helper()
	return startEngine(ctx, w.t, supervisor.Config{Paths: w.paths, Mux: w.newMux(), Muxes: more})
}

// seedSession writes a session with one exchange in cwd and returns it.
func (w *kworld) seedSession(cwd, text string) (path, id string) {
	w.t.Helper()
	ww := &world{t: w.t, home: w.home, paths: w.paths}
	return ww.seedSession(cwd, text)
}
