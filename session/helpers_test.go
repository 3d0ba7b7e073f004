package session

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testClock is a virtual clock that advances one second per reading.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// seqRand fills buffers from a counter, so ids are deterministic.
func seqRand() func([]byte) {
	var mu sync.Mutex
	var n uint32
	return func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		for i := 0; i < len(b); i += 4 {
			n++
			var w [4]byte
			binary.BigEndian.PutUint32(w[:], n*2654435761)
			copy(b[i:], w[:])
		}
	}
}

// testOptions returns options rooted in a fresh temp home.
func testOptions(t testing.TB) (Options, string) {
	t.Helper()
	home := t.TempDir()
	agent := filepath.Join(home, ".xcsh", "agent")
	clock := newTestClock()
	return Options{
		SessionsRoot: filepath.Join(agent, "sessions"),
		BlobDir:      filepath.Join(agent, "blobs"),
		Home:         home,
		TmpDir:       "/nonexistent-tmp",
		Clock:        clock.Now,
		IDs:          NewIDSource(seqRand()),
	}, home
}

func userMsg(text string) RawJSON {
	return RawJSON(fmt.Sprintf(`{"role":"user","content":%s,"timestamp":1767225601000}`, str(text)))
}

func assistantMsg(text string) RawJSON {
	return RawJSON(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0.0005,"output":0.0005,"cacheRead":0,"cacheWrite":0,"total":0.001}},"stopReason":"stop","timestamp":1767225602000}`, str(text)))
}

// mustAppend returns a checker for an append's (id, error) result.
func mustAppend(t testing.TB) func(string, error) string {
	return func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		return id
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}
