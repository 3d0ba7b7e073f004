// Package ui holds xcsh's bubbletea screens: the session picker, later the
// dashboard and the chat view. It runs no process itself.
package ui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/xcsh-dev/xcsh/session"
)

// PickerOutcome says how the picker ended.
type PickerOutcome int

// Picker outcomes.
const (
	PickerSelected    PickerOutcome = iota // Enter on a session
	PickerCancelled                        // Esc
	PickerInterrupted                      // Ctrl+C
)

// PickerOptions configure the session picker.
type PickerOptions struct {
	// Local are the sessions of this directory, newest first.
	Local []session.SessionInfo
	// LocalLabel names the Local list in the title; "" means "this
	// directory". A picker over the matches of an id prefix says so.
	LocalLabel string
	// LoadAll returns every session; called once, in a tea.Cmd (off the
	// update loop), the first time Tab is pressed.
	LoadAll func() []session.SessionInfo
	// Now is the clock used for "how long ago"; nil means time.Now.
	Now func() time.Time
	// Home shortens paths under it to ~.
	Home string
}

type pickItem struct {
	info  session.SessionInfo
	short string // lower-cased title, first message, cwd, id: fuzzy-matched
	long  string // lower-cased all message text and path: substring-matched
}

// Picker is the session picker model.
type Picker struct {
	opt      PickerOptions
	scopes   [2][]pickItem
	loaded   [2]bool
	loading  bool // LoadAll is running (set by Tab, cleared by allLoadedMsg)
	scope    int  // 0 this directory, 1 all
	query    string
	visible  []int
	cursor   int
	offset   int
	width    int
	height   int
	outcome  PickerOutcome
	selected string
	done     bool
}

// NewPicker returns a picker over opt.Local.
func NewPicker(opt PickerOptions) *Picker {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	p := &Picker{opt: opt, width: 100, height: 20, outcome: PickerCancelled}
	p.scopes[0] = makeItems(opt.Local)
	p.loaded[0] = true
	p.refilter()
	return p
}

func makeItems(infos []session.SessionInfo) []pickItem {
	out := make([]pickItem, len(infos))
	for i, s := range infos {
		title := ""
		if s.Title != nil {
			title = *s.Title
		}
		out[i] = pickItem{
			info:  s,
			short: strings.ToLower(title + "\x00" + s.FirstMessage + "\x00" + s.Cwd + "\x00" + s.ID),
			long:  strings.ToLower(s.AllMessagesText + "\x00" + s.Path),
		}
	}
	return out
}

// allLoadedMsg carries every session, listed by loadAll.
type allLoadedMsg struct{ infos []session.SessionInfo }

// loadAll lists every session off the update loop (it reads files).
func (p *Picker) loadAll() tea.Cmd {
	load := p.opt.LoadAll
	return func() tea.Msg {
		var infos []session.SessionInfo
		if load != nil {
			infos = load()
		}
		return allLoadedMsg{infos}
	}
}

// Result returns how the picker ended and the chosen session file.
func (p *Picker) Result() (PickerOutcome, string) { return p.outcome, p.selected }

// Done reports whether the picker has ended (a screen that embeds it, as
// the chat's /resume does, closes it then instead of quitting).
func (p *Picker) Done() bool { return p.done }

// Init implements tea.Model.
func (p *Picker) Init() tea.Cmd { return nil }

// Update implements tea.Model.
func (p *Picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
		p.clampOffset()
	case allLoadedMsg:
		p.scopes[1] = makeItems(msg.infos)
		p.loaded[1], p.loading = true, false
		if p.scope == 1 {
			p.refilter()
		}
	case tea.KeyMsg:
		switch msg.Type {
		case tea.KeyCtrlC:
			p.outcome, p.done = PickerInterrupted, true
			return p, tea.Quit
		case tea.KeyEsc:
			p.outcome, p.done = PickerCancelled, true
			return p, tea.Quit
		case tea.KeyEnter:
			if len(p.visible) == 0 {
				return p, nil
			}
			p.selected = p.scopes[p.scope][p.visible[p.cursor]].info.Path
			p.outcome, p.done = PickerSelected, true
			return p, tea.Quit
		case tea.KeyTab, tea.KeyShiftTab:
			p.scope = 1 - p.scope
			p.cursor, p.offset = 0, 0
			p.refilter()
			if !p.loaded[p.scope] && !p.loading {
				p.loading = true
				return p, p.loadAll()
			}
		case tea.KeyUp, tea.KeyCtrlP:
			p.move(-1)
		case tea.KeyDown, tea.KeyCtrlN:
			p.move(1)
		case tea.KeyPgUp:
			p.move(-p.pageSize())
		case tea.KeyPgDown:
			p.move(p.pageSize())
		case tea.KeyHome:
			p.move(-len(p.visible))
		case tea.KeyEnd:
			p.move(len(p.visible))
		case tea.KeyBackspace:
			if r := []rune(p.query); len(r) > 0 {
				p.query = string(r[:len(r)-1])
				p.refilter()
			}
		case tea.KeyCtrlU:
			p.query = ""
			p.refilter()
		case tea.KeyRunes:
			p.query += string(msg.Runes)
			p.refilter()
		case tea.KeySpace:
			p.query += " "
			p.refilter()
		}
	}
	return p, nil
}

func (p *Picker) pageSize() int {
	n := p.height - 5
	if n < 1 {
		n = 1
	}
	return n
}

func (p *Picker) move(d int) {
	p.cursor += d
	if p.cursor >= len(p.visible) {
		p.cursor = len(p.visible) - 1
	}
	if p.cursor < 0 {
		p.cursor = 0
	}
	p.clampOffset()
}

func (p *Picker) clampOffset() {
	ps := p.pageSize()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+ps {
		p.offset = p.cursor - ps + 1
	}
}

// refilter recomputes the visible rows: every query word must match, fuzzily
// in the title, first message, cwd or id, or as a substring of the message
// text or path. Better fuzzy scores come first; ties stay newest first.
func (p *Picker) refilter() {
	items := p.scopes[p.scope]
	words := strings.Fields(strings.ToLower(p.query))
	type scored struct{ i, score int }
	var hits []scored
	for i, it := range items {
		total, ok := 0, true
		for _, w := range words {
			if s, fine := fuzzyScore(it.short, w); fine {
				total += s
			} else if strings.Contains(it.long, w) {
				total += 1
			} else {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, scored{i, total})
		}
	}
	if len(words) > 0 {
		sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	}
	p.visible = p.visible[:0]
	for _, h := range hits {
		p.visible = append(p.visible, h.i)
	}
	if p.cursor >= len(p.visible) {
		p.cursor = 0
		p.offset = 0
	}
	p.clampOffset()
}

// fuzzyScore matches pattern as a subsequence of s; consecutive and
// word-start matches score more.
func fuzzyScore(s, pattern string) (int, bool) {
	score, last, pi := 0, -2, 0
	pr := []rune(pattern)
	for i, r := range s {
		if pi == len(pr) {
			break
		}
		if r != pr[pi] {
			continue
		}
		score += 2
		if i == last+1 {
			score += 3
		}
		if i == 0 || strings.ContainsRune(" \x00/-_.", rune(s[i-1])) {
			score += 2
		}
		last = i
		pi++
	}
	return score, pi == len(pr)
}

var (
	stTitle    = lipgloss.NewStyle().Bold(true)
	stSelected = lipgloss.NewStyle().Reverse(true)
	stDim      = lipgloss.NewStyle().Faint(true)
)

// View implements tea.Model.
func (p *Picker) View() string {
	if p.done {
		return ""
	}
	var b strings.Builder
	scope := "this directory"
	if p.opt.LocalLabel != "" {
		scope = p.opt.LocalLabel
	}
	if p.scope == 1 {
		scope = "all sessions"
	}
	b.WriteString(stTitle.Render("Resume session") + stDim.Render(" — "+scope+" (Tab: switch)") + "\n")
	b.WriteString("> " + p.query + "\n")
	items := p.scopes[p.scope]
	if p.scope == 1 && p.loading {
		b.WriteString(stDim.Render("Loading all sessions…") + "\n")
	} else if len(items) == 0 {
		if p.scope == 0 {
			b.WriteString(stDim.Render("No sessions in this directory. Press Tab to view all.") + "\n")
		} else {
			b.WriteString(stDim.Render("No sessions found.") + "\n")
		}
	} else if len(p.visible) == 0 {
		b.WriteString(stDim.Render("No session matches.") + "\n")
	}
	end := min(p.offset+p.pageSize(), len(p.visible))
	page := make([]rowCells, 0, end-p.offset)
	for row := p.offset; row < end; row++ {
		page = append(page, p.cells(items[p.visible[row]].info))
	}
	cols := p.columns(page)
	for i, c := range page {
		b.WriteString(cols.render(c, p.offset+i == p.cursor) + "\n")
	}
	b.WriteString(stDim.Render(fmt.Sprintf("%d/%d  ↑↓ move · Enter open · Esc cancel · type to search", len(p.visible), len(items))))
	// A terminal too narrow for a line still gets one line per line: a
	// wrapped line would push the list off the screen.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, p.width, "")
	}
	return strings.Join(lines, "\n")
}

// rowCells are the texts of one row: the title (or first message), cwd,
// message count and age.
type rowCells struct{ name, cwd, count, age string }

func (p *Picker) cells(s session.SessionInfo) rowCells {
	name := ""
	if s.Title != nil {
		name = session.SanitizeName(*s.Title)
	}
	if name == "" {
		name = session.SanitizeName(s.FirstMessage)
	}
	cwd := s.Cwd
	if p.opt.Home != "" && cwd != "" {
		if rel, err := filepath.Rel(p.opt.Home, cwd); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			cwd = filepath.Join("~", rel)
		}
	}
	count := "1 msg"
	if s.MessageCount != 1 {
		count = fmt.Sprintf("%d msgs", s.MessageCount)
	}
	return rowCells{name, cwd, count, ago(p.opt.Now(), s.Modified)}
}

// Column layout of the rows.
const (
	markWidth    = 2  // "› " on the cursor row
	gapWidth     = 2  // between columns
	minNameWidth = 12 // the name gives way to the other columns down to this
	minCwdWidth  = 8  // then the cwd, down to this
)

// columns sizes the columns to the rows of one page: cwd, count and age as
// wide as their widest cell, the name the rest of the width.
type columns struct{ name, cwd, count, age int }

func (p *Picker) columns(page []rowCells) columns {
	var c columns
	for _, r := range page {
		c.cwd = max(c.cwd, ansi.StringWidth(r.cwd))
		c.count = max(c.count, ansi.StringWidth(r.count))
		c.age = max(c.age, ansi.StringWidth(r.age))
	}
	c.name = p.width - markWidth - 3*gapWidth - c.cwd - c.count - c.age
	if c.name < minNameWidth {
		c.cwd = max(minCwdWidth, c.cwd-(minNameWidth-c.name))
		c.name = max(minNameWidth, p.width-markWidth-3*gapWidth-c.cwd-c.count-c.age)
	}
	return c
}

// render draws one row; the cursor row is marked, visibly without colour too.
func (c columns) render(r rowCells, selected bool) string {
	gap := strings.Repeat(" ", gapWidth)
	meta := gap + fitLeft(r.cwd, c.cwd) + gap + padLeft(r.count, c.count) + gap + padLeft(r.age, c.age)
	if selected {
		return stSelected.Render("› "+fit(r.name, c.name)) + stDim.Render(meta)
	}
	return "  " + fit(r.name, c.name) + stDim.Render(meta)
}

// fit cuts s to n cells (with an ellipsis) or pads it with spaces to n.
func fit(s string, n int) string {
	if n <= 0 {
		return ""
	}
	s = ansi.Truncate(s, n, "…")
	return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
}

// fitLeft is fit that cuts from the left, keeping the end of a path.
func fitLeft(s string, n int) string {
	if w := ansi.StringWidth(s); w > n {
		s = ansi.TruncateLeft(s, w-n+1, "…")
	}
	return fit(s, n)
}

func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(0, n-ansi.StringWidth(s))) + s
}

// ago renders the picker's dates as the reference's selector does.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d < 7*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day")
	}
	return t.Local().Format("2006-01-02")
}
