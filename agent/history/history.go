// Package history is the prompt history: every prompt typed into the chat
// screen, in <agent>/history.db, an SQLite database with a full-text index
// (reference section 11). It is separate from session files; nothing in a
// session refers to it.
//
// The driver is modernc.org/sqlite, pure Go, so the binary needs no C
// toolchain.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, FTS5 included
)

// FileName is the history database's name in the agent dir.
const FileName = "history.db"

// DrainDelay is how long an added prompt waits before it is written, so that
// typing never waits for the disk and prompts added together share one
// transaction. The reference waits 100 ms (its seed's "setImmediate" is wrong).
const DrainDelay = 100 * time.Millisecond

// MaxLimit bounds the rows one query returns.
const MaxLimit = 1000

// The schema of reference section 11, statement by statement.
const (
	createTable = `CREATE TABLE IF NOT EXISTS history(
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	prompt TEXT NOT NULL,
	created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s','now') AS INTEGER)),
	cwd TEXT
)`
	createIndex   = `CREATE INDEX IF NOT EXISTS idx_history_created_at ON history(created_at DESC)`
	createFTS     = `CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(prompt, content='history', content_rowid='id')`
	createTrigger = `CREATE TRIGGER IF NOT EXISTS history_ai AFTER INSERT ON history BEGIN
	INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt);
END`
	rebuildFTS = `INSERT INTO history_fts(history_fts) VALUES('rebuild')`
)

// Entry is one remembered prompt.
type Entry struct {
	ID        int64
	Prompt    string
	CreatedAt time.Time // whole seconds
	Cwd       string
}

// DB is an open prompt history. Its methods are safe for concurrent use.
type DB struct {
	db  *sql.DB
	now func() time.Time

	wmu sync.Mutex // held while a batch is written, so Flush waits for a drain in flight

	mu      sync.Mutex
	last    string  // the last prompt added (or, at open, stored): never added twice in a row
	pending []Entry // added, not yet written
	timer   *time.Timer
	err     error // the first failed write, reported by Flush and Close
	closed  bool
}

// Open opens (creating when needed) the history database at path.
func Open(path string) (*DB, error) {
	return open(path, time.Now)
}

func open(path string, now func() time.Time) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// The pragmas are in the DSN so that every pooled connection gets them.
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("history: open %s: %w", path, err)
	}
	h := &DB{db: db, now: now}
	if err := h.migrate(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	var last sql.NullString
	if err := db.QueryRow(`SELECT prompt FROM history ORDER BY id DESC LIMIT 1`).Scan(&last); err != nil && !errors.Is(err, sql.ErrNoRows) {
		_ = db.Close()
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	h.last = last.String
	return h, nil
}

// migrate creates the schema; a table of the old schema (created_at
// defaulting to unixepoch()) is copied into the current one, and the full-text
// index is rebuilt whenever it is new.
func (h *DB) migrate() error {
	tx, err := h.db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var tableSQL sql.NullString
	err = tx.QueryRow(`SELECT sql FROM sqlite_master WHERE type='table' AND name='history'`).Scan(&tableSQL)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	rebuild := false
	if strings.Contains(tableSQL.String, "unixepoch(") {
		for _, s := range []string{
			`DROP TRIGGER IF EXISTS history_ai`,
			`DROP TABLE IF EXISTS history_fts`,
			`ALTER TABLE history RENAME TO history_old`,
			createTable,
			`INSERT INTO history(id, prompt, created_at, cwd) SELECT id, prompt, created_at, cwd FROM history_old`,
			`DROP TABLE history_old`,
		} {
			if _, err := tx.Exec(s); err != nil {
				return fmt.Errorf("migrate the old schema: %w", err)
			}
		}
		rebuild = true
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='history_fts'`).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		rebuild = true
	}
	for _, s := range []string{createTable, createIndex, createFTS, createTrigger} {
		if _, err := tx.Exec(s); err != nil {
			return err
		}
	}
	if rebuild {
		if _, err := tx.Exec(rebuildFTS); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Add remembers a prompt typed in cwd. The prompt is trimmed; an empty one,
// or one equal to the last prompt added, is skipped. Add never waits for the
// disk: prompts are written together DrainDelay later (see Flush).
func (h *DB) Add(prompt, cwd string) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || prompt == h.last {
		return
	}
	h.last = prompt
	h.pending = append(h.pending, Entry{Prompt: prompt, Cwd: cwd, CreatedAt: h.now().Truncate(time.Second)})
	if h.timer == nil {
		h.timer = time.AfterFunc(DrainDelay, func() { _ = h.drain() })
	}
}

// drain writes the pending prompts in one transaction.
func (h *DB) drain() error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.mu.Lock()
	batch := h.pending
	h.pending = nil
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
	h.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := h.write(batch)
	if err != nil {
		h.mu.Lock()
		if h.err == nil {
			h.err = err
		}
		h.mu.Unlock()
	}
	return err
}

func (h *DB) write(batch []Entry) error {
	tx, err := h.db.Begin()
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	stmt, err := tx.Prepare(`INSERT INTO history(prompt, created_at, cwd) VALUES (?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer stmt.Close()
	for _, e := range batch {
		var cwd any
		if e.Cwd != "" {
			cwd = e.Cwd
		}
		if _, err := stmt.Exec(e.Prompt, e.CreatedAt.Unix(), cwd); err != nil {
			return fmt.Errorf("history: add: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Flush writes the pending prompts now and returns the first write error
// since the history was opened.
func (h *DB) Flush() error {
	_ = h.drain()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// Close flushes and closes the database.
func (h *DB) Close() error {
	err := h.Flush()
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	return errors.Join(err, h.db.Close())
}

func clamp(n int) int { return max(0, min(n, MaxLimit)) }

// Recent returns the n newest prompts, newest first (n is clamped to
// 0..MaxLimit). Prompts still pending are included.
func (h *DB) Recent(n int) ([]Entry, error) {
	if err := h.Flush(); err != nil {
		return nil, err
	}
	return h.query(context.Background(), `SELECT id, prompt, created_at, cwd FROM history
		ORDER BY created_at DESC, id DESC LIMIT ?`, clamp(n))
}

// Search returns up to n prompts matching every word of q as a prefix,
// newest first. Each word is quoted for FTS5 ("tok"*, with '"' doubled), so
// q is never taken for FTS syntax. An empty q matches nothing.
func (h *DB) Search(q string, n int) ([]Entry, error) {
	match := MatchQuery(q)
	if match == "" {
		return nil, nil
	}
	if err := h.Flush(); err != nil {
		return nil, err
	}
	return h.query(context.Background(), `SELECT h.id, h.prompt, h.created_at, h.cwd
		FROM history_fts JOIN history h ON h.id = history_fts.rowid
		WHERE history_fts MATCH ? ORDER BY h.created_at DESC, h.id DESC LIMIT ?`, match, clamp(n))
}

// MatchQuery turns q into an FTS5 query as the reference does: every
// whitespace-separated token becomes "tok"* with '"' doubled, and the
// tokens are ANDed.
func MatchQuery(q string) string {
	toks := strings.Fields(q)
	for i, t := range toks {
		toks[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"*`
	}
	return strings.Join(toks, " AND ")
}

func (h *DB) query(ctx context.Context, q string, args ...any) ([]Entry, error) {
	rows, err := h.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var ts int64
		var cwd sql.NullString
		if err := rows.Scan(&e.ID, &e.Prompt, &ts, &cwd); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		e.CreatedAt, e.Cwd = time.Unix(ts, 0), cwd.String
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}
