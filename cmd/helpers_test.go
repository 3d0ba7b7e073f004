package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/session"
)

// testEnv is one private xcsh installation: a HOME of its own with the
// default agent dir under it, and the environment xcsh runs with.
type testEnv struct {
	t    *testing.T
	home string
	// extra are environment assignments added to every run ("TMUX_PANE=%7").
	extra []string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, home: home}
}

// environ is the whole environment of an xcsh the tests run: no agent-dir,
// config-dir or XDG variables and no terminal variables, only HOME, PATH and
// TMPDIR, plus extra.
func (e *testEnv) environ(extra ...string) []string {
	env := []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LANG=C.UTF-8"}
	if v := os.Getenv("TMPDIR"); v != "" {
		env = append(env, "TMPDIR="+v)
	}
	env = append(env, e.extra...)
	return append(env, extra...)
}

// dir makes (and returns) a project directory under HOME.
func (e *testEnv) dir(name string) string {
	e.t.Helper()
	d := filepath.Join(e.home, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *testEnv) agentDir() string     { return filepath.Join(e.home, ".xcsh", "agent") }
func (e *testEnv) sessionsRoot() string { return filepath.Join(e.agentDir(), "sessions") }
func (e *testEnv) crumbDir() string     { return filepath.Join(e.agentDir(), "terminal-sessions") }

// options are the session options xcsh uses in this environment.
func (e *testEnv) options() session.Options {
	return session.Options{
		SessionsRoot: e.sessionsRoot(),
		BlobDir:      filepath.Join(e.agentDir(), "blobs"),
		Home:         e.home,
		TmpDir:       filepath.Clean(os.TempDir()),
	}
}

// sessionDir is the session dir of cwd.
func (e *testEnv) sessionDir(cwd string) string { return e.options().SessionDir(cwd) }

// result is how a run of xcsh ended.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs the real xcsh in dir with args, stdin from in, in a session of its
// own (setsid): no controlling terminal, so it has no terminal identity
// unless the environment gives one.
func (e *testEnv) run(dir, in string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(xcshBin, args...)
	cmd.Dir = dir
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(in)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		e.t.Fatalf("run xcsh %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// mustRun runs xcsh and fails the test unless it exits 0.
func (e *testEnv) mustRun(dir string, args ...string) string {
	e.t.Helper()
	r := e.run(dir, "", args...)
	if r.code != 0 {
		e.t.Fatalf("xcsh %s: %s", strings.Join(args, " "), r)
	}
	return r.stdout
}

// fixture is a session file written as xcsh writes one.
type fixture struct {
	id    string
	cwd   string
	title string   // header title; "" for none
	users []string // user messages, each followed by an assistant reply
	age   time.Duration
	// dir is the session dir to write into; "" means the session dir of cwd.
	dir string
	// version 1 writes a legacy file: no version, no entry ids.
	version int
}

// fixtureNow anchors fixture times: file names and headers are fixed, ages
// are relative to it.
var fixtureNow = time.Now().Truncate(time.Second)

// writeSession writes f and returns its path. Its modification time is
// fixtureNow minus f.age, so the newest session is the one of least age.
func (e *testEnv) writeSession(f fixture) string {
	e.t.Helper()
	dir := f.dir
	if dir == "" {
		dir = e.sessionDir(f.cwd)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	created := fixtureNow.Add(-f.age - time.Hour)
	ts := session.ISOTime(created)
	var lines []map[string]any
	h := map[string]any{"type": "session", "version": 3, "id": f.id, "timestamp": ts, "cwd": f.cwd}
	if f.version == 1 {
		delete(h, "version")
	}
	if f.title != "" {
		h["title"] = f.title
	}
	lines = append(lines, h)
	parent := any(nil)
	n := 0
	add := func(msg map[string]any) {
		n++
		en := map[string]any{"type": "message", "timestamp": ts, "message": msg}
		if f.version != 1 {
			id := fmt.Sprintf("%08x", n)
			en["id"], en["parentId"] = id, parent
			parent = id
		}
		lines = append(lines, en)
	}
	for _, u := range f.users {
		add(map[string]any{"role": "user", "content": u, "timestamp": created.UnixMilli()})
		add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "re: " + u}},
			"provider": "test", "model": "scripted", "stopReason": "stop", "timestamp": created.UnixMilli()})
	}
	var b bytes.Buffer
	for _, l := range lines {
		data, err := json.Marshal(l)
		if err != nil {
			e.t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, session.FileName(ts, f.id))
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		e.t.Fatal(err)
	}
	mtime := fixtureNow.Add(-f.age)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// header reads the header line of a session file.
func header(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var h map[string]any
	if err := json.Unmarshal(first, &h); err != nil {
		t.Fatalf("header of %s: %v", path, err)
	}
	return h
}

// sessionFiles lists the session files (*.jsonl) in dir.
func sessionFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// snapshot records every session file and breadcrumb under the agent dir
// with its size and modification time, to prove that a run wrote none.
func (e *testEnv) snapshot() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(e.agentDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if !strings.HasSuffix(p, ".jsonl") && !strings.HasPrefix(p, e.crumbDir()) {
			return nil // the listing index is a cache, not a session
		}
		fi, err := d.Info()
		if err == nil {
			out[p] = fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return out
}

// explain parses the output of --explain into its fields.
func explain(t *testing.T, out string) map[string]string {
	t.Helper()
	f := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("--explain line %q has no field name:\n%s", line, out)
		}
		f[k] = strings.TrimSpace(v)
	}
	for _, k := range []string{"action", "rule", "terminal"} {
		if f[k] == "" {
			t.Fatalf("--explain printed no %s:\n%s", k, out)
		}
	}
	return f
}

// waitFile waits for a file to appear and returns its content.
func waitFile(t *testing.T, p string, timeout time.Duration, onTimeout func() string) []byte {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		data, err := os.ReadFile(p)
		if err == nil {
			return data
		}
		if !errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			msg := ""
			if onTimeout != nil {
				msg = onTimeout()
			}
			t.Fatalf("waiting for %s: %v\n%s", p, err, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
