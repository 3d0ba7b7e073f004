package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/xcsh-dev/xcsh/agent"
)

var (
	stWait  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("3"))
	stErr   = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	stGroup = lipgloss.NewStyle().Bold(true)
	stKey   = lipgloss.NewStyle().Bold(true)
)

// dashLayout is the height of each part of the screen.
type dashLayout struct {
	filter  int // the query line
	list    int
	preview int // its title line included
}

func (d *Dash) layout() dashLayout {
	var l dashLayout
	if d.mode == dashFilter || d.query != "" {
		l.filter = 1
	}
	rest := d.height - 2 - l.filter // header and footer
	if !d.hidePreview && rest >= 10 {
		l.preview = max(4, rest*2/5)
	}
	l.list = max(1, rest-l.preview)
	return l
}

// View implements tea.Model. It draws only the lines on the screen.
func (d *Dash) View() string {
	if d.quitting {
		return ""
	}
	if d.mode == dashHelp {
		return d.fitScreen(d.helpLines())
	}
	l := d.layout()
	lines := make([]string, 0, d.height)
	lines = append(lines, d.headerLine())
	if l.filter > 0 {
		lines = append(lines, d.filterLine())
	}
	if d.mode == dashTarget {
		lines = append(lines, pad(d.targetLines(), l.list)...)
	} else {
		lines = append(lines, pad(d.listLines(l.list), l.list)...)
	}
	if l.preview > 0 {
		lines = append(lines, d.previewLines(l.preview)...)
	}
	lines = append(lines, d.footerLine())
	return d.fitScreen(lines)
}

// fitScreen cuts every line to the width and the lines to the height: a
// wrapped line would push the screen off the terminal.
func (d *Dash) fitScreen(lines []string) string {
	if len(lines) > d.height {
		lines = lines[:d.height]
	}
	for i, s := range lines {
		lines[i] = ansi.Truncate(s, d.width, "")
	}
	return strings.Join(lines, "\n")
}

// pad cuts or fills lines to n.
func pad(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

func (d *Dash) headerLine() string {
	left := stTitle.Render("xcsh dash")
	if d.snap.Server != "" {
		left += stDim.Render(" · " + d.snap.Server)
	}
	counts := d.snap.CountLine()
	if d.snap.Counts[agent.StateWaiting] > 0 {
		// Waiting comes first (supervisor.StateOrder) and stands out.
		first, rest, _ := strings.Cut(counts, " · ")
		counts = stWait.Render("! " + first)
		if rest != "" {
			counts += " · " + rest
		}
	}
	view := "live"
	if d.view == viewAll {
		view = "all"
	}
	group := "window"
	switch {
	case d.group == groupProject:
		group = "project"
	case d.view == viewAll:
		group = "flat"
	}
	right := stDim.Render(fmt.Sprintf("%s · %s · by %s", view, group, d.sort))
	// The server's name gives way first, then the view.
	bare := stTitle.Render("xcsh dash") + "  " + counts
	for _, l := range []string{left + "  " + counts, bare} {
		if gap := d.width - ansi.StringWidth(l) - ansi.StringWidth(right); gap >= 2 {
			return l + strings.Repeat(" ", gap) + right
		}
	}
	if l := left + "  " + counts; ansi.StringWidth(l) <= d.width {
		return l
	}
	return bare
}

func (d *Dash) filterLine() string {
	s := "/ " + d.query
	if d.mode == dashFilter {
		s += "█"
	}
	return s + stDim.Render(fmt.Sprintf("  %d of %d", len(d.visible), len(d.rows)))
}

// listLines draws the rows (and group headers) on the screen, or what the
// list has instead of rows.
func (d *Dash) listLines(h int) []string {
	if len(d.visible) == 0 {
		return d.emptyLines()
	}
	end := min(len(d.lines), d.offset+h)
	page := d.lines[d.offset:end]
	cells := make([]rowCellsDash, 0, len(page))
	for _, ln := range page {
		if ln.row >= 0 {
			cells = append(cells, d.rowCells(&d.rows[d.visible[ln.row]]))
		}
	}
	cols := dashColumns(cells, d.width)
	out := make([]string, 0, len(page))
	ci := 0
	for _, ln := range page {
		if ln.row < 0 {
			g := ln.header
			if g == "" {
				g = "—"
			}
			out = append(out, stGroup.Render(g)+" "+stDim.Render(strings.Repeat("─", max(0, d.width-ansi.StringWidth(g)-1))))
			continue
		}
		out = append(out, cols.render(cells[ci], ln.row == d.cursor))
		ci++
	}
	return out
}

func (d *Dash) emptyLines() []string {
	switch {
	case len(d.rows) > 0:
		return []string{stDim.Render("Nothing matches “" + d.query + "”. Esc clears the filter.")}
	case d.view == viewAll && !d.allLoaded:
		return []string{stDim.Render("Loading all sessions…")}
	case d.view == viewAll:
		return []string{stDim.Render("No sessions yet. n launches an agent.")}
	case d.snap.Seq == 0 && d.snap.Err == "":
		return []string{stDim.Render("Waiting for the supervisor…")}
	}
	var out []string
	if d.snap.Err != "" {
		out = append(out, stErr.Render(d.snap.Err))
	}
	return append(out,
		stDim.Render("No terminals or agents yet."),
		stDim.Render("n launches an agent · tab lists every session · ? shows every key"))
}

// rowCellsDash are the texts of one row.
type rowCellsDash struct {
	id, state, title, a, b, age string
	waiting                     bool
}

func (d *Dash) rowCells(r *dashRow) rowCellsDash {
	now := d.opt.Now()
	c := rowCellsDash{state: stateCell(r, now), title: r.title}
	c.waiting = r.agent != nil && r.agent.State == agent.StateWaiting
	if c.title == "" {
		c.title = "—"
	}
	if !r.activity.IsZero() {
		c.age = shortAge(now.Sub(r.activity))
	}
	if d.view == viewAll {
		c.id = r.livePane
		if r.agent == nil {
			c.state = ""
		}
		c.b = shortPath(r.cwd, d.opt.Home)
		if r.info != nil {
			c.a = fmt.Sprintf("%d msgs", r.info.MessageCount)
			if r.info.MessageCount == 1 {
				c.a = "1 msg"
			}
		}
		return c
	}
	switch {
	case r.pane != nil:
		c.id = r.pane.ID
		if h := r.pane.Hosts; h != nil && r.agent == nil {
			// A tmux client in a kitty window: its panes are listed
			// under their own session; this row says where they are.
			c.title = fmt.Sprintf("tmux session %s (showing %s)", h.MuxSessionName, h.Pane)
		}
		if r.pane.ID == d.opt.SelfPane {
			c.title = "(this dashboard)"
		}
	case r.agent != nil:
		c.id = fmt.Sprintf("pid %d", r.agent.PID)
	}
	if r.agent != nil {
		// The model's id says enough; its provider is in the help of xcsh.
		_, c.a, _ = strings.Cut(r.agent.Model, "/")
		if c.a == "" {
			c.a = r.agent.Model
		}
	}
	c.b = shortPath(r.cwd, d.opt.Home)
	return c
}

// dashCols are the column widths of a page (0: the column is left out).
type dashCols struct{ id, state, title, a, b, age int }

// Column limits: the title has the rest of the width and keeps at least
// dashMinTitle cells while the model and directory columns give way.
const (
	dashMinTitle = 24
	dashMaxA     = 12 // model, or message count in the all-sessions view
	dashMaxB     = 24
	dashShrunk   = 10 // what the model and the directory shrink to first
)

func dashColumns(page []rowCellsDash, width int) dashCols {
	var c dashCols
	for _, r := range page {
		c.id = max(c.id, ansi.StringWidth(r.id))
		c.state = max(c.state, ansi.StringWidth(r.state)+2)
		c.a = max(c.a, ansi.StringWidth(r.a))
		c.b = max(c.b, ansi.StringWidth(r.b))
		c.age = max(c.age, ansi.StringWidth(r.age))
	}
	c.a, c.b = min(c.a, dashMaxA), min(c.b, dashMaxB)
	fill := func() {
		n := markWidth + c.id + c.state + c.a + c.b + c.age
		for _, w := range []int{c.id, c.state, c.a, c.b, c.age} {
			if w > 0 {
				n += gapWidth
			}
		}
		c.title = width - n
	}
	fill()
	for _, step := range []func(){
		func() { c.a = min(c.a, dashShrunk) },
		func() { c.b = min(c.b, dashShrunk) },
		func() { c.a = 0 },
		func() { c.b = 0 },
	} {
		if c.title >= dashMinTitle {
			break
		}
		step()
		fill()
	}
	c.title = max(c.title, 4)
	return c
}

func (c dashCols) render(r rowCellsDash, selected bool) string {
	gap := strings.Repeat(" ", gapWidth)
	mark := "  "
	if selected {
		mark = "› "
	}
	state := "  " + r.state
	if r.waiting {
		state = "! " + r.state
	}
	head := mark + fit(r.id, c.id)
	stateCol := fit(state, c.state)
	if r.waiting {
		stateCol = stWait.Render(stateCol)
	}
	var tail strings.Builder
	if c.a > 0 {
		tail.WriteString(gap + fit(r.a, c.a))
	}
	if c.b > 0 {
		tail.WriteString(gap + fitLeft(r.b, c.b))
	}
	if c.age > 0 {
		tail.WriteString(gap + padLeft(r.age, c.age))
	}
	title := gap + fit(r.title, c.title)
	if selected {
		return stSelected.Render(head+gap) + stateCol + stSelected.Render(title) + stDim.Render(tail.String())
	}
	return head + gap + stateCol + title + stDim.Render(tail.String())
}

// previewLines draws the preview: a title line, then the newest messages.
func (d *Dash) previewLines(h int) []string {
	r := d.selected()
	title := "preview"
	if r != nil {
		if id := d.rowPane(r); id != "" {
			title += " · " + id
		}
		if r.title != "" {
			title += " · " + r.title
		}
	}
	title = ansi.Truncate(title, max(0, d.width-4), "…")
	head := stDim.Render("── ") + stGroup.Render(title) + " " + stDim.Render(strings.Repeat("─", max(0, d.width-ansi.StringWidth(title)-4)))
	var body []string
	switch {
	case r == nil || r.sessionPath == "":
		body = []string{stDim.Render("(no session)")}
	case d.prev.err != "":
		body = []string{stDim.Render("(" + d.prev.err + ")")}
	case d.prev.file == nil:
		body = []string{stDim.Render("…")}
	case len(d.prev.msgs) == 0:
		body = []string{stDim.Render("(no messages yet)")}
	default:
		body = d.prev.lines(d.width, h-1)
	}
	return append([]string{head}, pad(body, h-1)...)
}

func (d *Dash) footerLine() string {
	switch {
	case d.mode == dashConfirm:
		name := d.closing.name
		if name != "" {
			name = " (" + name + ")"
		}
		return stWait.Render("Close the agent in "+d.closing.pane+name+"?") + " y/n"
	case d.mode == dashTarget:
		return stDim.Render("↑↓ choose · enter start · esc cancel")
	case d.mode == dashFilter:
		return stDim.Render("type to filter · ↑↓ move · enter keep · esc clear")
	case d.status != "" && d.statusErr:
		return stErr.Render(d.status)
	case d.status != "":
		return d.status
	}
	km := d.keys
	short := map[string]string{"enter": "jump", "r": "resume", "f": "fork", "n": "new", "x": "close", "w": "waiting",
		"/": "filter", "tab": "all", "?": "help", "q": "quit"}
	if d.view == viewAll {
		short["tab"] = "live"
	}
	hint := func(bs ...key.Binding) string {
		parts := make([]string, len(bs))
		for i, b := range bs {
			k := b.Help().Key
			parts[i] = stKey.Render(k) + " " + stDim.Render(short[k])
		}
		return strings.Join(parts, "  ")
	}
	full := []key.Binding{km.Jump, km.Resume, km.Fork, km.New, km.Close, km.Filter, km.View, km.Help, km.Quit}
	compact := []key.Binding{km.Jump, km.Resume, km.Fork, km.New, km.Close, km.Help, km.Quit}
	least := []key.Binding{km.Jump, km.Help, km.Quit}
	if d.snap.Counts[agent.StateWaiting] > 0 {
		full = append([]key.Binding{km.Waiting}, full...)
		compact = append([]key.Binding{km.Waiting}, compact...)
		least = append([]key.Binding{km.Waiting}, least...)
	}
	for _, bs := range [][]key.Binding{full, compact} {
		if s := hint(bs...); ansi.StringWidth(s) <= d.width {
			return s
		}
	}
	return hint(least...)
}

func (d *Dash) targetLines() []string {
	t := d.target
	out := []string{stTitle.Render(t.title)}
	for i, it := range t.items {
		if i == t.cursor {
			out = append(out, stSelected.Render("› "+it.label))
		} else {
			out = append(out, "  "+it.label)
		}
	}
	return out
}

func (d *Dash) helpLines() []string {
	out := []string{stTitle.Render("xcsh dash — keys")}
	for _, g := range d.keys.helpGroups() {
		out = append(out, stGroup.Render(g.title))
		for _, b := range g.keys {
			h := b.Help()
			out = append(out, "  "+fit(stKey.Render(h.Key), 8)+" "+h.Desc)
		}
	}
	out = append(out, stDim.Render("Target list: ↑↓ choose, enter start, esc cancel. ? or esc: close."))
	return out
}
