package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

// The transcript: the chat's list of items, one per message of the session
// (a tool call and its result share one), plus the chat's own notices. Each
// item keeps its rendered lines for the width and folding it was last drawn
// with, so a streamed token renders only the item it extends.

type itemKind int

const (
	itemUser itemKind = iota
	itemAssistant
	itemTool
	itemNotice
	itemCustom
	itemBranchSummary
	itemCompaction
	itemExec
	itemFileMention
	itemOther
)

// Tool call states.
const (
	toolPending = iota // announced by the model, not started
	toolRunning
	toolDone
	toolFailed
)

// Notice levels.
const (
	noticeInfo = iota
	noticeWarn
	noticeError
)

// part is a thinking or text block of an assistant message.
type part struct {
	thinking bool
	text     string
	md       mdStream
}

type item struct {
	kind  itemKind
	role  string // the message role as stored
	title string // custom type, tool name, command
	text  string // user, custom, summary or notice text; tool output
	level int    // notice level
	note  string // a dim line under the header (from branch, tokens before, exit status)

	// assistant
	parts     []*part
	stop      string
	errMsg    string
	streaming bool
	toolArgs  int // bytes of tool-call arguments streamed so far
	partIndex int // the content index of the last streamed part

	// tool
	callID  string
	args    json.RawMessage
	status  int
	partial string // live output while it runs
	hidden  bool   // a custom message not for display

	// render cache
	cacheKey renderKey
	lines    []string
}

type renderKey struct {
	width          int
	thinking, tool bool
	valid          bool
}

// fold says what is expanded.
type fold struct{ thinking, tools bool }

func (it *item) invalidate() { it.cacheKey.valid = false }

// transcript is the chat's items.
type transcript struct {
	items  []*item
	byCall map[string]*item
	stream *item // the assistant message being streamed
}

// rawMessage is every field the transcript reads from any message role.
type rawMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	CustomType   string          `json:"customType"`
	Display      *bool           `json:"display"`
	Summary      string          `json:"summary"`
	FromID       string          `json:"fromId"`
	TokensBefore json.Number     `json:"tokensBefore"`
	ToolCallID   string          `json:"toolCallId"`
	ToolName     string          `json:"toolName"`
	IsError      bool            `json:"isError"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	Command      string          `json:"command"`
	Code         string          `json:"code"`
	Output       string          `json:"output"`
	ExitCode     *int            `json:"exitCode"`
	Cancelled    bool            `json:"cancelled"`
	Truncated    bool            `json:"truncated"`
	Files        []struct {
		Path          string `json:"path"`
		SkippedReason string `json:"skippedReason"`
	} `json:"files"`
}

// contentBlocks reads a content that is a string or a list of blocks.
func contentBlocks(raw json.RawMessage) []provider.Block {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return nil
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return []provider.Block{{Type: provider.BlockText, Text: s}}
	}
	var bs []provider.Block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// blocksText is the text of text blocks (joined by blank lines), images named.
func blocksText(bs []provider.Block) string {
	var parts []string
	for _, b := range bs {
		switch b.Type {
		case provider.BlockText:
			parts = append(parts, b.Text)
		case provider.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n\n")
}

func (t *transcript) reset(msgs []json.RawMessage) {
	t.items, t.byCall, t.stream = nil, map[string]*item{}, nil
	for _, m := range msgs {
		t.addMessage(m)
	}
}

func (t *transcript) add(it *item) *item {
	t.items = append(t.items, it)
	return it
}

// notice adds a line of the chat's own.
func (t *transcript) notice(level int, text string) {
	t.add(&item{kind: itemNotice, level: level, text: text})
}

// addMessage adds a message as stored in the session. A tool result joins
// its call; an assistant message ends the one being streamed.
func (t *transcript) addMessage(raw json.RawMessage) {
	var m rawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return
	}
	if t.byCall == nil {
		t.byCall = map[string]*item{}
	}
	switch m.Role {
	case "user", "developer":
		t.add(&item{kind: itemUser, role: m.Role, text: blocksText(contentBlocks(m.Content))})
	case "assistant":
		it := t.stream
		if it == nil {
			it = t.add(&item{kind: itemAssistant, role: m.Role})
		}
		t.stream = nil
		it.streaming, it.toolArgs = false, 0
		it.stop, it.errMsg = m.StopReason, m.ErrorMessage
		it.parts = it.parts[:0]
		var calls []provider.Block
		for _, b := range contentBlocks(m.Content) {
			switch b.Type {
			case provider.BlockThinking:
				it.parts = append(it.parts, &part{thinking: true, text: b.Thinking})
			case provider.BlockRedactedThinking:
				it.parts = append(it.parts, &part{thinking: true, text: "(redacted)"})
			case provider.BlockText:
				it.parts = append(it.parts, &part{text: b.Text})
			case provider.BlockToolCall:
				calls = append(calls, b)
			}
		}
		it.invalidate()
		for _, c := range calls {
			if prev := t.byCall[c.ID]; prev != nil && c.ID != "" {
				prev.title, prev.args = c.Name, c.Arguments
				prev.invalidate()
				continue
			}
			tool := t.add(&item{kind: itemTool, callID: c.ID, title: c.Name, args: c.Arguments, status: toolPending})
			if c.ID != "" {
				t.byCall[c.ID] = tool
			}
		}
	case "toolResult":
		tool := t.byCall[m.ToolCallID]
		if tool == nil || m.ToolCallID == "" {
			tool = t.add(&item{kind: itemTool, callID: m.ToolCallID, title: m.ToolName})
		}
		tool.text = blocksText(contentBlocks(m.Content))
		tool.partial = ""
		tool.status = toolDone
		if m.IsError {
			tool.status = toolFailed
		}
		tool.invalidate()
	case "custom", "hookMessage":
		hidden := m.Display != nil && !*m.Display
		t.add(&item{kind: itemCustom, role: m.Role, title: m.CustomType, text: blocksText(contentBlocks(m.Content)), hidden: hidden})
	case "branchSummary":
		t.add(&item{kind: itemBranchSummary, text: m.Summary, note: "from " + m.FromID})
	case "compactionSummary":
		t.add(&item{kind: itemCompaction, text: m.Summary, note: string(m.TokensBefore) + " tokens before"})
	case "bashExecution", "pythonExecution":
		cmd := m.Command
		if m.Role == "pythonExecution" {
			cmd = m.Code
		}
		var note []string
		if m.Cancelled {
			note = append(note, "cancelled")
		}
		if m.ExitCode != nil && *m.ExitCode != 0 {
			note = append(note, "exit "+strconv.Itoa(*m.ExitCode))
		}
		if m.Truncated {
			note = append(note, "output truncated")
		}
		t.add(&item{kind: itemExec, role: m.Role, title: cmd, text: m.Output, note: strings.Join(note, ", ")})
	case "fileMention":
		var lines []string
		for _, f := range m.Files {
			l := f.Path
			if f.SkippedReason != "" {
				l += " (skipped: " + f.SkippedReason + ")"
			}
			lines = append(lines, l)
		}
		t.add(&item{kind: itemFileMention, text: strings.Join(lines, "\n")})
	default:
		_, text := messageSummary(raw)
		t.add(&item{kind: itemOther, role: m.Role, text: text})
	}
}

func messageSummary(raw json.RawMessage) (string, string) {
	var m rawMessage
	_ = json.Unmarshal(raw, &m)
	return m.Role, blocksText(contentBlocks(m.Content))
}

// startAssistant begins the assistant message being streamed.
func (t *transcript) startAssistant() {
	if t.stream != nil {
		return
	}
	t.stream = t.add(&item{kind: itemAssistant, role: "assistant", streaming: true})
}

// delta adds streamed text to the block at index of the streamed message.
func (t *transcript) delta(kind string, index int, text string) {
	if t.stream == nil {
		t.startAssistant()
	}
	it := t.stream
	switch kind {
	case provider.EventToolCallDelta:
		it.toolArgs += len(text)
	case provider.EventThinkingDelta, provider.EventTextDelta:
		thinking := kind == provider.EventThinkingDelta
		// blocks arrive in order; a new index, or a change of kind, is a new part
		if len(it.parts) == 0 || it.parts[len(it.parts)-1].thinking != thinking || index >= 0 && index > it.lastIndex() {
			it.parts = append(it.parts, &part{thinking: thinking})
		}
		p := it.parts[len(it.parts)-1]
		p.text += text
		it.setLastIndex(index)
	}
	it.invalidate()
}

// lastIndex and setLastIndex track the content index of the last streamed
// part: blocks of a streamed message come in order, so a higher index starts
// a new part.
func (it *item) lastIndex() int {
	if len(it.parts) == 0 {
		return -1
	}
	return it.partIndex
}

func (it *item) setLastIndex(i int) { it.partIndex = i }

// tool returns the item of a tool call, made when the call is not known.
func (t *transcript) tool(id, name string) *item {
	if it := t.byCall[id]; it != nil {
		return it
	}
	it := t.add(&item{kind: itemTool, callID: id, title: name})
	if t.byCall == nil {
		t.byCall = map[string]*item{}
	}
	t.byCall[id] = it
	return it
}

// Rendering.

var (
	stUserMark   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
	stUserText   = lipgloss.NewStyle().Bold(true)
	stThinking   = lipgloss.NewStyle().Faint(true).Italic(true)
	stToolName   = lipgloss.NewStyle().Bold(true)
	stOK         = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	stFail       = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	stWarn       = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	stRunning    = lipgloss.NewStyle().Foreground(lipgloss.Color("4"))
	stHeader     = lipgloss.NewStyle().Foreground(lipgloss.Color("5")).Bold(true)
	outputGutter = mdDim.Render("│ ")
)

// foldedLines is how many lines of a folded output or summary show.
const foldedLines = 4

// render returns the item's lines at width.
func (it *item) render(width int, f fold) []string {
	key := renderKey{width: width, thinking: f.thinking, tool: f.tools, valid: true}
	if it.cacheKey == key {
		return it.lines
	}
	it.lines = it.draw(max(width, 10), f)
	it.cacheKey = key
	return it.lines
}

func (it *item) draw(width int, f fold) []string {
	switch it.kind {
	case itemUser:
		mark := "›"
		if it.role == "developer" {
			mark = "› (developer)"
		}
		return prefixed(stUserMark.Render(mark)+" ", "  ", plainWrap(it.text, width-2, stUserText))
	case itemAssistant:
		return it.drawAssistant(width, f)
	case itemTool:
		return it.drawTool(width, f)
	case itemNotice:
		mark, st := "•", mdDim
		switch it.level {
		case noticeWarn:
			mark, st = "!", stWarn
		case noticeError:
			mark, st = "✗", stFail
		}
		return prefixed(st.Render(mark)+" ", "  ", plainWrap(it.text, width-2, st))
	case itemCustom:
		head := stHeader.Render("◆ "+it.title) + mdDim.Render(map[bool]string{true: " (not displayed)", false: ""}[it.hidden])
		body := renderMarkdown(it.text, width-2)
		if it.hidden && !f.tools {
			body = foldBody(body, 1, "ctrl+o")
		}
		return append([]string{head}, indent(body, "  ")...)
	case itemBranchSummary, itemCompaction:
		head := "⎇ Branch summary"
		if it.kind == itemCompaction {
			head = "⊟ Compaction summary"
		}
		body := renderMarkdown(it.text, width-2)
		if !f.tools {
			body = foldBody(body, foldedLines, "ctrl+o")
		}
		return append([]string{stHeader.Render(head) + mdDim.Render(" ("+it.note+")")}, indent(body, "  ")...)
	case itemExec:
		mark := "$"
		if it.role == "pythonExecution" {
			mark = ">>>"
		}
		head := stToolName.Render(mark+" ") + ansi.Truncate(oneLine(it.title), width-len(mark)-1, "…")
		if it.note != "" {
			head += mdDim.Render(" (" + it.note + ")")
		}
		return append([]string{head}, outputLines(it.text, width, f.tools)...)
	case itemFileMention:
		var out []string
		for _, l := range strings.Split(it.text, "\n") {
			out = append(out, mdDim.Render("@ ")+ansi.Truncate(l, width-2, "…"))
		}
		return out
	}
	return prefixed(mdDim.Render("["+it.role+"]")+" ", "  ", plainWrap(it.text, width-2, lipgloss.Style{}))
}

func (it *item) drawAssistant(width int, f fold) []string {
	var out []string
	for _, p := range it.parts {
		if p.thinking {
			out = append(out, drawThinking(p.text, width, f.thinking, it.streaming && p == it.parts[len(it.parts)-1])...)
			continue
		}
		if strings.TrimSpace(p.text) == "" {
			continue
		}
		out = append(out, p.md.render(p.text, width)...)
	}
	if it.streaming && it.toolArgs > 0 {
		out = append(out, mdDim.Render(fmt.Sprintf("… preparing a tool call (%d bytes)", it.toolArgs)))
	}
	switch it.stop {
	case provider.StopError:
		msg := it.errMsg
		if msg == "" {
			msg = "the model failed"
		}
		out = append(out, prefixed(stFail.Render("✗")+" ", "  ", plainWrap("Error: "+msg, width-2, stFail))...)
	case provider.StopAborted:
		out = append(out, stWarn.Render("⊘ Aborted"))
	case provider.StopLength:
		out = append(out, stWarn.Render("! The reply hit the output limit"))
	}
	if len(out) == 0 && it.streaming {
		out = append(out, mdDim.Render("…"))
	}
	return out
}

func drawThinking(text string, width int, expanded, live bool) []string {
	text = strings.TrimSpace(text)
	n := len(strings.Split(text, "\n"))
	if !expanded {
		head := fmt.Sprintf("∴ Thinking · %d lines (ctrl+t)", n)
		if n == 1 {
			head = "∴ Thinking · 1 line (ctrl+t)"
		}
		if live {
			last := text
			if i := strings.LastIndexByte(text, '\n'); i >= 0 {
				last = text[i+1:]
			}
			prefix, tail := "∴ Thinking… ", oneLine(last)
			if over := ansi.StringWidth(prefix) + ansi.StringWidth(tail) - width; over > 0 {
				tail = ansi.TruncateLeft(tail, over+1, "…") // the newest words show
			}
			return []string{stThinking.Render(ansi.Truncate(prefix+tail, width, ""))}
		}
		return []string{stThinking.Render(head)}
	}
	out := []string{stThinking.Render("∴ Thinking")}
	for _, l := range plainWrap(text, width-2, stThinking) {
		out = append(out, outputGutter+l)
	}
	return out
}

// toolSummary is the short form of a tool call's arguments.
func toolSummary(name string, args json.RawMessage) string {
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	switch name {
	case "bash":
		if c := str("command"); c != "" {
			return oneLine(c)
		}
	case "read", "write", "edit":
		if p := str("path"); p != "" {
			s := p
			if off, ok := m["offset"].(float64); ok {
				s += fmt.Sprintf(":%d", int(off))
			}
			return s
		}
	}
	delete(m, "_i")
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func (it *item) drawTool(width int, f fold) []string {
	var mark string
	switch it.status {
	case toolPending:
		mark = mdDim.Render("○")
	case toolRunning:
		mark = stRunning.Render("◐")
	case toolDone:
		mark = stOK.Render("✓")
	case toolFailed:
		mark = stFail.Render("✗")
	}
	name := it.title
	if name == "" {
		name = "tool"
	}
	head := mark + " " + stToolName.Render(name)
	if s := toolSummary(it.title, it.args); s != "" {
		head += " " + ansi.Truncate(s, max(0, width-ansi.StringWidth(name)-3), "…")
	}
	out := []string{head}
	switch {
	case it.status == toolRunning && it.partial != "":
		lines := strings.Split(strings.TrimRight(it.partial, "\n"), "\n")
		if !f.tools && len(lines) > foldedLines {
			lines = lines[len(lines)-foldedLines:]
		}
		for _, l := range lines {
			out = append(out, "  "+outputGutter+ansi.Truncate(l, width-4, "…"))
		}
	case it.status == toolDone || it.status == toolFailed:
		st := lipgloss.Style{}
		if it.status == toolFailed {
			st = stFail
		}
		out = append(out, outputLinesStyled(it.text, width, f.tools, st)...)
	}
	return out
}

// outputLines shows a tool's or command's output behind a gutter, folded to
// a few lines unless expanded.
func outputLines(text string, width int, expanded bool) []string {
	return outputLinesStyled(text, width, expanded, lipgloss.Style{})
}

func outputLinesStyled(text string, width int, expanded bool, st lipgloss.Style) []string {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(text, "\t", "    "), "\n")
	var out []string
	for _, l := range lines {
		out = append(out, "  "+outputGutter+st.Render(ansi.Truncate(ansi.Strip(l), width-4, "…")))
	}
	if !expanded {
		out = foldBody(out, foldedLines, "ctrl+o")
	}
	return out
}

// foldBody keeps the first n lines and says how many more there are.
func foldBody(lines []string, n int, key string) []string {
	if len(lines) <= n {
		return lines
	}
	more := len(lines) - n
	word := "lines"
	if more == 1 {
		word = "line"
	}
	return append(lines[:n:n], mdDim.Render(fmt.Sprintf("  … %d more %s (%s to expand)", more, word, key)))
}

// plainWrap wraps unformatted text at width, line by line, in style st.
func plainWrap(text string, width int, st lipgloss.Style) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\t", "    "), "\n"), "\n") {
		for _, w := range wrapStyled(ansi.Strip(l), max(width, 1)) {
			out = append(out, st.Render(w))
		}
	}
	return out
}

func prefixed(first, rest string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if i == 0 {
			out[i] = first + l
		} else {
			out[i] = rest + l
		}
	}
	if len(out) == 0 {
		out = []string{strings.TrimRight(first, " ")}
	}
	return out
}

func indent(lines []string, pad string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = pad + l
	}
	return out
}

// view returns the lines the transcript shows in height rows, scrolled up
// by scroll lines from the bottom (clamped; the clamped value is returned).
// Only the items in sight are rendered.
func (t *transcript) view(width, height, scroll int, f fold) ([]string, int) {
	if height <= 0 {
		return nil, scroll
	}
	need := height + max(scroll, 0)
	var rev [][]string // item lines, last item first
	got := 0
	for i := len(t.items) - 1; i >= 0 && got < need; i-- {
		ls := t.items[i].render(width, f)
		if i < len(t.items)-1 {
			ls = append(ls[:len(ls):len(ls)], "") // a blank line between items
		}
		rev = append(rev, ls)
		got += len(ls)
	}
	scroll = max(0, min(scroll, got-height))
	all := make([]string, 0, got)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
	}
	end := len(all) - scroll
	start := max(0, end-height)
	return all[start:end], scroll
}

// totalLines is the transcript's height at width (every item rendered).
func (t *transcript) totalLines(width int, f fold) int {
	n := 0
	for i, it := range t.items {
		n += len(it.render(width, f))
		if i > 0 {
			n++
		}
	}
	return n
}
