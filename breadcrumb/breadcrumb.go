package breadcrumb

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	// MaxKeyLen bounds a key so that the key plus the temporary-file decoration
	// stays below the usual 255-byte file name limit.
	MaxKeyLen = 200

	// maxFileSize bounds what Read accepts: two paths and a token are far
	// smaller, and anything bigger is not a breadcrumb.
	maxFileSize = 64 << 10

	// tempSuffix ends the name of a temporary file Write renames into place.
	// Together with the leading '.', which no key may start with, it keeps
	// temporary files apart from crumbs.
	tempSuffix = ".tmp"

	// graceAge is how old a temporary or malformed file must be before Prune
	// removes it: younger ones may still be being written, by us (temporary
	// files) or by TypeScript xcsh, which writes crumbs in place.
	graceAge = time.Minute
)

// Crumb is the content of one breadcrumb file.
type Crumb struct {
	// Cwd is the working directory of the session the crumb names.
	Cwd string
	// SessionFile is the session file, as written; a relative path is relative
	// to Cwd (see SessionPath).
	SessionFile string
	// Token is the generation token of the terminal that wrote the crumb; ""
	// for a two-line crumb written by TypeScript xcsh or by a terminal without
	// a token.
	Token string
}

// SessionPath returns c.SessionFile as an absolute, clean path: a relative
// session file is taken relative to c.Cwd.
func (c Crumb) SessionPath() string {
	if filepath.IsAbs(c.SessionFile) {
		return filepath.Clean(c.SessionFile)
	}
	return resolveAbs(filepath.Join(c.Cwd, c.SessionFile))
}

// CheckKey returns an error wrapping ErrInvalidKey when key cannot name a
// breadcrumb file. Keys come from terminal.Identity.Key, which is already
// sanitised; this check is the last line of defence against writing outside
// the terminal-sessions directory.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: %d bytes long (at most %d)", ErrInvalidKey, len(key), MaxKeyLen)
	case key[0] == '.':
		return fmt.Errorf("%w %q: starts with '.'", ErrInvalidKey, key)
	case strings.Contains(key, ".."):
		return fmt.Errorf("%w %q: contains \"..\"", ErrInvalidKey, key)
	case strings.ContainsAny(key, `/\`):
		return fmt.Errorf("%w %q: contains a path separator", ErrInvalidKey, key)
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w %q: contains a control character", ErrInvalidKey, key)
		}
	}
	return nil
}

// Path returns the breadcrumb file of key in dir, the terminal-sessions
// directory. It refuses (with ErrInvalidKey) any key that is not a plain file
// name, so the result is always directly inside dir.
func Path(dir, key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", fmt.Errorf("breadcrumb path in %s: %w", dir, err)
	}
	return filepath.Join(dir, key), nil
}

// Write atomically replaces the breadcrumb of key in dir with c: it creates
// dir (mode 0700) if needed, writes a temporary file (mode 0600) in dir and
// renames it over the crumb, so a reader sees the old or the new crumb, never
// a mix. The content is "cwd\nsessionFile\n", followed by "token\n" when
// c.Token is not empty.
func Write(dir, key string, c Crumb) error {
	path, err := Path(dir, key)
	if err != nil {
		return fmt.Errorf("write breadcrumb: %w", err)
	}
	if err := c.check(); err != nil {
		return fmt.Errorf("write breadcrumb %s: %w", path, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write breadcrumb %s: %w", path, err)
	}
	// CreateTemp creates the file with mode 0600 and O_EXCL, in dir itself so
	// that the rename below stays on one file system.
	f, err := os.CreateTemp(dir, "."+key+".*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("write breadcrumb %s: %w", path, err)
	}
	tmp := f.Name()
	if err := writeAndClose(f, c.encode()); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write breadcrumb %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write breadcrumb %s: %w", path, err)
	}
	return nil
}

func writeAndClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		// Without the sync a crash shortly after the rename can leave an empty
		// crumb on some file systems.
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func (c Crumb) check() error {
	switch {
	case c.Cwd == "":
		return fmt.Errorf("%w: empty cwd", ErrInvalidCrumb)
	case c.SessionFile == "":
		return fmt.Errorf("%w: empty session file", ErrInvalidCrumb)
	case strings.ContainsAny(c.Cwd, "\r\n"):
		return fmt.Errorf("%w: cwd %q contains a line break", ErrInvalidCrumb, c.Cwd)
	case strings.ContainsAny(c.SessionFile, "\r\n"):
		return fmt.Errorf("%w: session file %q contains a line break", ErrInvalidCrumb, c.SessionFile)
	case strings.ContainsAny(c.Token, "\r\n"):
		return fmt.Errorf("%w: token %q contains a line break", ErrInvalidCrumb, c.Token)
	}
	return nil
}

func (c Crumb) encode() []byte {
	s := c.Cwd + "\n" + c.SessionFile + "\n"
	if c.Token != "" {
		s += c.Token + "\n"
	}
	return []byte(s)
}

// Read reads the breadcrumb of key in dir. It accepts the two-line crumbs of
// TypeScript xcsh and the three-line crumbs Write produces, with LF or CRLF
// line ends. A missing crumb gives an error wrapping fs.ErrNotExist; content
// without a cwd and a session file line gives one wrapping ErrMalformed.
func Read(dir, key string) (Crumb, error) {
	path, err := Path(dir, key)
	if err != nil {
		return Crumb{}, fmt.Errorf("read breadcrumb: %w", err)
	}
	c, _, err := readFile(path)
	return c, err
}

// readFile reads and parses the crumb at path and returns the file's identity
// too, so Prune can tell whether the crumb was replaced in the meantime.
func readFile(path string) (Crumb, os.FileInfo, error) {
	// openFlags (O_NOFOLLOW|O_NONBLOCK on unix): a symlink or a FIFO planted
	// under the crumb's name must neither redirect nor block the read.
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return Crumb{}, nil, fmt.Errorf("read breadcrumb: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Crumb{}, nil, fmt.Errorf("read breadcrumb: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Crumb{}, fi, fmt.Errorf("read breadcrumb %s: %w: not a regular file", path, ErrMalformed)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Crumb{}, fi, fmt.Errorf("read breadcrumb %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return Crumb{}, fi, fmt.Errorf("read breadcrumb %s: %w: larger than %d bytes", path, ErrMalformed, maxFileSize)
	}
	c, err := parse(data)
	if err != nil {
		return Crumb{}, fi, fmt.Errorf("read breadcrumb %s: %w", path, err)
	}
	return c, fi, nil
}

// parse decodes a crumb: lines split on '\n', one trailing '\r' dropped from
// each. The first two lines must be non-empty; a third non-empty line is the
// token; further lines are ignored, as TypeScript xcsh ignores all but two.
func parse(data []byte) (Crumb, error) {
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if len(lines) < 2 || lines[0] == "" || lines[1] == "" {
		return Crumb{}, fmt.Errorf("%w: want a cwd line and a session file line", ErrMalformed)
	}
	c := Crumb{Cwd: lines[0], SessionFile: lines[1]}
	if len(lines) > 2 {
		c.Token = lines[2]
	}
	return c, nil
}

// Validate reports whether c may be followed from cwd in the terminal whose
// current generation token is token, and, when it may not, why.
//
//   - When both c.Token and token are non-empty they must be equal. A crumb
//     without a token (written by TypeScript xcsh) is accepted, and so is any
//     crumb when the terminal has no token (no tty).
//   - c.Cwd and cwd must name the same directory after resolving symlinks on
//     both sides (a side that cannot be resolved is compared as a clean
//     absolute path).
//   - The session file (c.SessionPath) must exist and be a regular file, and
//     isSession must accept it; a nil isSession accepts every regular file.
func Validate(c Crumb, cwd, token string, isSession func(path string) bool) (ok bool, reason string) {
	if c.Token != "" && token != "" && c.Token != token {
		return false, fmt.Sprintf("written by an earlier terminal on the same tty (generation token %q, this terminal %q)", c.Token, token)
	}
	if got, want := resolve(c.Cwd), resolve(cwd); got != want {
		return false, fmt.Sprintf("crumb is for %s, not %s", got, want)
	}
	file := c.SessionPath()
	fi, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, fmt.Sprintf("session file %s does not exist", file)
	case err != nil:
		return false, fmt.Sprintf("session file %s: %v", file, err)
	case !fi.Mode().IsRegular():
		return false, fmt.Sprintf("session file %s is not a regular file", file)
	case isSession != nil && !isSession(file):
		return false, fmt.Sprintf("%s is not a session file", file)
	}
	return true, ""
}

// resolve returns path with symlinks resolved, or its clean absolute form when
// that fails (a missing directory, no permission).
func resolve(path string) string {
	abs := resolveAbs(path)
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

func resolveAbs(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// Prune removes the crumbs in dir that keep rejects and returns their keys.
// keep sees every crumb Read can parse; a nil keep keeps them all. Prune also
// removes junk older than a minute: files that are not crumbs (ErrMalformed)
// and temporary files left by an interrupted Write. Files whose names are not
// valid keys, directories and symlinks are left alone. A missing dir is not an
// error. Errors on single files do not stop the walk; they are joined.
func Prune(dir string, keep func(key string, c Crumb) bool) (removed []string, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prune breadcrumbs: %w", err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		if isTemp(name) {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > graceAge {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("prune breadcrumbs: %w", err))
				}
			}
			continue
		}
		if CheckKey(name) != nil {
			continue
		}
		c, fi, err := readFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case errors.Is(err, ErrMalformed):
			if fi == nil || time.Since(fi.ModTime()) <= graceAge {
				continue
			}
		case err != nil:
			errs = append(errs, fmt.Errorf("prune breadcrumbs: %w", err))
			continue
		case keep == nil || keep(name, c):
			continue
		}
		// A writer may have renamed a fresh crumb over this one since it was
		// read; remove the file only if it is still the one that was judged.
		if now, err := os.Lstat(path); err != nil || !os.SameFile(fi, now) {
			continue
		}
		if err := os.Remove(path); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("prune breadcrumbs: %w", err))
			}
			continue
		}
		removed = append(removed, name)
	}
	return removed, errors.Join(errs...)
}

func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix)
}
