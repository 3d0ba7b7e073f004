package ui

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// editor is the chat's multi-line prompt editor: a text with a cursor, soft
// wrapped at the screen width. Enter is handled by the chat (send); Alt+Enter
// and Ctrl+J insert a newline. It is the chat's own, so that nothing in it
// reaches for a clipboard program: a terminal paste arrives as keys.
type editor struct {
	text   []rune
	cursor int // index into text
	// goal is the column kept while moving up and down (-1: none).
	goal int
}

var (
	edPrompt      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
	edCursor      = lipgloss.NewStyle().Reverse(true)
	edPlaceholder = lipgloss.NewStyle().Faint(true)
)

const edPromptWidth = 2 // "> " and the continuation indent

func (e *editor) Value() string { return string(e.text) }

func (e *editor) SetValue(s string) {
	e.text = []rune(s)
	e.cursor = len(e.text)
	e.goal = -1
}

func (e *editor) Reset() { e.SetValue("") }

func (e *editor) Empty() bool { return len(e.text) == 0 }

func (e *editor) insert(s string) {
	r := []rune(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
	r = []rune(strings.ReplaceAll(string(r), "\t", "    "))
	e.text = append(e.text[:e.cursor], append(r, e.text[e.cursor:]...)...)
	e.cursor += len(r)
	e.goal = -1
}

// lineBounds returns the start and end (exclusive of '\n') of the logical
// line holding index i.
func (e *editor) lineBounds(i int) (int, int) {
	s := i
	for s > 0 && e.text[s-1] != '\n' {
		s--
	}
	end := i
	for end < len(e.text) && e.text[end] != '\n' {
		end++
	}
	return s, end
}

// OnFirstLine and OnLastLine say whether the cursor is on the first or last
// logical line: Up and Down there recall history.
func (e *editor) OnFirstLine() bool {
	s, _ := e.lineBounds(e.cursor)
	return s == 0
}

func (e *editor) OnLastLine() bool {
	_, end := e.lineBounds(e.cursor)
	return end == len(e.text)
}

// Update handles an editing key; it reports whether the key was used.
func (e *editor) Update(k tea.KeyMsg) bool {
	if k.Paste {
		e.insert(string(k.Runes))
		return true
	}
	switch k.String() {
	case "alt+enter", "ctrl+j":
		e.insert("\n")
	case "left", "ctrl+b":
		e.cursor = max(0, e.cursor-1)
	case "right", "ctrl+f":
		e.cursor = min(len(e.text), e.cursor+1)
	case "alt+left", "alt+b", "ctrl+left":
		e.cursor = e.wordLeft()
	case "alt+right", "alt+f", "ctrl+right":
		e.cursor = e.wordRight()
	case "home", "ctrl+a":
		e.cursor, _ = e.lineBounds(e.cursor)
	case "end", "ctrl+e":
		_, e.cursor = e.lineBounds(e.cursor)
	case "up":
		e.vertical(-1)
		return true
	case "down":
		e.vertical(1)
		return true
	case "backspace", "ctrl+h":
		if e.cursor > 0 {
			e.text = append(e.text[:e.cursor-1], e.text[e.cursor:]...)
			e.cursor--
		}
	case "delete", "ctrl+d":
		if e.cursor < len(e.text) {
			e.text = append(e.text[:e.cursor], e.text[e.cursor+1:]...)
		}
	case "alt+backspace", "ctrl+w":
		w := e.wordLeft()
		e.text = append(e.text[:w], e.text[e.cursor:]...)
		e.cursor = w
	case "alt+d", "alt+delete":
		w := e.wordRight()
		e.text = append(e.text[:e.cursor], e.text[w:]...)
	case "ctrl+u":
		s, _ := e.lineBounds(e.cursor)
		e.text = append(e.text[:s], e.text[e.cursor:]...)
		e.cursor = s
	case "ctrl+k":
		_, end := e.lineBounds(e.cursor)
		if end == e.cursor && end < len(e.text) {
			end++ // at a line's end, join the next line
		}
		e.text = append(e.text[:e.cursor], e.text[end:]...)
	case " ":
		e.insert(" ")
	default:
		if k.Type != tea.KeyRunes {
			return false
		}
		e.insert(string(k.Runes))
		return true
	}
	if k.String() != "up" && k.String() != "down" {
		e.goal = -1
	}
	return true
}

func (e *editor) wordLeft() int {
	i := e.cursor
	for i > 0 && !isWordRune(e.text[i-1]) {
		i--
	}
	for i > 0 && isWordRune(e.text[i-1]) {
		i--
	}
	return i
}

func (e *editor) wordRight() int {
	i := e.cursor
	for i < len(e.text) && !isWordRune(e.text[i]) {
		i++
	}
	for i < len(e.text) && isWordRune(e.text[i]) {
		i++
	}
	return i
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// vertical moves the cursor one logical line up or down, keeping its column.
func (e *editor) vertical(d int) {
	s, end := e.lineBounds(e.cursor)
	if e.goal < 0 {
		e.goal = e.cursor - s
	}
	if d < 0 {
		if s == 0 {
			return
		}
		ps, _ := e.lineBounds(s - 1)
		e.cursor = min(ps+e.goal, s-1)
		return
	}
	if end == len(e.text) {
		return
	}
	_, ne := e.lineBounds(end + 1)
	e.cursor = min(end+1+e.goal, ne)
}

// rows lays the text out at width (the prompt excluded): every logical line
// soft-wrapped. It returns the rows and the row and column of the cursor.
func (e *editor) rows(width int) (rows []string, crow, ccol int) {
	width = max(width, 1)
	pos := 0
	for _, line := range strings.Split(string(e.text), "\n") {
		lr := []rune(line)
		start := 0
		for {
			// take graphemes up to width cells
			w, end := 0, start
			for end < len(lr) {
				cw := runeWidth(lr[end])
				if w+cw > width {
					break
				}
				w += cw
				end++
			}
			last := end == len(lr)
			if e.cursor >= pos+start && (e.cursor < pos+end || (last && e.cursor <= pos+end)) {
				crow, ccol = len(rows), ansi.StringWidth(string(lr[start:e.cursor-pos]))
			}
			rows = append(rows, string(lr[start:end]))
			if last {
				break
			}
			start = end
		}
		pos += len(lr) + 1
	}
	if ccol >= width { // the cursor after a full row goes to the next
		rows = append(rows[:crow+1], append([]string{""}, rows[crow+1:]...)...)
		crow, ccol = crow+1, 0
	}
	return rows, crow, ccol
}

func runeWidth(r rune) int {
	w := uniseg.StringWidth(string(r))
	if w < 1 && r != 0 {
		return 1
	}
	return w
}

// View renders the editor at width, at most maxRows rows, keeping the
// cursor's row in sight; placeholder shows when it is empty.
func (e *editor) View(width, maxRows int, placeholder string, focused bool) []string {
	inner := max(width-edPromptWidth, 1)
	rows, crow, ccol := e.rows(inner)
	first := 0
	if len(rows) > maxRows {
		first = min(max(0, crow-maxRows+1), len(rows)-maxRows)
	}
	out := make([]string, 0, min(len(rows), maxRows))
	for i := first; i < len(rows) && i < first+maxRows; i++ {
		row := rows[i]
		if e.Empty() && placeholder != "" {
			row = edPlaceholder.Render(ansi.Truncate(placeholder, inner, "…"))
			if focused {
				row = edCursor.Render(" ") + edPlaceholder.Render(ansi.Truncate(placeholder, inner-1, "…"))
			}
		} else if focused && i == crow {
			r := []rune(row)
			col, k := 0, 0
			for k < len(r) && col < ccol {
				col += runeWidth(r[k])
				k++
			}
			under := " "
			rest := ""
			if k < len(r) {
				under, rest = string(r[k]), string(r[k+1:])
			}
			row = string(r[:k]) + edCursor.Render(under) + rest
		}
		lead := "  "
		if i == 0 {
			lead = edPrompt.Render(">") + " "
		}
		out = append(out, lead+row)
	}
	return out
}
