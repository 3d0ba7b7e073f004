package cmd

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// writeBigSession writes a session of n messages of about 2 KB into dir.
func writeBigSession(b *testing.B, dir, cwd string, n int) string {
	b.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "2026-01-01T00-00-00-000Z_bench0000000001.jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"bench0000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`+"\n", cwd)
	text := strings.Repeat("lorem ipsum dolor sit amet ", 70)
	parent := "null"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", i+1)
		if i%2 == 0 {
			fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"%s","timestamp":1767225601000}}`+"\n", id, parent, text)
		} else {
			fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"%s"}],"api":"openai-completions","provider":"openai","model":"gpt-test","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225601000}}`+"\n", id, parent, text)
		}
		parent = `"` + id + `"`
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p
}

// BenchmarkPrintContinueFirstRequest: from starting `xcsh -p -c` on a
// 10,000-message session to the first request reaching the model server.
func BenchmarkPrintContinueFirstRequest(b *testing.B) {
	home := b.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		b.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=k"}
	dir := filepath.Join(home, ".xcsh", "agent", "sessions", "-proj")
	src := writeBigSession(b, dir, proj, 10000)
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	var first atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.CompareAndSwap(0, time.Now().UnixNano())
		w.WriteHeader(http.StatusUnauthorized) // end the run at once
	}))
	defer srv.Close()
	env = append(env, "OPENAI_BASE_URL="+srv.URL+"/v1")
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.WriteFile(src, data, 0o600); err != nil { // the same 10,000 messages every run
			b.Fatal(err)
		}
		first.Store(0)
		b.StartTimer()
		cmd := exec.Command(xcshBin, "-p", "-c", "--model", "openai/gpt-test", "hello")
		cmd.Dir, cmd.Env = proj, env
		start := time.Now()
		_ = cmd.Run()
		if f := first.Load(); f != 0 {
			total += time.Duration(f - start.UnixNano())
		} else {
			b.Fatal("no request reached the server")
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-first-request")
}

// BenchmarkContinueExplain: `xcsh --continue --explain` end to end in a
// directory with 2,000 sessions (the listing index warm after the first run).
func BenchmarkContinueExplain(b *testing.B) {
	home := b.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(home, ".xcsh", "agent", "sessions", "-proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		line := fmt.Sprintf(`{"type":"session","version":3,"id":"%016x","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`+"\n"+
			`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"prompt %d","timestamp":1}}`+"\n", i+1, proj, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("2026-01-01T00-00-00-000Z_%016x.jsonl", i+1)), []byte(line), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	run := func() {
		cmd := exec.Command(xcshBin, "--continue", "--explain")
		cmd.Dir, cmd.Env = proj, env
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "action:   open") {
			b.Fatalf("%v: %s", err, out)
		}
	}
	run() // builds the index
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}
