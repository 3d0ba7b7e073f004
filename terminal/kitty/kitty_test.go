package kitty_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/terminal"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// launch opens a window that Cleanup closes.
func launch(t *testing.T, k *instance, s kitty.LaunchSpec) int {
	t.Helper()
	id, err := k.c.Launch(ctx(t), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.c.Close(context.Background(), id) })
	return id
}

func find(ws []kitty.Window, id int) (kitty.Window, bool) {
	for _, w := range ws {
		if w.ID == id {
			return w, true
		}
	}
	return kitty.Window{}, false
}

// environ reads the environment pid was started with.
func environ(t *testing.T, pid int) []string {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\x00")
}

func TestLaunchTwoAndList(t *testing.T) {
	t.Parallel()
	k := sharedKitty(t)
	c := ctx(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := launch(t, k, kitty.LaunchSpec{
		Cwd: dirA, Env: []string{"XCSH_AGENT=alpha é"}, Args: []string{"sleep", "300"}, Title: "agent-a",
	})
	b := launch(t, k, kitty.LaunchSpec{
		Type: kitty.TypeTab, Cwd: dirB, Env: []string{"XCSH_AGENT=beta"}, Args: []string{"sh", "-c", "sleep 301"},
		Title: "agent-b", TabTitle: "tab-b",
	})
	var err error
	if a == b || a <= 1 || b <= 1 {
		t.Fatalf("launch ids %d and %d", a, b)
	}
	var ws []kitty.Window
	waitFor(t, "both windows to list their foreground process", 10*time.Second, func() bool {
		ws, err = k.c.List(c)
		if err != nil {
			t.Fatal(err)
		}
		wa, okA := find(ws, a)
		wb, okB := find(ws, b)
		return okA && okB && len(wa.Foreground) > 0 && len(wb.Foreground) > 0 && wb.Command() == "sleep"
	})
	first, _ := find(ws, 1)
	wa, _ := find(ws, a)
	wb, _ := find(ws, b)
	for _, w := range []kitty.Window{first, wa, wb} {
		if !strings.HasPrefix(w.TTY, "/dev/pts/") || w.PID <= 0 || w.KittyPID != k.cmd.Process.Pid {
			t.Errorf("window %d: tty %q pid %d kitty %d (want kitty %d)", w.ID, w.TTY, w.PID, w.KittyPID, k.cmd.Process.Pid)
		}
	}
	if first.TTY == wa.TTY || wa.TTY == wb.TTY || first.TTY == wb.TTY {
		t.Errorf("ttys not distinct: %q %q %q", first.TTY, wa.TTY, wb.TTY)
	}
	// The pid kitty reports is the session leader of the window's tty.
	if fd0, err := os.Readlink("/proc/" + strconv.Itoa(wa.PID) + "/fd/0"); err != nil || fd0 != wa.TTY {
		t.Errorf("window %d: pid %d has stdin %q (%v), listed tty %q", a, wa.PID, fd0, err, wa.TTY)
	}
	if wa.Title != "agent-a" || wa.Cwd != dirA || wa.TabID != first.TabID || wa.OSWindowID != first.OSWindowID {
		t.Errorf("window a: %+v", wa)
	}
	if wb.Title != "agent-b" || wb.TabTitle != "tab-b" || wb.Cwd != dirB || wb.TabID == first.TabID {
		t.Errorf("window b: %+v", wb)
	}
	if !slices.Equal(wa.Cmdline, []string{"sleep", "300"}) && !strings.HasSuffix(strings.Join(wa.Cmdline, " "), "sleep 300") {
		t.Errorf("window a cmdline %q", wa.Cmdline)
	}
	if wa.Env["XCSH_AGENT"] != "alpha é" || wb.Env["XCSH_AGENT"] != "beta" {
		t.Errorf("listed env: a %v, b %v", wa.Env, wb.Env)
	}
	if !slices.Contains(environ(t, wa.PID), "XCSH_AGENT=alpha é") {
		t.Errorf("window a's process lacks the env it was launched with")
	}
	// b runs sh -c 'sleep 301': sh is the window's process, and sleep runs
	// in the foreground.
	if !slices.ContainsFunc(wb.Foreground, func(p kitty.Process) bool {
		return strings.Join(p.Cmdline, " ") == "sleep 301" && p.PID != wb.PID && p.Cwd == dirB
	}) {
		t.Errorf("window b foreground %+v", wb.Foreground)
	}
	// Launched without Focus: neither takes the focus nor is shown.
	if wa.Focused || wb.Focused || wa.Active || wb.Active {
		t.Errorf("launched windows took the focus: a %+v b %+v", wa, wb)
	}
	if got, err := k.c.Window(c, b); err != nil || got.ID != b {
		t.Errorf("Window(%d) = %+v, %v", b, got, err)
	}
	if _, err := k.c.Window(c, 999); !errors.Is(err, kitty.ErrNotFound) {
		t.Errorf("Window(999) = %v", err)
	}
}

func TestCloseRemovesWindow(t *testing.T) {
	t.Parallel()
	k := sharedKitty(t)
	c := ctx(t)
	id, err := k.c.Launch(c, kitty.LaunchSpec{Args: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := k.c.Window(c, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.c.Close(c, id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the window to leave the list", 5*time.Second, func() bool {
		alive, err := k.c.Alive(c, id)
		return err == nil && !alive
	})
	waitFor(t, "the window's process to end", 5*time.Second, func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(w.PID))
		return err != nil
	})
	if err := k.c.Close(c, id); !errors.Is(err, kitty.ErrNotFound) {
		t.Errorf("closing it again: %v, want ErrNotFound", err)
	}
	// A window whose command exits closes by itself; kitty says nothing.
	short, err := k.c.Launch(c, kitty.LaunchSpec{Args: []string{"sh", "-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the exited window to leave the list", 5*time.Second, func() bool {
		alive, err := k.c.Alive(c, short)
		return err == nil && !alive
	})
}

func TestFocus(t *testing.T) {
	t.Parallel()
	k := startKitty(t, kittyOpts{ownDisplay: true})
	c := ctx(t)
	a, err := k.c.Launch(c, kitty.LaunchSpec{Args: []string{"sleep", "300"}, Title: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.c.Launch(c, kitty.LaunchSpec{Type: kitty.TypeTab, Args: []string{"sleep", "300"}, Title: "b"})
	if err != nil {
		t.Fatal(err)
	}
	focused := func() []int {
		ws, err := k.c.List(c)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int
		for _, w := range ws {
			if w.Focused {
				ids = append(ids, w.ID)
			}
		}
		return ids
	}
	// The OS window's focus comes with X's focus event, which may follow
	// kitty's answer: the list is polled briefly.
	wantFocused := func(id int, what string) {
		t.Helper()
		var got []int
		deadline := time.Now().Add(3 * time.Second)
		for {
			if got = focused(); slices.Equal(got, []int{id}) {
				return
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		ws, _ := k.c.List(c)
		t.Errorf("%s the focused windows are %v, want [%d]: %+v", what, got, id, ws)
	}
	for _, id := range []int{b, a, b} {
		if err := k.c.Focus(c, id); err != nil {
			t.Fatal(err)
		}
		wantFocused(id, "after Focus("+strconv.Itoa(id)+")")
		w, _ := k.c.Window(c, id)
		if !w.Active {
			t.Errorf("window %d focused but not active", id)
		}
	}
	// a is the active window of the now inactive first tab: not focused
	// (kitty 0.26 says is_focused for it) and not shown.
	wa, _ := k.c.Window(c, a)
	if wa.Focused || wa.Active {
		t.Errorf("window a in the background tab: %+v", wa)
	}
	if err := k.c.Focus(c, 999); !errors.Is(err, kitty.ErrNotFound) {
		t.Errorf("Focus(999) = %v, want ErrNotFound", err)
	}
	// Launch with Focus takes the focus.
	d, err := k.c.Launch(c, kitty.LaunchSpec{Args: []string{"sleep", "300"}, Focus: true})
	if err != nil {
		t.Fatal(err)
	}
	wantFocused(d, "after Launch with Focus")

	// An OS window of its own; focus crosses OS windows both ways.
	o, err := k.c.Launch(c, kitty.LaunchSpec{Type: kitty.TypeOSWindow, Args: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	wo, err := k.c.Window(c, o)
	wd, _ := k.c.Window(c, d)
	if err != nil || wo.OSWindowID == wd.OSWindowID || !wo.Active || wo.TTY == "" {
		t.Errorf("os-window %d: %+v, %v (window %d: %+v)", o, wo, err, d, wd)
	}
	for _, id := range []int{o, a, o} {
		if err := k.c.Focus(c, id); err != nil {
			t.Fatal(err)
		}
		wantFocused(id, "after Focus("+strconv.Itoa(id)+") across OS windows")
	}
}

func TestRemoteControlDisabled(t *testing.T) {
	t.Parallel()
	k := startKitty(t, kittyOpts{noRemoteControl: true})
	_, err := k.c.List(ctx(t))
	if !errors.Is(err, kitty.ErrRemoteControlDisabled) {
		t.Fatalf("List with remote control off: %v", err)
	}
	help := kitty.SetupHelp(err)
	for _, want := range []string{"allow_remote_control socket-only\n", "listen_on unix:", "kitty.conf"} {
		if !strings.Contains(help, want) {
			t.Errorf("setup help lacks %q:\n%s", want, help)
		}
	}
}

// TestConfigSnippetWorks: the lines SetupHelp asks for turn remote control
// on, with the socket where DefaultListenOn says and KITTY_LISTEN_ON naming
// it in the windows.
func TestConfigSnippetWorks(t *testing.T) {
	t.Parallel()
	conf := kitty.ConfigSnippet(kitty.DefaultListenOn(func(string) string { return "/run/user/1" }))
	k := startKitty(t, kittyOpts{conf: conf, addr: func(runtimeDir string, pid int) string {
		return "unix:" + filepath.Join(runtimeDir, "kitty-"+strconv.Itoa(pid))
	}})
	c := ctx(t)
	ws, err := k.c.List(c)
	if err != nil || len(ws) != 1 {
		t.Fatalf("List over the configured socket: %v, %v", ws, err)
	}
	// The window's own environment names the socket; FromEnv finds it.
	var listenOn string
	for _, kv := range environ(t, ws[0].PID) {
		if v, ok := strings.CutPrefix(kv, "KITTY_LISTEN_ON="); ok {
			listenOn = v
		}
	}
	if listenOn != k.addr {
		t.Errorf("KITTY_LISTEN_ON in the window = %q, want %q", listenOn, k.addr)
	}
	fc, err := kitty.FromEnv(func(k string) string {
		if k == "KITTY_LISTEN_ON" {
			return listenOn
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fc.List(c); err != nil {
		t.Errorf("FromEnv client: %v", err)
	}
}

func TestSendAndGetText(t *testing.T) {
	t.Parallel()
	k := sharedKitty(t)
	c := ctx(t)
	id := launch(t, k, kitty.LaunchSpec{Args: []string{"sh"}})
	var err error
	// Arithmetic, so the echoed command line cannot satisfy the check.
	if err := k.c.SendText(c, id, "echo marker-$((6*7)) ünï\r"); err != nil {
		t.Fatal(err)
	}
	var text string
	waitFor(t, "the command's output", 5*time.Second, func() bool {
		text, err = k.c.GetText(c, id, 0)
		return err == nil && strings.Contains(text, "marker-42 ünï")
	})
	last, err := k.c.GetText(c, id, 2)
	if err != nil || !strings.Contains(last, "marker-42") || strings.Count(last, "\n") != 2 {
		t.Errorf("last 2 lines: %q, %v", last, err)
	}
	if err := k.c.SendText(c, 999, "x"); !errors.Is(err, kitty.ErrNotFound) {
		t.Errorf("SendText(999) = %v, want ErrNotFound", err)
	}
	if _, err := k.c.GetText(c, 999, 0); !errors.Is(err, kitty.ErrNotFound) {
		t.Errorf("GetText(999) = %v, want ErrNotFound", err)
	}
}

// detectIn runs the helper (terminal.Detect) in a new kitty window, through
// argv (nil: the helper directly), and returns its report and window.
func detectIn(t *testing.T, k *instance, argv func(exe string) []string, env ...string) (helperResult, kitty.Window) {
	t.Helper()
	c := ctx(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "identity.json")
	args := []string{exe}
	if argv != nil {
		args = argv(exe)
	}
	id := launch(t, k, kitty.LaunchSpec{
		Args: args, Env: append([]string{envHelper + "=detect", envOut + "=" + out}, env...),
	})
	waitFor(t, "the helper's report", 10*time.Second, func() bool { _, err := os.Stat(out); return err == nil })
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r helperResult
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	w, err := k.c.Window(c, id)
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// TestIdentityInKitty checks the identity rule against a real kitty:
// in a kitty window the key and token come from the window's tty and pid,
// and the overlay names the kitty and the window.
func TestIdentityInKitty(t *testing.T) {
	t.Parallel()
	k := sharedKitty(t)
	r, w := detectIn(t, k, nil)
	id := r.Identity
	if id.TTY != w.TTY || id.Key != strings.ReplaceAll(strings.TrimPrefix(w.TTY, "/dev/"), "/", "-") {
		t.Errorf("identity tty %q key %q; window tty %q", id.TTY, id.Key, w.TTY)
	}
	if id.Leader != w.PID || !strings.HasPrefix(id.Token, "sid="+strconv.Itoa(w.PID)+":") {
		t.Errorf("identity leader %d token %q; window pid %d", id.Leader, id.Token, w.PID)
	}
	want := terminal.Overlay{
		Kind: "kitty", ID: "kitty:" + strconv.Itoa(w.KittyPID) + ":" + strconv.Itoa(w.ID),
		Socket: k.addr, PID: w.KittyPID, Pane: strconv.Itoa(w.ID), VerifiedBy: terminal.VerifiedByProcessTree,
	}
	if id.Overlay == nil || *id.Overlay != want {
		t.Errorf("overlay %+v, want %+v", id.Overlay, want)
	}
}

// TestIdentityTmuxInKitty: tmux inside kitty is tmux, although the pane
// inherits KITTY_WINDOW_ID and KITTY_LISTEN_ON.
func TestIdentityTmuxInKitty(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	k := sharedKitty(t)
	tmpdir, err := os.MkdirTemp("", "xkt")
	if err != nil {
		t.Fatal(err)
	}
	name := "xcsh-kitty-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", name, "kill-server")
		cmd.Env = append(k.env, "TMUX_TMPDIR="+tmpdir)
		_ = cmd.Run()
		_ = os.RemoveAll(tmpdir)
	})
	r, w := detectIn(t, k, func(exe string) []string {
		return []string{"tmux", "-L", name, "-f", "/dev/null", "new-session", "-s", "main", "'" + exe + "'"}
	}, "TMUX_TMPDIR="+tmpdir)
	id := r.Identity
	if id.Overlay == nil || id.Overlay.Kind != "tmux" || !strings.HasPrefix(id.Overlay.Pane, "%") {
		t.Fatalf("overlay in tmux in kitty: %+v", id.Overlay)
	}
	if id.TTY == "" || id.TTY == w.TTY {
		t.Errorf("identity tty %q: want the tmux pane's, not kitty window's %q", id.TTY, w.TTY)
	}
	if !slices.Contains(environ(t, w.PID), "KITTY_WINDOW_ID="+strconv.Itoa(w.ID)) {
		t.Errorf("the tmux client in window %d lacks KITTY_WINDOW_ID", w.ID)
	}
}
