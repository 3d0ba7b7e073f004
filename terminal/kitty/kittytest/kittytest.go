// Package kittytest runs a real kitty under Xvfb for tests: an X server on
// a free display, a private kitty on it that answers on a socket of its
// own, and the skip (or, with XCSH_KITTY_REQUIRED set, the failure) when
// kitty or Xvfb cannot start here.
package kittytest

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

	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// EnvRequired, when set, turns "kitty cannot start here" from a skip into
// a failure.
const EnvRequired = "XCSH_KITTY_REQUIRED"

// CannotRun says why kitty cannot run here: the tests skip then (or fail
// when XCSH_KITTY_REQUIRED is set).
type CannotRun struct{ Why string }

func (e *CannotRun) Error() string { return e.Why }

// Cannot returns a *CannotRun.
func Cannot(format string, args ...any) error { return &CannotRun{fmt.Sprintf(format, args...)} }

// SkipOrFail skips t when err is a *CannotRun and XCSH_KITTY_REQUIRED is
// not set; otherwise it fails t.
func SkipOrFail(t testing.TB, err error) {
	t.Helper()
	var cr *CannotRun
	if !errors.As(err, &cr) {
		t.Fatal(err)
	}
	if os.Getenv(EnvRequired) != "" {
		t.Fatalf("kitty is required (%s is set): %v", EnvRequired, err)
	}
	t.Skipf("skipping: %v", err)
}

// NeedKitty returns a *CannotRun when kitty is not installed.
func NeedKitty() error {
	if _, err := exec.LookPath("kitty"); err != nil {
		return Cannot("kitty is not installed (apt-get install kitty xvfb)")
	}
	return nil
}

// Xvfb is an X server started by StartXvfb.
type Xvfb struct {
	Display string // ":N"
	cmd     *exec.Cmd
}

// StartXvfb starts Xvfb on a free display: it picks one and reports it on
// -displayfd.
func StartXvfb() (*Xvfb, error) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return nil, Cannot("Xvfb is not installed (apt-get install xvfb)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return nil, Cannot("start Xvfb: %v", err)
	}
	x := &Xvfb{cmd: cmd}
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n != "" {
			x.Display = ":" + n
			return x, nil
		}
		err = Cannot("Xvfb exited without reporting a display")
	case <-time.After(15 * time.Second):
		err = Cannot("Xvfb reported no display within 15s")
	}
	x.Stop()
	return nil, err
}

// Stop kills the X server.
func (x *Xvfb) Stop() {
	_ = x.cmd.Process.Kill()
	_ = x.cmd.Wait()
}

// Environ returns env without what ties a process to the caller's
// terminal, multiplexer or display (KITTY_*, TMUX*, WEZTERM_*, DISPLAY,
// WAYLAND_DISPLAY, XDG_CONFIG_HOME and TERM) and without the keys in drop.
func Environ(env []string, drop ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KITTY_") || strings.HasPrefix(k, "TMUX") || strings.HasPrefix(k, "WEZTERM_") {
			continue
		}
		switch k {
		case "DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME", "TERM":
			continue
		}
		dropped := false
		for _, d := range drop {
			if k == d {
				dropped = true
				break
			}
		}
		if !dropped {
			out = append(out, kv)
		}
	}
	return out
}

// Options configure a private kitty.
type Options struct {
	// Display is the X display kitty runs on. Start, when it is empty,
	// runs kitty on an X server of its own: without a window manager, any
	// kitty OS window that opens on a display takes the keyboard focus
	// from the others.
	Display string
	// Env is the environment of kitty, and so of its windows, used as
	// given (see Environ) plus DISPLAY and XDG_CONFIG_HOME of its own.
	Env []string
	// RuntimeDir adds XDG_RUNTIME_DIR=<scratch>/run to Env.
	RuntimeDir bool
	// ScratchHome adds HOME=<scratch> to Env.
	ScratchHome bool
	// NoRemoteControl starts kitty with --listen-on but without
	// allow_remote_control.
	NoRemoteControl bool
	// Conf, when set, is the kitty.conf kitty reads instead of the command
	// line's --config NONE, --listen-on and allow_remote_control; Addr says
	// where it makes kitty listen (runtimeDir is <scratch>/run).
	Conf string
	Addr func(runtimeDir string, kittyPID int) string
	// Args holds more of kitty's command line: options, then the first
	// window's program.
	Args []string
}

// Kitty is a private kitty: its own socket and environment.
type Kitty struct {
	Client *kitty.Client
	Addr   string // "unix:<scratch>/kitty.sock" unless Options.Addr says otherwise
	Dir    string // scratch
	Env    []string
	Cmd    *exec.Cmd
	Log    string // kitty's output

	exited chan struct{} // closed when kitty has exited
}

// Start starts a private kitty for t (on an X server of its own unless
// o.Display is set), stopped in Cleanup; it skips or fails t, as
// SkipOrFail, when kitty cannot start.
func Start(t testing.TB, o Options) *Kitty {
	t.Helper()
	if err := NeedKitty(); err != nil {
		SkipOrFail(t, err)
	}
	if o.Display == "" {
		x, err := StartXvfb()
		if err != nil {
			SkipOrFail(t, err)
		}
		t.Cleanup(x.Stop)
		o.Display = x.Display
	}
	k, err := Launch(o)
	if err != nil {
		SkipOrFail(t, err)
	}
	t.Cleanup(k.Stop)
	return k
}

// Launch starts kitty on X display o.Display, listening on a private
// socket, and returns once it answers with its first window listed; with
// o.NoRemoteControl, once the first window's process runs.
func Launch(o Options) (*Kitty, error) {
	// A short path: a unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "xk")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "kitty.sock")
	runtimeDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	env := append(append([]string(nil), o.Env...), "DISPLAY="+o.Display, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	if o.ScratchHome {
		env = append(env, "HOME="+dir)
	}
	if o.RuntimeDir {
		env = append(env, "XDG_RUNTIME_DIR="+runtimeDir)
	}
	var args []string
	if o.Conf != "" {
		conf := filepath.Join(dir, "kitty.conf")
		if err := os.WriteFile(conf, []byte(o.Conf), 0o600); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		args = []string{"--config", conf}
	} else {
		args = []string{"--config", "NONE", "--listen-on", "unix:" + sock}
		if !o.NoRemoteControl {
			args = append(args, "-o", "allow_remote_control=socket-only")
		}
	}
	args = append(args, "-o", "linux_display_server=x11", "-o", "shell=/bin/sh", "-o", "confirm_os_window_close=0")
	args = append(args, o.Args...)
	k := &Kitty{Addr: "unix:" + sock, Dir: dir, Env: env, Log: filepath.Join(dir, "kitty.log"), exited: make(chan struct{})}
	logf, err := os.Create(k.Log)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command("kitty", args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, Cannot("start kitty: %v", err)
	}
	k.Cmd = cmd
	if o.Addr != nil {
		k.Addr = o.Addr(runtimeDir, cmd.Process.Pid)
	}
	go func() { _ = cmd.Wait(); close(k.exited) }()
	if k.Client, err = kitty.New(k.Addr); err != nil {
		k.Stop()
		return nil, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-k.exited:
			err := Cannot("kitty exited at start: %s", k.LogTail())
			k.Stop()
			return nil, err
		default:
		}
		if time.Now().After(deadline) {
			err := Cannot("kitty did not come up within 20s: %s", k.LogTail())
			k.Stop()
			return nil, err
		}
		if o.NoRemoteControl {
			// No socket will appear: wait for the first window's process.
			if HasChild(cmd.Process.Pid) {
				return k, nil
			}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			ws, err := k.Client.List(ctx)
			cancel()
			if err == nil && len(ws) > 0 && ws[0].TTY != "" {
				return k, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends kitty: SIGTERM lets it close its windows (their processes get
// SIGHUP); only if it lingers is it killed. It removes the scratch dir.
func (k *Kitty) Stop() {
	_ = k.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exited:
	case <-time.After(5 * time.Second):
		_ = k.Cmd.Process.Kill()
		<-k.exited
	}
	_ = os.RemoveAll(k.Dir)
}

// LogTail returns the last 600 bytes of kitty's output.
func (k *Kitty) LogTail() string {
	data, _ := os.ReadFile(k.Log)
	s := strings.TrimSpace(string(data))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return "(empty log)"
	}
	return s
}

// HasChild reports whether pid has a child process that is not the
// prewarm zygote kitty forks for kittens: for a kitty, whether it runs a
// window's process.
func HasChild(pid int) bool {
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
