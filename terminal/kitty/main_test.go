package kitty_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/terminal"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// Environment of the helper process: the test binary re-executed in a kitty
// window (or a tmux pane inside one), standing in for xcsh.
const (
	envHelper = "XCSH_KITTY_TEST_HELPER" // "detect"
	envOut    = "XCSH_KITTY_TEST_OUT"    // result file (JSON helperResult)
	// envRequired turns "kitty cannot start here" from a skip into a failure.
	envRequired = "XCSH_KITTY_REQUIRED"
)

// helperResult is what a helper process reports.
type helperResult struct {
	Identity  terminal.Identity `json:"identity"`
	DetectErr string            `json:"detectErr,omitempty"`
}

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "detect" {
		os.Exit(helperMain())
	}
	code := m.Run()
	stopShared()
	stopXvfb()
	os.Exit(code)
}

// helperMain reports this terminal's identity, then stays, so the window
// stays listed, until the test closes the window.
func helperMain() int {
	id, err := terminal.Detect(nil)
	r := helperResult{Identity: id}
	if err != nil {
		r.DetectErr = err.Error()
	}
	data, _ := json.Marshal(r)
	out := os.Getenv(envOut)
	if err := os.WriteFile(out+".tmp", data, 0o600); err != nil {
		return 1
	}
	if err := os.Rename(out+".tmp", out); err != nil {
		return 1
	}
	time.Sleep(time.Minute)
	return 0
}

// xserver is an Xvfb started by the tests.
type xserver struct {
	display string // ":N"
	cmd     *exec.Cmd
}

// startXvfb starts Xvfb on a free display: it picks one and reports it on
// -displayfd.
func startXvfb() (*xserver, error) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return nil, cannot("Xvfb is not installed (apt-get install xvfb)")
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
		return nil, cannot("start Xvfb: %v", err)
	}
	x := &xserver{cmd: cmd}
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n != "" {
			x.display = ":" + n
			return x, nil
		}
		err = cannot("Xvfb exited without reporting a display")
	case <-time.After(15 * time.Second):
		err = cannot("Xvfb reported no display within 15s")
	}
	x.stop()
	return nil, err
}

func (x *xserver) stop() {
	_ = x.cmd.Process.Kill()
	_ = x.cmd.Wait()
}

// sharedX is the X server of the shared kitty and of the tests that do not
// look at focus; TestMain stops it.
var sharedX struct {
	once sync.Once
	x    *xserver
	err  error
}

func sharedDisplay() (string, error) {
	sharedX.once.Do(func() { sharedX.x, sharedX.err = startXvfb() })
	if sharedX.err != nil {
		return "", sharedX.err
	}
	return sharedX.x.display, nil
}

func stopXvfb() {
	if sharedX.x != nil {
		sharedX.x.stop()
	}
}

// instance is a private kitty for one test: its own socket, an environment
// without the caller's kitty or tmux, stopped in Cleanup.
type instance struct {
	c    *kitty.Client
	addr string
	dir  string // scratch; HOME of kitty
	env  []string
	cmd  *exec.Cmd
	log  *os.File

	exited chan struct{} // closed when kitty has exited
}

// cannotRun says why kitty cannot run here: the tests skip then (or fail
// when XCSH_KITTY_REQUIRED is set).
type cannotRun struct{ why string }

func (e *cannotRun) Error() string { return e.why }

func cannot(format string, args ...any) error { return &cannotRun{fmt.Sprintf(format, args...)} }

// kittyOpts configure a private kitty.
type kittyOpts struct {
	// ownDisplay runs kitty on an X server of its own: without a window
	// manager, any kitty OS window that opens on a display takes the
	// keyboard focus from the others.
	ownDisplay bool
	// noRemoteControl starts kitty with --listen-on but without
	// allow_remote_control.
	noRemoteControl bool
	// conf, when set, is the kitty.conf kitty reads instead of the command
	// line's --config NONE, --listen-on and allow_remote_control, with
	// XDG_RUNTIME_DIR set to <scratch>/run; addr says where it makes kitty
	// listen.
	conf string
	addr func(runtimeDir string, kittyPID int) string
	// extra holds more command line options.
	extra []string
}

// startKitty starts a private kitty for t, stopped in Cleanup; see
// launchKitty.
func startKitty(t testing.TB, o kittyOpts) *instance {
	t.Helper()
	if err := needKitty(); err != nil {
		skipOrFail(t, err)
	}
	var disp string
	var err error
	if o.ownDisplay {
		var x *xserver
		if x, err = startXvfb(); err == nil {
			t.Cleanup(x.stop)
			disp = x.display
		}
	} else {
		disp, err = sharedDisplay()
	}
	if err != nil {
		skipOrFail(t, err)
	}
	in, err := launchKitty(disp, o)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(in.stop)
	return in
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	var cr *cannotRun
	if !errors.As(err, &cr) {
		t.Fatal(err)
	}
	if os.Getenv(envRequired) != "" {
		t.Fatalf("kitty is required (%s is set): %v", envRequired, err)
	}
	t.Skipf("skipping: %v", err)
}

func needKitty() error {
	if _, err := exec.LookPath("kitty"); err != nil {
		return cannot("kitty is not installed (apt-get install kitty xvfb)")
	}
	return nil
}

// shared is one kitty for the tests that neither need the focus to stay put
// nor disturb it (their windows are launched without Focus): kitty takes
// about 3 s to start on a loaded 2-CPU machine. TestMain stops it.
var shared struct {
	once sync.Once
	in   *instance
	err  error
}

func sharedKitty(t testing.TB) *instance {
	t.Helper()
	shared.once.Do(func() {
		if shared.err = needKitty(); shared.err != nil {
			return
		}
		var disp string
		if disp, shared.err = sharedDisplay(); shared.err == nil {
			shared.in, shared.err = launchKitty(disp, kittyOpts{})
		}
	})
	if shared.err != nil {
		skipOrFail(t, shared.err)
	}
	return shared.in
}

func stopShared() {
	if shared.in != nil {
		shared.in.stop()
	}
}

// launchKitty starts kitty on X display disp, listening on a private
// socket, and returns once it answers with its first window listed; with
// o.noRemoteControl, once the first window's process runs.
func launchKitty(disp string, o kittyOpts) (*instance, error) {
	// A short path: a unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "xk")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "kitty.sock")
	runtimeDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		return nil, err
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KITTY_") || strings.HasPrefix(k, "TMUX") || strings.HasPrefix(k, "WEZTERM_") {
			continue
		}
		switch k {
		case "DISPLAY", "WAYLAND_DISPLAY", "HOME", "SHELL", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "TERM":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "DISPLAY="+disp, "HOME="+dir, "SHELL=/bin/sh",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_RUNTIME_DIR="+runtimeDir)
	args := []string{"-o", "linux_display_server=x11", "-o", "shell=/bin/sh", "-o", "confirm_os_window_close=0"}
	switch {
	case o.conf != "":
		conf := filepath.Join(dir, "kitty.conf")
		if err := os.WriteFile(conf, []byte(o.conf), 0o600); err != nil {
			return nil, err
		}
		args = append([]string{"--config", conf}, args...)
	case o.noRemoteControl:
		args = append([]string{"--config", "NONE", "--listen-on", "unix:" + sock}, args...)
	default:
		args = append([]string{"--config", "NONE", "--listen-on", "unix:" + sock, "-o", "allow_remote_control=socket-only"}, args...)
	}
	args = append(args, o.extra...)
	log, err := os.Create(filepath.Join(dir, "kitty.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("kitty", args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		_ = os.RemoveAll(dir)
		return nil, cannot("start kitty: %v", err)
	}
	in := &instance{addr: "unix:" + sock, dir: dir, env: env, cmd: cmd, log: log, exited: make(chan struct{})}
	if o.addr != nil {
		in.addr = o.addr(runtimeDir, cmd.Process.Pid)
	}
	go func() { _ = cmd.Wait(); close(in.exited) }()
	if in.c, err = kitty.New(in.addr); err != nil {
		in.stop()
		return nil, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-in.exited:
			err := cannot("kitty exited at start: %s", in.logTail())
			in.stop()
			return nil, err
		default:
		}
		if time.Now().After(deadline) {
			err := cannot("kitty did not come up within 20s: %s", in.logTail())
			in.stop()
			return nil, err
		}
		if o.noRemoteControl {
			// No socket will appear: wait for the first window's process.
			if hasChild(cmd.Process.Pid) {
				return in, nil
			}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			ws, err := in.c.List(ctx)
			cancel()
			if err == nil && len(ws) > 0 && ws[0].TTY != "" {
				return in, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends kitty: SIGTERM lets it close its windows (their processes get
// SIGHUP); only if it lingers is it killed.
func (in *instance) stop() {
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.exited:
	case <-time.After(5 * time.Second):
		_ = in.cmd.Process.Kill()
		<-in.exited
	}
	in.log.Close()
	_ = os.RemoveAll(in.dir)
}

func (in *instance) logTail() string {
	data, _ := os.ReadFile(in.log.Name())
	s := strings.TrimSpace(string(data))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return "(empty log)"
	}
	return s
}

// hasChild reports whether pid has a child process that is not the prewarm
// zygote kitty forks for kittens.
func hasChild(pid int) bool {
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
