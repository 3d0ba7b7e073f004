package session

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// IndexFileName is the listing index kept at the top of the sessions root.
// It is a dot-file, so no session glob ever matches it.
const IndexFileName = ".xcsh-index.gob"

// indexVersion changes whenever the cached fields change meaning.
const indexVersion = 1

// MaxIndexedText bounds the message text kept per session in the index.
const MaxIndexedText = 256 << 10

// Index caches session metadata keyed by path, size and modification time,
// so listing thousands of sessions reads only the files that changed. A
// missing or corrupt index is rebuilt silently.
type Index struct {
	mu      sync.Mutex
	st      Storage
	path    string
	entries map[string]*indexEntry
	dirty   bool
}

type indexEntry struct {
	Size    int64          `json:"size"`
	MtimeNs int64          `json:"mtimeNs"`
	Checked bool           `json:"checked"`
	Info    *indexedInfo   `json:"info,omitempty"`
	Recent  *indexedRecent `json:"recent,omitempty"`
}

type indexedInfo struct {
	ID              string          `json:"id"`
	Cwd             string          `json:"cwd"`
	Title           *string         `json:"title,omitempty"`
	ParentSession   json.RawMessage `json:"parentSession,omitempty"`
	CreatedMs       *int64          `json:"createdMs,omitempty"`
	MessageCount    int             `json:"messageCount"`
	FirstMessage    string          `json:"firstMessage"`
	AllMessagesText string          `json:"allMessagesText"`
}

type indexedRecent struct {
	Valid    bool   `json:"valid"`
	FullName string `json:"fullName"`
}

type indexFile struct {
	Version int                    `json:"version"`
	Entries map[string]*indexEntry `json:"entries"`
}

// OpenIndex loads the index of a sessions root; problems give an empty index.
func OpenIndex(st Storage, root string) *Index {
	if st == nil {
		st = FileStorage{}
	}
	ix := &Index{st: st, path: filepath.Join(root, IndexFileName), entries: map[string]*indexEntry{}}
	data, err := st.ReadFile(ix.path)
	if err != nil {
		return ix
	}
	var f indexFile
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) != nil || f.Version != indexVersion || f.Entries == nil {
		ix.dirty = true
		return ix
	}
	ix.entries = f.Entries
	return ix
}

// Save writes the index atomically when it changed; entries of files that
// no longer exist are dropped.
func (ix *Index) Save() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for p := range ix.entries {
		if _, err := ix.st.Stat(p); err != nil {
			delete(ix.entries, p)
			ix.dirty = true
		}
	}
	if !ix.dirty {
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(indexFile{Version: indexVersion, Entries: ix.entries}); err != nil {
		return err
	}
	data := buf.Bytes()
	if err := ix.st.MkdirAll(filepath.Dir(ix.path)); err != nil {
		return err
	}
	err := ix.st.WriteAtomic(ix.path, "."+IndexFileName+"."+time.Now().Format("150405.000000000")+".tmp", func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err == nil {
		ix.dirty = false
	}
	return err
}

// lookup returns the cached entry for a file if its size and mtime match.
func (ix *Index) lookup(path string, fi fs.FileInfo) *indexEntry {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e := ix.entries[path]
	if e == nil || e.Size != fi.Size() || e.MtimeNs != fi.ModTime().UnixNano() {
		e = &indexEntry{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
		ix.entries[path] = e
		ix.dirty = true
	}
	return e
}

// Info returns the SessionInfo of path, from the cache when the file is unchanged.
func (ix *Index) Info(path string) (SessionInfo, bool) {
	fi, err := ix.st.Stat(path)
	if err != nil || fi.IsDir() {
		return SessionInfo{}, false
	}
	e := ix.lookup(path, fi)
	if !e.Checked {
		info, ok := ReadSessionInfo(ix.st, path)
		ix.mu.Lock()
		e.Checked, ix.dirty = true, true
		if ok {
			e.Info = toIndexed(info)
		}
		ix.mu.Unlock()
	}
	if e.Info == nil {
		return SessionInfo{}, false
	}
	return fromIndexed(path, fi.ModTime(), e.Info), true
}

func toIndexed(s SessionInfo) *indexedInfo {
	ii := &indexedInfo{ID: s.ID, Cwd: s.Cwd, Title: s.Title, ParentSession: s.ParentSessionPath,
		MessageCount: s.MessageCount, FirstMessage: s.FirstMessage, AllMessagesText: s.AllMessagesText}
	if len(ii.AllMessagesText) > MaxIndexedText {
		ii.AllMessagesText = strings.ToValidUTF8(ii.AllMessagesText[:MaxIndexedText], "")
	}
	if s.Created != nil {
		ms := s.Created.UnixMilli()
		ii.CreatedMs = &ms
	}
	return ii
}

func fromIndexed(path string, mtime time.Time, ii *indexedInfo) SessionInfo {
	s := SessionInfo{Path: path, ID: ii.ID, Cwd: ii.Cwd, Title: ii.Title, ParentSessionPath: ii.ParentSession,
		Modified: mtime, MessageCount: ii.MessageCount, FirstMessage: ii.FirstMessage, AllMessagesText: ii.AllMessagesText}
	if ii.CreatedMs != nil {
		t := time.UnixMilli(*ii.CreatedMs).UTC()
		s.Created = &t
	}
	return s
}

// Recent returns the recent-list row of path, from the cache when unchanged.
func (ix *Index) Recent(path string) (RecentSession, bool) {
	fi, err := ix.st.Stat(path)
	if err != nil || fi.IsDir() {
		return RecentSession{}, false
	}
	e := ix.lookup(path, fi)
	if e.Recent == nil {
		r, ok := recentOf(ix.st, path, fi)
		ix.mu.Lock()
		e.Recent = &indexedRecent{Valid: ok, FullName: r.FullName}
		ix.dirty = true
		ix.mu.Unlock()
	}
	if !e.Recent.Valid {
		return RecentSession{}, false
	}
	return RecentSession{Path: path, Mtime: fi.ModTime(), FullName: e.Recent.FullName, Name: shortName(e.Recent.FullName)}, true
}

// ListSessions is session.ListSessions through the index.
func (ix *Index) ListSessions(dir string) []SessionInfo {
	return ix.collect(sessionFiles(ix.st, dir))
}

// ListAllSessions is session.ListAllSessions through the index.
func (ix *Index) ListAllSessions(root string) []SessionInfo {
	return ix.collect(allSessionFiles(ix.st, root))
}

// RecentSessions is session.RecentSessions through the index.
func (ix *Index) RecentSessions(dir string, limit int) []RecentSession {
	var out []RecentSession
	for _, p := range sessionFiles(ix.st, dir) {
		if r, ok := ix.Recent(p); ok {
			out = append(out, r)
		}
	}
	sortRecent(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (ix *Index) collect(files []string) []SessionInfo {
	out := make([]SessionInfo, 0, len(files))
	for _, p := range files {
		if info, ok := ix.Info(p); ok {
			out = append(out, info)
		}
	}
	sortInfos(out)
	return out
}

func sortInfos(out []SessionInfo) {
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].Path > out[j].Path
	})
}

func sortRecent(out []RecentSession) {
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Mtime.Equal(out[j].Mtime) {
			return out[i].Mtime.After(out[j].Mtime)
		}
		return out[i].Path > out[j].Path
	})
}
