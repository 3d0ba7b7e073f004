package history

import (
	"database/sql"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func openTest(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent", FileName)
	var sec atomic.Int64
	base := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	h, err := open(path, func() time.Time { return base.Add(time.Duration(sec.Add(1)) * time.Second) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h, path
}

// lister returns a function that takes a query's results and returns their
// prompts, failing t on an error.
func lister(t *testing.T) func([]Entry, error) []string {
	return func(es []Entry, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.Prompt
		}
		return out
	}
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// TestSchema: the tables, index, trigger and pragmas of reference section 11.
func TestSchema(t *testing.T) {
	h, _ := openTest(t)
	var names []string
	rows, err := h.db.Query(`SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'history_fts_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		names = append(names, s)
	}
	rows.Close()
	eq(t, "schema objects", names, []string{"table history", "trigger history_ai", "table history_fts", "index idx_history_created_at"})

	var sqlText string
	if err := h.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name='history_fts'`).Scan(&sqlText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sqlText, "fts5(prompt, content='history', content_rowid='id')") {
		t.Errorf("history_fts is %s", sqlText)
	}
	for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "1", "busy_timeout": "5000"} {
		var got string
		if err := h.db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	// created_at defaults to now, in seconds
	if _, err := h.db.Exec(`INSERT INTO history(prompt) VALUES ('x')`); err != nil {
		t.Fatal(err)
	}
	var ts int64
	if err := h.db.QueryRow(`SELECT created_at FROM history WHERE prompt='x'`).Scan(&ts); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(time.Unix(ts, 0)); d < -time.Minute || d > time.Minute {
		t.Errorf("default created_at %d is not now", ts)
	}
}

// TestAddSkips: prompts are trimmed; empty ones and a repeat of the last one
// are not remembered; a repeat of an older one is.
func TestAddSkips(t *testing.T) {
	h, _ := openTest(t)
	for _, p := range []string{"  first  ", "", "   \n", "first", "second", "second", "first"} {
		h.Add(p, "/proj")
	}
	eq(t, "Recent", lister(t)(h.Recent(10)), []string{"first", "second", "first"})
	es, _ := h.Recent(1)
	if es[0].Cwd != "/proj" {
		t.Errorf("cwd %q", es[0].Cwd)
	}
}

// TestAddOffTheTypingPath: Add returns before anything is written; the batch
// lands after DrainDelay, in one go.
func TestAddOffTheTypingPath(t *testing.T) {
	h, _ := openTest(t)
	start := time.Now()
	for i := range 50 {
		h.Add(strings.Repeat("p", i+1), "")
	}
	count := func() int {
		var n int
		if err := h.db.QueryRow(`SELECT count(*) FROM history`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Nothing is on disk before the drain timer, started by the first Add,
	// can have fired (on a machine too slow to look in time, this run
	// cannot tell, and says nothing).
	if n := count(); n != 0 && time.Since(start) < DrainDelay {
		t.Errorf("%d rows written at once, want none before the drain", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() != 50 {
		if time.Now().After(deadline) {
			t.Fatalf("the drain wrote %d rows, want 50", count())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLastSeededFromDB: after a reopen, the newest stored prompt is still
// not added twice in a row.
func TestLastSeededFromDB(t *testing.T) {
	h, path := openTest(t)
	h.Add("one", "")
	h.Add("two", "")
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	h2.Add("two", "")
	h2.Add("three", "")
	eq(t, "Recent", lister(t)(h2.Recent(10)), []string{"three", "two", "one"})
}

// TestRecentClamp: limits are clamped to 0..1000.
func TestRecentClamp(t *testing.T) {
	h, _ := openTest(t)
	for i := range 5 {
		h.Add(string(rune('a'+i)), "")
	}
	eq(t, "Recent(2)", lister(t)(h.Recent(2)), []string{"e", "d"})
	eq(t, "Recent(-1)", lister(t)(h.Recent(-1)), nil)
	eq(t, "Recent(5000)", lister(t)(h.Recent(5000)), []string{"e", "d", "c", "b", "a"})
}

// TestSearch: every word must match as a prefix; FTS syntax in the query is
// taken literally; newest first.
func TestSearch(t *testing.T) {
	h, _ := openTest(t)
	for _, p := range []string{
		"fix the parser on CRLF input",
		"refactor the lexer",
		`say "hello" to the parser`,
		"parser AND lexer OR NOT",
		"deploy",
	} {
		h.Add(p, "")
	}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"pars", []string{"parser AND lexer OR NOT", `say "hello" to the parser`, "fix the parser on CRLF input"}},
		{"the pars", []string{`say "hello" to the parser`, "fix the parser on CRLF input"}},
		{"lex", []string{"parser AND lexer OR NOT", "refactor the lexer"}},
		{`"hello"`, []string{`say "hello" to the parser`}},
		{"OR NOT", []string{"parser AND lexer OR NOT"}},
		{"crlf", []string{"fix the parser on CRLF input"}},
		{"parser*) NEAR(", nil},
		{"   ", nil},
		{"nothing", nil},
	} {
		got, err := h.Search(tt.q, 10)
		eq(t, "Search("+tt.q+")", lister(t)(got, err), tt.want)
	}
	if got := MatchQuery(`a "b c`); got != `"a"* AND """b"* AND "c"*` {
		t.Errorf("MatchQuery = %s", got)
	}
}

// TestMigrateOldSchema: a history table of the old schema (unixepoch()) is
// copied into the current one and indexed.
func TestMigrateOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE history(id INTEGER PRIMARY KEY AUTOINCREMENT, prompt TEXT NOT NULL, created_at INTEGER NOT NULL DEFAULT (unixepoch()), cwd TEXT)`,
		`INSERT INTO history(prompt, created_at, cwd) VALUES ('old prompt', 100, '/a'), ('older words', 50, NULL)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	h, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var tableSQL string
	_ = h.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name='history'`).Scan(&tableSQL)
	if strings.Contains(tableSQL, "unixepoch(") {
		t.Errorf("table not migrated: %s", tableSQL)
	}
	eq(t, "Search(old)", lister(t)(h.Search("old", 10)), []string{"old prompt", "older words"})
	h.Add("old prompt", "") // the newest by id is "older words", so this one is kept
	eq(t, "Recent", lister(t)(h.Recent(10)), []string{"old prompt", "old prompt", "older words"})
}

// TestRebuildWhenFTSAppears: rows stored before the index existed are found.
func TestRebuildWhenFTSAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(createTable + `; INSERT INTO history(prompt) VALUES ('before the index')`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	h, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	eq(t, "Search", lister(t)(h.Search("index", 10)), []string{"before the index"})
}
