package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/agent"
)

// liveIn returns the live state of the agent running on tty, waiting until
// cond holds for it.
func liveIn(t *testing.T, e *testEnv, tty, what string, cond func(agent.LiveStatus) bool) agent.LiveStatus {
	t.Helper()
	deadline := time.Now().Add(paneTimeout)
	for {
		lives, _ := agent.ReadLive(filepath.Join(e.agentDir(), "agents"))
		for _, l := range lives {
			if l.TTY == tty && !l.Stale && cond(l) {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no agent on %s %s; live files: %+v", tty, what, lives)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// attachClient attaches a client to s from a pane of another private
// server: the user's terminal, which a jump moves.
func attachClient(t *testing.T, s *tmuxServer) {
	t.Helper()
	outer := s.name + "-outer"
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", outer, "kill-server")
		cmd.Env = s.env
		_ = cmd.Run()
	})
	cmd := exec.Command("tmux", "-L", outer, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50",
		"tmux -L "+s.name+" attach")
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("outer tmux: %v: %s", err, out)
	}
	waitClient(t, s, "a client to attach", func(pane string) bool { return pane != "" })
}

// waitClient waits until the user's client (not a control client) shows a
// pane for which cond holds.
func waitClient(t *testing.T, s *tmuxServer, what string, cond func(pane string) bool) {
	t.Helper()
	deadline := time.Now().Add(paneTimeout)
	for {
		out := s.tmux("list-clients", "-F", "#{client_control_mode} #{pane_id}")
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "0" && cond(f[1]) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; clients:\n%s", what, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newPane waits for a pane that is not among before (list-panes output).
func (s *tmuxServer) newPane(before string) pane {
	s.t.Helper()
	deadline := time.Now().Add(paneTimeout)
	for {
		out := s.tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_tty}")
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) == 2 && !strings.Contains(before, f[0]+"\n") {
				return pane{id: f[0], tty: f[1]}
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no new pane; panes:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// typeKeys types text into p literally, a key at a time, as a user does.
func (s *tmuxServer) typeKeys(p pane, text string) {
	s.t.Helper()
	for _, r := range text {
		s.tmux("send-keys", "-t", p.id, "-l", string(r))
	}
}

// TestTmuxDash runs the dashboard in a pane of a real tmux server with a
// client attached and agents in other panes: a state change shows up, w and
// Enter move the client, r resumes past sessions into an idle shell pane and
// into a new window, and f forks a live one into a new split; the agents
// there open the right sessions.
func TestTmuxDash(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj := e.dir("proj")
	if err := os.MkdirAll(e.agentDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	// Agents the dashboard starts use the scripted model; bash asks first,
	// which makes the demo's agent wait.
	conf := "model: scripted/demo\ntools:\n  bash:\n    approve: ask\n"
	if err := os.WriteFile(filepath.Join(e.agentDir(), "config.yaml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	past := e.writeSession(fixture{id: "7e57da5400000001", cwd: proj, title: "Zebra migration", users: []string{"migrate the zebras"}, age: hour})
	yak := e.writeSession(fixture{id: "7e57da5400000002", cwd: proj, title: "Yak shaving", users: []string{"shave the yak"}, age: 2 * hour})

	s, dash := startTmux(t, e, proj)
	ag := s.window(proj)
	idle := s.window(proj)
	attachClient(t, s)
	xcsh := shellQuote(xcshBin)

	s.typeLine(ag, xcsh)
	s.waitScreen(ag, "scripted/demo")
	rc := s.start(dash, "dash", xcsh+" dash")
	s.waitScreen(dash, "1 idle")
	s.waitScreen(dash, ag.id)

	// A state change reaches the dashboard: the demo's turn asks before
	// running bash, so the agent ends up waiting.
	s.typeLine(ag, "write a greeting script")
	s.waitScreen(dash, "! 1 waiting")
	// It waits where no client looks: the dashboard says so.
	s.waitScreen(dash, "is waiting in "+ag.id)

	// w jumps to the waiting agent: the client now shows its pane.
	s.typeKeys(dash, "w")
	waitClient(t, s, "the client on the waiting agent's pane "+ag.id, func(p string) bool { return p == ag.id })
	s.keys(ag, "y") // let the agent run bash and finish
	s.waitScreen(dash, "1 idle")

	// Enter jumps to the selected row: filter down to the idle shell.
	s.typeKeys(dash, "/"+idle.id)
	s.keys(dash, "Enter")
	s.keys(dash, "Enter")
	waitClient(t, s, "the client on the idle shell "+idle.id, func(p string) bool { return p == idle.id })

	// r resumes a past session into the idle shell pane.
	s.keys(dash, "Escape") // the filter
	s.keys(dash, "Tab")
	s.waitScreen(dash, "all · flat")
	s.typeKeys(dash, "/zebra")
	s.waitScreen(dash, "1 of ")
	s.keys(dash, "Enter")
	s.typeKeys(dash, "r")
	s.waitScreen(dash, "Resume “Zebra migration” into:")
	s.waitScreen(dash, "idle shell "+idle.id)
	for range 3 { // split below, split beside, new window, then the idle shell
		s.keys(dash, "Down")
	}
	s.keys(dash, "Enter")
	resumed := liveIn(t, e, idle.tty, "on the past session", func(l agent.LiveStatus) bool { return l.SessionFile == past })
	s.waitScreen(idle, "migrate the zebras")
	if resumed.SessionID != "7e57da5400000001" {
		t.Errorf("the resumed agent has session id %s", resumed.SessionID)
	}
	// The dashboard shows the live view again, on the pane it started.
	s.waitScreen(dash, "resumed 7e57da54 in "+idle.id)
	s.waitScreen(dash, "live · window")
	s.waitScreen(dash, "› "+idle.id)

	// f forks the live agent's session into a new split below it.
	parent := liveIn(t, e, ag.tty, "with a session", func(l agent.LiveStatus) bool { return l.SessionFile != "" })
	s.keys(dash, "Escape")
	s.typeKeys(dash, "/greeting")
	s.keys(dash, "Enter")
	s.typeKeys(dash, "f")
	s.waitScreen(dash, "Fork “write a greeting script” into:")
	s.waitScreen(dash, "› new split below "+ag.id)
	before := s.tmux("list-panes", "-a", "-F", "#{pane_id}")
	s.keys(dash, "Enter")
	forked := s.newPane(before)
	if w := s.tmux("display", "-p", "-t", forked.id, "#{window_id}"); w != s.tmux("display", "-p", "-t", ag.id, "#{window_id}") {
		t.Errorf("the fork's pane %s is not in the agent's window", forked.id)
	}
	fork := liveIn(t, e, forked.tty, "on a fork", func(l agent.LiveStatus) bool { return l.SessionFile != "" && l.SessionFile != parent.SessionFile })
	if h := header(t, fork.SessionFile); h["parentSession"] != parent.SessionID || h["cwd"] != proj {
		t.Errorf("the fork's header %v, want parentSession %s in %s", h, parent.SessionID, proj)
	}
	s.waitScreen(forked, "write a greeting script")
	s.waitScreen(dash, fmt.Sprintf("into %s", forked.id))

	// r resumes another past session into a new window.
	s.keys(dash, "Escape")
	s.waitScreen(dash, "› "+forked.id)
	s.keys(dash, "Tab")
	s.waitScreen(dash, "all · flat")
	s.typeKeys(dash, "/yak")
	s.waitScreen(dash, "1 of ")
	s.keys(dash, "Enter")
	s.typeKeys(dash, "r")
	s.waitScreen(dash, "› new split below "+dash.id)
	before = s.tmux("list-panes", "-a", "-F", "#{pane_id}")
	s.keys(dash, "Down")
	s.keys(dash, "Down")
	s.waitScreen(dash, "› new window in session")
	s.keys(dash, "Enter")
	win := s.newPane(before)
	if n := s.tmux("display", "-p", "-t", win.id, "#{window_panes}"); n != "1\n" {
		t.Errorf("the resumed session's pane %s shares its window (%s panes)", win.id, strings.TrimSpace(n))
	}
	liveIn(t, e, win.tty, "on the second past session", func(l agent.LiveStatus) bool { return l.SessionFile == yak })
	s.waitScreen(win, "shave the yak")

	// q leaves the dashboard.
	s.typeKeys(dash, "q")
	if code := s.wait(dash, rc); code != 0 {
		t.Errorf("xcsh dash exited %d", code)
	}
}

// TestFollowFile: the watch rings after an append and after the file is
// replaced by a rename, not for other files; stop closes the channel.
func TestFollowFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ch, stop := followFile(path)
	ring := func(what string) {
		t.Helper()
		select {
		case _, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the channel closed", what)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no ring", what)
		}
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{}\n")
	f.Close()
	ring("append")
	if err := os.WriteFile(filepath.Join(dir, "other.jsonl"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Fatal("rang for another file")
	case <-time.After(100 * time.Millisecond):
	}
	if err := os.WriteFile(path+".tmp", []byte("{}\n{}\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	ring("rewrite")
	stop()
	stop()
	for range ch { // drained, then closed
	}
}

// TestDashUsage: the attention mode is checked, and the dashboard needs a
// terminal.
func TestDashUsage(t *testing.T) {
	e := newTestEnv(t)
	if r := e.run(e.home, "", "dash", "--attention", "loud"); r.code != 2 || !strings.Contains(r.stderr, `--attention "loud": use message, bell, both, off`) {
		t.Errorf("--attention loud: %s", r)
	}
	if r := e.run(e.home, "", "dash"); r.code != 1 || !strings.Contains(r.stderr, "xcsh dash needs a terminal") {
		t.Errorf("without a terminal: %s", r)
	}
}
