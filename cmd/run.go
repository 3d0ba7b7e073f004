package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/agent/provider"
	_ "github.com/xcsh-dev/xcsh/agent/provider/all" // every provider implementation
	"github.com/xcsh-dev/xcsh/agent/tools"
	"github.com/xcsh-dev/xcsh/session"
)

func (a *app) addRunFlags(c *cobra.Command) {
	f := c.Flags()
	f.BoolP("print", "p", false, "run one prompt (from the arguments or stdin), print the answer, save the session and exit")
	f.Bool("json", false, "with -p: print the agent's events as JSON lines")
	f.String("model", "", "model as provider/id (e.g. openai/gpt-5, anthropic/claude-sonnet-4-5, scripted/demo)")
	f.String("thinking", "", "thinking level: off, minimal, low, medium, high, xhigh")
	f.String("script", "", "play this script file with the scripted provider (implies --model scripted/<file>)")
}

// registry builds the model registry: built-in entries plus config.yaml's
// providers: and models:.
func (a *app) registry() (*provider.Registry, error) {
	r := provider.Builtin()
	var provs map[string]provider.ProviderConfig
	var models []provider.ModelConfig
	if err := a.v.UnmarshalKey("providers", &provs); err != nil {
		return nil, fmt.Errorf("config key providers: %w", err)
	}
	if err := a.v.UnmarshalKey("models", &models); err != nil {
		return nil, fmt.Errorf("config key models: %w", err)
	}
	if err := r.Configure(provs, models); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return r, nil
}

// modelRef is the model the flags or the config choose ("" when none).
func (a *app) modelRef(c *cobra.Command) string {
	if s, _ := c.Flags().GetString("script"); s != "" {
		return "scripted/" + s
	}
	if m, _ := c.Flags().GetString("model"); m != "" {
		return m
	}
	return a.v.GetString("model")
}

// agentConfig resolves model, provider, key, tools, hooks and live state.
func (a *app) agentConfig(c *cobra.Command, tc terminalContext) (agent.Config, error) {
	reg, err := a.registry()
	if err != nil {
		return agent.Config{}, err
	}
	ref := a.modelRef(c)
	if ref == "" {
		return agent.Config{}, &ExitError{Code: 1, Msg: provider.HowToConfigure}
	}
	ref, suffix := provider.SplitThinkingSuffix(ref)
	m, err := reg.Resolve(ref, nil)
	if err != nil {
		return agent.Config{}, err
	}
	if s, _ := c.Flags().GetString("script"); s != "" {
		m.Script = s
	}
	key, err := provider.APIKey(m, nil)
	if err != nil {
		return agent.Config{}, err
	}
	p, err := provider.New(m, provider.Options{})
	if err != nil {
		return agent.Config{}, err
	}
	thinking, _ := c.Flags().GetString("thinking")
	if thinking == "" {
		thinking = suffix
	}
	if thinking == "" {
		thinking = a.v.GetString("thinking")
	}
	if thinking != "" && thinking != provider.LevelOff && !provider.IsLevel(thinking) {
		return agent.Config{}, &UsageError{Msg: fmt.Sprintf("--thinking %q: use off, minimal, low, medium, high or xhigh", thinking)}
	}
	var hooks []agent.Hook
	if err := a.v.UnmarshalKey("hooks", &hooks); err != nil {
		return agent.Config{}, fmt.Errorf("config key hooks: %w", err)
	}
	topts := tools.Options{BashApprove: a.v.GetString("tools.bash.approve") == "ask"}
	if d := a.v.GetDuration("tools.bash.timeout"); d > 0 {
		topts.BashTimeout = d
	}
	cwd, _ := os.Getwd()
	live := agent.Live{TerminalKey: tc.id.Key, TerminalToken: tc.id.Token, TTY: tc.id.TTY, Cwd: cwd}
	if tc.id.Overlay != nil {
		live.Overlay = tc.id.Overlay
	}
	return agent.Config{
		Approve: a.approveOnTTY,
		Model:   m, Provider: p, APIKey: key, Registry: reg, Thinking: thinking,
		System:    systemPrompt(cwd),
		Tools:     tools.Builtin(topts),
		AgentsDir: a.paths.Agents,
		Live:      live,
		Hooks:     hooks,
		HookDir:   cwd,
		OnHookError: func(err error) {
			fmt.Fprintln(a.err, "warning:", err)
		},
	}, nil
}

// approveOnTTY asks on the controlling terminal whether a tool may run
// (tools.bash.approve = "ask"); without a terminal the answer is no.
func (a *app) approveOnTTY(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false, errors.New("approval needed but there is no terminal to ask: set tools.bash.approve to \"never\" or run in a terminal")
	}
	defer tty.Close()
	var call struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &call)
	what := call.Command
	if what == "" {
		what = string(args)
	}
	fmt.Fprintf(tty, "\nAllow %s: %s ? [y/N] ", tool, what)
	answer := make(chan string, 1)
	go func() {
		var line string
		_, _ = fmt.Fscanln(tty, &line)
		answer <- line
	}()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case l := <-answer:
		l = strings.ToLower(strings.TrimSpace(l))
		return l == "y" || l == "yes", nil
	}
}

// systemPrompt is the built-in system prompt.
func systemPrompt(cwd string) string {
	return fmt.Sprintf(`You are xcsh, a coding agent working in a terminal. You help the user with software tasks in the
project at %s. Use the tools to read files before changing them, make focused edits with the edit tool
(exact replacement), run commands with bash to build and test, and report what you did and what is left.
Today is %s.`, cwd, time.Now().Format("2006-01-02"))
}

// readPrompt is the prompt from the arguments, else from stdin when it is not a terminal.
func (a *app) readPrompt(args []string) (string, error) {
	if len(args) > 0 {
		return strings.Join(args, " "), nil
	}
	if isTerminal(a.in) {
		return "", nil
	}
	b, err := io.ReadAll(io.LimitReader(a.in, 16<<20))
	if err != nil {
		return "", fmt.Errorf("read prompt from stdin: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// runPrint is print mode: one prompt, the answer on stdout, the session saved.
func (a *app) runPrint(c *cobra.Command, req session.Request, args []string) error {
	prompt, err := a.readPrompt(args)
	if err != nil {
		return err
	}
	if prompt == "" {
		return &UsageError{Msg: "-p needs a prompt: give it as arguments or on stdin"}
	}
	tc := a.terminal()
	cfg, err := a.agentConfig(c, tc)
	if err != nil {
		return err
	}
	m, err := a.openSession(req)
	if err != nil || m == nil {
		return err
	}
	asJSON, _ := c.Flags().GetBool("json")
	var last *provider.AssistantMessage
	cfg.OnEvent = func(e agent.Event) error {
		if asJSON {
			if b, err := json.Marshal(e); err == nil {
				fmt.Fprintf(a.out, "%s\n", b)
			}
		}
		if e.Type == agent.EvTurnEnd {
			if msg, ok := e.Get("message").(*provider.AssistantMessage); ok && msg != nil {
				last = msg
			}
		}
		return nil
	}
	ag, err := agent.New(cfg, m)
	if err != nil {
		_ = m.Close()
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, perr := ag.Prompt(ctx, prompt)
	cerr := ag.Close()
	if perr != nil {
		return perr
	}
	if cerr != nil {
		return cerr
	}
	if last == nil {
		return errors.New("the model gave no answer")
	}
	if !asJSON {
		if t := strings.TrimSpace(last.Text()); t != "" {
			fmt.Fprintln(a.out, t)
		}
	}
	if last.StopReason == provider.StopError || last.StopReason == provider.StopAborted {
		return fmt.Errorf("%s", last.ErrorMessage)
	}
	return nil
}
