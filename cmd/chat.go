package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/agent/history"
	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/ui"
)

// runChat opens the chat screen on the session req resolves (so -c, -r,
// --fork and --no-session all apply), sending the prompt of the arguments
// first when there is one.
//
// Without a configured model the session is still opened, read-only: the
// transcript can be read, scrolled, exported and dumped, and a prompt is
// refused with the text that says how to configure one.
func (a *app) runChat(c *cobra.Command, req session.Request, args []string) error {
	tc := a.terminal()
	cfg, cfgErr := a.agentConfig(c, tc)
	noAgent := ""
	if cfgErr != nil {
		var ee *ExitError
		if !errors.As(cfgErr, &ee) || ee.Msg != provider.HowToConfigure {
			return cfgErr
		}
		noAgent = ee.Msg
	}
	m, err := a.openSession(req)
	if err != nil || m == nil {
		return err
	}
	var chat *ui.Chat
	var ag *agent.Agent
	if noAgent == "" {
		// Tool approval is asked in the chat, not on the raw terminal the
		// chat screen owns.
		approve := cfg.Approve
		cfg.Approve = func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
			if chat == nil {
				if approve == nil {
					return false, nil
				}
				return approve(ctx, tool, args)
			}
			return chat.Approve(ctx, tool, args)
		}
		cfg.OnHookError = func(err error) {
			if chat == nil { // a session_start hook, before the screen opens
				fmt.Fprintln(a.err, "warning:", err)
				return
			}
			chat.Warn(err.Error())
		}
		if ag, err = agent.New(cfg, m); err != nil {
			if !errors.Is(err, agent.ErrLocked) {
				_ = m.Close()
				return err
			}
			switch a.offerLocked(err) {
			case 'f': // fork it here and chat on the fork
				src := m.SessionFile()
				_ = m.Close()
				freq := session.Request{Cwd: req.Cwd, Fork: src, SessionDir: req.SessionDir}
				if m, err = a.openSession(freq); err != nil || m == nil {
					return err
				}
				if ag, err = agent.New(cfg, m); err != nil {
					_ = m.Close()
					return err
				}
			case 'q':
				_ = m.Close()
				return nil
			default:
				// shown read-only (/resume reaches another session)
				ag, noAgent = nil, err.Error()+"; the session is open read-only here"
			}
		}
	}

	hist, herr := history.Open(a.paths.HistoryDB)
	if herr != nil {
		fmt.Fprintln(a.err, "warning: prompt history unavailable:", herr)
	}
	cwd, _ := os.Getwd()
	opt := ui.ChatOptions{
		Session:     m,
		NoAgent:     noAgent,
		Prompt:      strings.Join(args, " "),
		Cwd:         cwd,
		TerminalKey: tc.id.Key,
		Home:        os.Getenv("HOME"),
		Sessions:    a.listSessions,
		AllSessions: a.listAllSessions,
	}
	if hist != nil {
		opt.History = hist
	}
	if ag != nil {
		opt.Agent = ag
		a.chatModels(&opt, ag)
	}
	a.chatExports(&opt, ag, m, cfg, tc)
	chat = ui.NewChat(opt)
	prog := tea.NewProgram(chat, tea.WithInput(a.in), tea.WithOutput(a.out), tea.WithAltScreen())
	unsubscribe := chat.Attach(prog.Send)
	_, runErr := prog.Run()
	unsubscribe()
	chat.Close()

	var errs []error
	if runErr != nil {
		errs = append(errs, fmt.Errorf("chat screen: %w", runErr))
	}
	if ag != nil {
		m = ag.Session()
		errs = append(errs, ag.Close())
	} else {
		errs = append(errs, m.Close())
	}
	if hist != nil {
		errs = append(errs, hist.Close())
	}
	if f := m.SessionFile(); f != "" && m.IsPersisted() {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(a.out, "Session: %s\n", f)
		}
	}
	return errors.Join(errs...)
}

// chatModels lets /model list the registry's models and switch to one.
func (a *app) chatModels(opt *ui.ChatOptions, ag *agent.Agent) {
	opt.Models = func() []string {
		reg, err := a.registry()
		if err != nil {
			return nil
		}
		var refs []string
		for _, m := range reg.Models() {
			refs = append(refs, m.Ref())
		}
		return refs
	}
	opt.SetModel = func(ref string) error {
		reg, err := a.registry()
		if err != nil {
			return err
		}
		ref, level := provider.SplitThinkingSuffix(ref)
		m, err := reg.Resolve(ref, nil)
		if err != nil {
			return err
		}
		key, err := provider.APIKey(m, nil)
		if err != nil {
			return err
		}
		p, err := provider.New(m, provider.Options{})
		if err != nil {
			return err
		}
		if err := ag.SetModel(m, p, key); err != nil {
			return err
		}
		if level != "" {
			return ag.SetThinkingLevel(level)
		}
		return nil
	}
}

// listSessions lists a session dir for /resume.
func (a *app) listSessions(dir string) []session.SessionInfo {
	opt := a.sessionOptions()
	ix := session.OpenIndex(nil, opt.SessionsRoot)
	defer func() { _ = ix.Save() }()
	return ix.ListSessions(dir)
}

// listAllSessions lists every session (Tab in the /resume picker).
func (a *app) listAllSessions() []session.SessionInfo {
	opt := a.sessionOptions()
	ix := session.OpenIndex(nil, opt.SessionsRoot)
	defer func() { _ = ix.Save() }()
	return ix.ListAllSessions(opt.SessionsRoot)
}

// chatExports wires /export and /dump (and /share, see chatShare). They
// run in the chat's tea.Cmds while no turn runs, so reading the session
// there is safe.
func (a *app) chatExports(opt *ui.ChatOptions, ag *agent.Agent, m *session.Manager, cfg agent.Config, tc terminalContext) {
	current := func() *session.Manager {
		if ag != nil {
			return ag.Session()
		}
		return m
	}
	var exportTools []session.ExportTool
	var dumpTools []session.DumpTool
	system := ""
	if ag != nil {
		system = cfg.System
		for _, t := range cfg.Tools {
			s := t.Spec()
			exportTools = append(exportTools, session.ExportTool{Name: s.Name, Description: s.Description})
			dumpTools = append(dumpTools, session.DumpTool{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
		}
	}
	opt.Export = func(path string) (string, error) {
		// A relative path (and the default name) is relative to the process's
		// working directory, as in the reference.
		return session.ExportFile(current(), path, "", session.ExportOptions{SystemPrompt: system, Tools: exportTools})
	}
	opt.Dump = func() (string, string, error) {
		in := session.DumpInput{SystemPrompt: system, Tools: dumpTools, Messages: current().BuildContext().Messages}
		if ag != nil {
			in.Model, in.ThinkingLevel = ag.Model().Ref(), ag.ThinkingLevel()
		}
		text := session.DumpText(in)
		if !session.OSC52Fits(text) || !clipboardReachable() {
			dir, _ := os.Getwd()
			p, err := session.SaveDump(dir, text, time.Now())
			return "", p, err
		}
		return session.OSC52(text, insideTmux(tc)), "", nil
	}
	a.chatShare(opt, current, system, exportTools)
}

// offerLocked asks, on a terminal, what to do with a session another live
// agent writes: jump to that agent's pane, fork the session here, open it
// read-only, or quit. It returns 'f', 'r' or 'q' (after a jump: 'q').
func (a *app) offerLocked(err error) byte {
	var le *agent.LockedError
	if !errors.As(err, &le) || !isTerminal(a.in) {
		return 'r'
	}
	pane, socket := "", ""
	if le.Holder != nil {
		if o, ok := le.Holder.Overlay.(map[string]any); ok && o["kind"] == "tmux" {
			pane, _ = o["pane"].(string)
			socket, _ = o["socket"].(string)
		}
	}
	fmt.Fprintln(a.out, err.Error()+".")
	if pane != "" {
		fmt.Fprint(a.out, "[j] jump to it  [f] fork it here  [r] open read-only  [q] quit: ")
	} else {
		fmt.Fprint(a.out, "[f] fork it here  [r] open read-only  [q] quit: ")
	}
	line, _ := bufio.NewReader(a.in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "j", "jump":
		if pane == "" {
			return 'r'
		}
		args := []string{"switch-client", "-t", pane}
		if socket != "" {
			args = append([]string{"-S", socket}, args...)
		}
		if out, jerr := exec.Command("tmux", args...).CombinedOutput(); jerr != nil {
			fmt.Fprintf(a.err, "jump to %s failed: %v %s\n", pane, jerr, strings.TrimSpace(string(out)))
		}
		return 'q'
	case "f", "fork":
		return 'f'
	case "q", "quit":
		return 'q'
	}
	return 'r'
}

// clipboardReachable reports whether the terminal can take OSC 52 at all:
// not the Linux console, not a dumb terminal.
func clipboardReachable() bool {
	switch os.Getenv("TERM") {
	case "", "dumb", "linux":
		return false
	}
	return true
}

// insideTmux reports whether the chat's terminal is a tmux pane (the
// innermost multiplexer), whose clipboard sequence must pass through tmux.
func insideTmux(tc terminalContext) bool {
	if tc.id.Overlay != nil {
		return tc.id.Overlay.Kind == "tmux"
	}
	return os.Getenv("TMUX") != ""
}

// chatShare wires /share: the session exported to a temporary page and
// shared by <agent dir>/share or a secret gist (agent.ShareSession, which
// runs the programs; the chat only shows the outcome, and Esc cancels it).
func (a *app) chatShare(opt *ui.ChatOptions, current func() *session.Manager, system string, tools []session.ExportTool) {
	opt.Share = func(ctx context.Context) (string, error) {
		r, err := agent.ShareSession(ctx, current(), session.ExportOptions{SystemPrompt: system, Tools: tools}, a.paths.Agent, nil)
		if err != nil {
			return "", err
		}
		switch {
		case r.Message != "":
			return r.Message, nil
		case r.URL != "":
			return "Share URL: " + r.URL, nil
		}
		return "Session shared", nil
	}
}
