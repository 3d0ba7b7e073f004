package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMigrate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // entries after migration, one per line; ids E1, E2, ... in order of generation
	}{
		{
			name: "v1 assigns ids and chains parents",
			in: `{"type":"session","id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1}}
{"type":"thinking_level_change","timestamp":"t2","thinkingLevel":"high"}`,
			want: `{"type":"session","id":"s","timestamp":"t","cwd":"/x","version":3}
{"type":"message","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1},"id":"E1","parentId":null}
{"type":"thinking_level_change","timestamp":"t2","thinkingLevel":"high","id":"E2","parentId":"E1"}`,
		},
		{
			name: "v1 overwrites existing ids",
			in: `{"type":"session","version":1,"id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","id":"old","parentId":"zzz","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1}}`,
			want: `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","id":"E1","parentId":null,"timestamp":"t1","message":{"role":"user","content":"a","timestamp":1}}`,
		},
		{
			name: "v1 compaction index counts the header",
			in: `{"type":"session","id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1}}
{"type":"message","timestamp":"t2","message":{"role":"user","content":"b","timestamp":2}}
{"type":"compaction","timestamp":"t3","summary":"s","firstKeptEntryIndex":2,"tokensBefore":1}`,
			want: `{"type":"session","id":"s","timestamp":"t","cwd":"/x","version":3}
{"type":"message","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1},"id":"E1","parentId":null}
{"type":"message","timestamp":"t2","message":{"role":"user","content":"b","timestamp":2},"id":"E2","parentId":"E1"}
{"type":"compaction","timestamp":"t3","summary":"s","tokensBefore":1,"id":"E3","parentId":"E2","firstKeptEntryId":"E2"}`,
		},
		{
			name: "v1 compaction index 0 (the header) leaves no id",
			in: `{"type":"session","id":"s","timestamp":"t","cwd":"/x"}
{"type":"compaction","timestamp":"t3","summary":"s","firstKeptEntryIndex":0,"tokensBefore":1}`,
			want: `{"type":"session","id":"s","timestamp":"t","cwd":"/x","version":3}
{"type":"compaction","timestamp":"t3","summary":"s","tokensBefore":1,"id":"E1","parentId":null}`,
		},
		{
			name: "v1 forward index has no id yet",
			in: `{"type":"session","id":"s","timestamp":"t","cwd":"/x"}
{"type":"compaction","timestamp":"t3","summary":"s","firstKeptEntryIndex":2,"tokensBefore":1}
{"type":"message","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1}}`,
			want: `{"type":"session","id":"s","timestamp":"t","cwd":"/x","version":3}
{"type":"compaction","timestamp":"t3","summary":"s","tokensBefore":1,"id":"E1","parentId":null}
{"type":"message","timestamp":"t1","message":{"role":"user","content":"a","timestamp":1},"id":"E2","parentId":"E1"}`,
		},
		{
			name: "v2 renames hookMessage to custom",
			in: `{"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","id":"a","parentId":null,"timestamp":"t1","message":{"role":"hookMessage","customType":"h","content":"x","display":true,"timestamp":1}}
{"type":"custom_message","id":"b","parentId":"a","timestamp":"t2","customType":"hookMessage","content":"y","display":true,"attribution":"agent"}`,
			want: `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","id":"a","parentId":null,"timestamp":"t1","message":{"role":"custom","customType":"h","content":"x","display":true,"timestamp":1}}
{"type":"custom_message","id":"b","parentId":"a","timestamp":"t2","customType":"hookMessage","content":"y","display":true,"attribution":"agent"}`,
		},
		{
			name: "v3 untouched",
			in: `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","id":"a","parentId":null,"timestamp":"t1","message":{"role":"hookMessage","content":"x","timestamp":1}}`,
			want: `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/x"}
{"type":"message","id":"a","parentId":null,"timestamp":"t1","message":{"role":"hookMessage","content":"x","timestamp":1}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := ParseEntries([]byte(tt.in))
			n := 0
			Migrate(entries, func() string { n++; return fmt.Sprintf("E%d", n) })
			var lines []string
			for _, e := range entries {
				lines = append(lines, string(e.JSON()))
			}
			if got := strings.Join(lines, "\n"); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestOpenMigratesAtOnceKeepingMtime: opening a legacy file rewrites it
// migrated, atomically, with its modification time kept; read-only loading
// changes nothing.
func TestOpenMigratesAtOnceKeepingMtime(t *testing.T) {
	opt, home := testOptions(t)
	p := filepath.Join(home, "legacy.jsonl")
	v1 := `{"type":"session","id":"legacy","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/legacy"}
{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1}}
`
	if err := os.WriteFile(p, []byte(v1), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(opt, p); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != v1 {
		t.Fatalf("Load modified the file:\n%s", got)
	}
	m, err := Open(opt, p, "")
	if err != nil {
		t.Fatal(err)
	}
	got := readFile(t, p)
	if !strings.Contains(got, `"version":3`) || !strings.Contains(got, `"parentId":null`) {
		t.Errorf("not migrated on open:\n%s", got)
	}
	fi, _ := os.Stat(p)
	if !fi.ModTime().Equal(old) {
		t.Errorf("mtime = %v, want %v", fi.ModTime(), old)
	}
	if len(m.Entries()) != 1 || m.Entries()[0].ID == "" {
		t.Errorf("entries after open: %d", len(m.Entries()))
	}
	ents, _ := os.ReadDir(home)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}
