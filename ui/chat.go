package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/agent/history"
	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/session"
)

// ChatAgent is what the chat screen drives: *agent.Agent. Every call that
// can wait (a turn, a switch, a compaction) is made from a tea.Cmd, never
// from Update.
type ChatAgent interface {
	Prompt(ctx context.Context, text string) (queued bool, err error)
	Abort()
	NewSession() (bool, error)
	Fork() (newFile string, ok bool, err error)
	SwitchSession(path string) (bool, error)
	NavigateTree(targetID, summary string) (string, error)
	Label(entryID, label string) error
	SetTitle(title string) error
	SetThinkingLevel(level string) error
	Compact(ctx context.Context, instructions string) (string, error)
	Session() *session.Manager
	Model() provider.Model
	ThinkingLevel() string
	State() string
	Subscribe(h agent.Handler) func()
}

var _ ChatAgent = (*agent.Agent)(nil)

// History is the prompt history the editor recalls from (agent/history).
type History interface {
	Add(prompt, cwd string)
	Recent(n int) ([]history.Entry, error)
	Search(q string, n int) ([]history.Entry, error)
}

// ChatOptions configure the chat screen. The functions are cmd's: they
// reach what ui does not (the model registry, files, the clipboard, share
// programs) and are called from tea.Cmds.
type ChatOptions struct {
	// Agent runs the session; nil opens Session read-only (no model is
	// configured: NoAgent says why, and a prompt is refused with it).
	Agent   ChatAgent
	Session *session.Manager
	NoAgent string
	// Prompt is sent when the screen opens ("" for none).
	Prompt string
	// History remembers prompts (nil: none); Cwd is recorded with them.
	History History
	Cwd     string
	// TerminalKey is this terminal's key, shown in the status line.
	TerminalKey string
	// Home shortens paths under it to ~.
	Home string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Models lists the models /model offers; SetModel switches to one.
	Models   func() []string
	SetModel func(ref string) error
	// Export writes the session as HTML to path ("" for the default name)
	// and returns the file written.
	Export func(path string) (string, error)
	// Dump returns the bytes that put the session's text dump on the
	// clipboard (an OSC 52 sequence the chat writes to the terminal).
	Dump func() (osc, file string, err error)
	// Share shares the session and returns what to show (the URL).
	Share func(ctx context.Context) (string, error)
	// Sessions lists the sessions of a session dir for /resume; AllSessions
	// every session (Tab in the picker).
	Sessions    func(dir string) []session.SessionInfo
	AllSessions func() []session.SessionInfo
}

// snapshot is what the chat shows of the agent and its session, read on
// the goroutine that changes them (an agent event handler, or a tea.Cmd
// after an agent call returned), never from Update.
type snapshot struct {
	model, thinking, title, state string
	file, dir                     string
	persisted                     bool
	usage                         session.Usage
	contextWindow                 int
	msgs                          []json.RawMessage
	hasMsgs                       bool
}

func takeSnapshot(ag ChatAgent, sm *session.Manager, withMsgs bool) snapshot {
	var s snapshot
	if ag != nil {
		sm = ag.Session()
		m := ag.Model()
		s.model, s.thinking, s.state, s.contextWindow = m.Ref(), ag.ThinkingLevel(), ag.State(), m.ContextWindow
	}
	if sm == nil {
		return s
	}
	s.title, s.file, s.dir, s.persisted = sm.SessionName(), sm.SessionFile(), sm.SessionDir(), sm.IsPersisted()
	s.usage = sm.UsageStatistics()
	if withMsgs {
		s.msgs, s.hasMsgs = sm.BuildContext().Messages, true
	}
	return s
}

// AgentEventMsg carries an agent event into the program, with a snapshot
// taken on the agent's goroutine for the events that change what the
// status line or the transcript shows.
type AgentEventMsg struct {
	Event agent.Event
	snap  *snapshot
}

// chatMode is what has the keyboard.
type chatMode int

const (
	modeChat   chatMode = iota
	modePicker          // /resume
	modeTree            // /tree
	modeSearch          // Ctrl+R
	modeInput           // a line asked for by the tree (summary, label)
)

// Chat is the chat screen model.
type Chat struct {
	opt  ChatOptions
	ag   ChatAgent
	snap snapshot
	ctx  context.Context
	stop context.CancelFunc

	width, height int
	tr            transcript
	fold          fold
	scroll        int // lines scrolled up from the bottom
	ed            editor
	mode          chatMode

	// turn is set while a prompt runs; since is when it started.
	turn  bool
	since time.Time
	// op names an agent call in flight other than a turn ("" for none).
	op          string
	shareCancel context.CancelFunc

	hist    []string // recent prompts, newest first
	histPos int      // -1: the draft
	draft   string

	picker *Picker
	tree   *treeView
	search *searchView
	input  *inputLine

	approval *approvalMsg // a tool waiting for the user's yes or no

	send func(tea.Msg) // into the program; set by Attach
	osc  string        // bytes for the terminal, written once with the next frame
	quit bool
}

// NewChat returns the chat screen. It reads the agent's session at once, so
// call it before anything else runs on the agent.
func NewChat(opt ChatOptions) *Chat {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	ctx, stop := context.WithCancel(context.Background())
	c := &Chat{opt: opt, ag: opt.Agent, ctx: ctx, stop: stop, width: 80, height: 24, histPos: -1}
	c.snap = takeSnapshot(c.ag, opt.Session, true)
	c.tr.reset(c.snap.msgs)
	where := "in memory (--no-session): nothing is saved"
	if c.snap.persisted {
		where = c.path(c.snap.file)
	}
	c.tr.notice(noticeInfo, "xcsh · "+where+" · /help lists the commands")
	if c.ag == nil {
		c.tr.notice(noticeWarn, "The session is shown read-only: "+firstLine(opt.NoAgent))
	}
	return c
}

// Attach subscribes the chat to its agent's events; send delivers them into
// the program (tea.Program.Send). It returns the unsubscribe function.
func (c *Chat) Attach(send func(tea.Msg)) func() {
	if c.ag == nil {
		return func() {}
	}
	c.send = send
	ag := c.ag
	return ag.Subscribe(func(e agent.Event) error {
		msg := AgentEventMsg{Event: e}
		switch e.Type {
		case agent.EvMessageUpdate, agent.EvToolUpdate, agent.EvToolStart, agent.EvMessageStart, agent.EvTurnStart:
		case agent.EvSessionSwitch, agent.EvSessionBranch, agent.EvSessionTree, agent.EvSessionCompact, agent.EvSessionStart:
			s := takeSnapshot(ag, nil, true)
			msg.snap = &s
		default:
			s := takeSnapshot(ag, nil, false)
			msg.snap = &s
		}
		send(msg)
		return nil
	})
}

// approvalMsg asks whether a tool may run; the answer goes to reply.
type approvalMsg struct {
	tool, what string
	reply      chan bool
}

// warnMsg is a warning from outside the program (a failed hook).
type warnMsg struct{ text string }

// Approve asks the user whether a tool may run (agent.Config.Approve): the
// question is shown in the chat, and the turn waits for y or n, or for ctx.
// It is called on the agent's goroutine.
func (c *Chat) Approve(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
	if c.send == nil {
		return false, errors.New("approval needed but the chat screen is not running")
	}
	reply := make(chan bool, 1)
	c.send(approvalMsg{tool: tool, what: toolSummary(tool, args), reply: reply})
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case ok := <-reply:
		return ok, nil
	}
}

// Warn shows a warning from another goroutine (a failed hook).
func (c *Chat) Warn(text string) {
	if c.send != nil {
		c.send(warnMsg{text})
	}
}

// Close cancels what the chat still runs (a turn, a share).
func (c *Chat) Close() { c.stop() }

func (c *Chat) path(p string) string {
	if c.opt.Home != "" && strings.HasPrefix(p, c.opt.Home+"/") {
		return "~" + p[len(c.opt.Home):]
	}
	return p
}

// Messages of the chat's own commands.
type (
	promptDoneMsg struct {
		queued bool
		err    error
	}
	historyLoadedMsg struct{ prompts []string }
	opDoneMsg        struct {
		op    string
		notes []notice
		snap  *snapshot
		text  string // for the editor
		osc   string
	}
	oscClearMsg struct{}
	tickMsg     struct{}
)

type notice struct {
	level int
	text  string
}

// Init implements tea.Model.
func (c *Chat) Init() tea.Cmd {
	var cmds []tea.Cmd
	if h := c.opt.History; h != nil {
		cmds = append(cmds, func() tea.Msg {
			es, _ := h.Recent(500)
			out := make([]string, len(es))
			for i, e := range es {
				out[i] = e.Prompt
			}
			return historyLoadedMsg{out}
		})
	}
	if p := strings.TrimSpace(c.opt.Prompt); p != "" {
		cmds = append(cmds, c.submit(p))
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model.
func (c *Chat) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		c.width, c.height = max(msg.Width, 1), max(msg.Height, 1)
		if c.picker != nil {
			c.picker.Update(tea.WindowSizeMsg{Width: c.width, Height: c.areaHeight()})
		}
		return c, nil
	case tea.KeyMsg:
		return c, c.handleKey(msg)
	case AgentEventMsg:
		return c, c.handleEvent(msg)
	case promptDoneMsg:
		if msg.queued {
			c.tr.notice(noticeInfo, "Queued: sent when the current turn ends")
			return c, nil
		}
		c.turn = false
		if c.approval != nil {
			c.approval.reply <- false
			c.approval = nil
		}
		if msg.err != nil {
			c.tr.notice(noticeError, msg.err.Error())
		}
		return c, nil
	case historyLoadedMsg:
		c.hist = append(c.hist, msg.prompts...)
		return c, nil
	case opDoneMsg:
		return c, c.handleOpDone(msg)
	case resumeListMsg:
		return c, c.openPicker(msg)
	case treeLoadedMsg:
		c.openTree(msg)
		return c, nil
	case searchResultMsg:
		if c.search != nil && msg.query == c.search.query {
			c.search.results, c.search.cursor = msg.prompts, 0
		}
		return c, nil
	case approvalMsg:
		if c.approval != nil {
			c.approval.reply <- false
		}
		m := msg
		c.approval = &m
		return c, nil
	case warnMsg:
		c.tr.notice(noticeWarn, msg.text)
		return c, nil
	case oscClearMsg:
		c.osc = ""
		return c, nil
	case tickMsg:
		if c.turn {
			return c, tick()
		}
		return c, nil
	case allLoadedMsg:
		if c.picker != nil {
			_, cmd := c.picker.Update(msg)
			return c, cmd
		}
	}
	return c, nil
}

func tick() tea.Cmd { return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} }) }

// scrollBy scrolls the transcript up by n lines (down for n < 0), within it.
func (c *Chat) scrollBy(n int) {
	total := c.tr.totalLines(c.width, c.fold)
	c.scroll = max(0, min(c.scroll+n, total-c.areaHeight()))
}

// keepScroll runs fn, which changes the transcript, keeping what is in
// sight in place when the transcript is scrolled up.
func (c *Chat) keepScroll(fn func()) {
	if c.scroll == 0 {
		fn()
		return
	}
	before := c.tr.totalLines(c.width, c.fold)
	fn()
	c.scroll += c.tr.totalLines(c.width, c.fold) - before
}

func (c *Chat) handleEvent(m AgentEventMsg) tea.Cmd {
	e := m.Event
	if m.snap != nil {
		old := c.snap
		c.snap = *m.snap
		if !m.snap.hasMsgs {
			c.snap.msgs = nil
		}
		if c.snap.state == "" {
			c.snap.state = old.state
		}
	}
	str := func(k string) string { s, _ := e.Get(k).(string); return s }
	if e.Type == agent.EvStateChange && str("state") != "" {
		c.snap.state = str("state") // waiting is only in the event without a live file
	}
	c.keepScroll(func() {
		switch e.Type {
		case agent.EvMessageStart:
			if str("role") == "assistant" {
				c.tr.startAssistant()
			}
		case agent.EvMessageUpdate:
			idx, _ := e.Get("contentIndex").(int)
			c.tr.delta(str("event"), idx, str("delta"))
		case agent.EvMessageEnd:
			if raw, ok := e.Get("message").(json.RawMessage); ok {
				c.tr.addMessage(raw)
			}
		case agent.EvToolStart:
			it := c.tr.tool(str("toolCallId"), str("toolName"))
			if raw, ok := e.Get("args").(json.RawMessage); ok && len(it.args) == 0 {
				it.args = raw
			}
			it.status = toolRunning
			it.invalidate()
		case agent.EvToolUpdate:
			it := c.tr.tool(str("toolCallId"), str("toolName"))
			it.partial = str("partialResult")
			it.invalidate()
		case agent.EvToolEnd:
			it := c.tr.tool(str("toolCallId"), str("toolName"))
			if r, ok := e.Get("result").(provider.ToolResultMessage); ok {
				it.text = blocksText(r.Content)
			}
			it.partial = ""
			it.status = toolDone
			if isErr, _ := e.Get("isError").(bool); isErr {
				it.status = toolFailed
			}
			it.invalidate()
		case agent.EvAgentEnd:
			if s := str("error"); s != "" {
				c.tr.notice(noticeError, s)
			}
		case agent.EvRetry:
			c.tr.notice(noticeWarn, fmt.Sprintf("Retrying (attempt %v) in %v ms: %v", e.Get("attempt"), e.Get("delayMs"), e.Get("errorMessage")))
		case agent.EvSessionSwitch, agent.EvSessionBranch, agent.EvSessionTree, agent.EvSessionCompact:
			if m.snap != nil && m.snap.hasMsgs {
				c.tr.reset(m.snap.msgs)
				c.scroll = 0
			}
		}
	})
	return nil
}

// areaHeight is the height of the transcript (or of an overlay).
func (c *Chat) areaHeight() int {
	return max(c.height-c.editorRows()-2, 1)
}

func (c *Chat) maxEditorRows() int { return max(1, min(8, c.height/3)) }

func (c *Chat) editorRows() int {
	rows, _, _ := c.ed.rows(max(c.width-edPromptWidth, 1))
	return max(1, min(len(rows), c.maxEditorRows()))
}

// handleKey dispatches a key by mode.
func (c *Chat) handleKey(k tea.KeyMsg) tea.Cmd {
	if a := c.approval; a != nil {
		switch k.String() {
		case "y", "Y":
			a.reply <- true
			c.approval = nil
			c.tr.notice(noticeInfo, "Allowed "+a.tool)
		case "n", "N", "esc", "enter":
			a.reply <- false
			c.approval = nil
			c.tr.notice(noticeWarn, "Refused "+a.tool)
		case "ctrl+c":
			a.reply <- false
			c.approval = nil
			c.ag.Abort()
		}
		return nil
	}
	switch c.mode {
	case modePicker:
		return c.pickerKey(k)
	case modeTree:
		return c.treeKey(k)
	case modeSearch:
		return c.searchKey(k)
	case modeInput:
		return c.inputKey(k)
	}
	switch k.String() {
	case "ctrl+c":
		switch {
		case c.turn:
			c.ag.Abort()
		case !c.ed.Empty():
			c.ed.Reset()
			c.histPos = -1
		default:
			return c.quitCmd()
		}
		return nil
	case "ctrl+d":
		if c.ed.Empty() {
			return c.quitCmd()
		}
	case "esc":
		switch {
		case c.shareCancel != nil:
			c.shareCancel()
			c.shareCancel = nil
			c.tr.notice(noticeWarn, "Share cancelled")
		case c.turn:
			c.ag.Abort()
		default:
			c.scroll = 0
		}
		return nil
	case "enter":
		text := c.ed.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		c.ed.Reset()
		c.histPos, c.scroll = -1, 0
		return c.submit(text)
	case "up":
		if c.ed.OnFirstLine() && c.histPos+1 < len(c.hist) {
			if c.histPos == -1 {
				c.draft = c.ed.Value()
			}
			c.histPos++
			c.ed.SetValue(c.hist[c.histPos])
			return nil
		}
	case "down":
		if c.ed.OnLastLine() && c.histPos >= 0 {
			c.histPos--
			if c.histPos == -1 {
				c.ed.SetValue(c.draft)
			} else {
				c.ed.SetValue(c.hist[c.histPos])
			}
			return nil
		}
	case "ctrl+r":
		return c.openSearch()
	case "ctrl+t":
		c.fold.thinking = !c.fold.thinking
		return nil
	case "ctrl+o":
		c.fold.tools = !c.fold.tools
		return nil
	case "pgup":
		c.scrollBy(max(1, c.areaHeight()-2))
		return nil
	case "pgdown":
		c.scrollBy(-max(1, c.areaHeight()-2))
		return nil
	case "shift+up":
		c.scrollBy(1)
		return nil
	case "shift+down":
		c.scrollBy(-1)
		return nil
	case "ctrl+l":
		return tea.ClearScreen
	}
	before := c.ed.Value()
	if c.ed.Update(k) && c.ed.Value() != before {
		c.histPos = -1 // an edited recall becomes the draft
	}
	return nil
}

func (c *Chat) quitCmd() tea.Cmd {
	c.quit = true
	if c.ag != nil && c.turn {
		c.ag.Abort()
	}
	return tea.Quit
}

// submit sends a prompt or runs a slash command.
func (c *Chat) submit(text string) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "/") && !strings.HasPrefix(trimmed, "//") {
		c.remember(trimmed)
		return c.command(trimmed)
	}
	if strings.HasPrefix(trimmed, "//") {
		text = strings.TrimPrefix(strings.TrimLeft(text, " \t\n"), "/")
	}
	if c.ag == nil {
		c.tr.notice(noticeError, "Cannot send a prompt: "+c.opt.NoAgent)
		return nil
	}
	c.remember(trimmed)
	if !c.turn {
		c.turn, c.since = true, c.opt.Now()
	}
	ag, ctx := c.ag, c.ctx
	return tea.Batch(func() tea.Msg {
		queued, err := ag.Prompt(ctx, text)
		return promptDoneMsg{queued, err}
	}, tick())
}

// remember adds a prompt to the history, unless it repeats the last one.
func (c *Chat) remember(p string) {
	if c.opt.History != nil {
		c.opt.History.Add(p, c.opt.Cwd)
	}
	if len(c.hist) == 0 || c.hist[0] != p {
		c.hist = append([]string{p}, c.hist...)
	}
}

func (c *Chat) handleOpDone(m opDoneMsg) tea.Cmd {
	if m.op == c.op {
		c.op = ""
	}
	if m.op == "share" {
		if c.shareCancel == nil {
			return nil // cancelled: said so already
		}
		c.shareCancel = nil
	}
	if m.snap != nil {
		st := c.snap.state
		c.snap = *m.snap
		if c.snap.state == "" {
			c.snap.state = st
		}
		if m.snap.hasMsgs {
			c.tr.reset(m.snap.msgs)
			c.scroll = 0
		}
	}
	for _, n := range m.notes {
		c.tr.notice(n.level, n.text)
	}
	if m.text != "" {
		c.ed.SetValue(m.text)
	}
	if m.osc != "" {
		c.osc = m.osc
		return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return oscClearMsg{} })
	}
	return nil
}

// Styles of the frame.
var (
	stSep    = lipgloss.NewStyle().Faint(true)
	stStatus = lipgloss.NewStyle().Faint(true)
	stModel  = lipgloss.NewStyle().Bold(true)
	stBusy   = lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
)

// View implements tea.Model.
func (c *Chat) View() string {
	if c.quit {
		return ""
	}
	area := c.areaHeight()
	var lines []string
	switch c.mode {
	case modePicker:
		lines = strings.Split(c.picker.View(), "\n")
	case modeTree:
		lines = c.tree.view(c.width, area)
	case modeSearch:
		lines = c.search.view(c.width, area)
	case modeInput:
		lines = c.input.view(c.width, area)
	default:
		lines, _ = c.tr.view(c.width, area, c.scroll, c.fold)
	}
	if len(lines) > area {
		lines = lines[len(lines)-area:]
	}
	if a := c.approval; a != nil {
		q := stBusy.Render("Allow "+a.tool+"?") + " " + a.what
		lines = append(lines, "", ansi.Truncate(q, c.width, "…"), stDim.Render("y allow · n or Esc refuse"))
	}
	if len(lines) > area {
		lines = lines[len(lines)-area:]
	}
	var b strings.Builder
	for i := len(lines); i < area; i++ {
		b.WriteByte('\n')
	}
	for _, l := range lines {
		b.WriteString(ansi.Truncate(l, c.width, ""))
		b.WriteByte('\n')
	}
	b.WriteString(c.separator())
	b.WriteByte('\n')
	placeholder := "Type a prompt · Enter sends · Alt+Enter new line · ↑↓ history · Ctrl+R search · /help"
	if c.ag == nil {
		placeholder = "Read-only · /quit leaves · /help"
	}
	for _, l := range c.ed.View(c.width, c.maxEditorRows(), placeholder, c.mode == modeChat) {
		b.WriteString(ansi.Truncate(l, c.width, ""))
		b.WriteByte('\n')
	}
	b.WriteString(c.status())
	b.WriteString(c.osc)
	return b.String()
}

func (c *Chat) separator() string {
	hint := ""
	switch {
	case c.scroll > 0:
		hint = fmt.Sprintf(" ↓ %d lines below (PgDn, Esc) ", c.scroll)
	case c.op != "":
		hint = " " + c.op + "… "
	case c.turn:
		hint = " Esc aborts "
	}
	w := max(0, c.width-ansi.StringWidth(hint))
	return stSep.Render(strings.Repeat("─", min(w, 2)) + hint + strings.Repeat("─", max(0, w-2)))
}

// status is the status line: model, thinking level, tokens, cost, title,
// terminal key and state. When it does not fit, the tokens go first, then
// the title, then the thinking level; the state always shows.
func (c *Chat) status() string {
	s := c.snap
	model := s.model
	if model == "" {
		model = "no model"
	}
	thinking := ""
	if s.thinking != "" {
		thinking = " · thinking " + s.thinking
	} else if c.ag != nil {
		thinking = " · thinking off"
	}
	tokens := fmt.Sprintf("↑%s ↓%s", humanTokens(s.usage.Input+s.usage.CacheRead+s.usage.CacheWrite), humanTokens(s.usage.Output))
	if s.usage.Cost > 0 || c.ag != nil {
		tokens += fmt.Sprintf(" $%.3f", s.usage.Cost)
	}
	state := s.state
	if c.turn && state != agent.StateWaiting {
		state = agent.StateBusy
	}
	if state == "" {
		state = "read-only"
	}
	stateText := state
	if c.turn {
		stateText += " " + c.opt.Now().Sub(c.since).Truncate(time.Second).String()
	}
	stateStyle := stStatus
	if state == agent.StateBusy || state == agent.StateWaiting {
		stateStyle = stBusy
	}
	key := c.opt.TerminalKey
	if key == "" {
		key = "no terminal"
	}
	title := s.title
	if title == "" {
		title = "untitled"
	}
	render := func(thinking string, right []string) (string, int) {
		left := stModel.Render(model) + stStatus.Render(thinking)
		r := stStatus.Render(strings.Join(right, " · ")+" · ") + stateStyle.Render(stateText)
		return left, ansi.StringWidth(left) + 1 + ansi.StringWidth(r)
	}
	for _, try := range []struct {
		thinking string
		right    []string
	}{
		{thinking, []string{tokens, title, key}},
		{thinking, []string{title, key}},
		{thinking, []string{key}},
		{"", []string{key}},
	} {
		left, w := render(try.thinking, try.right)
		if w <= c.width {
			r := stStatus.Render(strings.Join(try.right, " · ")+" · ") + stateStyle.Render(stateText)
			return left + strings.Repeat(" ", c.width-w+1) + r
		}
	}
	return ansi.Truncate(stateStyle.Render(stateText)+" "+stModel.Render(model), c.width, "…")
}

func humanTokens(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0fk", n/1e3)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}
