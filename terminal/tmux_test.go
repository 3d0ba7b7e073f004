package terminal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/terminal"
)

// terminalEnv are the variables that tie a process to a terminal. They are
// removed from the environment of every tmux server and helper the tests
// start, so the tests see only what they set themselves.
var terminalEnv = []string{
	"TMUX", "TMUX_PANE", "KITTY_WINDOW_ID", "KITTY_PID", "KITTY_LISTEN_ON",
	"TERM_SESSION_ID", "WT_SESSION", "WEZTERM_PANE", "WEZTERM_UNIX_SOCKET",
}

// cleanEnv is the test's environment without terminalEnv and helper
// settings, plus extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "XCSH_TERMINAL_TEST_") && !contains(terminalEnv, name) && name != "GORACE" {
			env = append(env, kv)
		}
	}
	// Under -race a helper would otherwise sleep a second at exit.
	env = append(env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return append(env, extra...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// tmuxServer is a private tmux server (`tmux -L <unique name>`) that lives as
// long as the test.
type tmuxServer struct {
	t      *testing.T
	name   string
	env    []string
	socket string // #{socket_path}
	pid    int    // #{pid}
}

// pane is a pane the test spawned.
type pane struct {
	id  string // "%3"
	tty string // "/dev/pts/3"
	pid int    // pane_pid, the pane's session leader
}

var serverSeq atomic.Int64

func startTmux(t *testing.T) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the real-tmux tests need it")
	}
	// tmux 3.3a leaves its socket behind after kill-server; keep it in a
	// directory of our own (short: a socket path has at most 107 bytes).
	tmpdir, err := os.MkdirTemp("", "xt")
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxServer{
		t:    t,
		name: fmt.Sprintf("xcsh-terminal-test-%d-%d", os.Getpid(), serverSeq.Add(1)),
		// Panes run their command with $SHELL -c; pin it.
		env: cleanEnv("SHELL=/bin/sh", "TMUX_TMPDIR="+tmpdir),
	}
	t.Cleanup(func() {
		s.kill()
		_ = os.RemoveAll(tmpdir)
	})
	// A session whose only pane sleeps keeps the server up while test panes
	// come and go.
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "keep", "-x", "120", "-y", "40", "sleep 600")
	info := strings.Fields(s.run("display-message", "-p", "-t", "keep:", "#{pid} #{socket_path}"))
	if len(info) != 2 {
		t.Fatalf("tmux display-message: %q", info)
	}
	s.pid, _ = strconv.Atoi(info[0])
	s.socket = info[1]
	return s
}

// kill stops this test's server only: kill-server over its own socket, and
// failing that a signal to the pid it reported.
func (s *tmuxServer) kill() {
	cmd := exec.Command("tmux", "-L", s.name, "kill-server")
	cmd.Env = s.env
	if err := cmd.Run(); err == nil || s.pid <= 0 {
		return
	}
	// Only if that pid is still a tmux: the server may be gone already and
	// its pid reused.
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", s.pid)); err == nil && strings.HasPrefix(string(comm), "tmux") {
		_ = syscall.Kill(s.pid, syscall.SIGTERM)
	}
}

func (s *tmuxServer) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", s.name}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// spawn opens a new window in cwd running shell command cmd.
func (s *tmuxServer) spawn(cwd, cmd string) pane {
	s.t.Helper()
	out := s.run("new-window", "-d", "-t", "keep:", "-c", cwd, "-P", "-F", "#{pane_id} #{pane_tty} #{pane_pid}", cmd)
	f := strings.Fields(out)
	if len(f) != 3 {
		s.t.Fatalf("new-window printed %q", out)
	}
	pid, err := strconv.Atoi(f[2])
	if err != nil {
		s.t.Fatalf("new-window printed %q", out)
	}
	return pane{id: f[0], tty: f[1], pid: pid}
}

// wait reads the result a helper in p writes to out.
func (s *tmuxServer) wait(t *testing.T, p pane, out string) helperResult {
	t.Helper()
	r, err := waitResult(out)
	if err != nil {
		screen, _ := exec.Command("tmux", "-L", s.name, "capture-pane", "-p", "-t", p.id).CombinedOutput()
		t.Fatalf("pane %s: %v; screen:\n%s", p.id, err, screen)
	}
	return r
}

func waitResult(out string) (helperResult, error) {
	var r helperResult
	deadline := time.Now().Add(15 * time.Second)
	for {
		data, err := os.ReadFile(out)
		if err == nil {
			return r, json.Unmarshal(data, &r)
		}
		if !errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			return r, fmt.Errorf("no helper result %s: %w", out, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// helperCmd is a shell command line that runs the helper process (this test
// binary) in mode, reporting to out, with extra environment assignments. It
// starts with env, so it can follow setsid.
func helperCmd(t *testing.T, mode, out string, env ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("env ")
	for _, kv := range append([]string{envHelper + "=" + mode, envOut + "=" + out}, env...) {
		name, value, _ := strings.Cut(kv, "=")
		b.WriteString(name + "=" + shellQuote(value) + " ")
	}
	b.WriteString(shellQuote(exe))
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestTmuxReusedPtsDoesNotInheritCrumb kills a pane and opens a new one on
// the same /dev/pts/N. The new pane finds the old pane's crumb under the same
// key but does not follow it, because the generation token differs; a second
// xcsh in the new pane does follow the new pane's crumb. It is not parallel:
// the other tests' panes would compete for the tty.
func TestTmuxReusedPtsDoesNotInheritCrumb(t *testing.T) {
	s := startTmux(t)
	root := t.TempDir()
	work := filepath.Join(root, "work")
	dir := filepath.Join(root, "agent", "terminal-sessions")
	sess := filepath.Join(root, "s.jsonl")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sess, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	crumbEnv := []string{envDir + "=" + dir, envSession + "=" + sess}

	out1 := filepath.Join(root, "first.json")
	p1 := s.spawn(work, helperCmd(t, "crumb", out1, crumbEnv...)+"; exec sleep 600")
	r1 := s.wait(t, p1, out1)
	if r1.Identity.TTY != p1.tty || r1.Identity.Leader != p1.pid || r1.Identity.Token == "" || r1.Found || r1.WriteErr != "" {
		t.Fatalf("first pane %+v: %+v", p1, r1)
	}

	s.run("kill-pane", "-t", p1.id)
	// The kernel hands a new pty the lowest free index, so the next pane gets
	// p1's tty once the old pane's processes have let go of it, unless a lower
	// index is free or another process takes it first. Panes that get another
	// tty are kept until the end, so the lower indices stay taken.
	var p2 pane
	var out2, out3 string
	var fillers []pane
	deadline := time.Now().Add(10 * time.Second)
	for attempt := 0; ; attempt++ {
		out2 = filepath.Join(root, fmt.Sprintf("second-%d.json", attempt))
		out3 = filepath.Join(root, fmt.Sprintf("third-%d.json", attempt))
		p := s.spawn(work, helperCmd(t, "crumb", out2, crumbEnv...)+"; "+helperCmd(t, "crumb", out3, crumbEnv...)+"; exec sleep 600")
		if p.tty == p1.tty {
			p2 = p
			break
		}
		fillers = append(fillers, p)
		if time.Now().After(deadline) || attempt > 200 {
			t.Fatalf("no new pane got %s back within 10 s (the last got %s)", p1.tty, p.tty)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range fillers {
		s.run("kill-pane", "-t", p.id)
	}

	r2 := s.wait(t, p2, out2)
	id1, id2 := r1.Identity, r2.Identity
	if id2.Key != id1.Key || id2.TTY != id1.TTY {
		t.Fatalf("new pane key %q tty %q, old %q %q: the tty was not reused", id2.Key, id2.TTY, id1.Key, id1.TTY)
	}
	if id2.Token == id1.Token || id2.Leader != p2.pid {
		t.Errorf("new pane token %q leader %d, old %q: want a new generation led by %d", id2.Token, id2.Leader, id1.Token, p2.pid)
	}
	if !r2.Found || r2.Crumb.Token != id1.Token {
		t.Fatalf("new pane did not see the old crumb under %q: %+v", id2.Key, r2)
	}
	if r2.OK || !strings.Contains(r2.Reason, "generation token") {
		t.Errorf("new pane would follow the old pane's crumb: ok=%v reason=%q", r2.OK, r2.Reason)
	}

	r3 := s.wait(t, p2, out3)
	if !r3.Found || r3.Crumb.Token != id2.Token || !r3.OK || r3.Identity.Token != id2.Token {
		t.Errorf("second xcsh in the same pane does not follow its pane's crumb: %+v", r3)
	}
}

// TestTmuxFindsTTY runs the helper in tmux panes with stdin, stdout and
// stderr redirected in turn, and with leaked outer terminal ids.
func TestTmuxFindsTTY(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	root := t.TempDir()
	tests := []struct {
		name    string
		shell   string // %s is the helper
		ttyFrom string // "" when no tty is expected
		kitty   bool   // the overlay is the fake kitty
	}{
		{"terminal", "%s", "stdin", false},
		{"stdin from /dev/null", "%s </dev/null", "stdout", false},
		{"output piped", "%s | cat", "stdin", false},
		{"stdin from /dev/null and stdout piped", "%s </dev/null | cat", "stderr", false},
		{"all redirected", "%s </dev/null 2>&1 | cat >/dev/null", "/proc/self/stat", false},
		{"stdin opened as /dev/tty", "%s </dev/tty >/dev/null 2>&1", "/proc/self/stat", false},
		// tmux started from a kitty window: its ids leak into every pane.
		{"leaked kitty ids", "KITTY_WINDOW_ID=5 KITTY_PID=1 TERM_SESSION_ID=w0t0p0:X %s", "stdin", false},
		// kitty started from this pane: the pane's shell stands in for it and is
		// nearer than the tmux server.
		{"kitty inside tmux", "KITTY_WINDOW_ID=9 KITTY_PID=$$ %s", "stdin", true},
		{"no controlling tty", "setsid -w %s </dev/null >/dev/null 2>&1", "", false},
	}
	panes := make([]pane, len(tests))
	outs := make([]string, len(tests))
	for i, tc := range tests {
		outs[i] = filepath.Join(root, fmt.Sprintf("r%d.json", i))
		panes[i] = s.spawn(root, fmt.Sprintf(tc.shell, helperCmd(t, "detect", outs[i]))+"; exec sleep 600")
	}
	// When /proc cannot name the pane, detection asks the server.
	rows, err := terminal.TmuxPanes(s.socket)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if want := fmt.Sprintf("%s %d %s", p.id, p.pid, p.tty); !contains(rows, want) {
			t.Errorf("tmux list-panes gave %q, without %q", rows, want)
		}
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := panes[i]
			id := s.wait(t, p, outs[i]).Identity
			if tc.ttyFrom == "" {
				if id.TTY != "" || id.Token != "" || id.Rule != "TMUX_PANE" || id.Key != "tmux-"+p.id {
					t.Errorf("without a controlling tty: %+v, want key tmux-%s", id, p.id)
				}
			} else {
				wantKey := strings.ReplaceAll(strings.TrimPrefix(p.tty, "/dev/"), "/", "-")
				if id.TTY != p.tty || id.TTYFrom != tc.ttyFrom || id.Key != wantKey || id.Rule != "tty" {
					t.Errorf("tty %q from %q key %q rule %q; want %q from %q key %q rule tty",
						id.TTY, id.TTYFrom, id.Key, id.Rule, p.tty, tc.ttyFrom, wantKey)
				}
				if id.Leader != p.pid || !strings.HasPrefix(id.Token, fmt.Sprintf("sid=%d:", p.pid)) || !strings.Contains(id.Token, ";boot=") {
					t.Errorf("leader %d token %q; want leader %d", id.Leader, id.Token, p.pid)
				}
			}
			ov := id.Overlay
			switch {
			case ov == nil:
				t.Fatal("no overlay")
			case tc.kitty:
				if ov.Kind != "kitty" || ov.PID != p.pid || ov.Pane != "9" || ov.VerifiedBy != terminal.VerifiedByProcessTree {
					t.Errorf("overlay %+v, want the nearer kitty", *ov)
				}
			default:
				want := terminal.Overlay{
					Kind: "tmux", ID: fmt.Sprintf("tmux:%s:%d:%s", s.socket, s.pid, p.id), Socket: s.socket, PID: s.pid,
					Session: "$0", Pane: p.id, VerifiedBy: terminal.VerifiedByPaneEnviron,
				}
				if *ov != want {
					t.Errorf("overlay\n got %+v\nwant %+v", *ov, want)
				}
			}
		})
	}
}

// hostileValues are environment ids that try to leave terminal-sessions.
var hostileValues = []string{
	"../../x", "..", "../", "/", ".", "a/../../b", "x\n/../y", "~/../../etc/passwd",
	"/tmp/abs", strings.Repeat("../", 100) + "x", "\x00../x",
}

// keyRuleEnv are the environment rules, in TypeScript xcsh's order.
var keyRuleEnv = []struct{ name, prefix string }{
	{"KITTY_WINDOW_ID", "kitty-"}, {"TMUX_PANE", "tmux-"}, {"TERM_SESSION_ID", "apple-"}, {"WT_SESSION", "wt-"},
}

// TestEnvIDsStayInTerminalSessions runs xcsh without a controlling tty, so
// the environment ids key its crumb, with values that try to escape the
// terminal-sessions directory.
func TestEnvIDsStayInTerminalSessions(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range keyRuleEnv {
		for i, v := range hostileValues {
			if strings.ContainsRune(v, 0) {
				continue // cannot be passed through exec; see the fuzz test of SanitizeKeyPart
			}
			t.Run(fmt.Sprintf("%s=%q", rule.name, v), func(t *testing.T) {
				t.Parallel()
				base := t.TempDir()
				root := filepath.Join(base, "home")
				out := filepath.Join(base, fmt.Sprintf("r%d.json", i))
				dir := filepath.Join(root, "agent", "terminal-sessions")
				if err := os.Mkdir(root, 0o700); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(exe)
				cmd.Dir = root
				cmd.Env = cleanEnv(envHelper+"=crumb", envOut+"="+out, envDir+"="+dir,
					envSession+"="+filepath.Join(root, "s.jsonl"), rule.name+"="+v)
				// A new session has no controlling tty; fds 0-2 are /dev/null.
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("helper: %v: %s", err, b)
				}
				r, err := waitResult(out)
				if err != nil {
					t.Fatal(err)
				}
				assertCrumbInside(t, r, base, dir, out, rule.prefix+terminal.SanitizeKeyPart(v), rule.name)
			})
		}
	}
}

// TestTmuxEnvIDsStayInTerminalSessions does the same inside a tmux pane,
// where TMUX_PANE is really set, with setsid to drop the controlling tty.
func TestTmuxEnvIDsStayInTerminalSessions(t *testing.T) {
	t.Parallel()
	s := startTmux(t)
	type run struct {
		rule            string
		base, root, out string
		p               pane
		wantKey         string
	}
	var runs []run
	for i, rule := range keyRuleEnv {
		base := t.TempDir()
		root := filepath.Join(base, "home")
		out := filepath.Join(base, "r.json")
		dir := filepath.Join(root, "agent", "terminal-sessions")
		if err := os.Mkdir(root, 0o700); err != nil {
			t.Fatal(err)
		}
		// Only the rule under test may be set: TMUX_PANE comes before
		// TERM_SESSION_ID and WT_SESSION.
		unset := "env -u KITTY_WINDOW_ID -u TMUX_PANE -u TERM_SESSION_ID -u WT_SESSION"
		value := hostileValues[i%2]
		cmd := fmt.Sprintf("%s %s=%s setsid -w %s </dev/null >/dev/null 2>&1; exec sleep 600", unset, rule.name, shellQuote(value),
			helperCmd(t, "crumb", out, envDir+"="+dir, envSession+"="+filepath.Join(root, "s.jsonl")))
		runs = append(runs, run{rule.name, base, root, out, s.spawn(root, cmd), rule.prefix + terminal.SanitizeKeyPart(value)})
	}
	for _, r := range runs {
		t.Run(r.rule, func(t *testing.T) {
			res := s.wait(t, r.p, r.out)
			assertCrumbInside(t, res, r.base, filepath.Join(r.root, "agent", "terminal-sessions"), r.out, r.wantKey, r.rule)
			if ov := res.Identity.Overlay; ov == nil || ov.Kind != "tmux" || ov.Pane != r.p.id {
				t.Errorf("overlay %+v, want tmux pane %s", ov, r.p.id)
			}
		})
	}
}

// assertCrumbInside checks that the helper keyed its crumb by rule with
// wantKey and that the only files under base are that crumb, in dir, and the
// helper's result out. dir is base/home/agent/terminal-sessions, so a value
// like ../../x that escaped would land inside base.
func assertCrumbInside(t *testing.T, r helperResult, base, dir, out, wantKey, rule string) {
	t.Helper()
	id := r.Identity
	if id.TTY != "" || id.Rule != rule || id.Key != wantKey || r.WriteErr != "" {
		t.Fatalf("identity %+v, write error %q; want key %q by %s", id, r.WriteErr, wantKey, rule)
	}
	if _, err := breadcrumb.Read(dir, id.Key); err != nil {
		t.Errorf("crumb not readable: %v", err)
	}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if p != filepath.Join(dir, id.Key) && p != out {
			t.Errorf("file written outside the crumb: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func BenchmarkDetect(b *testing.B) {
	b.Run("env", func(b *testing.B) {
		for b.Loop() {
			if _, err := terminal.Detect(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Without multiplexer variables Detect makes no tmux call: the cost of
	// the tty, process-tree and token work alone.
	b.Run("no multiplexer", func(b *testing.B) {
		env := func(k string) string {
			if contains(terminalEnv, k) {
				return ""
			}
			return os.Getenv(k)
		}
		for b.Loop() {
			if _, err := terminal.Detect(env); err != nil {
				b.Fatal(err)
			}
		}
	})
}
