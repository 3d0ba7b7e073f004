package session

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFile returns a session file with n messages of about 2 KB each
// (alternating user and assistant), generated once per machine into the temp dir.
func benchFile(b *testing.B, n int) string {
	b.Helper()
	p := filepath.Join(os.TempDir(), fmt.Sprintf("xcsh-bench-%d.jsonl", n))
	if fi, err := os.Stat(p); err == nil && fi.Size() > int64(n)*2000 {
		return p
	}
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"bench%011d","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/bench"}`+"\n", n)
	words := strings.Fields("the quick brown fox jumps over the lazy dog while a careful engineer reads every line of the session file and writes tests for it")
	parent := "null"
	for i := 0; i < n; i++ {
		var sb strings.Builder
		for sb.Len() < 1800 {
			sb.WriteString(words[(i+sb.Len())%len(words)])
			sb.WriteByte(' ')
		}
		id := fmt.Sprintf("%08x", i+1)
		ts := fmt.Sprintf("2026-01-01T%02d:%02d:%02d.000Z", (i/3600)%24, (i/60)%60, i%60)
		if i%2 == 0 {
			fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"user","content":"%s","timestamp":%d}}`+"\n", id, parent, ts, sb.String(), 1767225600000+i)
		} else {
			fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":"%s"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0.0005,"output":0.0005,"cacheRead":0,"cacheWrite":0,"total":0.001}},"stopReason":"stop","timestamp":%d}}`+"\n", id, parent, ts, sb.String(), 1767225600000+i)
		}
		parent = `"` + id + `"`
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, p); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchOpenContext(b *testing.B, n int) {
	p := benchFile(b, n)
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Open(Options{SessionsRoot: b.TempDir()}, p, "")
		if err != nil {
			b.Fatal(err)
		}
		ctx := m.BuildContext()
		if len(ctx.Messages) != n {
			b.Fatalf("context has %d messages, want %d", len(ctx.Messages), n)
		}
	}
}

// BenchmarkOpenContext10k: open + BuildContext of 10,000 messages (~23 MB).
func BenchmarkOpenContext10k(b *testing.B) { benchOpenContext(b, 10000) }

// BenchmarkOpenContext100k: open + BuildContext of 100,000 messages (~231 MB).
func BenchmarkOpenContext100k(b *testing.B) { benchOpenContext(b, 100000) }

// BenchmarkAppend measures appends per second to a persisted session, in
// batches of appendBatch so that `make bench`'s few iterations say something.
func BenchmarkAppend(b *testing.B) {
	opt, home := testOptions(b)
	m := Create(opt, filepath.Join(home, "proj"), "")
	mustAppend(b)(m.AppendMessage(userMsg("q")))
	mustAppend(b)(m.AppendMessage(assistantMsg("a")))
	msg := userMsg(strings.Repeat("x", 2000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range appendBatch {
			if _, err := m.AppendMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	if err := m.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*appendBatch)/b.Elapsed().Seconds(), "appends/s")
}

const appendBatch = 1000

// BenchmarkRewrite100k: a full atomic rewrite of a 100,000-entry session.
func BenchmarkRewrite100k(b *testing.B) {
	src := benchFile(b, 100000)
	dir := b.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	m, err := Open(Options{SessionsRoot: dir}, p, "")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.RewriteEntries(); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmark500AppendsFromEmpty: a new session and 500 appends (user and assistant alternating).
func Benchmark500AppendsFromEmpty(b *testing.B) {
	for i := 0; i < b.N; i++ {
		opt, home := testOptions(b)
		m := Create(opt, filepath.Join(home, "proj"), "")
		for j := 0; j < 500; j++ {
			var err error
			if j%2 == 0 {
				_, err = m.AppendMessage(userMsg("question"))
			} else {
				_, err = m.AppendMessage(assistantMsg("answer"))
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := m.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
