package session

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Fork copies the whole session into a new file in the same directory (/fork)
// with the old session id as parentSession, and continues in the new file. It
// returns the old and new paths; ok is false for in-memory sessions.
func (m *Manager) Fork() (oldFile, newFile string, ok bool, err error) {
	if !m.persist || m.file == "" {
		return "", "", false, nil
	}
	m.closeWriter()
	m.persistErr = nil
	oldFile = m.file
	oldID := m.SessionID()
	now := m.now()
	id := m.opt.IDs.Snowflake(now)
	ts := ISOTime(now)
	title := m.header.Get("title")
	if title == nil && m.name != "" {
		title = str(m.name)
	}
	m.header = newEntry(
		Field{Key: "type", Val: str(TypeSession)},
		Field{Key: "version", Val: []byte("3")},
		Field{Key: "id", Val: str(id)},
		Field{Key: "title", Val: title},
		Field{Key: "titleSource", Val: m.header.Get("titleSource")},
		Field{Key: "timestamp", Val: str(ts)},
		Field{Key: "cwd", Val: str(m.cwd)},
		Field{Key: "parentSession", Val: str(oldID)},
	)
	m.file = filepath.Join(m.sessionDir, FileName(ts, id))
	m.flushed = false
	m.notifyFile()
	if err := m.rewrite(); err != nil {
		return oldFile, m.file, true, m.latch(err)
	}
	m.ensuredOnDisk = true
	return oldFile, m.file, true, nil
}

// ForkFrom starts a new session in cwd's session dir (or sessionDir) holding
// a copy of the session at src, migrated and with blobs resolved, with the
// source id as parentSession; it is written at once. A missing or invalid
// source gives an empty new session, as in the reference; callers that need
// an error check src with Probe first.
func ForkFrom(opt Options, src, cwd, sessionDir string) (*Manager, error) {
	opt.fill()
	var srcEntries []*Entry
	if abs, err := filepath.Abs(src); err == nil {
		if es, err := LoadEntries(opt.Storage, abs); err == nil {
			srcEntries = es
		} else if !IsNotExist(err) && !isNotSession(err) {
			return nil, err
		}
	}
	m := Create(opt, cwd, sessionDir)
	if len(srcEntries) > 0 {
		taken := map[string]bool{}
		Migrate(srcEntries, func() string {
			id := opt.IDs.EntryID(func(s string) bool { return taken[s] }, opt.Clock())
			taken[id] = true
			return id
		})
		src := srcEntries[0]
		m.header.Set("parentSession", src.Get("id"))
		if t := src.Get("title"); t != nil {
			m.header.Set("title", t)
			m.name = rawString(t)
		}
		if t := src.Get("titleSource"); t != nil {
			m.header.Set("titleSource", t)
		}
		m.loadEntries(srcEntries[1:])
	}
	if err := m.rewrite(); err != nil {
		return m, m.latch(err)
	}
	m.ensuredOnDisk = true
	return m, nil
}

func isNotSession(err error) bool { return errors.Is(err, ErrNotSession) }

// CreateBranchedSession starts a new session holding only the path from the
// root to leafID (label entries dropped, their children relinked to the
// nearest kept ancestor, then the path's labels re-applied as fresh label
// entries), with the previous file as parentSession. Persistent sessions are
// written at once with the same preparation and atomic rewrite as every
// write. It returns the new file ("" in memory).
func (m *Manager) CreateBranchedSession(leafID string) (string, error) {
	leaf := m.byID[leafID]
	if leaf == nil {
		return "", entryNotFound(leafID)
	}
	path := pathIn(m.entries, m.byID, leaf)
	kept := make([]*Entry, 0, len(path))
	var lastKept string
	for _, e := range path {
		if e.Type == TypeLabel {
			continue
		}
		c := e.Clone()
		if c.ParentID != lastKept {
			if lastKept == "" {
				c.Set("parentId", rawNull)
			} else {
				c.Set("parentId", str(lastKept))
			}
		}
		kept = append(kept, c)
		lastKept = c.ID
	}
	labels := m.labels
	prevFile := m.file
	m.closeWriter()
	m.persistErr = nil
	now := m.now()
	id := m.opt.IDs.Snowflake(now)
	ts := ISOTime(now)
	var parent []byte
	if m.persist {
		parent = str(prevFile)
	}
	m.header = newEntry(
		Field{Key: "type", Val: str(TypeSession)},
		Field{Key: "version", Val: []byte("3")},
		Field{Key: "id", Val: str(id)},
		Field{Key: "timestamp", Val: str(ts)},
		Field{Key: "cwd", Val: str(m.cwd)},
		Field{Key: "parentSession", Val: parent},
	)
	m.resetState()
	m.entries = kept
	for _, e := range kept {
		m.index(e)
	}
	m.leaf = lastKept
	for _, e := range kept {
		if l, ok := labels[e.ID]; ok {
			lid := m.opt.IDs.EntryID(func(s string) bool { _, ok := m.byID[s]; return ok }, now)
			parentID := rawNull
			if m.leaf != "" {
				parentID = str(m.leaf)
			}
			le := newEntry(
				Field{Key: "type", Val: str(TypeLabel)},
				Field{Key: "id", Val: str(lid)},
				Field{Key: "parentId", Val: parentID},
				Field{Key: "timestamp", Val: str(ts)},
				Field{Key: "targetId", Val: str(e.ID)},
				Field{Key: "label", Val: str(l)},
			)
			m.entries = append(m.entries, le)
			m.index(le)
			m.leaf = lid
		}
	}
	if !m.persist {
		m.file = ""
		return "", nil
	}
	m.file = filepath.Join(m.sessionDir, FileName(ts, id))
	m.notifyFile()
	m.flushed = false
	if err := m.rewrite(); err != nil {
		return m.file, m.latch(fmt.Errorf("branched session: %w", err))
	}
	return m.file, nil
}
