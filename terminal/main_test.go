package terminal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/terminal"
)

// Environment of the helper process: the test binary re-executed inside a
// tmux pane (or under setsid), standing in for xcsh.
const (
	envHelper  = "XCSH_TERMINAL_TEST_HELPER" // "detect" or "crumb"
	envOut     = "XCSH_TERMINAL_TEST_OUT"    // result file (JSON helperResult)
	envDir     = "XCSH_TERMINAL_TEST_DIR"    // terminal-sessions dir ("crumb")
	envSession = "XCSH_TERMINAL_TEST_FILE"   // session file the crumb names ("crumb")
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envHelper); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

// helperResult is what a helper process reports.
type helperResult struct {
	Identity  terminal.Identity `json:"identity"`
	DetectErr string            `json:"detectErr,omitempty"`
	// "crumb" mode: the crumb found under the identity's key before writing
	// this terminal's own, and whether it may be followed.
	Found    bool             `json:"found"`
	Crumb    breadcrumb.Crumb `json:"crumb"`
	OK       bool             `json:"ok"`
	Reason   string           `json:"reason"`
	WriteErr string           `json:"writeErr,omitempty"`
}

// helperMain does what xcsh does at start and on exit: detect the terminal,
// follow its crumb if valid, and write its own crumb ("crumb" mode).
func helperMain(mode string) int {
	var r helperResult
	id, err := terminal.Detect(nil)
	r.Identity = id
	if err != nil {
		r.DetectErr = err.Error()
	}
	if mode == "crumb" {
		dir, file := os.Getenv(envDir), os.Getenv(envSession)
		cwd, _ := os.Getwd()
		c, err := breadcrumb.Read(dir, id.Key)
		switch {
		case err == nil:
			r.Found, r.Crumb = true, c
			r.OK, r.Reason = breadcrumb.Validate(c, cwd, id.Token, nil)
		case !errors.Is(err, fs.ErrNotExist):
			r.Reason = err.Error()
		}
		if err := breadcrumb.Write(dir, id.Key, breadcrumb.Crumb{Cwd: cwd, SessionFile: file, Token: id.Token}); err != nil {
			r.WriteErr = err.Error()
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// Written by rename, so the test never reads half a result.
	out := os.Getenv(envOut)
	if err := os.WriteFile(out+".tmp", data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.Rename(out+".tmp", out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}
