package ui

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/xcsh-dev/xcsh/session"
)

// Preview limits.
const (
	previewTail = 64 << 10 // bytes read from the end of a file when it is first shown
	previewKeep = 40       // messages kept
)

// previewMsgLine is one message of the preview.
type previewMsgLine struct{ role, text string }

// preview follows the selected session's file: the end of it first, then
// only the bytes appended since. A file that shrank or was replaced (an
// atomic rewrite) is read again from its end.
type preview struct {
	path    string
	off     int64       // bytes of the file consumed
	file    os.FileInfo // the file as last read, to see a replacement
	partial []byte      // an unterminated last line, kept for the next read
	msgs    []previewMsgLine
	err     string

	reading bool // a read is in flight (set by readCmd, cleared by apply)
	again   bool // a change came while reading: read once more after
	// stop ends the watch of the file; changed rings when it changed.
	stop    func()
	changed <-chan struct{}
}

// previewReadMsg is what a read found.
type previewReadMsg struct {
	path    string
	from    int64 // the offset the read started at (-1: from the end)
	off     int64
	file    os.FileInfo
	partial []byte
	msgs    []previewMsgLine
	err     error
}

// previewChangedMsg: the followed file changed.
type previewChangedMsg struct{ path string }

// readCmd reads what was appended to the file since the last read, off the
// update loop.
func (p *preview) readCmd() tea.Cmd {
	if p.path == "" {
		return nil
	}
	if p.reading {
		p.again = true
		return nil
	}
	p.reading = true
	path, off, prev, partial := p.path, p.off, p.file, p.partial
	if prev == nil {
		off = -1
	}
	return func() tea.Msg { return readAppended(path, off, prev, partial) }
}

// readAppended reads path from off (-1: its last previewTail bytes) and
// parses the complete lines among what was read.
func readAppended(path string, off int64, prev os.FileInfo, partial []byte) previewReadMsg {
	res := previewReadMsg{path: path, from: off}
	f, err := os.Open(path)
	if err != nil {
		res.err = err
		return res
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		res.err = err
		return res
	}
	if off >= 0 && (prev == nil || !os.SameFile(prev, fi) || fi.Size() < off) {
		off, partial = -1, nil // replaced or truncated: start again
		res.from = -1
	}
	if off >= 0 && fi.Size() == off {
		res.off, res.file, res.partial = off, fi, partial
		return res
	}
	skipFirst := false
	if off < 0 {
		off = 0
		if fi.Size() > previewTail {
			off, skipFirst = fi.Size()-previewTail, true
		}
		partial = nil
	}
	data := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(data, off)
	if err != nil && !errors.Is(err, io.EOF) {
		res.err = err
		return res
	}
	data = data[:n]
	res.off, res.file = off+int64(n), fi
	if skipFirst {
		// The read began inside a line: drop it.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	buf := append(append([]byte(nil), partial...), data...)
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		res.partial = buf
		return res
	}
	res.partial = append([]byte(nil), buf[end+1:]...)
	res.msgs = parsePreview(buf[:end+1])
	return res
}

// parsePreview turns session lines into preview messages.
func parsePreview(lines []byte) []previewMsgLine {
	var out []previewMsgLine
	for _, e := range session.ParseEntries(lines) {
		switch e.Type {
		case session.TypeMessage:
			msg := e.Get("message")
			role, text := session.MessageSummary(msg)
			if role == "" {
				continue
			}
			out = append(out, previewMsgLine{role: role, text: cleanText(text)})
		case session.TypeCompaction:
			out = append(out, previewMsgLine{role: "compaction", text: cleanText(e.GetString("summary"))})
		}
	}
	return out
}

// cleanText makes session text safe to draw: no escape sequences or other
// control characters, tabs as spaces.
func cleanText(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}

// apply takes a read's result; it returns whether the read was for the
// current state (a stale one is dropped).
func (p *preview) apply(m previewReadMsg) bool {
	if m.path != p.path {
		return false
	}
	p.reading = false
	if m.err != nil {
		p.err = m.err.Error()
		if os.IsNotExist(m.err) {
			p.err = "no session file yet"
		}
		p.msgs, p.off, p.file, p.partial = nil, 0, nil, nil
		return true
	}
	p.err = ""
	if m.from < 0 {
		p.msgs = nil
	}
	p.off, p.file, p.partial = m.off, m.file, m.partial
	p.msgs = append(p.msgs, m.msgs...)
	if len(p.msgs) > previewKeep {
		p.msgs = append([]previewMsgLine(nil), p.msgs[len(p.msgs)-previewKeep:]...)
	}
	return true
}

// reset points the preview at path (nothing read yet).
func (p *preview) reset(path string) {
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	*p = preview{path: path}
}

// lines renders the messages as at most height lines of width cells, the
// newest at the bottom.
func (p *preview) lines(width, height int) []string {
	if height <= 0 || width <= 0 {
		return nil
	}
	var out []string
	for i := len(p.msgs) - 1; i >= 0 && len(out) < height; i-- {
		m := p.msgs[i]
		text := strings.TrimSpace(m.text)
		if text == "" {
			text = "(empty)"
		}
		wrapped := strings.Split(ansi.Wrap(stDim.Render(m.role+":")+" "+text, width, " "), "\n")
		// A message longer than the room left shows its beginning.
		if room := height - len(out); len(wrapped) > room {
			wrapped = wrapped[:room]
			wrapped[room-1] = ansi.Truncate(wrapped[room-1], width-1, "") + "…"
		}
		out = append(wrapped, out...)
	}
	return out
}
