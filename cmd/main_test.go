package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// envTestAgent, when set, turns the test binary into the stand-in agent of
// the end-to-end tests (see runTestAgent); its value is the result file.
const envTestAgent = "XCSH_TEST_AGENT"

// xcshBin is the real xcsh binary, built once by TestMain.
var xcshBin string

func TestMain(m *testing.M) {
	if result := os.Getenv(envTestAgent); result != "" {
		os.Exit(runTestAgent(result, os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "xcsh-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	xcshBin = filepath.Join(dir, "xcsh")
	build := exec.Command(goTool(), "build", "-o", xcshBin, "github.com/xcsh-dev/xcsh/cmd/xcsh")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build xcsh: %v\n%s", err, out)
		_ = os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// goTool is the go command running the tests: the one on PATH, else the one
// in GOROOT.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// agentResult is what the stand-in agent reports.
type agentResult struct {
	Session string `json:"session"` // the session file it wrote to
	ID      string `json:"id"`
	Err     string `json:"err,omitempty"`
}

// runTestAgent stands in for the agent runtime: it takes the command line
// args as `xcsh` would (the real root command, its flags and configuration),
// opens the session through openSession, the one path every session is opened
// through, then appends a user and an assistant message through the session
// API, as an agent's first turn does, and reports the session file in result.
func runTestAgent(result string, args []string) int {
	var r agentResult
	a := &app{in: os.Stdin, out: os.Stdout, err: os.Stderr, v: viper.New()}
	root := a.rootCommand()
	root.RunE = func(c *cobra.Command, args []string) error {
		req, rest, err := a.request(c, args)
		if err != nil {
			return err
		}
		m, err := a.openSession(req)
		if err != nil {
			return err
		}
		if m == nil {
			return errors.New("no session opened")
		}
		prompt := strings.Join(rest, " ")
		if prompt == "" {
			prompt = "hello from " + os.Getenv("TMUX_PANE")
		}
		now := time.Now().UnixMilli()
		user, _ := json.Marshal(map[string]any{"role": "user", "content": prompt, "timestamp": now})
		asst, _ := json.Marshal(map[string]any{
			"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok: " + prompt}},
			"provider": "test", "model": "scripted", "stopReason": "stop", "timestamp": now,
		})
		for _, msg := range [][]byte{user, asst} {
			if _, err := m.AppendMessage(msg); err != nil {
				return err
			}
		}
		if err := m.Close(); err != nil {
			return err
		}
		r.Session, r.ID = m.SessionFile(), m.SessionID()
		return nil
	}
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		r.Err = err.Error()
	}
	data, _ := json.Marshal(r)
	// Written by rename, so the test never reads half a result.
	if err := os.WriteFile(result+".tmp", data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := os.Rename(result+".tmp", result); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if r.Err != "" {
		fmt.Fprintln(os.Stderr, r.Err)
		return 1
	}
	return 0
}
