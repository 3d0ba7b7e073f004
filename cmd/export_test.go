package cmd

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var exportDataRE = regexp.MustCompile(`<script id="session-data" type="application/json">([^<]*)</script>`)

// exportedData returns the session JSON embedded in an exported page.
func exportedData(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	m := exportDataRE.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no session data", page)
	}
	raw, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestExportCLI(t *testing.T) {
	e := newTestEnv(t)
	e.extra = []string{"TMUX_PANE=%7"} // a terminal whose crumb --export must not touch
	proj := e.dir("proj")
	src := e.writeSession(fixture{id: "e0e0e0e0e0e0e0e0", cwd: proj, title: "demo", users: []string{"hello export"}})
	before, _ := os.ReadFile(src)
	snap := e.snapshot()
	base := strings.TrimSuffix(filepath.Base(src), ".jsonl")

	tests := []struct {
		name, out, want string
	}{
		{"default name", "", "xcsh-session-" + base + ".html"},
		{"given path", "pages/demo.html", "pages/demo.html"},
		{"absolute path", filepath.Join(e.home, "abs.html"), filepath.Join(e.home, "abs.html")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			args := []string{"--export", src}
			if tt.out != "" {
				args = append(args, tt.out)
			}
			r := e.run(work, "", args...)
			if r.code != 0 || r.stdout != "Exported to: "+tt.want+"\n" || r.stderr != "" {
				t.Fatalf("xcsh %s: %s", strings.Join(args, " "), r)
			}
			page := tt.want
			if !filepath.IsAbs(page) {
				page = filepath.Join(work, page)
			}
			data := exportedData(t, page)
			if !strings.HasPrefix(data, `{"header":{`) || !strings.Contains(data, `"id":"e0e0e0e0e0e0e0e0"`) ||
				!strings.Contains(data, "hello export") || !strings.HasSuffix(data, `,"leafId":"00000002"}`) {
				t.Errorf("embedded session: %.300s", data)
			}
			if strings.Contains(data, "systemPrompt") || strings.Contains(data, `"tools"`) {
				t.Error("the CLI export embeds a system prompt or tools")
			}
		})
	}
	after, _ := os.ReadFile(src)
	if !bytes.Equal(before, after) {
		t.Error("--export changed the session file")
	}
	if got := e.snapshot(); !reflect.DeepEqual(got, snap) {
		t.Errorf("--export wrote sessions or breadcrumbs:\nbefore %v\nafter  %v", snap, got)
	}
}

func TestExportCLILegacy(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	src := e.writeSession(fixture{id: "1e9acy0000000000", cwd: proj, users: []string{"old one"}, version: 1})
	before, _ := os.ReadFile(src)
	work := t.TempDir()
	r := e.run(work, "", "--export", src, "out.html")
	if r.code != 0 {
		t.Fatal(r)
	}
	// Migrated in memory for the page, the file itself left as it was.
	if data := exportedData(t, filepath.Join(work, "out.html")); !strings.Contains(data, `"version":3`) || !strings.Contains(data, "old one") {
		t.Errorf("embedded session: %.300s", data)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(before, after) {
		t.Error("--export rewrote a legacy session file")
	}
}

func TestExportCLIErrors(t *testing.T) {
	e := newTestEnv(t)
	notSession := filepath.Join(e.home, "notes.jsonl")
	if err := os.WriteFile(notSession, []byte("{\"hello\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // exact, or a prefix when it ends in "*"
	}{
		{"missing input", []string{"--export", "missing.jsonl"}, 1, "File not found: missing.jsonl\n"},
		{"missing input with output", []string{"--export", "gone/x.jsonl", "out.html"}, 1, "File not found: gone/x.jsonl\n"},
		{"not a session", []string{"--export", notSession}, 1, "Error: " + notSession + " is not a session file: *"},
		{"directory", []string{"--export", e.home}, 1, "Error: " + e.home + " is a directory, not a session file\n"},
		{"empty", []string{"--export", ""}, 2, "Error: --export needs a session file: xcsh --export <session.jsonl> [out.html]\n"},
		{"two outputs", []string{"--export", notSession, "a.html", "b.html"}, 2, "Error: --export takes one output path, got 2 arguments: *"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			r := e.run(work, "", tt.args...)
			ok := r.stderr == tt.stderr
			if p, cut := strings.CutSuffix(tt.stderr, "*"); cut {
				ok = strings.HasPrefix(r.stderr, p)
			}
			if r.code != tt.code || !ok || r.stdout != "" {
				t.Errorf("got %s\nwant exit %d and stderr %q", r, tt.code, tt.stderr)
			}
			// Nothing is created: no page, no session in place of the missing input.
			if names := dirNames(t, work); len(names) != 0 {
				t.Errorf("files created: %v", names)
			}
			if _, err := os.Stat(e.agentDir()); err == nil {
				if got := e.snapshot(); len(got) != 0 {
					t.Errorf("sessions or breadcrumbs written: %v", got)
				}
			}
		})
	}
}
