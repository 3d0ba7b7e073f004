package cmd

import (
	"os"

	"github.com/xcsh-dev/xcsh/agent"
	"path/filepath"
	"strings"
	"testing"
)

func TestSessionsForkAndRm(t *testing.T) {
	e := newTestEnv(t)
	proj, other := e.dir("proj"), e.dir("other")
	r := e.run(proj, "", "-p", "--model", "scripted/demo", "hello there")
	if r.code != 0 {
		t.Fatalf("agent: %s", r)
	}
	src := sessionFiles(t, e.sessionDir(proj))[0]
	crumbsBefore, _ := os.ReadDir(e.crumbDir())

	out := e.mustRun(other, "sessions", "fork", filepath.Base(src)[25:33])
	forks := sessionFiles(t, e.sessionDir(other))
	if len(forks) != 1 || !strings.Contains(out, forks[0]) {
		t.Fatalf("fork: %s %v", out, forks)
	}
	if h := header(t, forks[0]); h["parentSession"] == nil || h["cwd"] != other {
		t.Errorf("fork header %v", h)
	}
	if crumbsAfter, _ := os.ReadDir(e.crumbDir()); len(crumbsAfter) != len(crumbsBefore) {
		t.Error("sessions fork wrote a breadcrumb")
	}

	art := strings.TrimSuffix(src, ".jsonl")
	if err := os.MkdirAll(art, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(art, "1.bash.log"), []byte("log"), 0o600); err != nil {
		t.Fatal(err)
	}
	lk, err := agent.LockSession(filepath.Join(e.agentDir(), "agents"), src)
	if err != nil {
		t.Fatal(err)
	}
	r = e.run(proj, "", "sessions", "rm", src)
	if r.code != 1 || !strings.Contains(r.stderr, "not removed") {
		t.Errorf("rm of a session a live agent writes: %s", r)
	}
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("a locked session was removed: %v", err)
	}
	_ = lk.Unlock()
	out = e.mustRun(proj, "sessions", "rm", src)
	if !strings.Contains(out, "Removed "+src) {
		t.Fatalf("rm: %s", out)
	}
	for _, p := range []string{src, art} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists", p)
		}
	}
	r = e.run(proj, "", "sessions", "rm", "ffffffffffff")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, `Session "ffffffffffff" not found.`) {
		t.Errorf("rm of an unknown id: %s", r)
	}
}

func TestSessionsDump(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	if r := e.run(proj, "", "-p", "--model", "scripted/demo", "hello"); r.code != 0 {
		t.Fatalf("agent: %s", r)
	}
	f := sessionFiles(t, e.sessionDir(proj))[0]
	out := e.mustRun(proj, "sessions", "dump", f)
	for _, want := range []string{"## Configuration", "Model: scripted/demo", "## User", "hello", "## Assistant", "scripted demo model"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q:\n%s", want, out)
		}
	}
	if r := e.run(proj, "", "sessions", "dump", filepath.Join(proj, "nope.jsonl")); r.code != 1 || !strings.Contains(r.stderr, "nope.jsonl") {
		t.Errorf("dump of a missing file: %s", r)
	}
}
