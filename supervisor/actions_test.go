package supervisor_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/supervisor"
)

// newPane opens a window running command (a shell when "") and returns its
// pane id.
func (w *world) newPane(command string) string {
	w.t.Helper()
	args := []string{"new-window", "-d", "-t", "main", "-c", w.proj, "-P", "-F", "#{pane_id}"}
	if command != "" {
		args = append(args, command)
	} else {
		args = append(args, "sh")
	}
	return strings.TrimSpace(w.tmux(args...))
}

// TestResumeIntoIdleShell: the session's command is typed into a shell at
// its prompt, after the pane's crumb names the session; a pane running a
// program, or an agent, is refused.
func TestResumeIntoIdleShell(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := testCtx(t)
	e, _ := w.engine(ctx)
	path, id := w.seedSession(w.proj, "resume me")
	shell := w.newPane("")
	busy := w.newPane("sleep 600")
	waitSnap(t, e, "an idle shell and a busy pane", 10*time.Second, func(s supervisor.Snapshot) bool {
		a, ok1 := s.PaneByID(shell)
		b, ok2 := s.PaneByID(busy)
		return ok1 && ok2 && a.Foreground == supervisor.FgShell && b.Foreground == supervisor.FgProgram
	})

	_, err := w.act.Launch(ctx, supervisor.LaunchSpec{Into: true, Target: busy, Resume: id[:8]})
	if !errors.Is(err, supervisor.ErrBusyPane) {
		t.Fatalf("resume into a pane running sleep: %v, want ErrBusyPane", err)
	}
	if _, err := os.Stat(filepath.Join(w.paths.TerminalSessions, "x")); err == nil {
		t.Fatal("unexpected crumb")
	}

	res, err := w.act.Launch(ctx, supervisor.LaunchSpec{Into: true, Target: shell, Resume: id[:8]})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Typed || res.SessionFile != path {
		t.Errorf("launch result %+v", res)
	}
	snap := waitSnap(t, e, "the resumed agent", 20*time.Second, func(s supervisor.Snapshot) bool {
		p, ok := s.PaneByID(shell)
		return ok && p.Agent != 0 && p.Session != nil && p.Session.Path == path
	})
	p, _ := snap.PaneByID(shell)
	c, err := breadcrumb.Read(w.paths.TerminalSessions, p.Key)
	if err != nil || c.SessionPath() != path || c.Token != p.Token {
		t.Errorf("crumb %+v (%v), want %s with token %s", c, err, path, p.Token)
	}
	// Now an agent runs there: refused too.
	_, err = w.act.Launch(ctx, supervisor.LaunchSpec{Into: true, Target: shell, Resume: id[:8]})
	if !errors.Is(err, supervisor.ErrBusyPane) {
		t.Errorf("resume into a pane with an agent: %v, want ErrBusyPane", err)
	}
	// Close asks it to quit; the shell is back.
	if _, err := w.act.Close(ctx, shell, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, e, "the shell again", 10*time.Second, func(s supervisor.Snapshot) bool {
		p, ok := s.PaneByID(shell)
		return ok && p.Agent == 0 && p.Foreground == supervisor.FgShell && len(s.Agents) == 0
	})
}

// TestForkIntoSplit: a fork launched into a new split is written first, the
// split's crumb names it before the agent starts, and `xcsh -c` typed in
// that pane after the agent exits continues the fork.
func TestForkIntoSplit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := testCtx(t)
	src, id := w.seedSession(w.proj, "fork me")
	act := *w.act
	act.AgentCommand = []string{xcshBin}
	res, err := act.Launch(ctx, supervisor.LaunchSpec{
		Kind: "split", Target: "main", Horizontal: true, Fork: id, Cwd: w.proj, KeepShell: true,
		Args: []string{"-p", "--model", "scripted/demo", "hello"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionFile == "" || res.SessionFile == src {
		t.Fatalf("fork file %q (source %s)", res.SessionFile, src)
	}
	// The agent answers, exits, and the shell is back in the pane.
	waitFor(t, "the scripted reply in the fork", 20*time.Second, func() bool {
		b, _ := os.ReadFile(res.SessionFile)
		return strings.Contains(string(b), "scripted demo model")
	})
	out := filepath.Join(t.TempDir(), "explain")
	waitFor(t, "xcsh -c --explain in the pane", 20*time.Second, func() bool {
		if _, err := os.Stat(out); err == nil {
			return true
		}
		w.tmux("send-keys", "-t", res.Pane.ID, "-l", fmt.Sprintf("%s -c --explain > %s.tmp 2>&1; mv %s.tmp %s", xcshBin, out, out, out))
		w.tmux("send-keys", "-t", res.Pane.ID, "Enter")
		time.Sleep(300 * time.Millisecond)
		_, err := os.Stat(out)
		return err == nil
	})
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "session:  "+res.SessionFile) || !strings.Contains(string(b), "breadcrumb of terminal") {
		t.Errorf("xcsh -c --explain in the fork's pane:\n%s\nwant session %s from the breadcrumb", b, res.SessionFile)
	}
}

// TestJumpTwoClients: jump moves the client that shows the caller's
// session, not the other one, and never the control client.
func TestJumpTwoClients(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	w := newWorld(t)
	ctx := testCtx(t)
	_, id := w.seedSession(w.proj, "jump to me")
	w.tmux("new-session", "-d", "-s", "second", "sh")
	// The agent in a session of its own: the client on "main" must see no
	// change at all.
	res, err := w.act.Launch(ctx, supervisor.LaunchSpec{Kind: "session", Name: "agents", Resume: id})
	if err != nil {
		t.Fatal(err)
	}
	attach := func(session string) {
		cmd := exec.Command("script", "-qfc", fmt.Sprintf("stty rows 40 cols 120; exec tmux -L %s attach -t %s", w.name, session), "/dev/null")
		cmd.Env = w.env
		in, err := cmd.StdinPipe()
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
	// A running engine holds a control client too: it must never move.
	w.engine(ctx)
	clients := func() map[string]string { // client name -> "session pane control"
		out := w.tmux("list-clients", "-F", "#{client_name} #{session_name} #{pane_id} #{client_control_mode}")
		m := map[string]string{}
		for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) == 4 {
				m[f[0]] = f[1] + " " + f[2] + " " + f[3]
			}
		}
		return m
	}
	waitFor(t, "two user clients", 10*time.Second, func() bool {
		n := 0
		for _, v := range clients() {
			if strings.HasSuffix(v, " 0") {
				n++
			}
		}
		return n == 2
	})
	before := clients()
	fromPane := strings.TrimSpace(w.tmux("display-message", "-p", "-t", "second", "#{pane_id}"))
	// Jump by session id prefix, as from a pane of session "second".
	p, moved, err := w.act.Jump(ctx, id[:8], "", fromPane)
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != res.Pane.ID {
		t.Errorf("jumped to %s, want %s", p.ID, res.Pane.ID)
	}
	waitFor(t, "the client to show the pane", 5*time.Second, func() bool {
		return strings.HasPrefix(clients()[moved], "agents "+res.Pane.ID+" ")
	})
	after := clients()
	for name, was := range before {
		if name == moved {
			if !strings.HasPrefix(was, "second ") {
				t.Errorf("moved client %s was on %q, want the one on session second", name, was)
			}
			continue
		}
		if after[name] != was {
			t.Errorf("client %s moved from %q to %q", name, was, after[name])
		}
	}
}
