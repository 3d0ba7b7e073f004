package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// ParseEntries parses the bytes of a session file leniently (reference section
// 2): bad lines, a torn last line and non-object lines are dropped, a BOM is
// stripped, a value may span lines. Every returned entry is in canonical form.
// No migration and no validation of the header is done.
func ParseEntries(data []byte) []*Entry {
	return jsjson.ParseJSONLAs(data, newEntryConv)
}

// newEntryConv returns a converter from parsed values to entries for one
// scanning goroutine: entries come from its own slabs, and their type, ids
// and timestamp are read while the line is still in the CPU's caches.
func newEntryConv() func(jsjson.Value) (*Entry, bool) {
	var slab []Entry
	return func(v jsjson.Value) (*Entry, bool) {
		if v.Kind != '{' {
			return nil, false // a non-object line is skipped like any bad line
		}
		if !v.Canonical {
			c, err := jsjson.Canonical(v.Raw)
			if err != nil {
				return nil, false
			}
			cv := jsjson.ParseJSONL(c)
			if len(cv) != 1 {
				return nil, false
			}
			v = cv[0]
		}
		if len(slab) == 0 {
			slab = make([]Entry, 512)
		}
		e := &slab[0]
		slab = slab[1:]
		e.setValue(v)
		return e, true
	}
}

// isHeader reports whether e is a valid session header: type "session" and a string id.
func isHeader(e *Entry) bool {
	if e == nil || e.Type != TypeSession {
		return false
	}
	id := e.Get("id")
	return len(id) > 0 && id[0] == '"'
}

// LoadEntries reads a session file as the reference's loadEntriesFromFile does:
// header first, then every entry, without migration. A missing file gives no
// entries and an error wrapping fs.ErrNotExist; a file whose first entry is not
// a session header gives no entries and ErrNotSession.
func LoadEntries(st Storage, path string) ([]*Entry, error) {
	data, err := readForKeeps(st, path)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	entries := ParseEntries(data)
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: %w (empty file)", path, ErrNotSession)
	}
	if !isHeader(entries[0]) {
		return nil, fmt.Errorf("%s: %w (first line is not a session header)", path, ErrNotSession)
	}
	return entries, nil
}

// ErrNotSession is returned for a file that is not a session file.
var ErrNotSession = errors.New("not a session file")

// IsNotExist reports whether err says a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// headerVersion returns the version of the first header among entries (1 when absent).
func headerVersion(entries []*Entry) int {
	for _, e := range entries {
		if e.Type == TypeSession {
			v := e.Get("version")
			if len(v) == 0 || v[0] < '0' || v[0] > '9' {
				return 1
			}
			n := 0
			for _, c := range v {
				if c < '0' || c > '9' {
					break
				}
				n = n*10 + int(c-'0')
			}
			return n
		}
	}
	return 1
}

// Migrate brings entries (header included) to the current version in place, as
// reference section 3 describes, and reports whether anything changed. newID
// gives fresh entry ids for the v1 -> v2 step.
func Migrate(entries []*Entry, newID func() string) bool {
	v := headerVersion(entries)
	if v >= CurrentVersion {
		return false
	}
	if v < 2 {
		migrateV1(entries, newID)
	}
	for _, e := range entries {
		if e.Type == TypeSession {
			e.Set("version", []byte("3"))
		} else if e.Type == TypeMessage {
			msg := e.Get("message")
			if bytes.Contains(msg, []byte(`"hookMessage"`)) && rawString(member(msg, "role")) == "hookMessage" {
				n, err := jsjson.Parse(msg)
				if err == nil {
					n.Set("role", jsjson.NewString("custom"))
					e.Set("message", n.AppendJSON(nil))
				}
			}
		}
	}
	return true
}

func migrateV1(entries []*Entry, newID func() string) {
	prev := rawNull
	for _, e := range entries {
		if e.Type == TypeSession {
			e.Set("version", []byte("2"))
			continue
		}
		id := str(newID())
		e.Set("id", id)
		e.Set("parentId", prev)
		prev = id
		if e.Type != TypeCompaction {
			continue
		}
		idx := e.Get("firstKeptEntryIndex")
		if idx == nil {
			continue
		}
		if n, ok := rawInt(idx); ok && n < len(entries) {
			if t := entries[n]; t.Type != TypeSession {
				if tid := t.Get("id"); tid != nil {
					e.Set("firstKeptEntryId", tid)
				}
			}
		}
		e.Delete("firstKeptEntryIndex")
	}
}

// rawInt parses a raw JSON number that is a non-negative integer.
func rawInt(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > 15 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// sanitizeReplayMetadata drops OpenAI Responses replay payloads from loaded
// assistant messages (in memory only), as the reference does on load.
func sanitizeReplayMetadata(entries []*Entry) bool {
	changed := false
	for _, e := range entries {
		if e.Type != TypeMessage {
			continue
		}
		if e.marks&jsjson.MarkReplayHistory == 0 {
			continue
		}
		msg := e.Get("message")
		n, err := jsjson.Parse(msg)
		if err != nil || n.Kind != '{' {
			continue
		}
		role := n.Get("role")
		pp := n.Get("providerPayload")
		if role == nil || role.Str != "assistant" || pp == nil || pp.Get("type") == nil || pp.Get("type").Str != "openaiResponsesHistory" {
			continue
		}
		n.Delete("providerPayload")
		if c := n.Get("content"); c != nil && c.Kind == '[' {
			for _, it := range c.Items {
				if t := it.Get("type"); t != nil && t.Str == "thinking" {
					it.Delete("thinkingSignature")
				}
			}
		}
		e.Set("message", n.AppendJSON(nil))
		changed = true
	}
	return changed
}
