package cmd

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

func skipOrFailKitty(t *testing.T, err error) {
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
func startXvfbFor(t *testing.T) string {
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

// kittyInstance is a private kitty on an X server of its own, stopped in
// Cleanup.
type kittyInstance struct {
	addr   string // "unix:<dir>/kitty.sock"
	dir    string
	env    []string // kitty's environment, and so its windows'
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// startKittyFor starts kitty in environment env (plus DISPLAY,
// XDG_CONFIG_HOME and XDG_RUNTIME_DIR of its own), its first window running
// args (the shell when none). With remote control on it returns once kitty
// answers with that window listed; without, once the window runs.
func startKittyFor(t *testing.T, env []string, remoteControl bool, args ...string) *kittyInstance {
	t.Helper()
	if testing.Short() {
		t.Skip("real-kitty test; skipped with -short")
	}
	if _, err := exec.LookPath("kitty"); err != nil {
		skipOrFailKitty(t, cannotKitty("kitty is not installed (apt-get install kitty xvfb)"))
	}
	disp := startXvfbFor(t)
	// A short path: a unix socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "xck")
	if err != nil {
		t.Fatal(err)
	}
	runtimeDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	in := &kittyInstance{
		addr: "unix:" + filepath.Join(dir, "kitty.sock"), dir: dir, log: filepath.Join(dir, "kitty.log"),
		exited: make(chan struct{}),
		env: append(append([]string(nil), env...), "DISPLAY="+disp,
			"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_RUNTIME_DIR="+runtimeDir),
	}
	kargs := []string{
		"--config", "NONE", "--listen-on", in.addr,
		"-o", "linux_display_server=x11", "-o", "shell=/bin/sh", "-o", "confirm_os_window_close=0",
	}
	if remoteControl {
		kargs = append(kargs, "-o", "allow_remote_control=socket-only")
	}
	kargs = append(kargs, args...)
	logf, err := os.Create(in.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command("kitty", kargs...)
	cmd.Dir, cmd.Env = dir, in.env
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
		if !remoteControl {
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
