package session

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

var dirNameReplacer = strings.NewReplacer("/", "-", "\\", "-", ":", "-")

// realpath resolves symlinks, falling back to the cleaned absolute path.
func realpath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// within reports whether p is root or below it.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return rel, true
}

// SessionDirName returns the name of the directory under sessions/ that holds
// the sessions of cwd: "-<rel>" inside home ("-" for home itself), "-tmp-<rel>"
// inside the temp dir, else the legacy "--<abs>--" form. Paths are resolved
// through symlinks first.
func SessionDirName(cwd, home, tmp string) string {
	canonical := realpath(cwd)
	if home != "" {
		if rel, ok := within(realpath(home), canonical); ok {
			if rel == "" {
				return "-"
			}
			return "-" + dirNameReplacer.Replace(rel)
		}
	}
	if tmp != "" {
		if rel, ok := within(realpath(tmp), canonical); ok {
			if rel == "" {
				return "-tmp"
			}
			return "-tmp-" + dirNameReplacer.Replace(rel)
		}
	}
	return legacyDirName(canonical)
}

// legacyDirName is the "--<path without leading slash, /\: as ->--" form.
func legacyDirName(p string) string {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "/"), "\\")
	return "--" + dirNameReplacer.Replace(p) + "--"
}

var migratedRoots sync.Map // root -> struct{}

// prepareSessionDir computes the session dir of cwd under root, migrates the
// legacy directory forms into it (once per root for home-encoded dirs) and
// creates it with mode 0700.
func prepareSessionDir(root, cwd, home, tmp string) string {
	if _, done := migratedRoots.LoadOrStore(root, struct{}{}); !done && home != "" {
		migrateHomeSessionDirs(root, home)
	}
	dir := filepath.Join(root, SessionDirName(cwd, home, tmp))
	abs, _ := filepath.Abs(cwd)
	if legacy := filepath.Join(root, legacyDirName(abs)); legacy != dir {
		mergeDir(legacy, dir)
	}
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

// migrateHomeSessionDirs renames "--<home>--" to "-" and "--<home>-<rest>--"
// to "-<rest>".
func migrateHomeSessionDirs(root, home string) {
	enc := legacyDirName(filepath.Clean(home))
	prefix := strings.TrimSuffix(enc, "--")
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasSuffix(name, "--") {
			continue
		}
		var target string
		switch {
		case name == enc:
			target = "-"
		case strings.HasPrefix(name, prefix+"-") && len(name) > len(prefix)+3:
			target = "-" + strings.TrimSuffix(strings.TrimPrefix(name, prefix+"-"), "--")
		default:
			continue
		}
		mergeDir(filepath.Join(root, name), filepath.Join(root, target))
	}
}

// mergeDir moves the files of old into dir. Unlike the reference, a file whose
// name is taken in dir stays in old, and old is removed only when empty, so a
// collision never deletes a session.
func mergeDir(old, dir string) {
	st, err := os.Stat(old)
	if err != nil || !st.IsDir() {
		return
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		_ = os.Rename(old, dir)
		return
	}
	ents, err := os.ReadDir(old)
	if err != nil {
		return
	}
	for _, e := range ents {
		dst := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		_ = os.Rename(filepath.Join(old, e.Name()), dst)
	}
	_ = os.Remove(old)
}
