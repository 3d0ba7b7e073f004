package session

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ErrIsDirectory is returned when a session path names a directory.
var ErrIsDirectory = errors.New("is a directory, not a session file")

// MissingError says a session file does not exist; it matches fs.ErrNotExist.
type MissingError struct{ Path string }

func (e *MissingError) Error() string { return "session file " + e.Path + " does not exist" }

// Unwrap makes errors.Is(err, fs.ErrNotExist) true.
func (e *MissingError) Unwrap() error { return fs.ErrNotExist }

// Probe checks that path is an existing session file without changing it. The
// error names the path and says what is wrong: missing, a directory, or not
// a session.
func Probe(st Storage, path string) error {
	if st == nil {
		st = FileStorage{}
	}
	fi, err := st.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &MissingError{Path: path}
		}
		return fmt.Errorf("session file %s: %w", path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s %w", path, ErrIsDirectory)
	}
	prefix, err := st.ReadPrefix(path, 64*1024)
	if err != nil {
		return fmt.Errorf("read session %s: %w", path, err)
	}
	entries := ParseEntries(decodePrefix(prefix))
	if len(entries) == 0 || !isHeader(entries[0]) {
		return fmt.Errorf("%s is %w: its first line is not a session header ({\"type\":\"session\",\"id\":...})", path, ErrNotSession)
	}
	return nil
}

// Load reads a session for inspection: migrated, blobs resolved, leaf at the
// last entry, in memory only. It never writes anything.
func Load(opt Options, path string) (*Manager, error) {
	opt.fill()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", path, err)
	}
	if err := Probe(opt.Storage, abs); err != nil {
		return nil, err
	}
	entries, err := LoadEntries(opt.Storage, abs)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	Migrate(entries, func() string {
		id := opt.IDs.EntryID(func(s string) bool { return taken[s] }, opt.Clock())
		taken[id] = true
		return id
	})
	m := newManager(opt, entries[0].GetString("cwd"), filepath.Dir(abs), false)
	m.header = entries[0]
	m.name = m.header.GetString("title")
	m.loadEntries(entries[1:])
	m.file = abs
	return m, nil
}
