package tools

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture collects a command's output: a tail window of the last window
// bytes for the model, and, when an artifacts dir is set, the full stream in
// a numbered log file opened at the first byte.
type capture struct {
	window int
	dir    string

	mu    sync.Mutex
	buf   []byte // the output's tail; at most 2*window+1 bytes between trims
	total int64  // bytes seen
	nl    int    // newlines seen
	last  byte   // last byte seen
	dirty bool   // output arrived since the last snapshot

	// Set by openLog on the first write; logErr stops further attempts.
	log     *bufio.Writer
	logFile *os.File
	logPath string
	logID   string
	logErr  error
}

func newCapture(window int, artifactsDir string) *capture {
	return &capture{window: window, dir: artifactsDir}
}

// readFrom copies r until EOF, a read deadline or a close.
func (c *capture) readFrom(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (c *capture) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != "" && c.log == nil && c.logErr == nil {
		c.openLog()
	}
	if c.log != nil {
		if _, err := c.log.Write(p); err != nil {
			c.logErr = err
			c.log = nil
		}
	}
	c.total += int64(len(p))
	c.nl += bytes.Count(p, []byte{'\n'})
	c.last = p[len(p)-1]
	c.dirty = true
	c.buf = append(c.buf, p...)
	// Keep window+1 bytes: the extra byte tells whether the window starts
	// at a line start.
	if keep := c.window + 1; len(c.buf) > 2*keep {
		c.buf = append(c.buf[:0], c.buf[len(c.buf)-keep:]...)
	}
}

// openLog creates <dir>/<n>.bash.log, n one more than the highest number any
// artifact in dir has; O_EXCL makes concurrent runs take different numbers.
func (c *capture) openLog() {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		c.logErr = err
		return
	}
	n, err := nextArtifactNumber(c.dir)
	if err != nil {
		c.logErr = err
		return
	}
	for range 100 {
		p := filepath.Join(c.dir, strconv.Itoa(n)+".bash.log")
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			n++
			continue
		}
		if err != nil {
			c.logErr = err
			return
		}
		c.logFile, c.log, c.logPath, c.logID = f, bufio.NewWriterSize(f, 64<<10), p, strconv.Itoa(n)
		return
	}
	c.logErr = errors.New("no free artifact number")
}

// nextArtifactNumber is the highest leading number of an artifact name
// ("12.bash.log") in dir, plus one.
func nextArtifactNumber(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	hi := 0
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), ".")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(num); err == nil && n > hi {
			hi = n
		}
	}
	return hi + 1, nil
}

// close flushes and closes the log.
func (c *capture) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.logFile == nil {
		return
	}
	if c.log != nil {
		if err := c.log.Flush(); err != nil && c.logErr == nil {
			c.logErr = err
		}
	}
	if err := c.logFile.Close(); err != nil && c.logErr == nil {
		c.logErr = err
	}
	c.log = nil
}

// snapshot returns the current tail as text for a progress update, and
// whether anything arrived since the last call.
func (c *capture) snapshot() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return "", false
	}
	c.dirty = false
	return cleanOutput(c.tail()), true
}

// tail is the last window bytes.
func (c *capture) tail() []byte {
	if len(c.buf) > c.window {
		return c.buf[len(c.buf)-c.window:]
	}
	return c.buf
}

// final returns the text for the model and, when it was cut (by the byte
// window or to maxLines lines), the truncation to report.
func (c *capture) final(maxLines int) (string, *truncation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	raw := c.tail()
	cutBy := ""
	partial := false
	if c.total > int64(len(raw)) {
		cutBy = "bytes"
		// Drop the partial first line, unless the window is all one line.
		if before := c.buf[len(c.buf)-len(raw)-1]; before != '\n' {
			if i := bytes.IndexByte(raw, '\n'); i >= 0 && i < len(raw)-1 {
				raw = raw[i+1:]
			} else {
				partial = true
			}
		}
	}
	text := strings.TrimRight(cleanOutput(raw), "\n")
	lines := 0
	if text != "" {
		lines = strings.Count(text, "\n") + 1
	}
	if lines > maxLines {
		cut := len(text)
		for range maxLines {
			cut = strings.LastIndexByte(text[:cut], '\n')
		}
		text = text[cut+1:]
		lines, cutBy = maxLines, "lines"
	}
	if cutBy == "" {
		return text, nil
	}
	total := c.nl
	if c.last != '\n' {
		total++
	}
	return text, &truncation{
		Direction: "tail", TruncatedBy: cutBy, TotalLines: total, TotalBytes: c.total,
		OutputLines: lines, OutputBytes: len(text), MaxBytes: c.window,
		ShownRange:      &lineRange{Start: max(total-lines+1, 1), End: total},
		LastLinePartial: partial, ArtifactID: c.logID,
	}
}

// cleanOutput makes terminal output readable as text: ANSI escape sequences
// are removed, a carriage return keeps only what was drawn after it (progress
// bars), other control characters are dropped and invalid UTF-8 becomes U+FFFD.
func cleanOutput(p []byte) string {
	var b strings.Builder
	b.Grow(len(p))
	for len(p) > 0 {
		line, rest, found := bytes.Cut(p, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if i := bytes.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		cleanLine(&b, line)
		if found {
			b.WriteByte('\n')
		}
		p = rest
	}
	return b.String()
}

func cleanLine(b *strings.Builder, p []byte) {
	for i := 0; i < len(p); {
		ch := p[i]
		switch {
		case ch == 0x1b:
			i = skipEscape(p, i)
			continue
		case ch == '\t' || ch >= 0x20 && ch < 0x7f:
			b.WriteByte(ch)
			i++
			continue
		case ch < utf8.RuneSelf:
			i++ // other control characters
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(p[i : i+size])
		}
		i += size
	}
}

// skipEscape returns the offset after the escape sequence starting at p[i]
// (ESC): CSI "ESC [ ... final", OSC "ESC ] ... BEL|ESC \", or a short escape.
func skipEscape(p []byte, i int) int {
	if i+1 >= len(p) {
		return len(p)
	}
	switch p[i+1] {
	case '[':
		j := i + 2
		for j < len(p) && (p[j] < 0x40 || p[j] > 0x7e) {
			j++
		}
		return min(j+1, len(p))
	case ']', 'P', '_', '^':
		for j := i + 2; j < len(p); j++ {
			if p[j] == 0x07 {
				return j + 1
			}
			if p[j] == 0x1b && j+1 < len(p) && p[j+1] == '\\' {
				return j + 2
			}
		}
		return len(p)
	}
	// ESC, intermediate bytes (0x20-0x2F), one final byte: "ESC ( B".
	j := i + 1
	for j < len(p) && p[j] >= 0x20 && p[j] <= 0x2f {
		j++
	}
	return min(j+1, len(p))
}
