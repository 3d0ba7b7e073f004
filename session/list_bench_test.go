package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listFixture writes n small sessions (a few messages each) into one session dir.
func listFixture(b *testing.B, n int) (root, dir string) {
	b.Helper()
	root = b.TempDir()
	dir = filepath.Join(root, "-proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("some words of a prompt ", 40)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%016x", i+1)
		var sb strings.Builder
		fmt.Fprintf(&sb, `{"type":"session","version":3,"id":"%s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/u/proj"}`+"\n", id)
		parent := "null"
		for j := 0; j < 6; j++ {
			eid := fmt.Sprintf("%08x", j+1)
			role := "user"
			if j%2 == 1 {
				role = "assistant"
			}
			fmt.Fprintf(&sb, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"%s","content":"%s %d","timestamp":1}}`+"\n", eid, parent, role, body, i)
			parent = `"` + eid + `"`
		}
		p := filepath.Join(dir, "2026-01-01T00-00-00-000Z_"+id+".jsonl")
		if err := os.WriteFile(p, []byte(sb.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		t := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		_ = os.Chtimes(p, t, t)
	}
	return root, dir
}

// BenchmarkRecent2000 and BenchmarkList2000: 2,000 sessions, without an
// index (every file read) and with a warm index (nothing re-read).
func BenchmarkRecent2000(b *testing.B) {
	root, dir := listFixture(b, 2000)
	b.Run("no-index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if n := len(RecentSessions(FileStorage{}, dir, 0)); n != 2000 {
				b.Fatal(n)
			}
		}
	})
	ix := OpenIndex(nil, root)
	ix.RecentSessions(dir, 0)
	if err := ix.Save(); err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ix := OpenIndex(nil, root)
			if n := len(ix.RecentSessions(dir, 0)); n != 2000 {
				b.Fatal(n)
			}
		}
	})
}

func BenchmarkList2000(b *testing.B) {
	root, dir := listFixture(b, 2000)
	b.Run("no-index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if n := len(ListSessions(FileStorage{}, dir)); n != 2000 {
				b.Fatal(n)
			}
		}
	})
	ix := OpenIndex(nil, root)
	ix.ListSessions(dir)
	if err := ix.Save(); err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ix := OpenIndex(nil, root)
			if n := len(ix.ListSessions(dir)); n != 2000 {
				b.Fatal(n)
			}
		}
	})
}
