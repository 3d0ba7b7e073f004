package session

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Storage is where session files live: the file system, or memory.
type Storage interface {
	// ReadFile returns the whole file.
	ReadFile(path string) ([]byte, error)
	// ReadPrefix returns at most n bytes from the start of the file.
	ReadPrefix(path string, n int) ([]byte, error)
	// Stat describes a file.
	Stat(path string) (fs.FileInfo, error)
	// MkdirAll creates a directory (mode 0700) and its parents.
	MkdirAll(dir string) error
	// ReadDir lists a directory, sorted by name.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// OpenAppend opens a file for appending, creating it with mode 0600.
	OpenAppend(path string) (Appender, error)
	// WriteAtomic replaces path with what write produces: a temp file in the
	// same directory, flushed and fsynced, renamed over path, directory fsynced.
	// tmpName is the temp file's base name.
	WriteAtomic(path, tmpName string, write func(w io.Writer) error) error
	// Remove deletes a file.
	Remove(path string) error
	// Chtimes sets a file's modification time.
	Chtimes(path string, mtime time.Time) error
}

// Appender appends lines to one file.
type Appender interface {
	io.Writer
	// Sync flushes the file to stable storage.
	Sync() error
	// Close closes the file.
	Close() error
	// EndsWithNewline reports whether the file, as opened, was empty or ended in '\n'.
	EndsWithNewline() bool
}

// FileStorage is the file system.
type FileStorage struct{}

// ReadFile implements Storage.
func (FileStorage) ReadFile(p string) ([]byte, error) { return os.ReadFile(p) }

// ReadPrefix implements Storage.
func (FileStorage) ReadPrefix(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:k], err
}

// Stat implements Storage.
func (FileStorage) Stat(p string) (fs.FileInfo, error) { return os.Stat(p) }

// MkdirAll implements Storage.
func (FileStorage) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }

// ReadDir implements Storage.
func (FileStorage) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// Remove implements Storage.
func (FileStorage) Remove(p string) error { return os.Remove(p) }

// Chtimes implements Storage.
func (FileStorage) Chtimes(p string, t time.Time) error { return os.Chtimes(p, t, t) }

type fileAppender struct {
	*os.File
	nl bool
}

func (a *fileAppender) EndsWithNewline() bool { return a.nl }

// OpenAppend implements Storage.
func (FileStorage) OpenAppend(p string) (Appender, error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	a := &fileAppender{File: f, nl: true}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		var last [1]byte
		if r, err := os.Open(p); err == nil {
			if _, err := r.ReadAt(last[:], st.Size()-1); err == nil {
				a.nl = last[0] == '\n'
			}
			r.Close()
		}
	}
	return a, nil
}

// WriteAtomic implements Storage.
func (FileStorage) WriteAtomic(p, tmpName string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, tmpName)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, p); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// MemoryStorage keeps files in memory, for tests and sessions without a disk.
type MemoryStorage struct {
	mu    sync.Mutex
	files map[string]*memFile
	dirs  map[string]bool
	// Fail, when set, is called before every write; a non-nil result fails it.
	Fail func(op, path string) error
}

type memFile struct {
	data  []byte
	mtime time.Time
}

// NewMemoryStorage returns an empty in-memory storage.
func NewMemoryStorage() *MemoryStorage {
	return &MemoryStorage{files: map[string]*memFile{}, dirs: map[string]bool{}}
}

func (m *MemoryStorage) fail(op, p string) error {
	if m.Fail != nil {
		return m.Fail(op, p)
	}
	return nil
}

// ReadFile implements Storage.
func (m *MemoryStorage) ReadFile(p string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[filepath.Clean(p)]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return bytes.Clone(f.data), nil
}

// ReadPrefix implements Storage.
func (m *MemoryStorage) ReadPrefix(p string, n int) ([]byte, error) {
	b, err := m.ReadFile(p)
	if len(b) > n {
		b = b[:n]
	}
	return b, err
}

type memInfo struct {
	name  string
	size  int64
	mtime time.Time
	dir   bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o700
	}
	return 0o600
}
func (i memInfo) ModTime() time.Time         { return i.mtime }
func (i memInfo) IsDir() bool                { return i.dir }
func (i memInfo) Sys() any                   { return nil }
func (i memInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i memInfo) Info() (fs.FileInfo, error) { return i, nil }

// Stat implements Storage.
func (m *MemoryStorage) Stat(p string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p = filepath.Clean(p)
	if f, ok := m.files[p]; ok {
		return memInfo{filepath.Base(p), int64(len(f.data)), f.mtime, false}, nil
	}
	if m.dirs[p] {
		return memInfo{name: filepath.Base(p), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

// MkdirAll implements Storage.
func (m *MemoryStorage) MkdirAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		m.dirs[d] = true
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// ReadDir implements Storage.
func (m *MemoryStorage) ReadDir(dir string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = filepath.Clean(dir)
	if !m.dirs[dir] {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for p, f := range m.files {
		if filepath.Dir(p) == dir {
			out = append(out, memInfo{filepath.Base(p), int64(len(f.data)), f.mtime, false})
		}
	}
	for d := range m.dirs {
		if filepath.Dir(d) == dir && d != dir {
			out = append(out, memInfo{name: filepath.Base(d), dir: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Remove implements Storage.
func (m *MemoryStorage) Remove(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p = filepath.Clean(p)
	if _, ok := m.files[p]; !ok {
		return &fs.PathError{Op: "remove", Path: p, Err: fs.ErrNotExist}
	}
	delete(m.files, p)
	return nil
}

// Chtimes implements Storage.
func (m *MemoryStorage) Chtimes(p string, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[filepath.Clean(p)]
	if !ok {
		return &fs.PathError{Op: "chtimes", Path: p, Err: fs.ErrNotExist}
	}
	f.mtime = t
	return nil
}

type memAppender struct {
	m    *MemoryStorage
	path string
	nl   bool
}

func (a *memAppender) Write(b []byte) (int, error) {
	if err := a.m.fail("write", a.path); err != nil {
		return 0, err
	}
	a.m.mu.Lock()
	defer a.m.mu.Unlock()
	f := a.m.files[a.path]
	if f == nil {
		f = &memFile{}
		a.m.files[a.path] = f
	}
	f.data = append(f.data, b...)
	f.mtime = time.Now()
	return len(b), nil
}
func (a *memAppender) Sync() error           { return a.m.fail("sync", a.path) }
func (a *memAppender) Close() error          { return nil }
func (a *memAppender) EndsWithNewline() bool { return a.nl }

// OpenAppend implements Storage.
func (m *MemoryStorage) OpenAppend(p string) (Appender, error) {
	if err := m.fail("open", p); err != nil {
		return nil, err
	}
	_ = m.MkdirAll(filepath.Dir(p))
	m.mu.Lock()
	defer m.mu.Unlock()
	p = filepath.Clean(p)
	nl := true
	if f, ok := m.files[p]; ok && len(f.data) > 0 {
		nl = f.data[len(f.data)-1] == '\n'
	} else if !ok {
		m.files[p] = &memFile{mtime: time.Now()}
	}
	return &memAppender{m: m, path: p, nl: nl}, nil
}

// WriteAtomic implements Storage.
func (m *MemoryStorage) WriteAtomic(p, _ string, write func(w io.Writer) error) error {
	if err := m.fail("write", p); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_ = m.MkdirAll(filepath.Dir(p))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[filepath.Clean(p)] = &memFile{data: buf.Bytes(), mtime: time.Now()}
	return nil
}

// Files lists the stored file paths, sorted.
func (m *MemoryStorage) Files() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for p := range m.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
