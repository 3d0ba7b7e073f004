package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

const (
	// MaxPersistChars is the longest string (in UTF-16 units) written to disk.
	MaxPersistChars = 500000
	// TruncationNotice is appended to a string cut for persistence.
	TruncationNotice = "\n\n[Session persistence truncated large content]"
	// BlobThreshold is the base64 length from which image data goes to the blob store.
	BlobThreshold = 1024
	// BlobPrefix starts a reference to a blob in place of image data.
	BlobPrefix = "blob:sha256:"
)

// BlobStore keeps externalised image data by content hash: <dir>/<sha256>.
type BlobStore struct {
	st  Storage
	dir string
}

// NewBlobStore returns a blob store in dir.
func NewBlobStore(st Storage, dir string) *BlobStore { return &BlobStore{st: st, dir: dir} }

// Put stores data and returns its sha256 hex digest. Existing blobs are not rewritten.
func (b *BlobStore) Put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	p := filepath.Join(b.dir, h)
	if st, err := b.st.Stat(p); err == nil && st.Size() == int64(len(data)) {
		return h, nil
	}
	if err := b.st.WriteAtomic(p, "."+h+".tmp", func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return "", fmt.Errorf("write blob %s: %w", p, err)
	}
	return h, nil
}

// Get returns the blob with the given hex digest.
func (b *BlobStore) Get(hash string) ([]byte, error) {
	if len(hash) != 64 || strings.ContainsAny(hash, "/\\.") {
		return nil, fmt.Errorf("bad blob reference %q", hash)
	}
	return b.st.ReadFile(filepath.Join(b.dir, hash))
}

var (
	sigImageURL    = []byte(`"image_url"`)
	sigPartialJSON = []byte(`"partialJson"`)
	sigJsonlEvents = []byte(`"jsonlEvents"`)
	sigImage       = []byte(`"image"`)
)

// needsPrepare reports whether raw holds any string that preparation may
// change: "image_url", "partialJson", "jsonlEvents", or (from the blob
// threshold on) "image". One pass from quote to quote.
func needsPrepare(raw []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(raw[i:], '"')
		if j < 0 {
			return false
		}
		i += j + 1
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case 'i':
			if bytes.HasPrefix(raw[i-1:], sigImageURL) || (len(raw) >= BlobThreshold && bytes.HasPrefix(raw[i-1:], sigImage)) {
				return true
			}
		case 'p':
			if bytes.HasPrefix(raw[i-1:], sigPartialJSON) {
				return true
			}
		case 'j':
			if bytes.HasPrefix(raw[i-1:], sigJsonlEvents) {
				return true
			}
		}
	}
}

// prepareForDisk returns the bytes to persist for an entry (reference section
// 5, "Truncation and preparation"): long strings cut, signatures blanked,
// image data externalised, partialJson and jsonlEvents dropped, lineCount
// recomputed. In-memory entries are never changed.
func prepareForDisk(raw []byte, blobs *BlobStore) ([]byte, error) {
	if len(raw) <= MaxPersistChars && !needsPrepare(raw) {
		return raw, nil
	}
	n, err := jsjson.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("prepare entry: %w", err)
	}
	p := preparer{blobs: blobs}
	if !p.walk(n, "") {
		return raw, p.err
	}
	if p.err != nil {
		return nil, p.err
	}
	return n.AppendJSON(nil), nil
}

type preparer struct {
	blobs *BlobStore
	err   error
}

// walk transforms n in place and reports whether anything changed.
func (p *preparer) walk(n *jsjson.Node, key string) bool {
	switch n.Kind {
	case '"':
		return p.prepString(n, key)
	case '[':
		changed := false
		if key == "content" {
			for _, it := range n.Items {
				if p.externaliseImage(it) {
					changed = true
				}
			}
		}
		for _, it := range n.Items {
			if p.walk(it, key) {
				changed = true
			}
		}
		return changed
	case '{':
		changed := false
		if n.Delete("partialJson") {
			changed = true
		}
		if n.Delete("jsonlEvents") {
			changed = true
		}
		for i, k := range n.Keys {
			if p.walk(n.Vals[i], k) {
				changed = true
			}
		}
		if changed {
			c, lc := n.Get("content"), n.Get("lineCount")
			if c != nil && c.Kind == '"' && lc != nil && lc.Kind == '0' {
				n.Set("lineCount", jsjson.NewNumber(float64(strings.Count(c.Str, "\n")+1)))
			}
		}
		return changed
	}
	return false
}

func (p *preparer) prepString(n *jsjson.Node, key string) bool {
	if key == "image_url" && strings.HasPrefix(n.Str, "data:image/") && strings.Contains(n.Str, ";base64,") {
		if p.blobs == nil {
			return false
		}
		h, err := p.blobs.Put([]byte(n.Str))
		if err != nil {
			p.err = err
			return false
		}
		n.Str = BlobPrefix + h
		return true
	}
	if len(n.Str) <= MaxPersistChars || jsjson.UTF16Len(n.Str) <= MaxPersistChars {
		return false
	}
	switch key {
	case "thinkingSignature", "thoughtSignature", "textSignature":
		n.Str = ""
	default:
		n.Str = truncateUTF16(n.Str, MaxPersistChars-jsjson.UTF16Len(TruncationNotice)) + TruncationNotice
	}
	return true
}

func (p *preparer) externaliseImage(it *jsjson.Node) bool {
	if it.Kind != '{' || p.blobs == nil {
		return false
	}
	t, d := it.Get("type"), it.Get("data")
	if t == nil || t.Kind != '"' || t.Str != "image" || d == nil || d.Kind != '"' ||
		strings.HasPrefix(d.Str, BlobPrefix) || jsjson.UTF16Len(d.Str) < BlobThreshold {
		return false
	}
	h, err := p.blobs.Put(decodeBase64Lenient(d.Str))
	if err != nil {
		p.err = err
		return false
	}
	d.Str = BlobPrefix + h
	return true
}

// truncateUTF16 cuts WTF-8 s to at most n UTF-16 units, never leaving a
// high surrogate as the last unit.
func truncateUTF16(s string, n int) string {
	units := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		u := 1
		if r == utf8.RuneError && w == 1 && i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 {
			w = 3 // a lone surrogate in WTF-8
			if s[i+1] < 0xB0 && units+1 == n {
				return s[:i] // a high surrogate would end the string
			}
		} else if r >= 0x10000 {
			u = 2
		}
		if units+u > n {
			return s[:i]
		}
		units += u
		i += w
	}
	return s
}

// decodeBase64Lenient decodes as Node's Buffer.from(s, "base64"): characters
// outside the alphabet are skipped, url-safe letters accepted, '=' ends the data.
func decodeBase64Lenient(s string) []byte {
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			buf = append(buf, c)
		case c == '-':
			buf = append(buf, '+')
		case c == '_':
			buf = append(buf, '/')
		case c == '=':
			i = len(s)
		}
	}
	if len(buf)%4 == 1 {
		buf = buf[:len(buf)-1]
	}
	out, err := base64.RawStdEncoding.DecodeString(string(buf))
	if err != nil {
		return nil
	}
	return out
}

// resolveBlobs replaces blob references in a loaded entry by their data:
// image data in every "content" array (nested ones too, unlike the reference)
// and image_url strings anywhere. A missing blob leaves the reference.
func resolveBlobs(e *Entry, blobs *BlobStore) {
	if blobs == nil || e.marks&jsjson.MarkBlobRef == 0 {
		return
	}
	n, err := jsjson.Parse(e.JSON())
	if err != nil {
		return
	}
	if !resolveNode(n, "", blobs) {
		return
	}
	out := n.AppendJSON(nil)
	vals := jsjson.ParseJSONL(out)
	if len(vals) == 1 {
		*e = *entryFromValue(vals[0])
	}
}

func resolveNode(n *jsjson.Node, key string, blobs *BlobStore) bool {
	changed := false
	switch n.Kind {
	case '"':
		if key == "image_url" && strings.HasPrefix(n.Str, BlobPrefix) {
			if data, err := blobs.Get(n.Str[len(BlobPrefix):]); err == nil {
				n.Str = string(data)
				return true
			}
		}
	case '[':
		for _, it := range n.Items {
			if key == "content" && it.Kind == '{' {
				t, d := it.Get("type"), it.Get("data")
				if t != nil && t.Str == "image" && d != nil && d.Kind == '"' && strings.HasPrefix(d.Str, BlobPrefix) {
					if data, err := blobs.Get(d.Str[len(BlobPrefix):]); err == nil {
						d.Str = base64.StdEncoding.EncodeToString(data)
						changed = true
					}
				}
			}
			if resolveNode(it, key, blobs) {
				changed = true
			}
		}
	case '{':
		for i, k := range n.Keys {
			if resolveNode(n.Vals[i], k, blobs) {
				changed = true
			}
		}
	}
	return changed
}
