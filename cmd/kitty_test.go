package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// TestKittyCommands runs supervise, launch, status and jump as a user
// would, against a private kitty: launch without a flag picks kitty from
// KITTY_LISTEN_ON outside tmux, --kitty-socket names it, jump focuses a
// window, and the supervisor ends with kitty.
func TestKittyCommands(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	k := startKittyFor(t, e.environ("SHELL=/bin/sh", "PS1=$ ", "HISTFILE=", "GORACE=atexit_sleep_ms=0"), true)
	c, _ := kitty.New(k.addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(env []string, args ...string) (string, string, error) {
		t.Helper()
		cmd := exec.Command(xcshBin, args...)
		cmd.Env, cmd.Dir = env, proj
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	plain := e.environ()
	inKitty := e.environ("KITTY_LISTEN_ON=" + k.addr)

	out, _, err := run(plain, "supervise", "--print-kitty-config")
	if err != nil || !strings.Contains(out, "allow_remote_control socket-only\n") || !strings.Contains(out, "\nlisten_on unix:") {
		t.Fatalf("supervise --print-kitty-config: %v\n%s", err, out)
	}

	sup := exec.Command(xcshBin, "supervise", "--kitty-socket", k.addr)
	sup.Env, sup.Dir = plain, proj
	var supErr bytes.Buffer
	sup.Stderr = &supErr
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	supDone := make(chan error, 1)
	go func() { supDone <- sup.Wait() }()
	t.Cleanup(func() {
		_ = sup.Process.Signal(syscall.SIGTERM)
		<-supDone
		if supErr.Len() > 0 {
			t.Logf("supervise: %s", supErr.String())
		}
	})
	waitUntil(t, "the supervisor's snapshot", func() bool {
		out, _, err := run(plain, "status", "--json")
		return err == nil && strings.Contains(out, `"server":"kitty `+k.addr+`"`)
	})

	// No flag, outside tmux, KITTY_LISTEN_ON set: kitty, a new tab.
	out, stderr, err := run(inKitty, "launch", "--cwd", proj, "--", "-p", "--model", "scripted/demo", "hello")
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, stderr)
	}
	printAnswer, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("launch printed %q, want a kitty window id", out)
	}
	waitUntil(t, "the agent's answer in its window", func() bool {
		text, err := c.GetText(ctx, printAnswer, 0)
		return err == nil && strings.Contains(text, "scripted demo model")
	})

	// --kitty-socket, a split of that window: the chat waits there.
	out, stderr, err = run(plain, "launch", "--kitty-socket", k.addr, "--split", "h", "--target", strconv.Itoa(printAnswer),
		"--", "--model", "scripted/demo")
	if err != nil {
		t.Fatalf("launch --kitty-socket: %v\n%s", err, stderr)
	}
	chat, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("launch printed %q, want a kitty window id", out)
	}
	waitUntil(t, "the chat agent counted", func() bool {
		out, _, err := run(plain, "status")
		return err == nil && strings.TrimSpace(out) == "1 idle"
	})
	ws, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var a, b kitty.Window
	for _, w := range ws {
		switch w.ID {
		case printAnswer:
			a = w
		case chat:
			b = w
		}
	}
	if a.TabID == 0 || a.TabID != b.TabID || a.TabID == ws[0].TabID {
		t.Errorf("the split is not in the new tab: %+v, %+v (first window's tab %d)", a, b, ws[0].TabID)
	}

	// Jump by the chat's terminal key: its tab becomes the active one.
	out, stderr, err = run(plain, "jump", "--kitty-socket", k.addr, "pts-"+strings.TrimPrefix(b.TTY, "/dev/pts/"))
	if err != nil || !strings.Contains(out, "kitty window "+strconv.Itoa(chat)+" ") || !strings.Contains(out, "focused") {
		t.Fatalf("jump: %v\n%s%s", err, out, stderr)
	}
	if w, err := c.Window(ctx, chat); err != nil || !w.Active {
		t.Errorf("after the jump, window %d: %+v (%v)", chat, w, err)
	}

	// The supervisor ends with kitty.
	k.stop()
	select {
	case err := <-supDone:
		supDone <- err
		if err != nil {
			t.Errorf("supervise exited with %v after kitty: %s", err, supErr.String())
		}
	case <-time.After(paneTimeout):
		t.Error("supervise still runs after kitty exited")
	}
}

// TestKittySetupMessage: xcsh run in a kitty window without remote control
// says what to add to kitty.conf.
func TestKittySetupMessage(t *testing.T) {
	e := newTestEnv(t)
	out := filepath.Join(t.TempDir(), "out")
	script := shellQuote(xcshBin) + " launch > " + shellQuote(out+".tmp") + " 2>&1; echo $? >> " + shellQuote(out+".tmp") +
		"; mv " + shellQuote(out+".tmp") + " " + shellQuote(out) + "; sleep 60"
	startKittyFor(t, e.environ("SHELL=/bin/sh"), false, "/bin/sh", "-c", script)
	data := waitFile(t, out, paneTimeout, nil)
	for _, want := range []string{"allow_remote_control socket-only\n", "listen_on unix:", "kitty.conf", "\n1\n"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("xcsh launch in a kitty without remote control lacks %q:\n%s", want, data)
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}

// TestBackendOf: which multiplexer a command acts on, from its flags and
// environment: innermost first (tmux in a kitty window is tmux), kitty
// outside tmux when KITTY_LISTEN_ON names it, the setup help in a kitty
// window without it.
func TestBackendOf(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
		env   map[string]string
		kitty bool
		here  string
		err   string // in the error; "" for none
	}{
		{name: "plain", kitty: false},
		{name: "tmux inside kitty", env: map[string]string{"TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%3",
			"KITTY_LISTEN_ON": "unix:/k", "KITTY_WINDOW_ID": "2"}, kitty: false, here: "%3"},
		{name: "kitty window", env: map[string]string{"KITTY_LISTEN_ON": "unix:/k", "KITTY_WINDOW_ID": "2"}, kitty: true, here: "2"},
		{name: "kitty without remote control", env: map[string]string{"KITTY_WINDOW_ID": "2"}, err: "allow_remote_control socket-only"},
		{name: "--kitty inside tmux", flags: []string{"--kitty"}, env: map[string]string{"TMUX": "/tmp/t,1,0",
			"KITTY_LISTEN_ON": "unix:/k", "KITTY_WINDOW_ID": "2"}, kitty: true},
		{name: "--kitty without an address", flags: []string{"--kitty"}, err: "KITTY_LISTEN_ON is not set"},
		{name: "--kitty-socket of another kitty", flags: []string{"--kitty-socket", "unix:/other"},
			env: map[string]string{"KITTY_LISTEN_ON": "unix:/k", "KITTY_WINDOW_ID": "2"}, kitty: true},
		{name: "--tmux-socket in kitty", flags: []string{"--tmux-socket", "work"},
			env: map[string]string{"KITTY_LISTEN_ON": "unix:/k", "KITTY_WINDOW_ID": "2"}, kitty: false},
		{name: "both", flags: []string{"--tmux-socket", "work", "--kitty"}, err: "exclude each other"},
		{name: "a bad address", flags: []string{"--kitty-socket", "nowhere"}, err: "--kitty-socket"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &cobra.Command{}
			addTmuxFlag(c)
			addKittyFlags(c)
			if err := c.ParseFlags(tt.flags); err != nil {
				t.Fatal(err)
			}
			b, err := backendOf(c, func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.mux.Close()
			if b.kitty != tt.kitty || b.here != tt.here {
				t.Errorf("kitty %v here %q (%s), want kitty %v here %q", b.kitty, b.here, b.mux.Name(), tt.kitty, tt.here)
			}
		})
	}
}

// TestBesideMux: a dashboard on tmux watches the kitty KITTY_LISTEN_ON
// names beside it, and one on kitty the tmux server of its environment,
// each only when it answers.
func TestBesideMux(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	k := startKittyFor(t, e.environ("SHELL=/bin/sh"), true)
	s, _ := startTmux(t, e, proj)
	var tmuxTmp string
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, "TMUX_TMPDIR="); ok {
			tmuxTmp = v
		}
	}
	inTmux := "TMUX=" + filepath.Join(tmuxTmp, "tmux-"+strconv.Itoa(os.Getuid()), s.name) + ",1,0"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	env := func(kvs ...string) func(string) string {
		return func(k string) string {
			for _, kv := range kvs {
				if v, ok := strings.CutPrefix(kv, k+"="); ok {
					return v
				}
			}
			return ""
		}
	}
	onTmux, err := backendOf(&cobra.Command{}, env(inTmux))
	if err != nil || onTmux.kitty {
		t.Fatalf("backend in tmux: %+v, %v", onTmux, err)
	}
	defer onTmux.mux.Close()
	onKitty := backend{mux: onTmux.mux, kitty: true} // only its kind matters
	for _, tt := range []struct {
		name string
		b    backend
		env  []string
		want string // the multiplexer's name; "" for none
	}{
		{"tmux, kitty answers", onTmux, []string{inTmux, "KITTY_LISTEN_ON=" + k.addr}, "kitty " + k.addr},
		{"tmux, no kitty", onTmux, []string{inTmux, "KITTY_LISTEN_ON=unix:" + filepath.Join(t.TempDir(), "none")}, ""},
		{"tmux, outside kitty", onTmux, []string{inTmux}, ""},
		{"kitty, tmux answers", onKitty, []string{inTmux}, onTmux.mux.Name()},
		{"kitty, no tmux server", onKitty, []string{"TMUX=" + filepath.Join(t.TempDir(), "none") + ",1,0"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := besideMux(ctx, tt.b, env(tt.env...))
			got := ""
			if m != nil {
				got = m.Name()
				_ = m.Close()
			}
			if got != tt.want {
				t.Errorf("beside: %q, want %q", got, tt.want)
			}
		})
	}
}
