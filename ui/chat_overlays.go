package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/xcsh-dev/xcsh/session"
)

// The chat's overlays: the session tree (/tree), the history search
// (Ctrl+R) and a line of input the tree asks for. Each takes the
// transcript's place while it is open.

// /tree

type treeRow struct {
	id     string
	prefix string // the branch drawing
	text   string
	label  string
	onPath bool // on the path from the root to the leaf
	leaf   bool
}

type treeLoadedMsg struct {
	rows []treeRow
	err  error
}

type treeView struct {
	rows           []treeRow
	cursor, offset int
}

func (c *Chat) cmdTree(_ []string, _ string) tea.Cmd {
	ag := c.ag
	c.op = "loading the tree"
	return func() tea.Msg {
		sm := ag.Session()
		leaf, _ := sm.LeafID()
		path := map[string]bool{}
		for _, e := range sm.BranchPath("") {
			path[e.ID] = true
		}
		var rows []treeRow
		flattenTree(sm.Tree(), "", false, leaf, path, &rows)
		return treeLoadedMsg{rows: rows}
	}
}

// flattenTree lists nodes depth first. A chain of single children stays at
// one indentation; only a fork indents, with ├─ └─ │ drawing its branches.
func flattenTree(nodes []*session.TreeNode, indent string, fork bool, leaf string, path map[string]bool, out *[]treeRow) {
	for len(nodes) > 0 {
		if len(nodes) > 1 || fork {
			for i, n := range nodes {
				conn, next := "├─ ", indent+"│  "
				if i == len(nodes)-1 {
					conn, next = "└─ ", indent+"   "
				}
				*out = append(*out, treeRowOf(n, indent+conn, leaf, path))
				flattenTree(n.Children, next, len(n.Children) > 1, leaf, path, out)
			}
			return
		}
		n := nodes[0] // a chain: iterate, so a long session does not recurse deeply
		*out = append(*out, treeRowOf(n, indent, leaf, path))
		nodes = n.Children
		fork = false
	}
}

func treeRowOf(n *session.TreeNode, prefix, leaf string, path map[string]bool) treeRow {
	return treeRow{id: n.Entry.ID, prefix: prefix, text: entryText(n.Entry), label: n.Label, onPath: path[n.Entry.ID], leaf: n.Entry.ID == leaf}
}

// entryText is an entry's one-line description in the tree.
func entryText(e *session.Entry) string {
	raw := func(k string) string {
		var v any
		_ = json.Unmarshal(e.Get(k), &v)
		switch v := v.(type) {
		case string:
			return v
		case nil:
			return "null"
		default:
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
	switch e.Type {
	case session.TypeMessage:
		role, text := session.MessageSummary(e.Get("message"))
		return role + ": " + oneLine(text)
	case session.TypeCompaction:
		return "[compaction: " + raw("tokensBefore") + " tokens] " + oneLine(raw("summary"))
	case session.TypeBranchSummary:
		return "[branch summary] " + oneLine(raw("summary"))
	case session.TypeCustomMessage:
		return "[" + raw("customType") + "] " + oneLine(session.MessageText(append([]byte(`{"content":`), append(e.Get("content"), '}')...)))
	case session.TypeModelChange:
		return "[model: " + raw("model") + "]"
	case session.TypeThinkingLevelChange:
		return "[thinking: " + raw("thinkingLevel") + "]"
	case session.TypeLabel:
		return "[label " + raw("targetId") + ": " + raw("label") + "]"
	}
	return "[" + e.Type + "]"
}

func (c *Chat) openTree(m treeLoadedMsg) {
	c.op = ""
	if m.err != nil || len(m.rows) == 0 {
		c.tr.notice(noticeInfo, "The session has no entries yet")
		return
	}
	tv := &treeView{rows: m.rows}
	for i, r := range m.rows {
		if r.leaf {
			tv.cursor = i
		}
	}
	c.tree, c.mode = tv, modeTree
}

func (t *treeView) move(d, page int) {
	t.cursor = max(0, min(t.cursor+d, len(t.rows)-1))
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+page {
		t.offset = t.cursor - page + 1
	}
}

func (c *Chat) treeKey(k tea.KeyMsg) tea.Cmd {
	t := c.tree
	page := max(1, c.areaHeight()-3)
	switch k.String() {
	case "esc", "ctrl+c", "q":
		c.tree, c.mode = nil, modeChat
	case "up", "k", "ctrl+p":
		t.move(-1, page)
	case "down", "j", "ctrl+n":
		t.move(1, page)
	case "pgup":
		t.move(-page, page)
	case "pgdown":
		t.move(page, page)
	case "home", "g":
		t.move(-len(t.rows), page)
	case "end", "G":
		t.move(len(t.rows), page)
	case "enter":
		return c.navigate(t.rows[t.cursor].id, "")
	case "s":
		id := t.rows[t.cursor].id
		c.askLine("Summary of the branch you leave (Enter moves there, Esc cancels):", func(text string) tea.Cmd {
			if strings.TrimSpace(text) == "" {
				c.tr.notice(noticeWarn, "No summary given: the leaf was not moved")
				return nil
			}
			return c.navigate(id, text)
		})
	case "l":
		id := t.rows[t.cursor].id
		c.askLine("Label for "+id+" (empty removes it):", func(text string) tea.Cmd {
			ag, label := c.ag, strings.TrimSpace(text)
			return c.run("label", func() opDoneMsg {
				if err := ag.Label(id, label); err != nil {
					return opDoneMsg{notes: failed("Label failed: " + err.Error())}
				}
				if label == "" {
					return opDoneMsg{notes: info("Label of " + id + " removed")}
				}
				return opDoneMsg{notes: info(fmt.Sprintf("Labelled %s %q", id, label))}
			})
		})
	}
	return nil
}

// navigate moves the leaf (/tree) and puts the text the agent returns (a
// user message's) into the editor.
func (c *Chat) navigate(id, summary string) tea.Cmd {
	c.tree, c.mode = nil, modeChat
	ag := c.ag
	return c.run("moving", func() opDoneMsg {
		text, err := ag.NavigateTree(id, summary)
		if err != nil {
			return opDoneMsg{notes: failed("Tree navigation failed: " + err.Error())}
		}
		note := "Moved to " + id
		if summary != "" {
			note += ", with a branch summary"
		}
		return opDoneMsg{notes: info(note), snap: c.snapAfter(true), text: text}
	})
}

func (t *treeView) view(width, height int) []string {
	out := []string{stTitle.Render("Session tree") + stDim.Render(" — Enter move here · s with a summary · l label · Esc close")}
	page := max(1, height-3)
	t.move(0, page)
	for i := t.offset; i < len(t.rows) && i < t.offset+page; i++ {
		r := t.rows[i]
		mark := "  "
		if r.onPath {
			mark = "• "
		}
		text := r.prefix + r.text
		if r.label != "" {
			text = r.prefix + "[" + r.label + "] " + r.text
		}
		if r.leaf {
			text += "  ← leaf"
		}
		line := ansi.Truncate(mark+text, width-2, "…")
		if i == t.cursor {
			out = append(out, stSelected.Render("› "+line))
		} else {
			out = append(out, "  "+line)
		}
	}
	out = append(out, stDim.Render(fmt.Sprintf("%d/%d entries · • the current path", t.cursor+1, len(t.rows))))
	return out
}

// A line of input.

type inputLine struct {
	prompt string
	ed     editor
	done   func(string) tea.Cmd
	back   chatMode // where Esc returns
}

func (c *Chat) askLine(prompt string, done func(string) tea.Cmd) {
	c.input = &inputLine{prompt: prompt, done: done, back: c.mode}
	c.mode = modeInput
}

func (c *Chat) inputKey(k tea.KeyMsg) tea.Cmd {
	in := c.input
	switch k.String() {
	case "esc", "ctrl+c":
		c.input, c.mode = nil, in.back
		return nil
	case "enter":
		c.input, c.tree, c.mode = nil, nil, modeChat
		return in.done(in.ed.Value())
	}
	in.ed.Update(k)
	return nil
}

func (in *inputLine) view(width, height int) []string {
	out := []string{stTitle.Render(in.prompt)}
	return append(out, in.ed.View(width, max(1, height-1), "", true)...)
}

// Ctrl+R: full-text search of the prompt history.

type searchView struct {
	query   string
	results []string
	cursor  int
}

type searchResultMsg struct {
	query   string
	prompts []string
}

func (c *Chat) openSearch() tea.Cmd {
	c.search, c.mode = &searchView{}, modeSearch
	c.search.results = c.hist
	return nil
}

func (c *Chat) searchKey(k tea.KeyMsg) tea.Cmd {
	s := c.search
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+g":
		c.search, c.mode = nil, modeChat
		return nil
	case "enter":
		if len(s.results) > 0 {
			c.ed.SetValue(s.results[s.cursor])
			c.histPos = -1
		}
		c.search, c.mode = nil, modeChat
		return nil
	case "up", "ctrl+p", "ctrl+r":
		s.cursor = min(s.cursor+1, max(0, len(s.results)-1))
		return nil
	case "down", "ctrl+n":
		s.cursor = max(0, s.cursor-1)
		return nil
	case "backspace", "ctrl+h":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
		}
	case "ctrl+u":
		s.query = ""
	case " ":
		s.query += " "
	default:
		if k.Type != tea.KeyRunes {
			return nil
		}
		s.query += string(k.Runes)
	}
	return c.runSearch()
}

// runSearch queries the history off the update loop; an empty query shows
// the recent prompts.
func (c *Chat) runSearch() tea.Cmd {
	q := c.search.query
	if strings.TrimSpace(q) == "" || c.opt.History == nil {
		var res []string
		for _, p := range c.hist {
			if strings.Contains(strings.ToLower(p), strings.ToLower(strings.TrimSpace(q))) {
				res = append(res, p)
			}
		}
		c.search.results, c.search.cursor = res, 0
		return nil
	}
	h := c.opt.History
	return func() tea.Msg {
		es, _ := h.Search(q, 100)
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.Prompt
		}
		return searchResultMsg{q, out}
	}
}

func (s *searchView) view(width, height int) []string {
	rows := max(1, height-2)
	var list []string
	first := max(0, s.cursor-rows+1)
	for i := first; i < len(s.results) && i < first+rows; i++ {
		line := ansi.Truncate(oneLine(s.results[i]), width-2, "…")
		if i == s.cursor {
			list = append(list, stSelected.Render("› "+line))
		} else {
			list = append(list, "  "+line)
		}
	}
	if len(s.results) == 0 {
		list = append(list, stDim.Render("  No prompt matches."))
	}
	// newest at the bottom, next to the editor, as a shell's reverse search
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	out := []string{stTitle.Render("History search") + stDim.Render(" — type to search · ↑↓ choose · Enter edit · Esc cancel")}
	out = append(out, list...)
	return append(out, "(search) "+s.query+"▏")
}
