package cmd

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSupervisorCommands runs launch, status, jump and supervise as a user
// would, against a private tmux server.
func TestSupervisorCommands(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	s, first := startTmux(t, e, proj)
	run := func(args ...string) (string, string, error) {
		t.Helper()
		cmd := exec.Command(xcshBin, args...)
		cmd.Env, cmd.Dir = s.env, proj
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if out, _, err := run("supervise", "--print-tmux-config"); err != nil || !strings.Contains(out, "run-shell -b") {
		t.Fatalf("supervise --print-tmux-config: %v\n%s", err, out)
	}
	sup := exec.Command(xcshBin, "supervise", "--tmux-socket", s.name)
	sup.Env, sup.Dir = s.env, proj
	var supErr bytes.Buffer
	sup.Stderr = &supErr
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = sup.Process.Signal(syscall.SIGTERM)
		_ = sup.Wait()
		if supErr.Len() > 0 {
			t.Logf("supervise: %s", supErr.String())
		}
	})
	waitUntil(t, "the supervisor's snapshot", func() bool {
		out, _, err := run("status")
		return err == nil && strings.TrimSpace(out) == "no agents"
	})

	out, stderr, err := run("launch", "--tmux-socket", s.name, "--window", "--target", first.id, "--cwd", proj,
		"--", "-p", "--model", "scripted/demo", "hello")
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, stderr)
	}
	paneID := strings.TrimSpace(out)
	if !strings.HasPrefix(paneID, "%") || strings.Contains(paneID, "\n") {
		t.Fatalf("launch printed %q, want a pane id", out)
	}
	// The agent answers and exits; its pane keeps a shell.
	waitUntil(t, "the agent's answer", func() bool { return strings.Contains(s.screen(pane{id: paneID}), "scripted demo model") })

	busy := s.window(proj)
	s.typeLine(busy, "sleep 600")
	waitUntil(t, "sleep in the foreground", func() bool {
		return strings.Contains(s.tmux("display-message", "-p", "-t", busy.id, "#{pane_current_command}"), "sleep")
	})
	_, stderr, err = run("launch", "--tmux-socket", s.name, "--target", busy.id)
	if err == nil || !strings.Contains(stderr, "Refused") {
		t.Errorf("launch into a pane running sleep: %v\n%s", err, stderr)
	}
	// No client is attached: jump says so rather than moving anything.
	_, stderr, err = run("jump", "--tmux-socket", s.name, paneID)
	if err == nil || !strings.Contains(stderr, "no client attached") {
		t.Errorf("jump without a client: %v\n%s", err, stderr)
	}
	if _, stderr, err := run("status", "--tmux"); err != nil {
		t.Errorf("status --tmux: %v\n%s", err, stderr)
	}
}

// TestDemoWithoutAttach: `xcsh demo --no-attach` runs its three agents in a
// private server and cleans up.
func TestDemoWithoutAttach(t *testing.T) {
	if testing.Short() {
		t.Skip("real-tmux test; skipped with -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	e := newTestEnv(t)
	cmd := exec.Command(xcshBin, "demo", "--no-attach")
	cmd.Env, cmd.Dir = e.environ("TMUX_TMPDIR="+t.TempDir()), e.dir("here")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "== pane "); n != 3 {
		t.Errorf("demo showed %d panes, want 3:\n%s", n, out)
	}
	if !strings.Contains(string(out), "scripted demo model") {
		t.Errorf("demo output lacks the scripted answer:\n%s", out)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(paneTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
