package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestIndexReusesAndRefreshes(t *testing.T) {
	opt, home := testOptions(t)
	opt.Storage = FileStorage{}
	m := Create(opt, filepath.Join(home, "proj"), "")
	mustAppend(t)(m.AppendMessage(userMsg("first question")))
	mustAppend(t)(m.AppendMessage(assistantMsg("answer")))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(m.SessionFile())
	ix := OpenIndex(nil, opt.SessionsRoot)
	list := ix.ListSessions(dir)
	if len(list) != 1 || list[0].MessageCount != 2 || list[0].FirstMessage != "first question" {
		t.Fatalf("first listing: %+v", list)
	}
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	// a cached entry is used while size and mtime match: prove it by
	// changing the file's content behind the index's back, keeping both
	fi, _ := os.Stat(m.SessionFile())
	data, _ := os.ReadFile(m.SessionFile())
	swapped := []byte(strings.Replace(string(data), "first question", "FIRST QUESTION", 1)) // same size
	if err := os.WriteFile(m.SessionFile(), swapped, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(m.SessionFile(), fi.ModTime(), fi.ModTime())
	ix2 := OpenIndex(nil, opt.SessionsRoot)
	if got := ix2.ListSessions(dir); len(got) != 1 || got[0].FirstMessage != "first question" {
		t.Fatalf("cached listing: %+v", got)
	}
	if ix2.dirty {
		t.Error("an unchanged file was read again (index marked dirty)")
	}
	// an append changes size and mtime: the entry is refreshed
	m2, err := Open(opt, m.SessionFile(), "")
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t)(m2.AppendMessage(userMsg("second question")))
	_ = m2.Close()
	later := time.Now().Add(time.Hour)
	_ = os.Chtimes(m.SessionFile(), later, later)
	if got := ix2.ListSessions(dir); got[0].MessageCount != 3 {
		t.Fatalf("refreshed listing: %+v", got)
	}
}

func TestIndexCorruptRebuilt(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, IndexFileName), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	ix := OpenIndex(nil, root)
	if len(ix.entries) != 0 {
		t.Fatal("corrupt index loaded")
	}
	if err := ix.Save(); err != nil {
		t.Fatalf("corrupt index not rewritten: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(root, IndexFileName))
	if string(data) == "garbage" {
		t.Error("corrupt index left in place")
	}
}
