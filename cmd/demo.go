package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

// demoTurns is the scripted conversation the demo writes: no model, no key.
var demoTurns = []struct{ user, assistant string }{
	{"The tests in ./parser fail on CRLF input. Can you look?", "The lexer splits on \"\\n\" only, so a trailing \"\\r\" ends up in every token. I'll normalise line ends before lexing."},
	{"Do it, and add a test with a BOM too.", "Done: `lex()` now strips a UTF-8 BOM and `\\r\\n`; `TestLexCRLF` and `TestLexBOM` pass."},
}

func (a *app) demoCommand() *cobra.Command {
	var dir string
	var sessionOnly, noAttach bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "Three scripted agents in tmux split panes, supervised, in this terminal (no model or key needed)",
		Long: `Start a private tmux server in a temporary agent dir with three agents on the
scripted provider in split panes and the supervisor's counts in the status bar,
and attach it here. Detach (Ctrl-b d) or exit the panes to leave; the server and
the temporary files are removed afterwards.

--session-only writes a demo session and shows what xcsh sees in it, without tmux.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !sessionOnly {
				return a.runTmuxDemo(cmd, noAttach)
			}
			if dir == "" {
				d, err := os.MkdirTemp("", "xcsh-demo-")
				if err != nil {
					return fmt.Errorf("demo dir: %w", err)
				}
				dir = d
			}
			return a.runDemo(dir)
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "with --session-only: where to write the demo agent dir (default: a new temp dir)")
	c.Flags().BoolVar(&sessionOnly, "session-only", false, "write a demo session and show it, without tmux")
	c.Flags().BoolVar(&noAttach, "no-attach", false, "run the agents and print their panes instead of attaching (for scripts and tests)")
	c.Flags().String("agent-cmd", "", "agent command line (default: this xcsh)")
	return c
}

func (a *app) runDemo(dir string) error {
	agent := filepath.Join(dir, "agent")
	opt := session.Options{
		SessionsRoot: filepath.Join(agent, "sessions"),
		BlobDir:      filepath.Join(agent, "blobs"),
		Home:         dir,
		TmpDir:       filepath.Clean(os.TempDir()),
	}
	proj := filepath.Join(dir, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return fmt.Errorf("demo project: %w", err)
	}
	m := session.Create(opt, proj, "")
	check := func(_ string, err error) error { return err }
	if err := check(m.AppendModelChange("anthropic/claude-sonnet-4-5", nil)); err != nil {
		return err
	}
	if err := check(m.AppendThinkingLevelChange(json.RawMessage(`"medium"`))); err != nil {
		return err
	}
	var firstUser string
	for i, t := range demoTurns {
		u, err := m.AppendMessage(userMessage(t.user, int64(1767225600000+i*2000)))
		if err != nil {
			return err
		}
		if firstUser == "" {
			firstUser = u
		}
		if err := check(m.AppendMessage(assistantMessage(t.assistant, int64(1767225601000+i*2000)))); err != nil {
			return err
		}
	}
	if _, err := m.SetSessionName("Fix CRLF handling in the parser", session.TitleUser); err != nil {
		return err
	}
	if err := check(m.AppendLabelChange(firstUser, json.RawMessage(`"bug report"`))); err != nil {
		return err
	}
	// a second branch from the first answer
	if err := m.Branch(m.Entries()[3].ID); err != nil {
		return err
	}
	if err := check(m.AppendMessage(userMessage("Actually, keep \\r in string literals.", 1767225610000))); err != nil {
		return err
	}
	if err := m.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.out, "Wrote a demo session to %s\n\n", m.SessionFile())
	loaded, err := a.load(m.SessionFile())
	if err != nil {
		return err
	}
	fmt.Fprintln(a.out, "$ xcsh sessions tree <file>")
	leaf, _ := loaded.LeafID()
	drawTree(a.out, loaded.Tree(), leaf)
	fmt.Fprintln(a.out, "\n$ xcsh sessions show --transcript <file>")
	return a.show(loaded, false, true)
}

func userMessage(text string, ts int64) json.RawMessage {
	b, _ := json.Marshal(struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		Timestamp int64  `json:"timestamp"`
	}{"user", text, ts})
	return b
}

func assistantMessage(text string, ts int64) json.RawMessage {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	msg := struct {
		Role       string  `json:"role"`
		Content    []block `json:"content"`
		API        string  `json:"api"`
		Provider   string  `json:"provider"`
		Model      string  `json:"model"`
		StopReason string  `json:"stopReason"`
		Timestamp  int64   `json:"timestamp"`
	}{"assistant", []block{{"text", text}}, "anthropic-messages", "anthropic", "claude-sonnet-4-5", "stop", ts}
	b, _ := json.Marshal(msg)
	return b
}

// demoAgentArgs runs an interactive chat agent (it stays, so the attached
// user can talk to it and watch the supervisor's counts) or, without a user
// attached, a one-shot print-mode agent that answers and exits.
func demoAgentArgs(attach bool, prompt string) []string {
	if attach {
		return []string{"--model", "scripted/demo", prompt}
	}
	return []string{"-p", "--model", "scripted/demo", prompt}
}

// demoPrompts are what the three demo agents are asked; the scripted demo
// model answers each differently.
var demoPrompts = []string{
	"hello",
	"think about how to test a CLI before answering",
	"write a small Go program that prints the first ten primes, build it and run it",
}

// runTmuxDemo is `xcsh demo`: a private tmux server (its own socket, no
// user config) in a temporary agent dir, three scripted agents in split
// panes, the supervisor running and its counts in the status bar, attached
// in this terminal. Everything is removed when the user leaves.
func (a *app) runTmuxDemo(cmd *cobra.Command, noAttach bool) error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return &ExitError{Code: 1, Msg: "xcsh demo needs tmux (install it, or try `xcsh demo --session-only`)."}
	}
	attach := !noAttach && isTerminal(a.in) && isTerminal(os.Stdout)
	tmp, err := os.MkdirTemp("", "xcsh-demo-")
	if err != nil {
		return fmt.Errorf("demo dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	agentDir := filepath.Join(tmp, "agent")
	proj := filepath.Join(tmp, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return fmt.Errorf("demo project: %w", err)
	}
	srv := tmux.Server{Name: fmt.Sprintf("xcsh-demo-%d", os.Getpid())}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMUX", "TMUX_PANE", "XCSH_AGENT_DIR", "PI_CODING_AGENT_DIR", "PI_CONFIG_DIR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "XCSH_AGENT_DIR="+agentDir)
	self := selfCommand()
	if f := cmd.Flags().Lookup("agent-cmd"); f != nil && f.Changed {
		self = f.Value.String()
	}
	tmuxRun := func(args ...string) (string, error) {
		c := exec.Command("tmux", append([]string{"-L", srv.Name}, args...)...)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return strings.TrimSpace(string(out)), nil
	}
	defer func() {
		_, _ = tmuxRun("kill-server")
		// tmux 3.3a leaves its socket behind.
		_ = os.Remove(srv.SocketPath(nil))
	}()
	w, h := 200, 50
	if attach {
		if cw, ch, err := term.GetSize(int(os.Stdout.Fd())); err == nil && cw > 40 && ch > 10 {
			w, h = cw, ch-1
		}
	}
	banner := "printf '%s\\n' " + shellWords(
		"xcsh demo: three scripted agents (no model, no key) in the other panes.",
		"Each pane's breadcrumb names its session: run `xcsh -c -p 'hello again'` in one to continue it.",
		"The status bar shows the supervisor's counts.",
		"Leave with Ctrl-b d (detach); the demo's tmux server and files are then removed.",
	) + "; exec ${SHELL:-/bin/sh}"
	if _, err := tmuxRun("-f", "/dev/null", "new-session", "-d", "-s", "demo", "-n", "agents",
		"-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-c", proj, banner); err != nil {
		return err
	}
	status := fmt.Sprintf("#(%s status --tmux) | Ctrl-b d: leave ", shellWords(selfCommand()))
	for _, o := range [][]string{
		{"status-interval", "2"}, {"status-left", " xcsh demo "}, {"status-left-length", "20"},
		{"status-right", status}, {"status-right-length", "80"}, {"mouse", "on"},
	} {
		if _, err := tmuxRun("set-option", "-g", o[0], o[1]); err != nil {
			return err
		}
	}
	first, err := tmuxRun("display-message", "-p", "-t", "demo", "#{pane_id}")
	if err != nil {
		return err
	}
	mux, err := supervisor.NewTmux(srv, env)
	if err != nil {
		return err
	}
	defer mux.Close()
	paths := config.Config{AgentDir: agentDir}.Resolve()
	act := &supervisor.Actions{
		Paths: paths, Mux: mux, AgentCommand: strings.Fields(self),
		Session: session.Options{Home: os.Getenv("HOME"), TmpDir: filepath.Clean(os.TempDir())},
	}
	ctx, cancel := signalContext()
	defer cancel()
	engMux, err := supervisor.NewTmux(srv, env)
	if err != nil {
		return err
	}
	eng := supervisor.New(supervisor.Config{Paths: paths, Mux: engMux, WriteSnapshot: true})
	engDone := make(chan error, 1)
	go func() { engDone <- eng.Run(ctx) }()
	defer func() { cancel(); <-engDone }()

	var panes []string
	targets := []struct {
		target     string
		horizontal bool
	}{{first, true}, {"", false}, {first, false}}
	for i, prompt := range demoPrompts {
		t := targets[i]
		if t.target == "" {
			t.target = panes[0]
		}
		lctx, lcancel := context.WithTimeout(ctx, 20*time.Second)
		res, err := act.Launch(lctx, supervisor.LaunchSpec{
			Kind: "split", Target: t.target, Horizontal: t.horizontal, Cwd: proj, KeepShell: true,
			Args: demoAgentArgs(attach, prompt),
		})
		lcancel()
		if err != nil {
			return err
		}
		panes = append(panes, res.Pane.ID)
	}
	_, _ = tmuxRun("select-layout", "-t", "demo", "tiled")
	if !attach {
		return a.demoWithoutAttach(ctx, paths, panes, tmuxRun)
	}
	fmt.Fprintf(a.out, "xcsh demo: tmux -L %s, agent dir %s\nLeave with Ctrl-b d; everything is cleaned up afterwards.\n", srv.Name, agentDir)
	time.Sleep(300 * time.Millisecond)
	att := exec.CommandContext(ctx, "tmux", "-L", srv.Name, "attach-session", "-t", "demo") // a hangup or signal ends it, and the cleanup runs
	att.Env = env
	att.Stdin, att.Stdout, att.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := att.Run(); err != nil {
		return fmt.Errorf("tmux attach: %w", err)
	}
	fmt.Fprintln(a.out, "xcsh demo: left; the demo's tmux server and files are removed.")
	return nil
}

// demoWithoutAttach waits for the three agents to answer and prints what
// each pane shows, for scripts and tests.
func (a *app) demoWithoutAttach(ctx context.Context, paths config.Paths, panes []string, tmuxRun func(...string) (string, error)) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(paths.Sessions, "*", "*.jsonl"))
		answered := 0
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), `"role":"assistant"`) {
				answered++
			}
		}
		lives, _ := agent.ReadLive(paths.Agents)
		if answered >= len(panes) && len(lives) == 0 {
			break // every agent answered and exited
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %d of %d agents answered within a minute", answered, len(panes))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	for _, p := range panes {
		out, _ := tmuxRun("capture-pane", "-p", "-J", "-t", p)
		fmt.Fprintf(a.out, "== pane %s ==\n%s\n", p, strings.TrimSpace(out))
	}
	return nil
}

// shellWords quotes each word for a POSIX shell and joins them.
func shellWords(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
