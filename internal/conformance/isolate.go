package conformance

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// ChildEnv is the environment variable that makes a process a replay child:
// it names the file the child writes its result document to (see ServeChild).
const ChildEnv = "XCSH_CONFORMANCE_CHILD"

// The reference harness replays every case in a fresh process, and package
// session keeps process-wide state (the home-encoded session dirs are migrated
// once per process and sessions root), as the reference does. Replaying several
// cases in one process would carry that state from one case to the next, so the
// test and cmd/replay run each case in a child process: ReplayIsolated starts
// the current program with ChildEnv set, and that program calls ServeChild
// before anything else.

// ServeChild returns at once unless ChildEnv is set. In a child it reads a case
// from stdin, replays it, writes the result document to the file ChildEnv
// names and exits (status 0, or 2 when the case could not be replayed).
func ServeChild() {
	out := os.Getenv(ChildEnv)
	if out == "" {
		return
	}
	os.Exit(serveChild(out))
}

func serveChild(out string) int {
	_ = os.Unsetenv(ChildEnv)
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay child:", err)
		return 2
	}
	c, err := ParseCase(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay child:", err)
		return 2
	}
	res, err := Replay(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay child:", err)
		return 2
	}
	if err := os.WriteFile(out, appendJSON(nil, res.doc), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "replay child:", err)
		return 2
	}
	return 0
}

// caseJSON encodes a case back to its file form.
func caseJSON(c Case) []byte {
	return appendJSON(nil, obj("name", c.Name, "description", c.Description, "ops", c.Ops))
}

// ReplayIsolated replays c in a fresh process: the program exe (normally
// os.Executable(), or os.Args[0] in a test), which must call ServeChild first
// thing. Its stderr goes to ours.
func ReplayIsolated(exe string, c Case) (Result, error) {
	tmp, err := os.MkdirTemp("", "xcsh-replay-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "result.json")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ChildEnv+"="+out)
	cmd.Stdin = bytes.NewReader(caseJSON(c))
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("replay %s in a child process: %w", c.Name, err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return Result{}, fmt.Errorf("replay %s: %w", c.Name, err)
	}
	v, err := parseJSON(data)
	if err != nil {
		return Result{}, fmt.Errorf("replay %s: child's document: %w", c.Name, err)
	}
	doc, ok := v.(*Object)
	if !ok {
		return Result{}, fmt.Errorf("replay %s: child's document is not an object", c.Name)
	}
	return Result{doc: doc}, nil
}
