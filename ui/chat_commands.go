package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/session"
)

// Texts of the reference (section 10 and 9) and of ours.
const (
	msgUseDump      = "Use /dump to copy the session to clipboard."
	msgInMemory     = "Cannot export in-memory session to HTML"
	msgForkFailed   = "Fork failed (session not persisted or cancelled)"
	msgWaitForTurn  = "Wait for the current response to finish or abort it (Esc) first."
	msgCopied       = "Session copied to clipboard"
	msgResumed      = "Resumed session"
	msgResumeHookNo = "Resume cancelled by a hook: still in the current session"
	msgNewHookNo    = "New session cancelled by a hook: still in the current session"
)

// chatCommand is one slash command.
type chatCommand struct {
	name, args, help string
	// idle commands are refused while a turn or another command runs.
	idle bool
	// agent commands need a model (they are refused when browsing).
	agent bool
	run   func(c *Chat, args []string, rest string) tea.Cmd
}

var chatCommands []chatCommand

func init() {
	chatCommands = []chatCommand{
		{"resume", "", "pick another session of this directory (Tab: all) and switch to it", true, false, (*Chat).cmdResume},
		{"new", "", "start a new session", true, true, (*Chat).cmdNew},
		{"fork", "", "copy this session into a new file and continue there", true, true, (*Chat).cmdFork},
		{"tree", "", "navigate the session tree: move the leaf, optionally with a branch summary", true, true, (*Chat).cmdTree},
		{"label", "[text]", "label the last entry (no text: remove its label)", true, true, (*Chat).cmdLabel},
		{"name", "[title]", "name the session (no title: show the name)", true, true, (*Chat).cmdName},
		{"model", "[provider/id]", "switch the model (no argument: list them)", true, true, (*Chat).cmdModel},
		{"thinking", "[level]", "set the thinking level: off, minimal, low, medium, high, xhigh", true, true, (*Chat).cmdThinking},
		{"compact", "[instructions]", "summarise the older part of the context", true, true, (*Chat).cmdCompact},
		{"export", "[path]", "write the session as an HTML file", true, false, (*Chat).cmdExport},
		{"dump", "", "copy the session as text to the clipboard", true, false, (*Chat).cmdDump},
		{"share", "", "share the session as HTML (share script, else a secret gist)", true, true, (*Chat).cmdShare},
		{"help", "", "list the commands and keys", false, false, (*Chat).cmdHelp},
		{"quit", "", "leave xcsh (also /exit, Ctrl+D)", false, false, func(c *Chat, _ []string, _ string) tea.Cmd { return c.quitCmd() }},
	}
}

func findCommand(name string) *chatCommand {
	if name == "exit" {
		name = "quit"
	}
	for i := range chatCommands {
		if chatCommands[i].name == name {
			return &chatCommands[i]
		}
	}
	return nil
}

// command runs a slash command line.
func (c *Chat) command(line string) tea.Cmd {
	name, rest, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	name = strings.ToLower(strings.TrimSpace(name))
	rest = strings.TrimSpace(rest)
	cmd := findCommand(name)
	if cmd == nil {
		c.tr.notice(noticeWarn, fmt.Sprintf("Unknown command /%s. /help lists the commands.", name))
		return nil
	}
	if cmd.agent && c.ag == nil {
		c.tr.notice(noticeWarn, fmt.Sprintf("/%s needs a model: %s", name, firstLine(c.opt.NoAgent)))
		return nil
	}
	if cmd.idle && cmd.name != "fork" && (c.turn || c.op != "") {
		c.tr.notice(noticeWarn, msgWaitForTurn)
		return nil
	}
	args, err := splitArgs(rest)
	if err != nil {
		c.tr.notice(noticeWarn, fmt.Sprintf("/%s: %v", name, err))
		return nil
	}
	return cmd.run(c, args, rest)
}

// splitArgs splits a command's arguments as a shell does: on spaces, with
// '…' and "…" quoting and backslash escapes, so quoted paths with spaces
// stay one argument.
func splitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc, in = false, true
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if esc {
		cur.WriteRune('\\')
	}
	if in {
		args = append(args, cur.String())
	}
	return args, nil
}

// run starts an agent call named op in a tea.Cmd; fn runs there and its
// result comes back as an opDoneMsg.
func (c *Chat) run(op string, fn func() opDoneMsg) tea.Cmd {
	c.op = op
	return func() tea.Msg {
		m := fn()
		m.op = op
		return m
	}
}

func (c *Chat) snapAfter(withMsgs bool) *snapshot {
	s := takeSnapshot(c.ag, c.opt.Session, withMsgs)
	return &s
}

func info(text string) []notice   { return []notice{{noticeInfo, text}} }
func warn(text string) []notice   { return []notice{{noticeWarn, text}} }
func failed(text string) []notice { return []notice{{noticeError, text}} }

func (c *Chat) cmdNew(_ []string, _ string) tea.Cmd {
	ag := c.ag
	return c.run("new", func() opDoneMsg {
		ok, err := ag.NewSession()
		switch {
		case err != nil:
			return opDoneMsg{notes: failed("New session failed: " + err.Error()), snap: c.snapAfter(true)}
		case !ok:
			return opDoneMsg{notes: warn(msgNewHookNo)}
		}
		return opDoneMsg{notes: info("New session started"), snap: c.snapAfter(true)}
	})
}

func (c *Chat) cmdFork(_ []string, _ string) tea.Cmd {
	if c.turn {
		c.tr.notice(noticeWarn, agent.ErrForkWhileBusy.Error())
		return nil
	}
	if c.op != "" {
		c.tr.notice(noticeWarn, msgWaitForTurn)
		return nil
	}
	ag := c.ag
	return c.run("fork", func() opDoneMsg {
		newFile, ok, err := ag.Fork()
		switch {
		case errors.Is(err, agent.ErrForkWhileBusy):
			return opDoneMsg{notes: warn(err.Error())}
		case err != nil && ok:
			return opDoneMsg{notes: warn("Session forked to " + filepath.Base(newFile) + ", but: " + err.Error()), snap: c.snapAfter(false)}
		case err != nil:
			return opDoneMsg{notes: failed(msgForkFailed + ": " + err.Error())}
		case !ok:
			return opDoneMsg{notes: failed(msgForkFailed)}
		}
		return opDoneMsg{notes: info("Session forked to " + filepath.Base(newFile)), snap: c.snapAfter(false)}
	})
}

func (c *Chat) cmdLabel(args []string, rest string) tea.Cmd {
	ag := c.ag
	label := strings.TrimSpace(rest)
	if len(args) == 1 {
		label = args[0]
	}
	return c.run("label", func() opDoneMsg {
		id, ok := ag.Session().LeafID()
		if !ok {
			return opDoneMsg{notes: warn("Nothing to label: the session has no entries yet")}
		}
		if err := ag.Label(id, label); err != nil {
			return opDoneMsg{notes: failed("Label failed: " + err.Error())}
		}
		if label == "" {
			return opDoneMsg{notes: info("Label of " + id + " removed")}
		}
		return opDoneMsg{notes: info(fmt.Sprintf("Labelled %s %q", id, label))}
	})
}

func (c *Chat) cmdName(args []string, rest string) tea.Cmd {
	if rest == "" {
		if c.snap.title == "" {
			c.tr.notice(noticeInfo, "This session has no name; /name <title> gives it one")
		} else {
			c.tr.notice(noticeInfo, "Session name: "+c.snap.title)
		}
		return nil
	}
	title := rest
	if len(args) == 1 {
		title = args[0]
	}
	ag := c.ag
	return c.run("name", func() opDoneMsg {
		if err := ag.SetTitle(title); err != nil {
			return opDoneMsg{notes: failed("Name not set: " + err.Error())}
		}
		s := c.snapAfter(false)
		return opDoneMsg{notes: info("Session name: " + s.title), snap: s}
	})
}

func (c *Chat) cmdModel(args []string, _ string) tea.Cmd {
	if len(args) == 0 {
		var b strings.Builder
		b.WriteString("Model: " + c.snap.model)
		if c.opt.Models != nil {
			b.WriteString("\nAvailable (/model <provider/id>):")
			for _, m := range c.opt.Models() {
				mark := "  "
				if m == c.snap.model {
					mark = "* "
				}
				b.WriteString("\n" + mark + m)
			}
		}
		c.tr.notice(noticeInfo, b.String())
		return nil
	}
	if c.opt.SetModel == nil {
		c.tr.notice(noticeWarn, "Switching models is not available here")
		return nil
	}
	ref, set := args[0], c.opt.SetModel
	return c.run("model", func() opDoneMsg {
		if err := set(ref); err != nil {
			return opDoneMsg{notes: failed("Model not changed: " + err.Error())}
		}
		s := c.snapAfter(false)
		return opDoneMsg{notes: info("Model: " + s.model), snap: s}
	})
}

func (c *Chat) cmdThinking(args []string, _ string) tea.Cmd {
	if len(args) == 0 {
		lvl := c.snap.thinking
		if lvl == "" {
			lvl = provider.LevelOff
		}
		c.tr.notice(noticeInfo, "Thinking level: "+lvl+" (/thinking off, minimal, low, medium, high or xhigh)")
		return nil
	}
	level := strings.ToLower(args[0])
	if level != provider.LevelOff && !provider.IsLevel(level) {
		c.tr.notice(noticeWarn, fmt.Sprintf("Unknown thinking level %q: use off, minimal, low, medium, high or xhigh", args[0]))
		return nil
	}
	ag := c.ag
	return c.run("thinking", func() opDoneMsg {
		if err := ag.SetThinkingLevel(level); err != nil {
			return opDoneMsg{notes: failed("Thinking level not changed: " + err.Error())}
		}
		s := c.snapAfter(false)
		got := s.thinking
		if got == "" {
			got = "off (the model cannot think)"
		}
		if got != level && s.thinking != "" {
			got += " (the nearest level " + s.model + " supports)"
		}
		return opDoneMsg{notes: info("Thinking level: " + got), snap: s}
	})
}

func (c *Chat) cmdCompact(_ []string, rest string) tea.Cmd {
	ag, ctx := c.ag, c.ctx
	c.tr.notice(noticeInfo, "Compacting the context…")
	return c.run("compacting", func() opDoneMsg {
		if _, err := ag.Compact(ctx, rest); err != nil {
			return opDoneMsg{notes: failed("Compaction failed: " + err.Error())}
		}
		return opDoneMsg{notes: info("Context compacted"), snap: c.snapAfter(true)}
	})
}

func (c *Chat) cmdExport(args []string, _ string) tea.Cmd {
	if len(args) > 0 {
		switch args[0] {
		case "--copy", "copy", "clipboard":
			c.tr.notice(noticeWarn, msgUseDump)
			return nil
		}
	}
	if !c.snap.persisted {
		c.tr.notice(noticeError, "Failed to export session: "+msgInMemory)
		return nil
	}
	if c.opt.Export == nil {
		c.tr.notice(noticeWarn, "Export is not available in this build")
		return nil
	}
	path := ""
	if len(args) > 0 {
		path = args[0]
		if c.opt.Home != "" && (path == "~" || strings.HasPrefix(path, "~/")) {
			path = c.opt.Home + path[1:]
		}
	}
	export := c.opt.Export
	return c.run("exporting", func() opDoneMsg {
		out, err := export(path)
		if err != nil {
			return opDoneMsg{notes: failed("Failed to export session: " + err.Error())}
		}
		return opDoneMsg{notes: info("Session exported to: " + out)}
	})
}

func (c *Chat) cmdDump(_ []string, _ string) tea.Cmd {
	if c.opt.Dump == nil {
		c.tr.notice(noticeWarn, "Dump is not available in this build")
		return nil
	}
	dump := c.opt.Dump
	return c.run("dumping", func() opDoneMsg {
		osc, file, err := dump()
		if err != nil {
			return opDoneMsg{notes: failed("Failed to copy session: " + err.Error())}
		}
		if file != "" {
			return opDoneMsg{notes: info("The clipboard cannot take this session; it was saved to " + file)}
		}
		return opDoneMsg{notes: info(msgCopied), osc: osc}
	})
}

func (c *Chat) cmdShare(_ []string, _ string) tea.Cmd {
	if !c.snap.persisted {
		c.tr.notice(noticeError, "Failed to export session: "+msgInMemory)
		return nil
	}
	if c.opt.Share == nil {
		c.tr.notice(noticeWarn, "Share is not available in this build")
		return nil
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.shareCancel = cancel
	share := c.opt.Share
	c.tr.notice(noticeInfo, "Sharing… (Esc cancels)")
	return c.run("share", func() opDoneMsg {
		defer cancel()
		text, err := share(ctx)
		if err != nil {
			return opDoneMsg{notes: failed(err.Error())}
		}
		return opDoneMsg{notes: info(text)}
	})
}

func (c *Chat) cmdHelp(_ []string, _ string) tea.Cmd {
	var b strings.Builder
	b.WriteString("Commands:")
	for _, cmd := range chatCommands {
		use := "/" + cmd.name
		if cmd.args != "" {
			use += " " + cmd.args
		}
		fmt.Fprintf(&b, "\n  %-26s %s", use, cmd.help)
	}
	b.WriteString("\nKeys:\n" +
		"  Enter send · Alt+Enter or Ctrl+J new line · ↑↓ history (on the first or last line) · Ctrl+R search history\n" +
		"  Esc abort the turn · Ctrl+C abort, clear, then quit · Ctrl+D quit on an empty line\n" +
		"  Ctrl+T thinking · Ctrl+O tool output and summaries · PgUp/PgDn, Shift+↑↓ scroll · Ctrl+L redraw\n" +
		"  A prompt starting with // sends the rest with one /")
	c.tr.notice(noticeInfo, b.String())
	return nil
}

// /resume: the picker over the session dir's sessions.

type resumeListMsg struct{ infos []session.SessionInfo }

func (c *Chat) cmdResume(_ []string, _ string) tea.Cmd {
	if c.opt.Sessions == nil {
		c.tr.notice(noticeWarn, "/resume is not available here")
		return nil
	}
	list, dir := c.opt.Sessions, c.snap.dir
	c.op = "loading sessions"
	return func() tea.Msg { return resumeListMsg{list(dir)} }
}

func (c *Chat) openPicker(m resumeListMsg) tea.Cmd {
	c.op = ""
	c.picker = NewPicker(PickerOptions{Local: m.infos, LoadAll: c.opt.AllSessions, Now: c.opt.Now, Home: c.opt.Home})
	c.picker.Update(tea.WindowSizeMsg{Width: c.width, Height: c.areaHeight()})
	c.mode = modePicker
	return nil
}

func (c *Chat) pickerKey(k tea.KeyMsg) tea.Cmd {
	_, cmd := c.picker.Update(k)
	if !c.picker.Done() {
		return cmd
	}
	outcome, path := c.picker.Result()
	c.picker, c.mode = nil, modeChat
	if outcome != PickerSelected {
		return nil
	}
	if path == c.snap.file {
		c.tr.notice(noticeInfo, "Already in that session")
		return nil
	}
	ag := c.ag
	if ag == nil { // browsing: open the other session read-only
		sm := c.opt.Session
		return c.run("resuming", func() opDoneMsg {
			if err := session.Probe(nil, path); err != nil {
				return opDoneMsg{notes: failed("Failed to resume session: " + err.Error())}
			}
			if err := sm.SetSessionFile(path); err != nil {
				return opDoneMsg{notes: failed("Failed to resume session: " + err.Error())}
			}
			return opDoneMsg{notes: info(msgResumed), snap: c.snapAfter(true)}
		})
	}
	return c.run("resuming", func() opDoneMsg {
		ok, err := ag.SwitchSession(path)
		switch {
		case err != nil:
			return opDoneMsg{notes: failed("Failed to resume session: " + err.Error())}
		case !ok:
			return opDoneMsg{notes: warn(msgResumeHookNo)}
		}
		return opDoneMsg{notes: info(msgResumed), snap: c.snapAfter(true)}
	})
}
