package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// tmuxServer is a private tmux server (`tmux -L <unique name>`, its socket
// in a directory of its own) that lives as long as the test. Its panes run
// bash without startup files, in the environment of a testEnv.
type tmuxServer struct {
	t       *testing.T
	name    string
	env     []string
	scratch string // rc and output files of the commands run in panes
}

// pane is a pane of the test's server.
type pane struct {
	id  string // "%3"
	tty string // "/dev/pts/3"
}

var tmuxSeq atomic.Int64

// paneTimeout bounds every wait for something to happen in a pane.
const paneTimeout = 15 * time.Second

// startTmux starts a server for e whose first pane runs in dir.
func startTmux(t *testing.T, e *testEnv, dir string) (*tmuxServer, pane) {
	t.Helper()
	if testing.Short() {
		t.Skip("real-tmux test; skipped with -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the real-tmux tests need it")
	}
	// tmux 3.3a leaves its socket behind after kill-server; keep it in a
	// directory of our own (short: a socket path has at most 107 bytes).
	sockDir, err := os.MkdirTemp("", "xt")
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxServer{
		t:       t,
		name:    fmt.Sprintf("xcsh-test-%d-%d", os.Getpid(), tmuxSeq.Add(1)),
		scratch: t.TempDir(),
		// e.environ has no TMUX, TMUX_PANE or other terminal variables: the
		// panes see only what tmux itself sets. Under -race a helper would
		// otherwise sleep a second at exit. HISTFILE= keeps bash from writing
		// its history into HOME while the test removes it.
		env: e.environ("TMUX_TMPDIR="+sockDir, "SHELL=/bin/sh", "PS1=$ ", "HISTFILE=", "GORACE=atexit_sleep_ms=0"),
	}
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", s.name, "kill-server")
		cmd.Env = s.env
		_ = cmd.Run()
		_ = os.RemoveAll(sockDir)
	})
	out := s.tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-c", dir,
		"-P", "-F", "#{pane_id} #{pane_tty}", "bash --norc --noprofile")
	return s, parsePane(t, out)
}

func parsePane(t *testing.T, out string) pane {
	t.Helper()
	f := strings.Fields(out)
	if len(f) != 2 {
		t.Fatalf("tmux printed %q, want a pane id and tty", out)
	}
	return pane{id: f[0], tty: f[1]}
}

func (s *tmuxServer) tmux(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", s.name}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// split adds a pane beside p's, in dir.
func (s *tmuxServer) split(p pane, dir string) pane {
	s.t.Helper()
	return parsePane(s.t, s.tmux("split-window", "-d", "-t", p.id, "-c", dir, "-P", "-F", "#{pane_id} #{pane_tty}", "bash --norc --noprofile"))
}

// window opens a pane in a new window (the whole 200x50), in dir.
func (s *tmuxServer) window(dir string) pane {
	s.t.Helper()
	return parsePane(s.t, s.tmux("new-window", "-d", "-c", dir, "-P", "-F", "#{pane_id} #{pane_tty}", "bash --norc --noprofile"))
}

// typeLine types line into p and presses Enter.
func (s *tmuxServer) typeLine(p pane, line string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", p.id, "-l", line)
	s.tmux("send-keys", "-t", p.id, "Enter")
}

// keys sends tmux key names (Enter, Escape, C-c, Tab, ...) to p.
func (s *tmuxServer) keys(p pane, keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", p.id}, keys...)...)
}

// screen is what p shows now.
func (s *tmuxServer) screen(p pane) string {
	s.t.Helper()
	return s.tmux("capture-pane", "-p", "-N", "-t", p.id)
}

// waitScreen waits until p shows want.
func (s *tmuxServer) waitScreen(p pane, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(paneTimeout)
	for {
		sc := s.screen(p)
		if strings.Contains(sc, want) {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("pane %s never showed %q; it shows:\n%s", p.id, want, sc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// start types a shell command into p that records its exit status when it
// ends; wait returns that status.
func (s *tmuxServer) start(p pane, name, cmdline string) string {
	s.t.Helper()
	rc := filepath.Join(s.scratch, name+".rc")
	s.typeLine(p, cmdline+"; echo $? > "+shellQuote(rc+".tmp")+" && mv "+shellQuote(rc+".tmp")+" "+shellQuote(rc))
	return rc
}

// wait waits for the command started with start to end and returns its exit
// status.
func (s *tmuxServer) wait(p pane, rc string) int {
	s.t.Helper()
	data := waitFile(s.t, rc, paneTimeout, func() string { return "pane " + p.id + " shows:\n" + s.screen(p) })
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		s.t.Fatalf("exit status file %s: %q", rc, data)
	}
	return n
}

// offTerminal runs a shell command with its stdout piped through cat: xcsh
// then resolves, opens and shows the session instead of opening the chat
// screen (which needs stdin and stdout on the terminal), while the pane still
// shows what it prints; the exit status stays the command's (pipefail).
func offTerminal(cmdline string) string {
	return "set -o pipefail; " + cmdline + " | cat"
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// agentCmd is the shell command that runs the stand-in agent (this test
// binary, see runTestAgent) with xcsh's args, reporting to result.
func agentCmd(t *testing.T, result string, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	line := "env " + envTestAgent + "=" + shellQuote(result) + " " + shellQuote(exe)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	return line
}

// runAgent runs the stand-in agent in p and returns its report.
func (s *tmuxServer) runAgent(p pane, name string, args ...string) agentResult {
	s.t.Helper()
	res := filepath.Join(s.scratch, name+".json")
	rc := s.start(p, name, agentCmd(s.t, res, args...))
	if code := s.wait(p, rc); code != 0 {
		s.t.Fatalf("agent %s in pane %s exited %d:\n%s", name, p.id, code, s.screen(p))
	}
	var r agentResult
	if err := json.Unmarshal(waitFile(s.t, res, paneTimeout, nil), &r); err != nil || r.Session == "" {
		s.t.Fatalf("agent %s reported %+v (%v)", name, r, err)
	}
	return r
}

// xcsh runs the real xcsh in p with its stdout in a file and returns that
// output and the exit status.
func (s *tmuxServer) xcsh(p pane, name string, args ...string) (string, int) {
	s.t.Helper()
	out := filepath.Join(s.scratch, name+".out")
	line := shellQuote(xcshBin)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	rc := s.start(p, name, line+" > "+shellQuote(out))
	code := s.wait(p, rc)
	data, err := os.ReadFile(out)
	if err != nil {
		s.t.Fatal(err)
	}
	return string(data), code
}

// TestTmuxContinueOwnSession: two panes in one directory each start a
// session as an agent does; `xcsh --continue --explain` in each names its own
// session, although only one of them is the newest in the directory. A third
// pane, with no crumb yet, gets the newest.
func TestTmuxContinueOwnSession(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj := e.dir("proj")
	s, p1 := startTmux(t, e, proj)
	p2 := s.split(p1, proj)

	a1 := s.runAgent(p1, "agent1")
	a2 := s.runAgent(p2, "agent2")
	if a1.Session == a2.Session {
		t.Fatalf("both agents wrote %s", a1.Session)
	}
	// The first pane's agent continues its own session; that makes it the
	// newest, so the second pane can only find its own through its crumb.
	a1c := s.runAgent(p1, "agent1-again", "-c")
	if a1c.Session != a1.Session {
		t.Fatalf("agent -c in pane %s continued %s, want its own %s", p1.id, a1c.Session, a1.Session)
	}
	for _, a := range []agentResult{a1, a2} {
		if filepath.Dir(a.Session) != e.sessionDir(proj) {
			t.Errorf("agent session %s is not in %s", a.Session, e.sessionDir(proj))
		}
	}
	if got := strings.Count(e.mustRun(proj, "sessions", "show", a1.Session), "\n"); got == 0 {
		t.Fatal("sessions show of the first agent's session printed nothing")
	}

	p3 := s.split(p1, proj)
	for _, tt := range []struct {
		p          pane
		session    string
		rulePrefix string
	}{
		{p1, a1.Session, "breadcrumb of terminal " + ptsKey(p1) + " (tty)"},
		{p2, a2.Session, "breadcrumb of terminal " + ptsKey(p2) + " (tty)"},
		{p3, a1.Session, "no breadcrumb for terminal " + ptsKey(p3) + "; the newest session in " + e.sessionDir(proj)},
	} {
		out, code := s.xcsh(tt.p, "explain-"+strings.TrimPrefix(tt.p.id, "%"), "--continue", "--explain")
		if code != 0 {
			t.Fatalf("pane %s: xcsh --continue --explain exited %d:\n%s", tt.p.id, code, s.screen(tt.p))
		}
		f := explain(t, out)
		if f["action"] != "open" || f["session"] != tt.session || f["rule"] != tt.rulePrefix {
			t.Errorf("pane %s (%s): --continue --explain:\n%s\nwant session %s by rule %q", tt.p.id, tt.p.tty, out, tt.session, tt.rulePrefix)
		}
		if !strings.HasPrefix(f["terminal"], ptsKey(tt.p)+" (tty)") {
			t.Errorf("pane %s: terminal %q, want %s", tt.p.id, f["terminal"], ptsKey(tt.p))
		}
	}
	// A new session that has no message yet (an agent started, then left
	// before its first reply) is what -c continues in that pane, not the
	// transcript before it; the other panes keep theirs.
	out, code := s.xcsh(p1, "new", "a prompt")
	if code != 0 {
		t.Fatalf("xcsh with a prompt exited %d:\n%s", code, s.screen(p1))
	}
	fresh := strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "Session:   ")
	if _, err := os.Stat(fresh); !os.IsNotExist(err) || filepath.Dir(fresh) != e.sessionDir(proj) {
		t.Fatalf("a new session %q was written before its first message (%v):\n%s", fresh, err, out)
	}
	for _, tt := range []struct {
		p             pane
		session, rule string
	}{
		{p1, fresh, "breadcrumb " + ptsKey(p1) + " names a new session that has no messages yet (" + fresh + ")"},
		{p2, a2.Session, "breadcrumb of terminal " + ptsKey(p2) + " (tty)"},
	} {
		out, _ := s.xcsh(tt.p, "explain-again-"+strings.TrimPrefix(tt.p.id, "%"), "-c", "--explain")
		if f := explain(t, out); f["session"] != tt.session || f["rule"] != tt.rule {
			t.Errorf("pane %s after a new session in %s: -c --explain:\n%s\nwant %s by rule %q", tt.p.id, p1.id, out, tt.session, tt.rule)
		}
	}

	// Each crumb carries its terminal's generation token.
	for _, p := range []pane{p1, p2} {
		data, err := os.ReadFile(filepath.Join(e.crumbDir(), ptsKey(p)))
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], "sid=") {
			t.Errorf("crumb of %s: %q, want cwd, session file and token", p.id, data)
		}
	}
}

// ptsKey is the breadcrumb key of a pane: its tty without /dev/, '/' as '-'.
func ptsKey(p pane) string {
	return strings.ReplaceAll(strings.TrimPrefix(p.tty, "/dev/"), "/", "-")
}

// TestTmuxForkPrompt: --resume of a session in another project asks, on a
// terminal, whether to fork it here; yes forks, anything else refuses with
// the other-project message.
func TestTmuxForkPrompt(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj, other := e.dir("proj"), e.dir("other")
	src := e.writeSession(fixture{id: idO1, cwd: other, users: []string{"other work"}, age: hour})
	s, yes := startTmux(t, e, proj)
	no := s.window(proj)
	prompt := "Session found in different project: " + other + ". Fork into current directory? [y/N] "

	rcYes := s.start(yes, "yes", offTerminal(shellQuote(xcshBin)+" -r 3333"))
	rcNo := s.start(no, "no", offTerminal(shellQuote(xcshBin)+" --resume 3333CC"))
	s.waitScreen(yes, prompt)
	s.waitScreen(no, prompt)
	s.typeLine(yes, "y")
	s.typeLine(no, "n")

	if code := s.wait(yes, rcYes); code != 0 {
		t.Fatalf("answering y: exit %d\n%s", code, s.screen(yes))
	}
	files := sessionFiles(t, e.sessionDir(proj))
	if len(files) != 1 {
		t.Fatalf("after the fork %s holds %v, want one session", e.sessionDir(proj), files)
	}
	if h := header(t, files[0]); h["parentSession"] != idO1 || h["cwd"] != proj {
		t.Errorf("forked header %v, want parentSession %s, cwd %s", h, idO1, proj)
	}
	if sc := s.screen(yes); !strings.Contains(sc, "Session:   "+files[0]) {
		t.Errorf("the fork was not shown:\n%s", sc)
	}
	if code := s.wait(no, rcNo); code != 1 {
		t.Errorf("answering n: exit %d, want 1", code)
	}
	if sc := s.screen(no); !strings.Contains(sc, prompt+"n\nSession \"3333CC\" is in another project ("+other+").\n") {
		t.Errorf("answering n shows:\n%s", sc)
	}
	if files2 := sessionFiles(t, e.sessionDir(proj)); len(files2) != 1 {
		t.Errorf("answering n forked anyway: %v", files2)
	}
	if h := header(t, src); h["id"] != idO1 {
		t.Errorf("the source changed: %v", h)
	}
}

// TestTmuxPicker drives the picker of `xcsh --resume` in real panes: a query
// and Enter open the chosen session; Tab reaches another project's session;
// Esc says "No session selected"; Ctrl+C leaves quietly; an ambiguous id
// prefix offers the picker over its matches.
func TestTmuxPicker(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj, other := e.dir("proj"), e.dir("other")
	parser := e.writeSession(fixture{id: idL1, cwd: proj, users: []string{"fix the parser"}, age: 5 * hour})
	e.writeSession(fixture{id: idL2, cwd: proj, title: "Refactor lexer", users: []string{"the lexer"}, age: hour})
	l3 := e.writeSession(fixture{id: idL3, cwd: proj, users: []string{"first of two"}, age: 4 * hour})
	l4 := e.writeSession(fixture{id: idL4, cwd: proj, title: "Second of two", users: []string{"x"}, age: 3 * hour})
	far := e.writeSession(fixture{id: idO1, cwd: other, users: []string{"deploy the frobnicator"}, age: 2 * hour})

	s, pick := startTmux(t, e, proj)
	tab, esc, ctrlc, amb := s.window(proj), s.window(proj), s.window(proj), s.window(proj)
	xcsh := shellQuote(xcshBin)
	rc := map[string]string{
		"pick":  s.start(pick, "pick", offTerminal(xcsh+" --resume")),
		"tab":   s.start(tab, "tab", offTerminal(xcsh+" -r")),
		"esc":   s.start(esc, "esc", offTerminal(xcsh+" --resume")),
		"ctrlc": s.start(ctrlc, "ctrlc", offTerminal(xcsh+" --resume")),
		"amb":   s.start(amb, "amb", offTerminal(xcsh+" -r 4444")),
	}
	for _, p := range []pane{pick, tab, esc, ctrlc} {
		s.waitScreen(p, "Refactor lexer")
	}
	s.waitScreen(amb, `Resume session — sessions matching "4444" (Tab: switch)`)
	s.waitScreen(amb, "Second of two")

	s.tmux("send-keys", "-t", pick.id, "-l", "parser")
	s.waitScreen(pick, "> parser")
	s.keys(pick, "Enter")

	s.keys(tab, "Tab")
	s.waitScreen(tab, "all sessions")
	s.tmux("send-keys", "-t", tab.id, "-l", "frob")
	s.waitScreen(tab, "> frob")
	s.keys(tab, "Enter")

	s.keys(esc, "Escape")
	s.keys(ctrlc, "C-c")
	s.keys(amb, "Down", "Enter")

	for _, tt := range []struct {
		name   string
		p      pane
		opened string // the session shown; "" for none
		says   string
	}{
		{"pick", pick, parser, ""},
		{"tab", tab, far, ""},
		{"esc", esc, "", "No session selected"},
		{"ctrlc", ctrlc, "", ""},
		{"amb", amb, l3, ""},
	} {
		if code := s.wait(tt.p, rc[tt.name]); code != 0 {
			t.Errorf("%s: exit %d\n%s", tt.name, code, s.screen(tt.p))
			continue
		}
		sc := s.screen(tt.p)
		if tt.opened != "" {
			want := e.mustRun(proj, "sessions", "show", tt.opened)
			if !strings.Contains(sc, want) {
				t.Errorf("%s: the pane does not show the session opened, want\n%s\nscreen:\n%s", tt.name, want, sc)
			}
			if data, err := os.ReadFile(filepath.Join(e.crumbDir(), ptsKey(tt.p))); err != nil || !strings.Contains(string(data), "\n"+tt.opened+"\n") {
				t.Errorf("%s: crumb %q (%v), want %s", tt.name, data, err, tt.opened)
			}
			continue
		}
		if strings.Contains(sc, "Session:") {
			t.Errorf("%s: a session was opened:\n%s", tt.name, sc)
		}
		if tt.says != "" && !strings.Contains(sc, "\n"+tt.says+"\n") {
			t.Errorf("%s: want %q on the screen:\n%s", tt.name, tt.says, sc)
		}
		if tt.says == "" && strings.Contains(sc, "No session selected") {
			t.Errorf("%s: Ctrl+C said something:\n%s", tt.name, sc)
		}
	}
	_ = l4
}
