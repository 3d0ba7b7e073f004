package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const exportFixture = "testdata/export/all-roles.jsonl"

// loadFixture loads the export fixture read-only: every message role, two
// branches, and script-like text in messages, labels, tool names and the title.
func loadFixture(t testing.TB) *Manager {
	t.Helper()
	m, err := Load(Options{}, exportFixture)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var sessionDataRE = regexp.MustCompile(`<script id="session-data" type="application/json">([^<]*)</script>`)

// payload extracts and decodes the embedded session data of a page.
func payload(t *testing.T, page []byte) []byte {
	t.Helper()
	m := sessionDataRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("page has no session-data script")
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(string(m[1]))
	if err != nil {
		t.Fatalf("session data is not standard padded base64: %v", err)
	}
	return raw
}

func exportPage(t *testing.T, m *Manager, o ExportOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ExportHTML(m, &buf, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExportPayload(t *testing.T) {
	m := loadFixture(t)
	var entries [][]byte
	for _, e := range m.Entries() {
		entries = append(entries, e.JSON())
	}
	base := `{"header":` + string(m.Header().JSON()) + `,"entries":[` + string(bytes.Join(entries, []byte(","))) + `]`
	tests := []struct {
		name string
		opt  ExportOptions
		want string
	}{
		{"cli", ExportOptions{}, base + `,"leafId":"a5"}`},
		{"leaf", ExportOptions{LeafID: "a4"}, base + `,"leafId":"a4"}`},
		{
			"agent",
			ExportOptions{SystemPrompt: "You are \"xcsh\".\n", Tools: []ExportTool{{Name: "read", Description: "Read a file </script>"}, {Name: "bash", Description: ""}}},
			base + `,"leafId":"a5","systemPrompt":"You are \"xcsh\".\n","tools":[{"name":"read","description":"Read a file </script>"},{"name":"bash","description":""}]}`,
		},
		{"no tools", ExportOptions{Tools: []ExportTool{}}, base + `,"leafId":"a5","tools":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := payload(t, exportPage(t, m, tt.opt))
			if string(got) != tt.want {
				t.Errorf("payload differs\n got: %.300s\nwant: %.300s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Error("payload is not valid JSON")
			}
		})
	}
}

func TestExportNullLeaf(t *testing.T) {
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	got := payload(t, exportPage(t, m, ExportOptions{}))
	want := `{"header":` + string(m.Header().JSON()) + `,"entries":[],"leafId":null}`
	if string(got) != want {
		t.Errorf("payload = %s, want %s", got, want)
	}
}

func TestExportTitle(t *testing.T) {
	m := loadFixture(t)
	tests := []struct {
		name string
		opt  ExportOptions
		want string
	}{
		{"session title", ExportOptions{}, "<title>Export &lt;b&gt;test&lt;/b&gt; &lt;/title&gt;&lt;script&gt;document.title=&#39;pwned-title&#39;&lt;/script&gt;</title>"},
		{"given", ExportOptions{Title: "A & B"}, "<title>A &amp; B</title>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if page := exportPage(t, m, tt.opt); !bytes.Contains(page, []byte(tt.want)) {
				t.Errorf("page lacks %s", tt.want)
			}
		})
	}
	opt, home := testOptions(t)
	c := Create(opt, filepath.Join(home, "proj"), "")
	want := "<title>Session " + c.SessionID() + "</title>"
	if page := exportPage(t, c, ExportOptions{}); !bytes.Contains(page, []byte(want)) {
		t.Errorf("untitled page lacks %s", want)
	}
}

func TestExportInMemory(t *testing.T) {
	m := InMemory(Options{}, "/tmp")
	err := ExportHTML(m, io.Discard, ExportOptions{})
	if !errors.Is(err, ErrInMemoryExport) || err.Error() != "Cannot export in-memory session to HTML" {
		t.Errorf("ExportHTML = %v", err)
	}
	dir := t.TempDir()
	if _, err := ExportFile(m, "", dir, ExportOptions{}); !errors.Is(err, ErrInMemoryExport) {
		t.Errorf("ExportFile = %v", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("files created: %v", names)
	}
}

func TestExportUnknownLeaf(t *testing.T) {
	m := loadFixture(t)
	dir := t.TempDir()
	_, err := ExportFile(m, "", dir, ExportOptions{LeafID: "nope"})
	if !errors.Is(err, ErrEntryNotFound) {
		t.Errorf("ExportFile = %v, want entry not found", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("files created: %v", names)
	}
}

func TestDefaultExportName(t *testing.T) {
	tests := []struct{ file, want string }{
		{"/a/b/2026-01-01T00-00-00-000Z_0a1b.jsonl", "xcsh-session-2026-01-01T00-00-00-000Z_0a1b.html"},
		{"rel/x.jsonl", "xcsh-session-x.html"},
		{"/a/notes.txt", "xcsh-session-notes.txt.html"},
	}
	for _, tt := range tests {
		if got := DefaultExportName(tt.file); got != tt.want {
			t.Errorf("DefaultExportName(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestExportFile(t *testing.T) {
	m := loadFixture(t)
	dir := t.TempDir()
	tests := []struct {
		name, path, dir, want string
	}{
		{"default name in dir", "", dir, filepath.Join(dir, "xcsh-session-all-roles.html")},
		{"relative to dir", "out/page.html", dir, filepath.Join(dir, "out", "page.html")},
		{"absolute", filepath.Join(dir, "abs.html"), "/elsewhere", filepath.Join(dir, "abs.html")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExportFile(m, tt.path, tt.dir, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("path = %q, want %q", got, tt.want)
			}
			data, err := os.ReadFile(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, exportPage(t, m, ExportOptions{})) {
				t.Error("file differs from ExportHTML's page")
			}
		})
	}
	// Overwriting replaces the file and leaves no temporary file behind.
	if _, err := ExportFile(m, "", dir, ExportOptions{Title: "again"}); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestExportSelfContained checks that the page refers to nothing outside
// itself and that its script is the only one the page's policy allows.
func TestExportSelfContained(t *testing.T) {
	page := string(exportPage(t, loadFixture(t), ExportOptions{}))
	for _, bad := range []string{"<link", "@import", "<script src", "<iframe", "<img", "cdnjs", "//cdn"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if strings.Contains(exportCSS, "url(") {
		t.Error("style sheet loads a resource")
	}
	if !strings.Contains(page, `content="default-src 'none'; script-src 'sha256-`) {
		t.Error("page lacks its Content-Security-Policy")
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("page has %d script elements, want 2 (data and code)", n)
	}
}

// BenchmarkExportHTML10k: the page of a 10,000-message session (~23 MB of
// entries), written to io.Discard.
func BenchmarkExportHTML10k(b *testing.B) {
	p := benchFile(b, 10000)
	m, err := Load(Options{}, p)
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ExportHTML(m, io.Discard, ExportOptions{SystemPrompt: "system", Tools: []ExportTool{{Name: "read"}}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExportFile10k: load a 10,000-message session and write its page
// to a file, as xcsh --export does.
func BenchmarkExportFile10k(b *testing.B) {
	p := benchFile(b, 10000)
	out := filepath.Join(b.TempDir(), "page.html")
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Load(Options{}, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ExportFile(m, out, "", ExportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
