package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The chat's markdown: the subset models write (headings, paragraphs,
// lists, quotes, rules, tables, fenced code with highlighting, and inline
// code, bold, italic, strike-through and links), rendered for a terminal of
// a given width. A document is rendered chunk by chunk, a chunk ending at a
// blank line outside a code fence, and a chunk's lines depend on nothing
// before it: so while a reply streams, the chunks already complete are kept
// and only the last one is rendered again (see mdStream).

var (
	mdHeading    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
	mdBold       = lipgloss.NewStyle().Bold(true)
	mdItalic     = lipgloss.NewStyle().Italic(true)
	mdStrike     = lipgloss.NewStyle().Strikethrough(true)
	mdCode       = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	mdLink       = lipgloss.NewStyle().Underline(true).Foreground(lipgloss.Color("4"))
	mdDim        = lipgloss.NewStyle().Faint(true)
	mdQuote      = lipgloss.NewStyle().Faint(true).Italic(true)
	hlKeyword    = lipgloss.NewStyle().Foreground(lipgloss.Color("5"))
	hlString     = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	hlComment    = lipgloss.NewStyle().Foreground(lipgloss.Color("8")).Italic(true)
	hlNumber     = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	hlAdded      = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	hlRemoved    = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	codeGutter   = mdDim.Render("│ ")
	codeGutterW  = 2
	quoteGutter  = mdDim.Render("▎ ")
	quoteGutterW = 2
)

// renderMarkdown renders a whole document at width.
func renderMarkdown(src string, width int) []string {
	var s mdStream
	return s.render(src, width)
}

// mdStream renders a growing document, keeping the lines of the complete
// chunks at the front of it.
type mdStream struct {
	width  int
	done   int      // bytes of src whose chunks are rendered in lines
	lines  []string // the lines of src[:done]
	prefix string   // src[:done], to notice a document that did not just grow
}

// render returns the lines of src. When src extends the document rendered
// last at the same width, only what follows its last complete chunk is
// rendered.
func (s *mdStream) render(src string, width int) []string {
	if width != s.width || !strings.HasPrefix(src, s.prefix) {
		*s = mdStream{width: width}
	}
	cut := s.done + lastChunkEnd(src[s.done:])
	if cut > s.done {
		s.lines = appendBlocks(s.lines, src[s.done:cut], width)
		s.done, s.prefix = cut, src[:cut]
	}
	out := s.lines[:len(s.lines):len(s.lines)]
	return trimBlankEnds(appendBlocks(out, src[s.done:], width))
}

// lastChunkEnd is the end of the last blank line outside a code fence in
// src that has text after it (0 when none): everything before it is complete.
func lastChunkEnd(src string) int {
	end, pos, fence := 0, 0, ""
	for pos < len(src) {
		nl := strings.IndexByte(src[pos:], '\n')
		if nl < 0 {
			break // the last line may still grow
		}
		line := src[pos : pos+nl]
		pos += nl + 1
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		case isFence(t):
			fence = t[:3]
		case t == "":
			end = pos
		}
	}
	return end
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

func trimBlankEnds(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// appendBlocks renders the blocks of src (whole lines) and appends their
// lines to out, a blank line between blocks.
func appendBlocks(out []string, src string, width int) []string {
	width = max(width, 1)
	from := len(out)
	defer func() {
		// deep nesting (quotes in quotes, indented lists) can outgrow a
		// narrow width: what does not fit is cut
		for i := from; i < len(out); i++ {
			if ansi.StringWidth(out[i]) > width {
				out[i] = ansi.Truncate(out[i], width, "")
			}
		}
	}()
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	blank := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	for i := 0; i < len(lines); {
		line := strings.TrimRight(lines[i], " \t\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			i++
		case isFence(t):
			fence, lang := t[:3], strings.TrimSpace(strings.Trim(t, "`~"))
			j := i + 1
			for j < len(lines) && !(strings.HasPrefix(strings.TrimSpace(lines[j]), fence) && strings.Trim(strings.TrimSpace(lines[j]), fence[:1]) == "") {
				j++
			}
			blank()
			out = appendCode(out, lines[i+1:min(j, len(lines))], lang, width)
			blank()
			i = j + 1
		case isHeading(t):
			level := strings.IndexFunc(t, func(r rune) bool { return r != '#' })
			blank()
			text := strings.TrimSpace(strings.TrimRight(t[level:], "#"))
			for _, w := range wrapStyled(inline(text, mdHeading), width) {
				out = append(out, w)
			}
			blank()
			i++
		case isRule(t):
			blank()
			out = append(out, mdDim.Render(strings.Repeat("─", min(width, 40))))
			blank()
			i++
		case strings.HasPrefix(t, ">"):
			var q []string
			for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">") {
				q = append(q, strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(lines[i]), ">"), " "))
				i++
			}
			blank()
			for _, l := range appendBlocks(nil, strings.Join(q, "\n"), width-quoteGutterW) {
				out = append(out, quoteGutter+mdQuote.Render(l))
			}
			blank()
		case isTableRow(t) && i+1 < len(lines) && isTableRule(strings.TrimSpace(lines[i+1])):
			j := i
			for j < len(lines) && isTableRow(strings.TrimSpace(lines[j])) {
				j++
			}
			blank()
			out = appendTable(out, lines[i:j], width)
			blank()
			i = j
		case listMarker(line) != "":
			blank()
			for i < len(lines) && listMarker(lines[i]) != "" {
				raw := lines[i]
				indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
				marker := listMarker(raw)
				text := strings.TrimSpace(raw[indent+len(marker):])
				i++
				for i < len(lines) && strings.TrimSpace(lines[i]) != "" && listMarker(lines[i]) == "" && !isFence(strings.TrimSpace(lines[i])) &&
					len(lines[i])-len(strings.TrimLeft(lines[i], " \t")) > indent {
					text += " " + strings.TrimSpace(lines[i])
					i++
				}
				bullet := strings.TrimSpace(marker)
				if bullet == "-" || bullet == "*" || bullet == "+" {
					bullet = "•"
				}
				if strings.HasPrefix(text, "[ ] ") {
					bullet, text = "☐", text[4:]
				} else if strings.HasPrefix(text, "[x] ") || strings.HasPrefix(text, "[X] ") {
					bullet, text = "☑", text[4:]
				}
				lead := strings.Repeat(" ", min(indent, 8)) + bullet + " "
				lw := ansi.StringWidth(lead)
				for k, w := range wrapStyled(inline(text, lipgloss.Style{}), width-lw) {
					if k == 0 {
						out = append(out, lead+w)
					} else {
						out = append(out, strings.Repeat(" ", lw)+w)
					}
				}
			}
		default:
			var para []string
			for i < len(lines) {
				l := strings.TrimSpace(lines[i])
				if l == "" || isFence(l) || isHeading(l) || strings.HasPrefix(l, ">") || (len(para) > 0 && listMarker(lines[i]) != "") || isRule(l) {
					break
				}
				para = append(para, l)
				i++
				if strings.HasSuffix(lines[i-1], "  ") {
					para = append(para, "\n")
				}
			}
			blank()
			text := strings.ReplaceAll(strings.Join(para, " "), " \n ", "\n")
			for _, pl := range strings.Split(text, "\n") {
				out = append(out, wrapStyled(inline(strings.TrimSpace(pl), lipgloss.Style{}), width)...)
			}
		}
	}
	return out
}

func isHeading(t string) bool {
	n := strings.IndexFunc(t, func(r rune) bool { return r != '#' })
	return n >= 1 && n <= 6 && len(t) > n && t[n] == ' '
}

func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	return strings.Trim(strings.ReplaceAll(t, " ", ""), string(c)) == ""
}

// listMarker returns the marker of a list item line ("- ", "12. ") or "".
func listMarker(line string) string {
	t := strings.TrimLeft(line, " \t")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return t[:2]
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' ' {
		return t[:n+2]
	}
	return ""
}

func isTableRow(t string) bool { return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2 }

func isTableRule(t string) bool {
	return isTableRow(t) && strings.Trim(t, "|-: ") == ""
}

func tableCells(t string) []string {
	t = strings.TrimSpace(t)
	t = strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|")
	cells := strings.Split(t, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// appendTable lays a table out in aligned columns; a table wider than width
// is cut at width.
func appendTable(out []string, rows []string, width int) []string {
	var grid [][]string
	var widths []int
	for k, r := range rows {
		if k == 1 {
			continue // the rule under the header
		}
		cells := tableCells(r)
		for i, c := range cells {
			cells[i] = inline(c, lipgloss.Style{})
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(cells[i]))
		}
		grid = append(grid, cells)
	}
	for k, cells := range grid {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString(mdDim.Render(" │ "))
			}
			if k == 0 {
				c = mdBold.Render(c)
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-ansi.StringWidth(c)))
		}
		out = append(out, ansi.Truncate(strings.TrimRight(b.String(), " "), width, "…"))
		if k == 0 {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			out = append(out, ansi.Truncate(mdDim.Render(strings.Join(rule, "─┼─")), width, ""))
		}
	}
	return out
}

// wrapStyled word-wraps styled text at width; words longer than width are
// broken.
func wrapStyled(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	lines := strings.Split(ansi.Wrap(s, width, ""), "\n")
	for i := 0; i < len(lines); i++ {
		// ansi.Wrap can leave a line a cell too wide (a kept leading space
		// before a long word): break it hard
		if ansi.StringWidth(lines[i]) > width {
			hard := strings.Split(ansi.Hardwrap(lines[i], width, true), "\n")
			lines = append(lines[:i], append(hard, lines[i+1:]...)...)
			i += len(hard) - 1
		}
	}
	return lines
}

// inline renders the inline markup of one paragraph's text, every span in
// base style too.
func inline(s string, base lipgloss.Style) string {
	var b strings.Builder
	plain := func(t string) {
		if t != "" {
			b.WriteString(base.Render(t))
		}
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_~[]()#>!|", s[i+1]) >= 0:
			plain(s[start:i])
			start, i = i+1, i+2
			continue
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			ticks := s[i : i+n]
			if j := strings.Index(s[i+n:], ticks); j >= 0 {
				plain(s[start:i])
				code := s[i+n : i+n+j]
				if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' {
					code = code[1 : len(code)-1]
				}
				b.WriteString(mdCode.Inherit(base).Render(code))
				i += n + j + n
				start = i
				continue
			}
			i += n
			continue
		case (c == '*' || c == '_' || c == '~') && i+1 < len(s):
			delim := string(c)
			if i+1 < len(s) && s[i+1] == c {
				delim += string(c)
			}
			if c == '~' && delim != "~~" {
				break
			}
			if c == '_' && i > 0 && isWordByte(s[i-1]) {
				break // snake_case is not emphasis
			}
			rest := s[i+len(delim):]
			if rest == "" || rest[0] == ' ' {
				break
			}
			j := closing(rest, delim)
			if j <= 0 {
				break
			}
			if c == '_' && j+len(delim) < len(rest) && isWordByte(rest[j+len(delim)]) {
				break
			}
			plain(s[start:i])
			st := mdItalic
			switch {
			case delim == "~~":
				st = mdStrike
			case len(delim) == 2:
				st = mdBold
			}
			b.WriteString(inline(rest[:j], st.Inherit(base)))
			i += len(delim) + j + len(delim)
			start = i
			continue
		case c == '[' || (c == '!' && i+1 < len(s) && s[i+1] == '['):
			o := i
			if c == '!' {
				o++
			}
			if j := strings.Index(s[o:], "]("); j > 0 {
				if k := strings.IndexByte(s[o+j+2:], ')'); k >= 0 {
					plain(s[start:i])
					text, url := s[o+1:o+j], s[o+j+2:o+j+2+k]
					if text == "" || text == url {
						b.WriteString(mdLink.Inherit(base).Render(url))
					} else {
						b.WriteString(inline(text, mdLink.Inherit(base)) + mdDim.Render(" ("+url+")"))
					}
					i = o + j + 2 + k + 1
					start = i
					continue
				}
			}
		}
		i++
	}
	plain(s[start:])
	return b.String()
}

// closing finds the closing delimiter of an emphasis in s: not preceded by
// a space.
func closing(s, delim string) int {
	for from := 0; from < len(s); {
		j := strings.Index(s[from:], delim)
		if j < 0 {
			return -1
		}
		j += from
		if j > 0 && s[j-1] != ' ' {
			if len(delim) == 1 && j+1 < len(s) && s[j+1] == delim[0] {
				from = j + 2 // part of a double delimiter
				continue
			}
			return j
		}
		from = j + len(delim)
	}
	return -1
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// appendCode renders a fenced code block: highlighted, each line behind a
// gutter, long lines broken at width.
func appendCode(out []string, lines []string, lang string, width int) []string {
	if f := strings.Fields(lang); len(f) > 0 {
		lang = strings.ToLower(f[0])
	}
	if lang != "" {
		out = append(out, mdDim.Render(lang))
	}
	hl := highlighter(lang)
	inner := max(width-codeGutterW, 1)
	var state hlState
	for _, l := range lines {
		l = strings.ReplaceAll(strings.TrimRight(l, "\r"), "\t", "    ")
		styled := hl(l, &state)
		for _, w := range strings.Split(ansi.Hardwrap(styled, inner, false), "\n") {
			out = append(out, codeGutter+w)
		}
	}
	return out
}

// hlState carries a block comment or multi-line string across lines.
type hlState struct{ inBlock string } // the closing delimiter, or ""

type lexicon struct {
	keywords     map[string]bool
	lineComments []string
	block        [2]string // block comment delimiters
	strings      string    // string quote characters
	rawQuotes    []string  // multi-line quotes (""" or `)
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	lexC = lexicon{keywords: words(`auto break case char const continue default do double else enum extern float for goto if inline int long
register return short signed sizeof static struct switch typedef union unsigned void volatile while bool true false NULL nullptr
class public private protected virtual template typename namespace using new delete this throw try catch final override
abstract extends implements import package interface super synchronized throws instanceof var val fun when object
let func guard protocol self Self struct extension init deinit static null`), lineComments: []string{"//"}, block: [2]string{"/*", "*/"}, strings: `"'`}
	lexicons = map[string]lexicon{
		"go": {keywords: words(`break case chan const continue default defer else fallthrough for func go goto if import interface map
package range return select struct switch type var nil true false iota any error string int int64 uint8 byte rune bool float64`),
			lineComments: []string{"//"}, block: [2]string{"/*", "*/"}, strings: `"'`, rawQuotes: []string{"`"}},
		"python": {keywords: words(`and as assert async await break class continue def del elif else except finally for from global if
import in is lambda nonlocal not or pass raise return try while with yield None True False self`),
			lineComments: []string{"#"}, strings: `"'`, rawQuotes: []string{`"""`, `'''`}},
		"js": {keywords: words(`async await break case catch class const continue debugger default delete do else export extends
finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while
with yield null undefined true false interface type enum implements private public protected readonly as`),
			lineComments: []string{"//"}, block: [2]string{"/*", "*/"}, strings: `"'`, rawQuotes: []string{"`"}},
		"rust": {keywords: words(`as async await break const continue crate dyn else enum extern false fn for if impl in let loop match
mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err`),
			lineComments: []string{"//"}, block: [2]string{"/*", "*/"}, strings: `"`},
		"sh": {keywords: words(`if then else elif fi case esac for while until do done in function return local export set unset
echo exit cd source alias readonly shift trap`), lineComments: []string{"#"}, strings: `"'`},
		"sql": {keywords: words(`select from where insert into values update set delete create table index view drop alter add
join left right inner outer on group by order having limit offset as and or not null is in like between union all distinct
primary key references default integer text real begin commit rollback trigger after before for each row
SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE INDEX VIEW DROP ALTER ADD JOIN LEFT RIGHT INNER OUTER ON
GROUP BY ORDER HAVING LIMIT OFFSET AS AND OR NOT NULL IS IN LIKE BETWEEN UNION ALL DISTINCT PRIMARY KEY REFERENCES DEFAULT
INTEGER TEXT REAL BEGIN COMMIT ROLLBACK TRIGGER AFTER BEFORE FOR EACH ROW`), lineComments: []string{"--"}, block: [2]string{"/*", "*/"}, strings: `'"`},
		"ruby": {keywords: words(`alias and begin break case class def defined? do else elsif end ensure false for if in module next nil
not or redo rescue retry return self super then true undef unless until when while yield require attr_accessor`),
			lineComments: []string{"#"}, strings: `"'`},
		"json": {keywords: words(`true false null`), strings: `"`},
		"yaml": {keywords: words(`true false null yes no on off`), lineComments: []string{"#"}, strings: `"'`},
	}
	langAlias = map[string]string{
		"golang": "go", "py": "python", "python3": "python", "javascript": "js", "typescript": "js", "ts": "js", "tsx": "js",
		"jsx": "js", "mjs": "js", "rs": "rust", "bash": "sh", "shell": "sh", "zsh": "sh", "console": "sh", "rb": "ruby",
		"yml": "yaml", "jsonc": "json", "c": "c", "h": "c", "cpp": "c", "c++": "c", "cc": "c", "java": "c", "kotlin": "c",
		"kt": "c", "swift": "c", "cs": "c", "csharp": "c", "scala": "c", "dart": "c", "php": "c",
	}
)

// highlighter returns the line highlighter of a fence's language.
func highlighter(lang string) func(string, *hlState) string {
	if lang == "diff" || lang == "patch" {
		return func(l string, _ *hlState) string {
			switch {
			case strings.HasPrefix(l, "+"):
				return hlAdded.Render(l)
			case strings.HasPrefix(l, "-"):
				return hlRemoved.Render(l)
			case strings.HasPrefix(l, "@@"):
				return hlKeyword.Render(l)
			}
			return l
		}
	}
	if a, ok := langAlias[lang]; ok {
		lang = a
	}
	lx, ok := lexicons[lang]
	if lang == "c" {
		lx, ok = lexC, true
	}
	if !ok {
		if lang == "" || lang == "text" || lang == "txt" || lang == "plain" || lang == "markdown" || lang == "md" {
			return func(l string, _ *hlState) string { return l }
		}
		lx = lexicon{lineComments: []string{"//", "#"}, strings: `"'`} // unknown: strings, numbers and comments
	}
	return func(l string, st *hlState) string { return lx.line(l, st) }
}

// line highlights one line of code.
func (lx lexicon) line(l string, st *hlState) string {
	var b strings.Builder
	i := 0
	if st.inBlock != "" {
		j := strings.Index(l, st.inBlock)
		style := hlComment
		if st.inBlock != lx.block[1] {
			style = hlString
		}
		if j < 0 {
			return style.Render(l)
		}
		i = j + len(st.inBlock)
		b.WriteString(style.Render(l[:i]))
		st.inBlock = ""
	}
	start := i
	flush := func(to int) {
		if to > start {
			b.WriteString(l[start:to])
		}
	}
	for i < len(l) {
		rest := l[i:]
		if lx.block[0] != "" && strings.HasPrefix(rest, lx.block[0]) {
			flush(i)
			if j := strings.Index(rest[2:], lx.block[1]); j >= 0 {
				end := i + 2 + j + len(lx.block[1])
				b.WriteString(hlComment.Render(l[i:end]))
				i, start = end, end
				continue
			}
			b.WriteString(hlComment.Render(rest))
			st.inBlock = lx.block[1]
			return b.String()
		}
		if hasAnyPrefix(rest, lx.lineComments) && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t' || !strings.HasPrefix(rest, "#")) {
			flush(i)
			b.WriteString(hlComment.Render(rest))
			return b.String()
		}
		if q := anyPrefix(rest, lx.rawQuotes); q != "" {
			flush(i)
			if j := strings.Index(rest[len(q):], q); j >= 0 {
				end := i + len(q) + j + len(q)
				b.WriteString(hlString.Render(l[i:end]))
				i, start = end, end
				continue
			}
			b.WriteString(hlString.Render(rest))
			st.inBlock = q
			return b.String()
		}
		c := l[i]
		switch {
		case strings.IndexByte(lx.strings, c) >= 0:
			flush(i)
			j := i + 1
			for j < len(l) && l[j] != c {
				if l[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(l))
			b.WriteString(hlString.Render(l[i:end]))
			i, start = end, end
			continue
		case c >= '0' && c <= '9' && (i == 0 || !isWordByte(l[i-1])):
			flush(i)
			j := i
			for j < len(l) && (isWordByte(l[j]) || l[j] == '.') {
				j++
			}
			b.WriteString(hlNumber.Render(l[i:j]))
			i, start = j, j
			continue
		case isWordByte(c) && (i == 0 || !isWordByte(l[i-1])):
			j := i
			for j < len(l) && (isWordByte(l[j]) || l[j] == '?') {
				j++
			}
			w := l[i:j]
			if lx.keywords[w] {
				flush(i)
				b.WriteString(hlKeyword.Render(w))
				start = j
			}
			i = j
			continue
		}
		_, size := utf8.DecodeRuneInString(rest)
		i += size
	}
	flush(len(l))
	return b.String()
}

func hasAnyPrefix(s string, ps []string) bool { return anyPrefix(s, ps) != "" }

func anyPrefix(s string, ps []string) string {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// oneLine folds whitespace runs (newlines included) into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
