package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

const (
	minBashTimeout = 1 * time.Second
	maxBashTimeout = 3600 * time.Second
	// updateEvery throttles streamed partial output, as the reference (50 ms).
	updateEvery = 50 * time.Millisecond
)

// Timings of process shutdown.
const (
	// defaultKillGrace is how long a killed process group gets between
	// SIGTERM and SIGKILL.
	defaultKillGrace = 2 * time.Second
	// drainGrace is how long output is still read after the shell exits: a
	// background process holding the pipe open must not hang the call.
	drainGrace = 200 * time.Millisecond
)

// shellPath is bash, or sh when bash is missing.
var shellPath = sync.OnceValue(func() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p
	}
	return "/bin/sh"
})

type bashTool struct {
	o Options
	// killGrace is defaultKillGrace unless a test shortens it.
	killGrace time.Duration
}

func (t *bashTool) NeedsApproval() bool { return t.o.BashApprove }

func (t *bashTool) Spec() provider.Tool {
	return provider.Tool{
		Name: NameBash,
		Description: fmt.Sprintf(`Run a shell command with bash -c and return its output (stdout and stderr interleaved).

The command runs non-interactively in the working directory (or cwd) with stdin empty, so never start anything that waits for input or opens an editor or pager; pass flags such as --no-pager or -y instead. It is killed, with everything it started, after timeout seconds (default %d). Only the last %s / %d lines of output are returned; longer output is cut from the start (the result then says so, and where the full output was saved), so filter noisy commands (grep, head, tail) yourself.
A non-zero exit status makes the result an error that ends with "Command exited with code N". Use read, write and edit rather than cat, echo > or sed -i for files.`,
			int(t.o.BashTimeout/time.Second), formatSize(int64(t.o.MaxOutputBytes)), t.o.MaxLines),
		Parameters: schema([]string{"command"},
			"command", prop("string", "The shell command to run."),
			"timeout", prop("number", fmt.Sprintf("Timeout in seconds (default %d, from 1 to 3600).", int(t.o.BashTimeout/time.Second))),
			"cwd", prop("string", "Directory to run in (default: the working directory); relative paths resolve against the working directory."),
		),
	}
}

func (t *bashTool) Run(ctx context.Context, env Env, raw json.RawMessage, update func(string)) (res Result) {
	defer recoverResult(NameBash, &res)
	a := parseArgs(NameBash, raw, "command", "timeout", "cwd")
	command := a.str("command", true)
	secs, hasTimeout := a.num("timeout")
	cwd := a.str("cwd", false)
	if r := a.failed(); r != nil {
		return *r
	}
	if strings.TrimSpace(command) == "" {
		return errorf(`invalid arguments for bash: "command" must not be empty`)
	}
	timeout := t.o.BashTimeout
	if hasTimeout {
		timeout = time.Duration(math.Min(math.Max(secs, 1), 3600) * float64(time.Second))
	}
	timeout = min(max(timeout, minBashTimeout), maxBashTimeout)
	dir := env.Cwd
	if cwd != "" {
		dir = resolvePath(env.Cwd, cwd)
		switch fi, err := os.Stat(dir); {
		case errors.Is(err, fs.ErrNotExist):
			return errorf("cwd not found: %s", cwd)
		case err != nil:
			return errorf("cannot use cwd %s: %v", cwd, err)
		case !fi.IsDir():
			return errorf("cwd %s is not a directory", cwd)
		}
	}
	if t.NeedsApproval() && env.Approve != nil {
		ok, err := env.Approve(ctx, NameBash, raw)
		if err != nil {
			return errorf("could not get approval to run the command, so it did not run: %v", err)
		}
		if !ok {
			return errorf("The user did not approve this command, so it did not run. Ask the user how to proceed, or do something else.")
		}
	}
	if ctx.Err() != nil {
		return errorf("Command aborted before it started")
	}
	return runShell(ctx, shellRun{
		command: command, dir: dir, timeout: timeout, artifactsDir: env.ArtifactsDir,
		maxBytes: t.o.MaxOutputBytes, maxLines: t.o.MaxLines, update: update, killGrace: t.killGrace,
	})
}

// shellRun is one command to run.
type shellRun struct {
	command      string
	dir          string
	timeout      time.Duration
	artifactsDir string
	maxBytes     int
	maxLines     int
	update       func(string)
	killGrace    time.Duration
}

// runShell runs the command in its own process group, streams its output
// and kills the whole group on timeout or cancellation.
func runShell(ctx context.Context, s shellRun) Result {
	cmd := exec.Command(shellPath(), "-c", s.command)
	cmd.Dir = s.dir
	// A process group of its own lets a kill reach every process the command
	// started (pipelines, "&" jobs), not just the shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		return errorf("cannot run the command: %v", err)
	}
	// One pipe for both streams keeps stdout and stderr in write order.
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	_ = pw.Close()
	if err != nil {
		_ = pr.Close()
		return errorf("cannot run the command with %s: %v", shellPath(), err)
	}
	pgid := cmd.Process.Pid

	out := newCapture(s.maxBytes, s.artifactsDir)
	readDone := make(chan struct{})
	go func() {
		out.readFrom(pr)
		close(readDone)
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	var tick <-chan time.Time
	if s.update != nil {
		tk := time.NewTicker(updateEvery)
		defer tk.Stop()
		tick = tk.C
	}
	var (
		stopped   string // "timeout" or "aborted" once the group was signalled
		killTimer <-chan time.Time
		waitErr   error
		ctxDone   = ctx.Done()
		timeoutC  = timer.C
	)
	stop := func(why string) {
		stopped = why
		ctxDone, timeoutC = nil, nil
		signalGroup(pgid, syscall.SIGTERM)
		killTimer = time.After(s.killGrace)
	}
wait:
	for {
		select {
		case waitErr = <-waitDone:
			break wait
		case <-timeoutC:
			stop("timeout")
		case <-ctxDone:
			stop("aborted")
		case <-killTimer:
			signalGroup(pgid, syscall.SIGKILL)
			killTimer = nil
		case <-tick:
			if text, changed := out.snapshot(); changed {
				s.update(text)
			}
		}
	}
	drained := false
	if killTimer != nil {
		// The shell is gone; give the rest of the group until the grace
		// period ends to close the pipe (exit), then kill what is left.
		select {
		case <-readDone:
			drained = true
		case <-killTimer:
		}
		if syscall.Kill(-pgid, 0) == nil {
			signalGroup(pgid, syscall.SIGKILL)
		}
	}
	if !drained {
		_ = pr.SetReadDeadline(time.Now().Add(drainGrace))
		<-readDone
	}
	_ = pr.Close()
	out.close()
	return out.result(s, stopped, waitErr, cmd.ProcessState)
}

// signalGroup signals every process of the group; a group already gone is fine.
func signalGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

// result builds what the model sees from the captured output and how the
// command ended.
func (c *capture) result(s shellRun, stopped string, waitErr error, ps *os.ProcessState) Result {
	text, tr := c.final(s.maxLines)
	var details json.RawMessage
	if text == "" {
		text = "(no output)"
	}
	if tr != nil {
		text += "\n\n" + tr.notice(c.logPath)
		if c.logErr != nil {
			text += fmt.Sprintf("\n[the full output could not be saved: %v]", c.logErr)
		}
		d := struct {
			Meta           meta   `json:"meta"`
			FullOutputPath string `json:"fullOutputPath,omitempty"`
		}{meta{Truncation: tr}, c.logPath}
		details = mustJSON(d)
	}
	var tail string
	switch {
	case stopped == "timeout":
		tail = fmt.Sprintf("Command timed out after %s seconds", strconv.FormatFloat(s.timeout.Seconds(), 'f', -1, 64))
	case stopped == "aborted":
		tail = "Command aborted"
	case ps == nil:
		tail = fmt.Sprintf("Command failed: %v", waitErr)
	case ps.ExitCode() == 0:
		return textResult(text, details)
	case ps.ExitCode() > 0:
		tail = fmt.Sprintf("Command exited with code %d", ps.ExitCode())
	default:
		tail = "Command ended without an exit status"
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			tail = fmt.Sprintf("Command was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
		}
	}
	return Result{Content: []provider.Block{{Type: provider.BlockText, Text: text + "\n\n" + tail}}, Details: details, IsError: true}
}
