package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xcsh-dev/xcsh/breadcrumb"
)

// TestOpenShowsTheSession: opening a session prints exactly what
// `xcsh sessions show` prints for it, and points this terminal's breadcrumb
// at it (the terminal here is named by TMUX_PANE: the run has no tty).
func TestOpenShowsTheSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.extra = []string{"TMUX_PANE=%7"}
	tests := []struct {
		name string
		dir  string
		args []string
		want string // the session file opened
	}{
		{"resume id", w.proj, []string{"-r", "1111"}, w.l1},
		{"continue", w.proj, []string{"-c"}, w.l1}, // the crumb the first case wrote
		{"resume path", w.proj, []string{"--resume", w.g2}, w.g2},
		{"continue elsewhere", w.proj, []string{"-c"}, w.l2}, // the crumb is for third, not proj
		{"resume in the same cwd, stored elsewhere", w.proj, []string{"-r", "6666"}, w.x1},
		{"session dir and resume", w.proj, []string{"--session-dir", w.sd, "-r", "7777"}, w.s1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := os.ReadFile(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			got := w.mustRun(tt.dir, tt.args...)
			if want := w.mustRun(tt.dir, "sessions", "show", tt.want); got != want {
				t.Errorf("xcsh %s printed\n%s\nwant `xcsh sessions show %s`:\n%s", strings.Join(tt.args, " "), got, tt.want, want)
			}
			if after, _ := os.ReadFile(tt.want); string(after) != string(before) {
				t.Errorf("opening a current session changed its file:\n%s", after)
			}
			c, err := breadcrumb.Read(w.crumbDir(), "tmux-%7")
			if err != nil {
				t.Fatalf("no breadcrumb for tmux-%%7: %v", err)
			}
			if c.SessionPath() != tt.want || c.Cwd != header(t, tt.want)["cwd"] {
				t.Errorf("breadcrumb %+v, want the session %s and its cwd", c, tt.want)
			}
			if tt.name == "resume id" {
				// now -c follows the crumb, not the newest session (l2)
				r := w.run(w.proj, "", "-c", "--explain")
				if f := explain(t, r.stdout); f["session"] != w.l1 || f["rule"] != "breadcrumb of terminal tmux-%7 (TMUX_PANE)" {
					t.Errorf("-c after opening l1 in tmux-%%7:\n%s", r.stdout)
				}
			}
		})
	}
}

// TestContinueUsesOwnCrumb: two terminals in one directory each continue
// their own session; a terminal without a crumb gets the newest session, and
// a crumb for another directory is not followed.
func TestContinueUsesOwnCrumb(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	as := func(pane string, dir string, args ...string) result {
		t.Helper()
		w.extra = []string{"TMUX_PANE=" + pane}
		return w.run(dir, "", args...)
	}
	if r := as("%1", w.proj, "-r", "1111"); r.code != 0 {
		t.Fatal(r)
	}
	if r := as("%2", w.proj, "-r", "4444f"); r.code != 0 {
		t.Fatal(r)
	}
	tests := []struct {
		pane, dir, session, rule string
	}{
		{"%1", w.proj, w.l1, "breadcrumb of terminal tmux-%1 (TMUX_PANE)"},
		{"%2", w.proj, w.l4, "breadcrumb of terminal tmux-%2 (TMUX_PANE)"},
		{"%3", w.proj, w.l2, "no breadcrumb for terminal tmux-%3; the newest session in " + w.sessionDir(w.proj)},
		{"%1", w.other, w.o1, "breadcrumb tmux-%1 not followed: crumb is for " + w.proj + ", not " + w.other + "; the newest session in " + w.sessionDir(w.other)},
	}
	for _, tt := range tests {
		r := as(tt.pane, tt.dir, "--continue", "--explain")
		f := explain(t, r.stdout)
		if f["session"] != tt.session || f["rule"] != tt.rule {
			t.Errorf("pane %s in %s: -c --explain:\n%s\nwant session %s by rule %q", tt.pane, tt.dir, r.stdout, tt.session, tt.rule)
		}
	}
}

// TestForkByID: --fork copies the session into this directory's session dir
// with parentSession set to the original id, and opens the copy.
func TestForkByID(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.extra = []string{"TMUX_PANE=%4"}
	for _, tt := range []struct {
		name, value, src, id string
	}{
		{"from this directory", "1111", w.l1, idL1},
		{"from another project", "3333", w.o1, idO1},
		{"by path", w.g2, w.g2, idG2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := w.sessionDir(w.proj)
			before := sessionFiles(t, dir)
			src, _ := os.ReadFile(tt.src)
			out := w.mustRun(w.proj, "--fork", tt.value)
			added := newFiles(before, sessionFiles(t, dir))
			if len(added) != 1 {
				t.Fatalf("--fork %s added %v to %s", tt.value, added, dir)
			}
			h := header(t, added[0])
			if h["parentSession"] != tt.id || h["cwd"] != w.proj {
				t.Errorf("forked header %v, want parentSession %s and cwd %s", h, tt.id, w.proj)
			}
			if want := w.mustRun(w.proj, "sessions", "show", added[0]); out != want {
				t.Errorf("--fork printed\n%s\nwant the fork's show:\n%s", out, want)
			}
			if !strings.Contains(out, "Entries:   2 (2 messages)") {
				t.Errorf("the fork does not hold the source's messages:\n%s", out)
			}
			if after, _ := os.ReadFile(tt.src); string(after) != string(src) {
				t.Errorf("--fork changed its source %s", tt.src)
			}
			if c, err := breadcrumb.Read(w.crumbDir(), "tmux-%4"); err != nil || c.SessionPath() != added[0] {
				t.Errorf("breadcrumb %+v (%v), want the fork %s", c, err, added[0])
			}
		})
	}
}

func newFiles(before, after []string) []string {
	seen := map[string]bool{}
	for _, p := range before {
		seen[p] = true
	}
	var out []string
	for _, p := range after {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out
}

// TestOpenMigrates: a legacy (version 1) file is migrated when it is opened,
// keeping its modification time.
func TestOpenMigrates(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj := e.dir("proj")
	p := e.writeSession(fixture{id: "0123456789abcdef", cwd: proj, users: []string{"old times"}, version: 1, age: 48 * hour})
	fi, _ := os.Stat(p)
	out := e.mustRun(proj, "-r", "0123")
	h := header(t, p)
	if h["version"] != float64(3) {
		t.Errorf("header after opening %v, want version 3", h)
	}
	data, _ := os.ReadFile(p)
	if n := strings.Count(string(data), `"parentId"`); n != 2 {
		t.Errorf("migrated file has %d parentIds, want 2:\n%s", n, data)
	}
	if fi2, _ := os.Stat(p); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("migration moved the modification time from %v to %v", fi.ModTime(), fi2.ModTime())
	}
	if !strings.Contains(out, "Entries:   2 (2 messages)") {
		t.Errorf("opened:\n%s", out)
	}
}

// TestOpenNewSessions: the ways to get a new session; none writes a file
// before the first message, but the crumb names the session to come, and a
// missing --resume path is created at exactly that path.
func TestOpenNewSessions(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.extra = []string{"TMUX_PANE=%9"}
	proj := e.dir("proj")

	out := e.mustRun(proj, "-c")
	if !strings.Contains(out, "Cwd:       "+proj+"\n") || !strings.Contains(out, "Entries:   0 (0 messages)") {
		t.Errorf("-c with nothing to continue:\n%s", out)
	}
	c, err := breadcrumb.Read(e.crumbDir(), "tmux-%9")
	if err != nil || filepath.Dir(c.SessionPath()) != e.sessionDir(proj) {
		t.Errorf("crumb after -c: %+v, %v", c, err)
	}
	if files := sessionFiles(t, e.sessionDir(proj)); len(files) != 0 {
		t.Errorf("a new session was written before its first message: %v", files)
	}

	sd := filepath.Join(proj, "sd")
	out = e.mustRun(proj, "--session-dir", "sd")
	if c, _ := breadcrumb.Read(e.crumbDir(), "tmux-%9"); filepath.Dir(c.SessionPath()) != sd {
		t.Errorf("crumb after --session-dir sd: %+v\n%s", c, out)
	}

	out = e.mustRun(proj, "--no-session")
	if !strings.Contains(out, "Session:   \n") {
		t.Errorf("--no-session:\n%s", out)
	}
	if c2, _ := breadcrumb.Read(e.crumbDir(), "tmux-%9"); filepath.Dir(c2.SessionPath()) != sd {
		t.Errorf("--no-session moved the crumb: %+v", c2)
	}

	missing := filepath.Join(proj, "new", "here.jsonl")
	out = e.mustRun(proj, "-r", "new/here.jsonl")
	h := header(t, missing)
	if h["type"] != "session" || h["cwd"] != proj {
		t.Errorf("--resume of a missing path wrote %v", h)
	}
	if !strings.HasPrefix(out, "Session:   "+missing+"\n") {
		t.Errorf("--resume new/here.jsonl:\n%s", out)
	}
	if c, _ := breadcrumb.Read(e.crumbDir(), "tmux-%9"); c.SessionPath() != missing {
		t.Errorf("crumb %+v, want %s", c, missing)
	}
}

// TestInspectErrors: a missing file, a directory or a file that is not a
// session given to the inspection commands is named in a clear error, exit 1.
func TestInspectErrors(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj := e.dir("proj")
	notes := filepath.Join(proj, "notes.txt")
	if err := os.WriteFile(notes, []byte("{\"type\":\"message\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(proj, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	notSession := func(p string) string {
		return "Error: " + p + " is not a session file: its first line is not a session header ({\"type\":\"session\",\"id\":...})\n"
	}
	files := []struct{ arg, stderr string }{
		{"missing.jsonl", "Error: session file " + filepath.Join(proj, "missing.jsonl") + " does not exist\n"},
		{proj, "Error: " + proj + " is a directory, not a session file\n"},
		{"notes.txt", notSession(notes)},
		{"empty.jsonl", notSession(empty)},
	}
	for _, sub := range []string{"show", "entries", "context", "tree"} {
		for _, f := range files {
			r := e.run(proj, "", "sessions", sub, f.arg)
			if r.code != 1 || r.stdout != "" || r.stderr != f.stderr {
				t.Errorf("xcsh sessions %s %s:\n%s\nwant exit 1 and %q", sub, f.arg, r, f.stderr)
			}
		}
	}
}
