package session

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDeferredUntilFirstAssistant(t *testing.T) {
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	mustAppend(t)(m.AppendMessage(userMsg("q1")))
	mustAppend(t)(m.AppendThinkingLevelChange(RawJSON(`"low"`)))
	if _, err := os.Stat(m.SessionFile()); !os.IsNotExist(err) {
		t.Fatalf("file exists before the first assistant message: %v", err)
	}
	mustAppend(t)(m.AppendMessage(assistantMsg("a1")))
	if n := strings.Count(readFile(t, m.SessionFile()), "\n"); n != 4 {
		t.Fatalf("after first assistant: %d lines, want 4 (header + 3)", n)
	}
	mustAppend(t)(m.AppendMessage(userMsg("q2")))
	if n := strings.Count(readFile(t, m.SessionFile()), "\n"); n != 5 {
		t.Fatalf("after append: %d lines, want 5", n)
	}
	fi, err := os.Stat(m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(m.SessionFile()))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
}

func TestEnsureOnDiskWritesEveryEntry(t *testing.T) {
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	if err := m.EnsureOnDisk(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t)(m.AppendMessage(userMsg("q1")))
	if n := strings.Count(readFile(t, m.SessionFile()), "\n"); n != 2 {
		t.Fatalf("%d lines, want 2", n)
	}
}

// TestAppendAfterTornLine: a torn last line (a crash mid-write) must not swallow the next entry.
func TestAppendAfterTornLine(t *testing.T) {
	opt, home := testOptions(t)
	p := filepath.Join(home, "s.jsonl")
	content := `{"type":"session","version":3,"id":"abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.0`
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Open(opt, p, "")
	if err != nil {
		t.Fatal(err)
	}
	id := mustAppend(t)(m.AppendMessage(userMsg("after the tear")))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(opt, p)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Entry(id) == nil {
		t.Fatalf("entry appended after a torn line was lost:\n%s", readFile(t, p))
	}
	if !strings.HasPrefix(readFile(t, p), content) {
		t.Errorf("existing bytes changed")
	}
}

func TestTruncationAndSignatures(t *testing.T) {
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	if err := m.EnsureOnDisk(); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", MaxPersistChars+10)
	sig := strings.Repeat("s", MaxPersistChars+1)
	msg := `{"role":"assistant","content":[{"type":"thinking","thinking":"` + big + `","thinkingSignature":"` + sig + `"},{"type":"toolCall","id":"t","name":"n","arguments":{},"partialJson":"{\"a"}],"provider":"p","model":"m","timestamp":1}`
	id := mustAppend(t)(m.AppendMessage(RawJSON(msg)))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(m.Entry(id).Get("message")); got != msg {
		t.Errorf("in-memory entry changed by persistence")
	}
	m2, err := Load(opt, m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	stored := string(m2.Entry(id).Get("message"))
	thinking := rawString(member([]byte(stored[strings.Index(stored, "[")+1:]), "thinking"))
	if len(thinking) != MaxPersistChars || !strings.HasSuffix(thinking, TruncationNotice) {
		t.Errorf("thinking length %d, want %d ending in the notice", len(thinking), MaxPersistChars)
	}
	if !strings.Contains(stored, `"thinkingSignature":""`) {
		t.Errorf("signature not blanked")
	}
	if strings.Contains(stored, "partialJson") {
		t.Errorf("partialJson not stripped")
	}
}

func TestTruncateUTF16(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 3, "abc"},
		{"ab😀c", 3, "ab"},
		{"ab😀c", 4, "ab😀"},
		{"éé", 1, "é"},
	}
	for _, tt := range tests {
		if got := truncateUTF16(tt.in, tt.n); got != tt.want {
			t.Errorf("truncateUTF16(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestBlobsExternalisedAndResolved(t *testing.T) {
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	if err := m.EnsureOnDisk(); err != nil {
		t.Fatal(err)
	}
	img := make([]byte, 3000)
	for i := range img {
		img[i] = byte(i * 7)
	}
	data := base64.StdEncoding.EncodeToString(img)
	small := base64.StdEncoding.EncodeToString(img[:30])
	msg := `{"role":"user","content":[{"type":"image","data":"` + data + `","mimeType":"image/png"},{"type":"image","data":"` + small + `","mimeType":"image/png"}],"details":{"content":[{"type":"image","data":"` + data + `"}]},"timestamp":1}`
	id := mustAppend(t)(m.AppendMessage(RawJSON(msg)))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	onDisk := readFile(t, m.SessionFile())
	if strings.Contains(onDisk, data) {
		t.Errorf("large image written inline")
	}
	if !strings.Contains(onDisk, small) {
		t.Errorf("small image not inline")
	}
	if strings.Count(onDisk, BlobPrefix) != 2 {
		t.Errorf("want 2 blob refs (top-level and nested), file:\n%.400s", onDisk)
	}
	blobs, _ := os.ReadDir(opt.BlobDir)
	if len(blobs) != 1 {
		t.Errorf("want 1 deduplicated blob, got %d", len(blobs))
	}
	m2, err := Load(opt, m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(m2.Entry(id).Get("message")); got != msg {
		t.Errorf("blobs not resolved on load (nested included)")
	}
}

// TestWriteFailureLatched: a failing disk reports the error to the caller on
// every later write, keeps the in-memory session usable and loses nothing on disk.
func TestWriteFailureLatched(t *testing.T) {
	opt, home := testOptions(t)
	st := NewMemoryStorage()
	opt.Storage = st
	m := Create(opt, filepath.Join(home, "proj"), "")
	mustAppend(t)(m.AppendMessage(userMsg("q1")))
	mustAppend(t)(m.AppendMessage(assistantMsg("a1")))
	before, _ := st.ReadFile(m.SessionFile())
	disk := errors.New("no space left on device")
	st.Fail = func(op, p string) error { return disk }
	id, err := m.AppendMessage(userMsg("q2"))
	if !errors.Is(err, disk) {
		t.Fatalf("append error = %v, want the disk error", err)
	}
	if m.Entry(id) == nil {
		t.Errorf("in-memory append lost")
	}
	st.Fail = nil
	if _, err := m.AppendMessage(userMsg("q3")); !errors.Is(err, disk) {
		t.Errorf("latched error not returned on a later append: %v", err)
	}
	if err := m.Flush(); !errors.Is(err, disk) {
		t.Errorf("flush = %v, want latched error", err)
	}
	after, _ := st.ReadFile(m.SessionFile())
	if string(after) != string(before) {
		t.Errorf("disk content changed after failure")
	}
	if got := len(m.BuildContext().Messages); got != 4 {
		t.Errorf("context has %d messages, want 4", got)
	}
}

// TestWriteFailureReadOnlyDir uses the real file system: a directory that
// cannot be written.
func TestWriteFailureReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores directory permissions; use a full tmpfs-like failure instead: a file in place of the dir
		opt, home := testOptions(t)
		blocker := filepath.Join(home, "blocked")
		if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		m := Create(opt, home, blocker)
		mustAppend(t)(m.AppendMessage(userMsg("q")))
		_, err := m.AppendMessage(assistantMsg("a"))
		if !errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("err = %v, want ENOTDIR", err)
		}
		if _, err := m.AppendMessage(userMsg("again")); err == nil {
			t.Fatal("latched error not returned")
		}
		if readFile(t, blocker) != "x" {
			t.Error("existing file changed")
		}
		return
	}
	opt, home := testOptions(t)
	dir := filepath.Join(home, "ro")
	if err := os.MkdirAll(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	m := Create(opt, home, dir)
	mustAppend(t)(m.AppendMessage(userMsg("q")))
	if _, err := m.AppendMessage(assistantMsg("a")); err == nil {
		t.Fatal("write into a read-only dir succeeded")
	}
}

func TestDiskFullTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	opt, home := testOptions(t)
	m := Create(opt, home, dir)
	mustAppend(t)(m.AppendMessage(userMsg("q")))
	mustAppend(t)(m.AppendMessage(assistantMsg("a")))
	var err error
	var ids []string
	for i := 0; i < 200 && err == nil; i++ {
		var id string
		id, err = m.AppendMessage(userMsg(strings.Repeat("z", 2000)))
		if err == nil {
			ids = append(ids, id)
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	_ = m.Close()
	m2, lerr := Load(opt, m.SessionFile())
	if lerr != nil {
		t.Fatal(lerr)
	}
	for _, id := range ids {
		if m2.Entry(id) == nil {
			t.Fatalf("entry %s written before the disk filled is lost", id)
		}
	}
}

func TestNeedsPrepare(t *testing.T) {
	big := strings.Repeat("x", BlobThreshold)
	tests := []struct {
		raw  string
		want bool
	}{
		{`{"a":"b"}`, false},
		{`{"image_url":"data:image/png;base64,AA"}`, true},
		{`{"partialJson":"{"}`, true},
		{`{"jsonlEvents":[]}`, true},
		{`{"type":"image","data":"` + big + `"}`, true},
		{`{"type":"image","data":"small"}`, false},
		{`{"text":"an image_url in text"}`, false},
		{`{"text":"say \"partialJson\""}`, false}, // an escaped quote ends no key
	}
	for _, tt := range tests {
		if got := needsPrepare([]byte(tt.raw)); got != tt.want {
			t.Errorf("needsPrepare(%.60s) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
