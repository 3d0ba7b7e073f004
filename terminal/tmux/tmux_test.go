package tmux_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

// testServer is a private tmux server for one test: its own socket name and
// socket directory, an environment without TMUX or TMUX_PANE, killed in
// Cleanup.
type testServer struct {
	t   *testing.T
	c   *tmux.Client
	env []string
	dir string // scratch
}

var serverSeq atomic.Int64

func newServer(t *testing.T) *testServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	sockDir, err := os.MkdirTemp("", "xtm")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMUX", "TMUX_PANE", "TMUX_TMPDIR", "HOME", "SHELL", "XCSH_AGENT_DIR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TMUX_TMPDIR="+sockDir, "HOME="+home, "SHELL=/bin/sh", "TERM=xterm-256color")
	name := fmt.Sprintf("xcsh-%d-%d", os.Getpid(), serverSeq.Add(1))
	c, err := tmux.New(tmux.Server{Name: name}, tmux.Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, c: c, env: env, dir: t.TempDir()}
	t.Cleanup(func() {
		_ = c.Close()
		cmd := exec.Command("tmux", "-L", name, "kill-server")
		cmd.Env = env
		_ = cmd.Run()
		_ = os.RemoveAll(sockDir)
	})
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "sh")
	return s
}

// run runs tmux directly, not through the client under test.
func (s *testServer) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", s.c.Server().Name}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSpawnKinds(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := ctx(t)
	dir := t.TempDir()
	out := filepath.Join(s.dir, "env")
	p, err := s.c.Spawn(c, tmux.Spawn{
		Kind: tmux.KindSplit, Target: "main", Horizontal: true, Cwd: dir,
		Env:     []string{"XCSH_TEST_VAR=it's here"},
		Command: fmt.Sprintf(`echo "$XCSH_TEST_VAR|$(pwd)" > %s.tmp && mv %s.tmp %s; exec sleep 60`, out, out, out),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.ID, "%") || !strings.HasPrefix(p.TTY, "/dev/pts/") || p.PID <= 0 || p.SessionName != "main" {
		t.Fatalf("split pane %+v", p)
	}
	waitFor(t, "the split's command", 10*time.Second, func() bool { _, err := os.Stat(out); return err == nil })
	got, _ := os.ReadFile(out)
	if want := "it's here|" + dir + "\n"; string(got) != want {
		t.Errorf("split pane printed %q, want %q", got, want)
	}
	w, err := s.c.Spawn(c, tmux.Spawn{Kind: tmux.KindWindow, Target: "main", Name: "agents", Command: "sleep 60"})
	if err != nil {
		t.Fatal(err)
	}
	if w.WindowID == p.WindowID || w.SessionID != p.SessionID {
		t.Errorf("window pane %+v, split %+v", w, p)
	}
	n, err := s.c.Spawn(c, tmux.Spawn{Kind: tmux.KindSession, Name: "other", Command: "sleep 60"})
	if err != nil {
		t.Fatal(err)
	}
	if n.SessionName != "other" || n.SessionID == p.SessionID {
		t.Errorf("session pane %+v", n)
	}
	panes, err := s.c.ListPanes(c)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range panes {
		ids = append(ids, q.ID)
	}
	for _, want := range []string{p.ID, w.ID, n.ID} {
		if !slices.Contains(ids, want) {
			t.Errorf("list-panes %v lacks %s", ids, want)
		}
	}
	if ok, err := s.c.Alive(c, n.ID); !ok || err != nil {
		t.Errorf("Alive(%s) = %v, %v", n.ID, ok, err)
	}
	if err := s.c.Kill(c, n.ID); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.c.Alive(c, n.ID); ok || err != nil {
		t.Errorf("Alive(killed %s) = %v, %v", n.ID, ok, err)
	}
	if _, err := s.c.PaneByID(c, "%9999"); err == nil {
		t.Error("PaneByID(%9999) found a pane")
	}
}

// TestControlMode: queries over the control connection start no process and
// give what forked clients give; arguments survive the quoting.
func TestControlMode(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := ctx(t)
	forked, err := s.c.ListPanes(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.Connect(c, ""); err != nil {
		t.Fatal(err)
	}
	before := s.c.Execs()
	for range 20 {
		got, err := s.c.ListPanes(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(forked) {
			t.Fatalf("control list-panes %+v, forked %+v", got, forked)
		}
		// The control client itself is attached to the session, and tmux
		// counts it there once it has recalculated sizes, which it may do
		// after answering the first commands: 0 or 1 more than forked.
		extra := got[0].Attached - forked[0].Attached
		got[0].Attached = forked[0].Attached
		if got[0] != forked[0] || extra < 0 || extra > 1 {
			t.Fatalf("control list-panes %+v (%d more attached), forked %+v", got, extra, forked)
		}
	}
	if n := s.c.Execs() - before; n != 0 {
		t.Errorf("20 queries over control mode started %d tmux processes", n)
	}
	// Typed text arrives byte for byte, whatever tmux's parser would make of it.
	out := filepath.Join(s.dir, "typed")
	p, err := s.c.Spawn(c, tmux.Spawn{Kind: tmux.KindWindow, Target: "main", Command: "cat > " + out})
	if err != nil {
		t.Fatal(err)
	}
	text := `it's "$HOME" ; #{pane_id} ~ \ %1 $0 {x} 'q'`
	if err := s.c.SendText(c, p.ID, text, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the typed line", 10*time.Second, func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "\n")
	})
	if b, _ := os.ReadFile(out); string(b) != text+"\n" {
		t.Errorf("typed %q, pane got %q", text, b)
	}
	if _, err := s.c.Run(c, "has-session", "-t", "%9999"); err == nil {
		t.Error("has-session -t %9999 over control mode succeeded")
	}
	// The connection ends with the server; commands then report that.
	s.run("kill-server")
	waitFor(t, "the control client to end", 5*time.Second, func() bool { return !s.c.Connected() })
	if _, err := s.c.ListPanes(c); err == nil {
		t.Error("list-panes after kill-server succeeded")
	}
}

// TestDoorbell: the hooks ring on split, exit and kill; the user's hooks are
// the same before and after; hooks of dead supervisors are cleared.
func TestDoorbell(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := ctx(t)
	s.run("set-hook", "-g", "after-split-window", "display-message user0")
	s.run("set-hook", "-g", "pane-exited[3]", "display-message user3")
	s.run("set-hook", "-g", "after-kill-pane[42000]", "display-message taken")
	// A hook left by a supervisor that died (pid 1 never is one of ours, but
	// runs; a pid far beyond pid_max never runs).
	s.run("set-hook", "-g", "after-new-window[42005]", "wait-for -S xcsh-999999999-1")
	before, err := s.c.Hooks(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.Connect(c, ""); err != nil {
		t.Fatal(err)
	}
	d, err := s.c.InstallDoorbell(c)
	if err != nil {
		t.Fatal(err)
	}
	if d.Index() == 42000 {
		t.Errorf("doorbell took index 42000, which the user uses")
	}
	during, _ := s.c.Hooks(c)
	if strings.Contains(during, "xcsh-999999999") {
		t.Errorf("stale doorbell hook kept:\n%s", during)
	}
	if !strings.Contains(during, "user0") || !strings.Contains(during, "user3") || !strings.Contains(during, "taken") {
		t.Errorf("user hooks changed by installing:\n%s", during)
	}
	drain := func() {
		for {
			select {
			case <-d.C():
			case <-time.After(300 * time.Millisecond):
				return
			}
		}
	}
	expectRing := func(what string) {
		t.Helper()
		select {
		case <-d.C():
		case <-time.After(5 * time.Second):
			t.Fatalf("no ring after %s", what)
		}
	}
	drain()
	p, err := s.c.Spawn(c, tmux.Spawn{Kind: tmux.KindSplit, Target: "main", Command: "sleep 0.3"})
	if err != nil {
		t.Fatal(err)
	}
	expectRing("split")
	drain() // the pane exits after 0.3 s
	waitFor(t, "the pane to exit", 5*time.Second, func() bool { ok, _ := s.c.Alive(c, p.ID); return !ok })
	q, err := s.c.Spawn(c, tmux.Spawn{Kind: tmux.KindSplit, Target: "main", Command: "sleep 60"})
	if err != nil {
		t.Fatal(err)
	}
	drain()
	if err := s.c.Kill(c, q.ID); err != nil {
		t.Fatal(err)
	}
	expectRing("kill-pane")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := s.c.Hooks(c)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(before, "after-new-window[42005] wait-for -S xcsh-999999999-1\n", "")
	want = strings.ReplaceAll(want, "\nafter-new-window[42005] wait-for -S xcsh-999999999-1", "")
	if after != want {
		t.Errorf("hooks after the doorbell closed:\n%s\nwant (the user's):\n%s", after, want)
	}
}

// TestFocusTwoClients: jumping moves the chosen human client, never the
// other one and never the control client.
func TestFocusTwoClients(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	s := newServer(t)
	c := ctx(t)
	s.run("new-session", "-d", "-s", "second", "sh")
	target, err := s.c.Spawn(c, tmux.Spawn{Kind: tmux.KindWindow, Target: "main", Command: "sleep 60"})
	if err != nil {
		t.Fatal(err)
	}
	attach := func(session string) {
		cmd := exec.Command("script", "-qfc", fmt.Sprintf("stty rows 40 cols 120; exec tmux -L %s attach -t %s", s.c.Server().Name, session), "/dev/null")
		cmd.Env = s.env
		in, err := cmd.StdinPipe() // held open: EOF would end script
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
	attach("main")
	attach("second")
	if err := s.c.Connect(c, "second"); err != nil {
		t.Fatal(err)
	}
	var clients []tmux.ClientInfo
	waitFor(t, "two clients", 10*time.Second, func() bool {
		clients, _ = s.c.Clients(c)
		n := 0
		for _, cl := range clients {
			if !cl.Control {
				n++
			}
		}
		return n == 2
	})
	var onSecond string
	for _, cl := range clients {
		if !cl.Control && cl.SessionName == "second" {
			onSecond = cl.Name
		}
	}
	secondID := strings.TrimSpace(s.run("display-message", "-p", "-t", "second", "#{session_id}"))
	moved, err := s.c.Focus(c, target.ID, "", secondID)
	if err != nil {
		t.Fatal(err)
	}
	if moved != onSecond {
		t.Errorf("moved client %s, want %s (the one showing session second)", moved, onSecond)
	}
	waitFor(t, "the client to show the pane", 5*time.Second, func() bool {
		clients, _ = s.c.Clients(c)
		for _, cl := range clients {
			if cl.Name == onSecond {
				return cl.PaneID == target.ID
			}
		}
		return false
	})
	for _, cl := range clients {
		switch {
		case cl.Control && cl.SessionName != "second":
			t.Errorf("control client moved to %s", cl.SessionName)
		case !cl.Control && cl.Name != onSecond && cl.SessionName != "main":
			t.Errorf("the other client moved to %s", cl.SessionName)
		}
	}
}

func TestPickClient(t *testing.T) {
	t.Parallel()
	cs := []tmux.ClientInfo{
		{Name: "ctl", Control: true, Activity: 100, SessionID: "$1"},
		{Name: "a", Activity: 50, SessionID: "$0"},
		{Name: "b", Activity: 10, SessionID: "$1"},
	}
	tests := []struct {
		session, want string
	}{
		{"", "a"},
		{"$1", "b"},
		{"$7", "a"},
	}
	for _, tt := range tests {
		got, ok := tmux.PickClient(cs, tt.session)
		if !ok || got.Name != tt.want {
			t.Errorf("PickClient(%q) = %q, want %q", tt.session, got.Name, tt.want)
		}
	}
	if _, ok := tmux.PickClient(cs[:1], ""); ok {
		t.Error("PickClient chose a control-mode client")
	}
}

func TestSpawnArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    tmux.Spawn
		want string
	}{
		{"split", tmux.Spawn{Kind: tmux.KindSplit, Target: "%1", Horizontal: true, Cwd: "/w", Command: "xcsh"}, "split-window -h -d -t %1 -c /w"},
		{"window", tmux.Spawn{Kind: tmux.KindWindow, Target: "$0", Name: "a", Env: []string{"A=1"}}, "new-window -n a -d -t $0 -e A=1"},
		{"session", tmux.Spawn{Kind: tmux.KindSession, Name: "s", Target: "ignored", Focus: true}, "new-session -s s -d"},
	}
	for _, tt := range tests {
		args, err := tmux.SpawnArgs(tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(args, " "); !strings.HasPrefix(got, tt.want+" -P -F ") {
			t.Errorf("%s: %s, want prefix %q", tt.name, got, tt.want)
		}
	}
	if _, err := tmux.SpawnArgs(tmux.Spawn{Kind: "tab"}); err == nil {
		t.Error("kind tab accepted")
	}
}

func TestServerFromEnv(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := tmux.ServerFromEnv(env(map[string]string{"TMUX": "/tmp/tmux-0/work,123,0"})); got.Path != "/tmp/tmux-0/work" {
		t.Errorf("inside tmux: %+v", got)
	}
	if got := tmux.ServerFromEnv(env(nil)); got.Name != "default" || got.String() != "-L default" {
		t.Errorf("outside tmux: %+v", got)
	}
}
