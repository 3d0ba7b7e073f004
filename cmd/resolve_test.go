package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// world is a HOME with sessions in three projects and a separate session dir.
type world struct {
	*testEnv
	proj, other, third, fresh, sd string
	// session files by name
	l1, l2, l3, l4, o1, g1, g2, s1, x1 string
}

// Session ids of the world. The 4444 pair is ambiguous in proj, the 5555
// pair across other and third, 6666 is stored in sd with proj as its cwd.
const (
	idL1 = "1111aaaa00000001"
	idL2 = "2222bbbb00000002"
	idL3 = "4444dddd00000004"
	idL4 = "4444ffff00000006"
	idO1 = "3333cccc00000003"
	idG1 = "5555aaaa00000007"
	idG2 = "5555bbbb00000008"
	idS1 = "7777aaaa00000009"
	idX1 = "6666aaaa0000000a"
)

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{testEnv: newTestEnv(t)}
	w.proj, w.other, w.third, w.fresh = w.dir("proj"), w.dir("other"), w.dir("third"), w.dir("fresh")
	w.sd = filepath.Join(w.home, "sd")
	w.l1 = w.writeSession(fixture{id: idL1, cwd: w.proj, users: []string{"fix the parser"}, age: 5 * hour})
	w.l2 = w.writeSession(fixture{id: idL2, cwd: w.proj, title: "Refactor lexer", users: []string{"the lexer"}, age: 1 * hour})
	w.l3 = w.writeSession(fixture{id: idL3, cwd: w.proj, users: []string{"first of two"}, age: 4 * hour})
	w.l4 = w.writeSession(fixture{id: idL4, cwd: w.proj, title: "Second of two", users: []string{"x"}, age: 3 * hour})
	w.o1 = w.writeSession(fixture{id: idO1, cwd: w.other, users: []string{"other work"}, age: 30 * minute})
	w.g1 = w.writeSession(fixture{id: idG1, cwd: w.other, users: []string{"global one"}, age: 2 * hour})
	w.g2 = w.writeSession(fixture{id: idG2, cwd: w.third, users: []string{"global two"}, age: 6 * hour})
	w.s1 = w.writeSession(fixture{id: idS1, cwd: w.proj, users: []string{"kept apart"}, age: 2 * hour, dir: w.sd})
	w.x1 = w.writeSession(fixture{id: idX1, cwd: w.proj, users: []string{"stored elsewhere"}, age: 7 * hour,
		dir: filepath.Join(w.sessionsRoot(), "-elsewhere")})
	return w
}

const (
	minute = time.Minute
	hour   = time.Hour
)

// TestExplainRules runs --explain for every resolution rule and checks which
// session it names, by which rule, and that it wrote no session and no crumb.
func TestExplainRules(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	base := func(p string) string { return strings.TrimSuffix(filepath.Base(p), ".jsonl") }
	tests := []struct {
		name   string
		dir    string
		args   []string
		action string
		path   string // session named; "" for none
		sdir   string // dir named; "" not checked
		rule   []string
	}{
		{"continue, nothing here: a new session", w.fresh, []string{"-c"}, "new", "", w.sessionDir(w.fresh),
			[]string{"no terminal id (no tty and no terminal variables)", "no session in " + w.sessionDir(w.fresh) + ": a new session"}},
		{"continue: the newest here", w.proj, []string{"--continue"}, "open", w.l2, w.sessionDir(w.proj),
			[]string{"no terminal id", "the newest session in " + w.sessionDir(w.proj)}},
		{"resume id prefix here", w.proj, []string{"-r", "1111"}, "open", w.l1, "",
			[]string{"--resume 1111: id prefix matched session " + idL1 + " in this directory's sessions"}},
		{"resume id prefix, any case", w.proj, []string{"--resume", "1111AAAA"}, "open", w.l1, "",
			[]string{"matched session " + idL1}},
		{"resume whole file name", w.proj, []string{"-r", base(w.l1)}, "open", w.l1, "", []string{"matched session " + idL1}},
		{"resume file name prefix", w.proj, []string{"-r", base(w.l2)[:20]}, "open", w.l2, "", []string{"matched session " + idL2}},
		{"resume exact id among prefixes", w.proj, []string{"-r", idL3}, "open", w.l3, "", []string{"matched session " + idL3}},
		{"resume -r=value", w.proj, []string{"-r=2222"}, "open", w.l2, "", []string{"matched session " + idL2}},
		{"resume in another project: ask", w.proj, []string{"-r", "3333"}, "ask-fork", w.o1, w.sessionDir(w.proj),
			[]string{"--resume 3333: session " + idO1 + " found in another project (" + w.other + ")"}},
		{"resume of that project, there", w.other, []string{"-r", "3333"}, "open", w.o1, "",
			[]string{"in this directory's sessions"}},
		{"resume elsewhere stored, same cwd", w.proj, []string{"-r", "6666"}, "open", w.x1, "",
			[]string{"matched session " + idX1 + " in all sessions"}},
		{"resume path", w.proj, []string{"-r", w.o1}, "open", w.o1, "", []string{"--resume " + w.o1 + ": the path given"}},
		{"resume relative path", w.home, []string{"-r", "./" + mustRel(t, w.home, w.l1)}, "open", w.l1, "", []string{"the path given"}},
		{"resume before continue", w.proj, []string{"-c", "-r", "1111"}, "open", w.l1, "", []string{"--resume 1111"}},
		{"fork id", w.proj, []string{"--fork", "1111"}, "fork", w.l1, w.sessionDir(w.proj), []string{"--fork 1111: session " + idL1}},
		{"fork from another project", w.proj, []string{"--fork", "3333"}, "fork", w.o1, w.sessionDir(w.proj), []string{"session " + idO1}},
		{"fork path", w.proj, []string{"--fork", w.g2}, "fork", w.g2, w.sessionDir(w.proj), []string{"--fork " + w.g2 + ": the path given"}},
		{"fork wins over resume", w.proj, []string{"--fork", "1111", "-r", "2222"}, "fork", w.l1, "", []string{"--fork 1111"}},
		{"session dir alone, relative", w.proj, []string{"--session-dir", "sd"}, "new", "", filepath.Join(w.proj, "sd"), []string{"a new session"}},
		{"session dir and continue", w.proj, []string{"--session-dir", w.sd, "-c"}, "open", w.s1, w.sd, []string{"the newest session in " + w.sd}},
		{"session dir and resume", w.proj, []string{"--session-dir", w.sd, "-r", "7777"}, "open", w.s1, w.sd, []string{"in this directory's sessions"}},
		{"no session", w.proj, []string{"--no-session"}, "in-memory", "", "", []string{"--no-session: kept in memory, nothing written"}},
		{"resume without a value", w.proj, []string{"-r"}, "pick", "", w.sessionDir(w.proj), []string{"--resume without a value: pick a session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := w.snapshot()
			r := w.run(tt.dir, "", append(tt.args, "--explain")...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("xcsh %s --explain: %s", strings.Join(tt.args, " "), r)
			}
			f := explain(t, r.stdout)
			if f["action"] != tt.action {
				t.Errorf("action %q, want %q\n%s", f["action"], tt.action, r.stdout)
			}
			if f["session"] != tt.path {
				t.Errorf("session %q, want %q\n%s", f["session"], tt.path, r.stdout)
			}
			if tt.sdir != "" && f["dir"] != tt.sdir {
				t.Errorf("dir %q, want %q", f["dir"], tt.sdir)
			}
			for _, want := range tt.rule {
				if !strings.Contains(f["rule"], want) {
					t.Errorf("rule %q does not say %q", f["rule"], want)
				}
			}
			if f["terminal"] != "(none) (none)" {
				t.Errorf("terminal %q, want none: the run has no terminal", f["terminal"])
			}
			if after := w.snapshot(); !equalMaps(before, after) {
				t.Errorf("--explain wrote sessions or crumbs:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestResolveMessages checks every message of resolution word for word, with
// its exit status: 1 for a session that cannot be opened, 2 for flags that
// cannot go together.
func TestResolveMessages(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	notes := filepath.Join(w.proj, "notes.txt")
	if err := os.WriteFile(notes, []byte("not a session\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ambiguousHere := "Session \"4444\" matches 2 sessions; give more of the id:\n" +
		"  " + idL4 + "  " + w.proj + "  Second of two\n" +
		"  " + idL3 + "  " + w.proj + "  first of two\n"
	ambiguousAll := "Session \"5555\" matches 2 sessions; give more of the id:\n" +
		"  " + idG1 + "  " + w.other + "  global one\n" +
		"  " + idG2 + "  " + w.third + "  global two\n"
	tests := []struct {
		name           string
		args           []string
		stdout, stderr string
		code           int
	}{
		{"unknown id", []string{"-r", "zz"}, "", "Session \"zz\" not found.\n", 1},
		{"unknown id, explained", []string{"-r", "zz", "--explain"}, "", "Session \"zz\" not found.\n", 1},
		{"unknown id to fork", []string{"--fork", "zz"}, "", "Session \"zz\" not found.\n", 1},
		{"other project, no terminal", []string{"-r", "3333"}, "", "Session \"3333\" is in another project (" + w.other + ").\n", 1},
		{"other project by longer prefix", []string{"--resume", "3333CC"}, "", "Session \"3333CC\" is in another project (" + w.other + ").\n", 1},
		{"ambiguous here", []string{"-r", "4444"}, "", ambiguousHere, 1},
		{"ambiguous here, explained", []string{"-r", "4444", "--explain"}, "", ambiguousHere, 1},
		{"ambiguous everywhere", []string{"-r", "5555"}, "", ambiguousAll, 1},
		{"ambiguous fork", []string{"--fork", "5555"}, "", ambiguousAll, 1},
		{"session dir confines the search", []string{"--session-dir", w.sd, "-r", "3333"}, "", "Session \"3333\" not found.\n", 1},
		{"no-session with continue", []string{"--no-session", "-c"}, "", "Error: --no-session cannot be combined with --continue\n", 2},
		{"no-session with resume", []string{"--no-session", "-r", "1111"}, "", "Error: --no-session cannot be combined with --resume\n", 2},
		{"no-session with bare resume", []string{"--no-session", "--resume"}, "", "Error: --no-session cannot be combined with --resume\n", 2},
		{"no-session with continue, explained", []string{"--no-session", "-c", "--explain"}, "", "Error: --no-session cannot be combined with --continue\n", 2},
		{"no-session with fork", []string{"--no-session", "--fork", "1111"}, "", "Error: --fork requires session persistence\n", 2},
		{"picker needs a terminal", []string{"--resume"}, "",
			"Error: --resume without a value opens a picker and needs a terminal; give an id prefix or a path (see `xcsh sessions list`)\n", 2},
		{"fork of a missing path", []string{"--fork", "gone/x.jsonl"}, "", "Error: session file " + filepath.Join(w.proj, "gone/x.jsonl") + " does not exist\n", 1},
		{"fork of a directory", []string{"--fork", w.sd + "/"}, "", "Error: " + w.sd + " is a directory, not a session file\n", 1},
		{"resume of a directory", []string{"-r", w.sd + "/"}, "", "Error: " + w.sd + " is a directory, not a session file\n", 1},
		{"resume of a file that is not a session", []string{"-r", "./notes.txt"}, "",
			"Error: " + notes + " is not a session file: its first line is not a session header ({\"type\":\"session\",\"id\":...})\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := w.snapshot()
			r := w.run(w.proj, "", tt.args...)
			if r.stdout != tt.stdout || r.stderr != tt.stderr || r.code != tt.code {
				t.Errorf("xcsh %s:\n%s\nwant exit %d, stdout %q, stderr %q", strings.Join(tt.args, " "), r, tt.code, tt.stdout, tt.stderr)
			}
			if after := w.snapshot(); !equalMaps(before, after) {
				t.Errorf("a failed resolution wrote sessions or crumbs:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	if data, _ := os.ReadFile(notes); string(data) != "not a session\n" {
		t.Errorf("--resume of a file that is not a session changed it: %q", data)
	}
}

// TestResumeWithoutSessions: a bare --resume with no session anywhere says so
// and exits 0, with or without a terminal.
func TestResumeWithoutSessions(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj := e.dir("proj")
	for _, args := range [][]string{{"--resume"}, {"-r"}} {
		r := e.run(proj, "", args...)
		if r.code != 0 || r.stdout != "No sessions found\n" || r.stderr != "" {
			t.Errorf("xcsh %s with no sessions: %s", args[0], r)
		}
	}
}
