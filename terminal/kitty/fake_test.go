package kitty_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// fakeKitty is a unix socket that answers like kitty: it reads a connection
// to its end (so a client that does not half-close hangs, as with kitty
// 0.26) and replies what reply returns; nil closes without a reply.
type fakeKitty struct {
	addr string
	mu   sync.Mutex
	reqs [][]byte
}

func newFake(t *testing.T, reply func(req []byte) []byte) *fakeKitty {
	t.Helper()
	dir, err := os.MkdirTemp("", "xkf")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "k.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeKitty{addr: "unix:" + sock}
	t.Cleanup(func() { ln.Close(); os.RemoveAll(dir) })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				req, _ := io.ReadAll(conn)
				f.mu.Lock()
				f.reqs = append(f.reqs, req)
				f.mu.Unlock()
				if r := reply(req); r != nil {
					_, _ = conn.Write(r)
				}
			}()
		}
	}()
	return f
}

func (f *fakeKitty) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.reqs...)
}

func frame(js string) []byte { return []byte("\x1bP@kitty-cmd" + js + "\x1b\\") }

func quickCtx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestFakeFramingAndErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(req []byte) []byte {
		switch {
		case bytes.Contains(req, []byte(`"cmd":"launch"`)):
			return frame(`{"ok": true, "data": "7"}`)
		case bytes.Contains(req, []byte(`"cmd":"focus-window"`)):
			return frame(`{"ok": false, "error": "No matching windows for expression: id:99"}`)
		case bytes.Contains(req, []byte(`"cmd":"close-window"`)):
			return frame(`{"ok": false, "error": "Remote control is disabled. Add allow_remote_control to your kitty.conf"}`)
		case bytes.Contains(req, []byte(`"cmd":"send-text"`)):
			return nil // success is silence
		case bytes.Contains(req, []byte(`"cmd":"get-text"`)):
			// Replies may arrive in pieces and after noise.
			return append([]byte("\x1b[?25h"), frame(`{"ok": true, "data": "a\nb\nc\n\n"}`)...)
		}
		return frame(`{"ok": false, "error": "'Unknown kitty remote control command'", "tb": "Traceback ..."}`)
	})
	c, err := kitty.New(f.addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx := quickCtx(t)
	id, err := c.Launch(ctx, kitty.LaunchSpec{Type: kitty.TypeTab, Cwd: "/tmp", Env: []string{"A=é"}, Args: []string{"sleep", "1"}, Title: "agent"})
	if err != nil || id != 7 {
		t.Fatalf("Launch = %d, %v", id, err)
	}
	req := string(f.requests()[0])
	for _, want := range []string{
		"\x1bP@kitty-cmd{", `"version":[0,26,0]`, `"window_title":"agent"`, `"keep_focus":true`,
		`"env":["A=\u00e9"]`, `"type":"tab"`, `"args":["sleep","1"]`,
	} {
		if !strings.Contains(req, want) {
			t.Errorf("launch request lacks %q: %q", want, req)
		}
	}
	if !strings.HasSuffix(req, "}\x1b\\") {
		t.Errorf("launch request not terminated: %q", req)
	}

	if err := c.Focus(ctx, 99); !errors.Is(err, kitty.ErrNotFound) {
		t.Errorf("Focus(99) = %v, want ErrNotFound", err)
	}
	err = c.Close(ctx, 1)
	if !errors.Is(err, kitty.ErrRemoteControlDisabled) || kitty.SetupHelp(err) == "" {
		t.Errorf("Close on a refusing kitty = %v, help %q", err, kitty.SetupHelp(err))
	}
	if err := c.SendText(ctx, 1, strings.Repeat("x", 2500)+"\r"); err != nil {
		t.Errorf("SendText: %v", err)
	}
	if got := bytes.Count(f.requests()[3], []byte(`"cmd":"send-text"`)); got != 3 {
		t.Errorf("2501 bytes went as %d send-text commands, want 3", got)
	}
	if s, err := c.GetText(ctx, 1, 2); err != nil || s != "b\nc\n" {
		t.Errorf("GetText = %q, %v", s, err)
	}
	_, err = c.Call(ctx, "nonexistent", nil)
	var ke *kitty.Error
	if !errors.As(err, &ke) || ke.Traceback == "" || ke.Cmd != "nonexistent" {
		t.Errorf("unknown command: %#v", err)
	}
	if c.Calls() != 6 {
		t.Errorf("Calls = %d, want 6", c.Calls())
	}
}

func TestFakeNoReplyAndTimeout(t *testing.T) {
	t.Parallel()
	f := newFake(t, func([]byte) []byte { return nil })
	c, _ := kitty.New(f.addr)
	if _, err := c.List(quickCtx(t)); !errors.Is(err, kitty.ErrNoResponse) {
		t.Errorf("List with no reply: %v", err)
	}

	// A kitty that accepts and never answers: the context ends the call.
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			time.Sleep(3 * time.Second)
			conn.Close()
		}
	}()
	c2, _ := kitty.New("unix:" + filepath.Join(dir, "s"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c2.List(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hung kitty: %v", err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond { // the fake holds it 3 s
		t.Errorf("hung kitty held the call %s", d)
	}
}

func TestNoSocketIsSetupHelp(t *testing.T) {
	t.Parallel()
	c, _ := kitty.New("unix:" + filepath.Join(t.TempDir(), "absent.sock"))
	_, err := c.List(quickCtx(t))
	if !errors.Is(err, kitty.ErrRemoteControlDisabled) {
		t.Fatalf("List on a missing socket: %v", err)
	}
	help := kitty.SetupHelp(err)
	for _, want := range []string{"allow_remote_control socket-only\n", "listen_on unix:", "--print-kitty-config"} {
		if !strings.Contains(help, want) {
			t.Errorf("setup help lacks %q:\n%s", want, help)
		}
	}
	if kitty.SetupHelp(errors.New("other")) != "" || kitty.SetupHelp(nil) != "" {
		t.Error("SetupHelp answered an unrelated error")
	}
}

func TestFromEnvAndAddresses(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	_, err := kitty.FromEnv(env(map[string]string{"KITTY_WINDOW_ID": "3"}))
	if !errors.Is(err, kitty.ErrRemoteControlDisabled) || !errors.Is(err, kitty.ErrNoAddress) {
		t.Errorf("in kitty without KITTY_LISTEN_ON: %v", err)
	}
	_, err = kitty.FromEnv(env(map[string]string{}))
	if !errors.Is(err, kitty.ErrNoAddress) || errors.Is(err, kitty.ErrRemoteControlDisabled) {
		t.Errorf("outside kitty: %v", err)
	}
	c, err := kitty.FromEnv(env(map[string]string{"KITTY_LISTEN_ON": "unix:@kitty-12"}))
	if err != nil || c.Addr() != "unix:@kitty-12" {
		t.Errorf("abstract socket: %v", err)
	}
	for addr, want := range map[string][2]string{
		"unix:/run/user/1000/kitty-1": {"unix", "/run/user/1000/kitty-1"},
		"unix:@kitty":                 {"unix", "@kitty"},
		"tcp:localhost:5000":          {"tcp", "localhost:5000"},
		"/tmp/k.sock":                 {"unix", "/tmp/k.sock"},
		"unix:":                       {},
		"fd:3":                        {},
	} {
		n, a, err := kitty.ParseAddress(addr)
		if (err != nil) != (want[0] == "") || n != want[0] || a != want[1] {
			t.Errorf("ParseAddress(%q) = %q %q %v", addr, n, a, err)
		}
	}
}

func TestConfigSnippet(t *testing.T) {
	t.Parallel()
	got := kitty.ConfigSnippet("unix:/tmp/k-{kitty_pid}")
	want := "# xcsh: let xcsh list, open and focus kitty windows (remote control over a socket only).\n" +
		"allow_remote_control socket-only\nlisten_on unix:/tmp/k-{kitty_pid}\n"
	if got != want {
		t.Errorf("ConfigSnippet:\n%s", got)
	}
	if d := kitty.DefaultListenOn(func(string) string { return "/run/user/1" }); d != "unix:${XDG_RUNTIME_DIR}/kitty-{kitty_pid}" {
		t.Errorf("DefaultListenOn = %q", d)
	}
	if d := kitty.DefaultListenOn(func(string) string { return "" }); d != "unix:/tmp/kitty-{kitty_pid}" {
		t.Errorf("DefaultListenOn without XDG_RUNTIME_DIR = %q", d)
	}
}
