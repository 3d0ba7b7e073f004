package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/xcsh-dev/xcsh/session"
)

// Port of harness/lib/dump.mjs.

// elideOver is the length (UTF-16 units) above which strings are replaced by a digest.
const elideOver = 4096

// maxInlineText is the size up to which a file snapshot holds the text.
const maxInlineText = 64 * 1024

// plain deep-copies v into plain JSON as dump.mjs plain() does: undefined
// members dropped (undefined in arrays becomes null), HOME replaced by
// "$HOME" in every string value, strings over elideOver units elided. The
// result of plain(undefined) is undefined.
func plain(v any, home string) any {
	switch x := v.(type) {
	case Undefined:
		return undef
	case nil, bool:
		return x
	case float64:
		if x == 0 { // -0 becomes 0 through JSON
			return float64(0)
		}
		return x
	case string:
		return elide(x, home)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if isUndef(e) {
				out[i] = nil
				continue
			}
			out[i] = plain(e, home)
		}
		return out
	case *Object:
		out := NewObject()
		for _, k := range x.keys {
			e := x.vals[k]
			if isUndef(e) {
				continue
			}
			out.Set(k, plain(e, home))
		}
		return out
	}
	return v
}

// elide rewrites HOME and replaces a long string by its digest object.
func elide(s, home string) any {
	if home != "" && strings.Contains(s, home) {
		s = strings.ReplaceAll(s, home, "$HOME")
	}
	if len(s) <= elideOver { // bytes >= units: short enough either way
		return s
	}
	u := utf16Units(s)
	if len(u) <= elideOver {
		return s
	}
	b := toUTF8(s)
	sum := sha256.Sum256([]byte(b))
	return obj(
		"$elided", true,
		"length", float64(len(u)),
		"utf8Bytes", float64(len(b)),
		"sha256", hex.EncodeToString(sum[:]),
		"head", fromUnits(u[:64]),
		"tail", fromUnits(u[len(u)-64:]),
	)
}

// listHomeFiles returns every regular file below home/<root> for each root, sorted.
func listHomeFiles(home string, roots []string) []string {
	var out []string
	for _, r := range roots {
		_ = filepath.WalkDir(filepath.Join(home, r), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// isBlobPath mirrors p.includes("/blobs/").
func isBlobPath(p string) bool {
	return strings.Contains(p, string(filepath.Separator)+"blobs"+string(filepath.Separator))
}

// snapshotFile records one file as dump.mjs snapshotFile does.
func snapshotFile(p, home string) any {
	buf, err := os.ReadFile(p)
	if err != nil {
		return obj("path", p, "error", err.Error())
	}
	st, err := os.Stat(p)
	if err != nil {
		return obj("path", p, "error", err.Error())
	}
	rel := p
	if strings.HasPrefix(p, home) {
		rel = "$HOME" + p[len(home):]
	}
	sum := sha256.Sum256(buf)
	rec := obj("path", rel, "size", float64(len(buf)), "sha256", hex.EncodeToString(sum[:]))
	if isBlobPath(p) {
		return rec
	}
	rec.Set("mtime", session.ISOTime(st.ModTime()))
	text := decodeText(buf)
	if len(buf) <= maxInlineText {
		if home != "" {
			text = strings.ReplaceAll(text, home, "$HOME")
		}
		rec.Set("text", text)
		return rec
	}
	parts := strings.Split(text, "\n")
	lines := make([]any, len(parts))
	for i, line := range parts {
		if v, err := parseJSON([]byte(line)); err == nil {
			lines[i] = obj("json", plain(v, home))
		} else {
			lines[i] = obj("raw", plain(line, home))
		}
	}
	rec.Set("lines", lines)
	return rec
}
