package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestBash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{name: "output", args: map[string]any{"command": "echo hello"}, want: "hello"},
		{name: "stdout and stderr interleaved", args: map[string]any{"command": "echo out; echo err >&2; echo out2"}, want: "out\nerr\nout2"},
		{name: "no output", args: map[string]any{"command": "true"}, want: "(no output)"},
		{name: "runs in env cwd", args: map[string]any{"command": "pwd"}, want: dir},
		{name: "cwd argument", args: map[string]any{"command": "pwd", "cwd": "sub"}, want: filepath.Join(dir, "sub")},
		{name: "stdin is empty", args: map[string]any{"command": "cat; echo end"}, want: "end"},
		{name: "bash features", args: map[string]any{"command": "a=(x y); echo ${#a[@]} $((2+3))"}, want: "2 5"},
		{name: "ansi stripped", args: map[string]any{"command": `printf '\033[1;31mred\033[0m \033]0;title\007plain\n'`}, want: "red plain"},
		{name: "carriage return keeps last draw", args: map[string]any{"command": `printf '10%%\r50%%\r100%%\r\nnext\n'`}, want: "100%\nnext"},
		{name: "timeout as string", args: map[string]any{"command": "echo t", "timeout": "5"}, want: "t"},
		{name: "non-zero exit", args: map[string]any{"command": "echo oops; exit 3"}, want: "oops\n\nCommand exited with code 3", isError: true},
		{name: "non-zero exit without output", args: map[string]any{"command": "exit 1"}, want: "(no output)\n\nCommand exited with code 1", isError: true},
		{name: "killed by a signal", args: map[string]any{"command": "echo before; kill -KILL $$"}, want: "before\n\nCommand was killed by signal 9 (killed)", isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, Env{Cwd: dir}, NameBash, jsonArgs(t, tt.args))
			if r.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", r.IsError, tt.isError)
			}
			if got := r.Text(); got != tt.want {
				t.Errorf("text:\n got %q\nwant %q", got, tt.want)
			}
			if r.Details != nil {
				t.Errorf("details = %s, want none", r.Details)
			}
		})
	}
}

func TestBashArgErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "file", "")
	tests := []struct {
		name, args string
		want       string
	}{
		{"missing command", `{}`, `missing required argument "command"`},
		{"blank command", `{"command":"  "}`, `"command" must not be empty`},
		{"command not a string", `{"command":["ls"]}`, `"command" must be a string, got an array`},
		{"bad timeout", `{"command":"ls","timeout":"soon"}`, `"timeout" must be a number`},
		{"unknown argument", `{"command":"ls","env":{}}`, `unknown argument "env" (allowed: command, timeout, cwd)`},
		{"missing cwd", `{"command":"ls","cwd":"nope"}`, "cwd not found: nope"},
		{"cwd is a file", `{"command":"ls","cwd":"file"}`, "cwd file is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantErr(t, call(t, Env{Cwd: dir}, NameBash, tt.args), tt.want)
		})
	}
}

// readPIDs reads the process ids a test command wrote, one a line.
func readPIDs(t *testing.T, p string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(readFile(t, p)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %s: %v", p, err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// processGone reports whether pid has exited; a zombie counts as gone (an
// orphan's zombie waits for init, which in a container may never reap it).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if _, err := os.Stat("/proc/self/stat"); err != nil {
			return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) // no /proc (macOS)
		}
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

// waitGone fails unless every pid exits within a second.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d is still running", pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Now()
	r := call(t, Env{Cwd: dir}, NameBash, `{"command":"echo started; sleep 100 & echo $! > pids; echo $$ >> pids; sleep 100", "timeout": 0.2}`)
	elapsed := time.Since(start)
	wantErr(t, r, "started\n\nCommand timed out after 1 seconds")
	if elapsed > 30*time.Second { // its sleep 100 was not cut short
		t.Errorf("the timed-out command took %v", elapsed)
	}
	pids := readPIDs(t, filepath.Join(dir, "pids"))
	if len(pids) != 2 {
		t.Fatalf("pids = %v, want 2", pids)
	}
	waitGone(t, pids)
}

func TestBashCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		grace   time.Duration
	}{
		{"children die on SIGTERM", "sleep 100 & echo $! > pids; sleep 100 & echo $! >> pids; wait", time.Minute},
		{"SIGKILL after the grace period", "trap '' TERM; sleep 100 & echo $! > pids; echo $$ >> pids; wait", 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tool := &bashTool{o: Options{}.withDefaults(), killGrace: tt.grace}
			go func() {
				// Cancel once the command has started its processes.
				for !fileHasLines(filepath.Join(dir, "pids"), 2) {
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
			}()
			start := time.Now()
			r := tool.Run(ctx, Env{Cwd: dir}, json.RawMessage(jsonArgs(t, map[string]any{"command": tt.command})), nil)
			wantErr(t, r, "Command aborted")
			if elapsed := time.Since(start); elapsed > 30*time.Second { // its sleep 100 was waited for
				t.Errorf("cancel took %v", elapsed)
			}
			waitGone(t, readPIDs(t, filepath.Join(dir, "pids")))
		})
	}
}

func fileHasLines(p string, n int) bool {
	b, err := os.ReadFile(p)
	return err == nil && bytes.Count(b, []byte{'\n'}) >= n
}

func TestBashCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ByName(Builtin(Options{}), NameBash).Run(ctx, Env{Cwd: dir}, json.RawMessage(`{"command":"touch ran"}`), nil)
	wantErr(t, r, "aborted")
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("a cancelled command ran")
	}
}

func TestBashBackgroundDoesNotHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Now()
	r := call(t, Env{Cwd: dir}, NameBash, `{"command":"sleep 30 & echo $! > pids; echo done"}`)
	if got := wantOK(t, r); got != "done" {
		t.Errorf("text = %q", got)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second { // its sleep 30 was waited for
		t.Errorf("a background process holding the output kept the call for %v", elapsed)
	}
	for _, pid := range readPIDs(t, filepath.Join(dir, "pids")) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestBashOutputCap(t *testing.T) {
	t.Parallel()
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "%d\n", i)
		}
		return b.String()
	}
	root := t.TempDir()
	arts := filepath.Join(root, "session-1") // created on first use
	o := Options{MaxOutputBytes: 1000}
	env := Env{Cwd: root, ArtifactsDir: arts}

	// Cut by bytes: the last 1000 bytes start inside "751\n", so 752-1000 remain.
	r := callOpts(t, o, env, NameBash, `{"command":"seq 1 1000"}`)
	log1 := filepath.Join(arts, "1.bash.log")
	want := strings.TrimSuffix(seq(752, 1000), "\n") + "\n\n[showing lines 752-1000 of 1000 (1000B limit). full output: " + log1 + "]"
	if got := wantOK(t, r); got != want {
		t.Errorf("text:\n got %q\nwant %q", tail(got), tail(want))
	}
	if got := readFile(t, log1); got != seq(1, 1000) {
		t.Errorf("log holds %d bytes, want the full %d", len(got), len(seq(1, 1000)))
	}
	wantDetails := `{"meta":{"truncation":{"direction":"tail","truncatedBy":"bytes","totalLines":1000,"totalBytes":3893,"outputLines":249,"outputBytes":996,"maxBytes":1000,` +
		`"shownRange":{"start":752,"end":1000},"artifactId":"1"}},"fullOutputPath":"` + log1 + `"}`
	if string(r.Details) != wantDetails {
		t.Errorf("details:\n got %s\nwant %s", r.Details, wantDetails)
	}
	for p, mode := range map[string]os.FileMode{arts: 0o700 | os.ModeDir, log1: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode(), err, mode)
		}
	}

	// Every run with output gets the next number, after any artifact.
	wantOK(t, callOpts(t, o, env, NameBash, `{"command":"echo short"}`))
	if got := readFile(t, filepath.Join(arts, "2.bash.log")); got != "short\n" {
		t.Errorf("2.bash.log = %q", got)
	}
	writeFile(t, arts, "41.read.log", "")
	wantErr(t, callOpts(t, o, env, NameBash, `{"command":"seq 1 500; exit 2"}`), "(1000B limit). full output: "+filepath.Join(arts, "42.bash.log")+"]\n\nCommand exited with code 2")
	if got := readFile(t, filepath.Join(arts, "42.bash.log")); got != seq(1, 500) {
		t.Errorf("42.bash.log holds %d bytes", len(got))
	}
	// No output, no log.
	wantOK(t, callOpts(t, o, env, NameBash, `{"command":"true"}`))
	if _, err := os.Stat(filepath.Join(arts, "43.bash.log")); err == nil {
		t.Error("a command without output got a log")
	}

	// Cut by lines, and no log without an artifacts dir.
	r = callOpts(t, Options{MaxLines: 100}, Env{Cwd: root}, NameBash, `{"command":"seq 1 500"}`)
	want = strings.TrimSuffix(seq(401, 500), "\n") + "\n\n[showing lines 401-500 of 500]"
	if got := wantOK(t, r); got != want {
		t.Errorf("line cap text:\n got %q\nwant %q", tail(got), tail(want))
	}
	if by := dig(details(t, r), "meta", "truncation", "truncatedBy"); by != "lines" {
		t.Errorf("truncatedBy = %v", by)
	}

	// One line longer than the window is kept partially.
	r = callOpts(t, o, Env{Cwd: root}, NameBash, `{"command":"head -c 3000 /dev/zero | tr '\\0' x"}`)
	if got := wantOK(t, r); got != strings.Repeat("x", 1000)+"\n\n[showing lines 1-1 of 1 (1000B limit)]" {
		t.Errorf("long line text = %q", tail(got))
	}
	if dig(details(t, r), "meta", "truncation", "lastLinePartial") != true {
		t.Errorf("details = %s, want lastLinePartial", r.Details)
	}
}

func TestBashStreamsUpdates(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var updates []string
	tool := ByName(Builtin(Options{}), NameBash)
	r := tool.Run(context.Background(), Env{Cwd: t.TempDir()}, json.RawMessage(`{"command":"echo first; sleep 0.3; echo second"}`), func(s string) {
		mu.Lock()
		updates = append(updates, s)
		mu.Unlock()
	})
	if got := wantOK(t, r); got != "first\nsecond" {
		t.Errorf("text = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 || updates[0] != "first\n" {
		t.Errorf("updates = %q, want the first to be the partial output", updates)
	}
	if len(updates) > 3 {
		t.Errorf("%d updates for two lines, want them throttled", len(updates))
	}
}

func TestBashApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		approve bool // BashApprove option
		answer  bool
		err     error
		nilFunc bool
		wantRun bool
		wantErr string
	}{
		{name: "refused", approve: true, answer: false, wantErr: "did not approve"},
		{name: "approval fails", approve: true, err: context.Canceled, wantErr: "could not get approval"},
		{name: "approved", approve: true, answer: true, wantRun: true},
		{name: "no approver", approve: true, nilFunc: true, wantRun: true},
		{name: "approval off", approve: false, wantRun: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			asked := 0
			env := Env{Cwd: dir, Approve: func(_ context.Context, tool string, args json.RawMessage) (bool, error) {
				asked++
				if tool != NameBash || !strings.Contains(string(args), "touch ran") {
					t.Errorf("asked about %s %s", tool, args)
				}
				return tt.answer, tt.err
			}}
			if tt.nilFunc {
				env.Approve = nil
			}
			tool := ByName(Builtin(Options{BashApprove: tt.approve}), NameBash)
			if tool.NeedsApproval() != tt.approve {
				t.Errorf("NeedsApproval = %v", tool.NeedsApproval())
			}
			r := tool.Run(context.Background(), env, json.RawMessage(`{"command":"touch ran"}`), nil)
			if tt.wantErr != "" {
				wantErr(t, r, tt.wantErr, "did not run")
			} else {
				wantOK(t, r)
			}
			_, err := os.Stat(filepath.Join(dir, "ran"))
			if ran := err == nil; ran != tt.wantRun {
				t.Errorf("command ran = %v, want %v", ran, tt.wantRun)
			}
			if wantAsked := tt.approve && !tt.nilFunc; (asked == 1) != wantAsked {
				t.Errorf("Approve called %d times", asked)
			}
		})
	}
}

func TestCleanOutput(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"\x1b[32mgreen\x1b[0m", "green"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"a\x1b(Bb", "ab"},
		{"tab\there\x07\x00", "tab\there"},
		{"crlf\r\nline\r\n", "crlf\nline\n"},
		{"1\r2\r3\n", "3\n"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"\x1b[", ""},
	}
	for _, tt := range tests {
		if got := cleanOutput([]byte(tt.in)); got != tt.want {
			t.Errorf("cleanOutput(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkBash(b *testing.B) {
	tool := ByName(Builtin(Options{}), NameBash)
	env := Env{Cwd: b.TempDir()}
	args := json.RawMessage(`{"command":"echo hi"}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := tool.Run(context.Background(), env, args, nil); r.IsError || r.Text() != "hi" {
			b.Fatalf("result %+v", r)
		}
	}
}
