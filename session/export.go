package session

import (
	"bufio"
	"crypto/sha256"
	_ "embed" // the HTML page template
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// ErrInMemoryExport is returned when a session that has no file is exported;
// its text is the reference's message.
var ErrInMemoryExport = errors.New("Cannot export in-memory session to HTML")

// ExportTool is a tool as the HTML page lists it.
type ExportTool struct{ Name, Description string }

// ExportOptions are what an export adds to the session's own data.
type ExportOptions struct {
	// SystemPrompt is the agent's system prompt; "" leaves it out (the CLI
	// export has none).
	SystemPrompt string
	// Tools are the agent's tools; nil leaves the list out.
	Tools []ExportTool
	// LeafID is the entry the page opens at; "" means the session's leaf.
	LeafID string
	// Title is the page title; "" means the session's title, else its id.
	Title string
}

// The page template: export.html with export.css and export.js inlined, cut
// where the title and the session data go.
var (
	//go:embed export.html
	exportHTML string
	//go:embed export.css
	exportCSS string
	//go:embed export.js
	exportJS string

	pageHead, pageMid, pageTail = buildPage()
)

// buildPage inlines the style sheet and the script and cuts the page at
// {{TITLE}} and at the first {{SESSION_DATA}}, which sits inside
// <script id="session-data" type="application/json">.
func buildPage() (head, mid, tail string) {
	js := strings.ToLower(exportJS)
	if strings.Contains(js, "</script") || strings.Contains(js, "<!--") || strings.Contains(strings.ToLower(exportCSS), "</style") {
		panic("session: export.js or export.css would end its element early")
	}
	page := strings.Replace(exportHTML, "<export-css/>", "<style>\n"+exportCSS+"</style>", 1)
	script := "\n" + exportJS
	page = strings.Replace(page, "<export-js/>", "<script>"+script+"</script>", 1)
	// The Content-Security-Policy allows this one script by its hash and no
	// other: no inline handler, no injected script, no network.
	sum := sha256.Sum256([]byte(script))
	page = strings.Replace(page, "{{SCRIPT_HASH}}", "sha256-"+base64.StdEncoding.EncodeToString(sum[:]), 1)
	head, rest, ok1 := strings.Cut(page, "{{TITLE}}")
	mid, tail, ok2 := strings.Cut(rest, "{{SESSION_DATA}}")
	if !ok1 || !ok2 {
		panic("session: export.html lacks {{TITLE}} or {{SESSION_DATA}}")
	}
	return head, mid, tail
}

// ExportHTML writes the self-contained HTML page of m to w: inline style
// sheet and script, no network needed to view it, and the session embedded
// as the reference embeds it (reference section 10): the JSON.stringify bytes
// of {header, entries, leafId, systemPrompt?, tools?}, entries as held in
// memory (blobs resolved), standard base64 with padding, in
// <script id="session-data" type="application/json">. A session without a
// file gives ErrInMemoryExport; an unknown o.LeafID gives a NotFoundError.
func ExportHTML(m *Manager, w io.Writer, o ExportOptions) error {
	if m.SessionFile() == "" {
		return ErrInMemoryExport
	}
	leaf, _ := m.LeafID()
	if o.LeafID != "" {
		if m.Entry(o.LeafID) == nil {
			return &NotFoundError{ID: o.LeafID}
		}
		leaf = o.LeafID
	}
	title := o.Title
	if title == "" {
		title = m.SessionName()
	}
	if title == "" {
		title = "Session " + m.SessionID()
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(pageHead)
	bw.WriteString(html.EscapeString(title))
	bw.WriteString(pageMid)
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	if err := writePayload(enc, m, leaf, o); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	bw.WriteString(pageTail)
	return bw.Flush()
}

// writePayload writes {header, entries, leafId, systemPrompt?, tools?} in
// that key order, as JSON.stringify writes the reference's sessionData.
func writePayload(w io.Writer, m *Manager, leaf string, o ExportOptions) error {
	buf := make([]byte, 0, 64<<10)
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	buf = append(buf, `{"header":`...)
	if h := m.Header(); h != nil {
		buf = append(buf, h.JSON()...)
	} else {
		buf = append(buf, "null"...)
	}
	buf = append(buf, `,"entries":[`...)
	for i, e := range m.Entries() {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, e.JSON()...)
		if len(buf) >= 48<<10 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	buf = append(buf, `],"leafId":`...)
	if leaf == "" {
		buf = append(buf, "null"...)
	} else {
		buf = jsjson.AppendString(buf, leaf)
	}
	if o.SystemPrompt != "" {
		buf = append(buf, `,"systemPrompt":`...)
		buf = jsjson.AppendString(buf, o.SystemPrompt)
	}
	if o.Tools != nil {
		buf = append(buf, `,"tools":[`...)
		for i, t := range o.Tools {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"name":`...)
			buf = jsjson.AppendString(buf, t.Name)
			buf = append(buf, `,"description":`...)
			buf = jsjson.AppendString(buf, t.Description)
			buf = append(buf, '}')
		}
		buf = append(buf, ']')
	}
	buf = append(buf, '}')
	return flush()
}

// DefaultExportName is the page's default file name for a session file:
// xcsh-session-<base name without .jsonl>.html.
func DefaultExportName(sessionFile string) string {
	return "xcsh-session-" + strings.TrimSuffix(filepath.Base(sessionFile), ".jsonl") + ".html"
}

// ExportFile writes the page of m to path, or to DefaultExportName in dir
// when path is "", and returns the path written. A relative path is taken
// relative to dir ("" is the process's working directory, as in the
// reference). The file is replaced atomically (a temporary file in the same
// directory, renamed over it), so a failed export never leaves half a page,
// and it is created with mode 0600 like the session it shows.
func ExportFile(m *Manager, path, dir string, o ExportOptions) (string, error) {
	if m.SessionFile() == "" {
		return "", ErrInMemoryExport
	}
	if path == "" {
		path = DefaultExportName(m.SessionFile())
	}
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	// Checked first, so that an unknown leaf creates nothing.
	if o.LeafID != "" && m.Entry(o.LeafID) == nil {
		return "", &NotFoundError{ID: o.LeafID}
	}
	if err := writeFileAtomic(path, func(f *os.File) error { return ExportHTML(m, f, o) }); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// writeFileAtomic replaces path with what write produces: a temporary file
// in the same directory (created if missing), synced, then renamed over path.
func writeFileAtomic(path string, write func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
