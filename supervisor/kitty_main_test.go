package supervisor_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// The kitty tests run a real kitty under Xvfb, as terminal/kitty's tests do
// (their helpers, trimmed). Where kitty or Xvfb cannot start they skip and
// say why, unless XCSH_KITTY_REQUIRED is set.
const envKittyRequired = "XCSH_KITTY_REQUIRED"

// kittyCannot says why kitty cannot run here.
type kittyCannot struct{ why string }

func (e *kittyCannot) Error() string { return e.why }

func cannotKitty(format string, args ...any) error {
	return &kittyCannot{fmt.Sprintf(format, args...)}
}

func skipOrFailKitty(t testing.TB, err error) {
	t.Helper()
	var kc *kittyCannot
	if !errors.As(err, &kc) {
		t.Fatal(err)
	}
	if os.Getenv(envKittyRequired) != "" {
		t.Fatalf("kitty is required (%s is set): %v", envKittyRequired, err)
	}
	t.Skipf("skipping: %v", err)
}

// startXvfbFor starts an X server on a free display (Xvfb picks it and
// reports it on -displayfd), stopped in Cleanup.
func startXvfbFor(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		skipOrFailKitty(t, cannotKitty("Xvfb is not installed (apt-get install xvfb)"))
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	w.Close()
	if err != nil {
		skipOrFailKitty(t, cannotKitty("start Xvfb: %v", err))
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			skipOrFailKitty(t, cannotKitty("Xvfb exited without reporting a display"))
		}
		return ":" + n
	case <-time.After(15 * time.Second):
		skipOrFailKitty(t, cannotKitty("Xvfb reported no display within 15s"))
	}
	return ""
}

// kittyInstance is a private kitty: its own X display, socket and
// environment, stopped in Cleanup.
type kittyInstance struct {
	addr   string // "unix:<dir>/kitty.sock"
	dir    string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
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
	if _, err := exec.LookPath("kitty"); err != nil {
		skipOrFailKitty(t, cannotKitty("kitty is not installed (apt-get install kitty xvfb)"))
	}
	disp := startXvfbFor(t)
	// A short path: a unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "xsk")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "kitty.sock")
	var env []string
	for _, kv := range o.env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KITTY_") || strings.HasPrefix(k, "TMUX") || strings.HasPrefix(k, "WEZTERM_") {
			continue
		}
		switch k {
		case "DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME", "TERM":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "DISPLAY="+disp, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	args := []string{
		"--config", "NONE", "--listen-on", "unix:" + sock,
		"-o", "linux_display_server=x11", "-o", "shell=/bin/sh", "-o", "confirm_os_window_close=0",
		// Nothing to draw while nothing changes: the CPU figures are the
		// polling's, not a blinking cursor's.
		"-o", "cursor_blink_interval=0",
	}
	if !o.noRemoteControl {
		args = append(args, "-o", "allow_remote_control=socket-only")
	}
	args = append(args, o.args...)
	in := &kittyInstance{addr: "unix:" + sock, dir: dir, log: filepath.Join(dir, "kitty.log"), exited: make(chan struct{})}
	logf, err := os.Create(in.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command("kitty", args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		skipOrFailKitty(t, cannotKitty("start kitty: %v", err))
	}
	in.cmd = cmd
	go func() { _ = cmd.Wait(); close(in.exited) }()
	t.Cleanup(in.stop)
	c, err := kitty.New(in.addr)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-in.exited:
			skipOrFailKitty(t, cannotKitty("kitty exited at start: %s", in.logTail()))
		default:
		}
		if time.Now().After(deadline) {
			skipOrFailKitty(t, cannotKitty("kitty did not come up within 20s: %s", in.logTail()))
		}
		if o.noRemoteControl {
			if kittyHasWindow(cmd.Process.Pid) {
				return in
			}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			ws, err := c.List(ctx)
			cancel()
			if err == nil && len(ws) > 0 && ws[0].TTY != "" {
				return in
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends kitty: SIGTERM closes its windows (their processes get
// SIGHUP); a kitty that lingers is killed.
func (in *kittyInstance) stop() {
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.exited:
	case <-time.After(5 * time.Second):
		_ = in.cmd.Process.Kill()
		<-in.exited
	}
	_ = os.RemoveAll(in.dir)
}

func (in *kittyInstance) logTail() string {
	data, _ := os.ReadFile(in.log)
	s := strings.TrimSpace(string(data))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return "(empty log)"
	}
	return s
}

// kittyHasWindow reports whether kitty (pid) runs a window's process: a
// child that is not kitty itself (the prewarm zygote it forks for kittens).
func kittyHasWindow(pid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == fmt.Sprint(pid) && !strings.Contains(s[:i], "kitty") {
			return true
		}
	}
	return false
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
	e := supervisor.New(supervisor.Config{Paths: w.paths, Mux: w.newMux(), Muxes: more, WriteSnapshot: true, Resync: time.Minute})
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(ctx)
	go func() { done <- e.Run(ctx) }()
	w.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				w.t.Errorf("engine: %v", err)
			}
		case <-time.After(10 * time.Second):
			w.t.Error("engine did not stop")
		}
	})
	waitSnap(w.t, e, "the first snapshot", 10*time.Second, func(s supervisor.Snapshot) bool { return s.Seq > 0 })
	return e
}

// seedSession writes a session with one exchange in cwd and returns it.
func (w *kworld) seedSession(cwd, text string) (path, id string) {
	w.t.Helper()
	ww := &world{t: w.t, home: w.home, paths: w.paths}
	return ww.seedSession(cwd, text)
}
