package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseCommand: `xcsh close` asks a chat agent in a pane to quit; its
// live file goes and its shell stays.
func TestCloseCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("tmux end-to-end test")
	}
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
	out, stderr, err := run("launch", "--tmux-socket", s.name, "--window", "--target", first.id, "--cwd", proj, "--", "--model", "scripted/demo", "hello")
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, stderr)
	}
	paneID := strings.TrimSpace(out)
	lives := func() int {
		m, _ := filepath.Glob(filepath.Join(e.agentDir(), "agents", "*.json"))
		return len(m)
	}
	waitUntil(t, "the chat agent's live file", func() bool { return lives() == 1 })
	waitUntil(t, "the agent's answer", func() bool { return strings.Contains(s.screen(pane{id: paneID}), "scripted demo model") })
	if _, stderr, err := run("close", "--tmux-socket", s.name, paneID); err != nil {
		t.Fatalf("close: %v\n%s", err, stderr)
	}
	defer func() {
		if t.Failed() {
			t.Logf("screen:\n%s", s.screen(pane{id: paneID}))
		}
	}()
	waitUntil(t, "the live file removed", func() bool { return lives() == 0 })
	if cmd := s.tmux("display-message", "-p", "-t", paneID, "#{pane_current_command}"); strings.Contains(cmd, "xcsh") {
		t.Errorf("the agent still runs: %s", cmd)
	}
	files, _ := filepath.Glob(filepath.Join(e.sessionDir(proj), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !bytes.Contains(b, []byte(`"role":"assistant"`)) {
		t.Error("the closed agent's answer is not in its session")
	}
}
