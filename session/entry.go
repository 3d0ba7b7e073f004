package session

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unsafe"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// Entry types written by xcsh and oh-my-pi. Unknown types are kept as they are.
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeModelChange         = "model_change"
	TypeServiceTierChange   = "service_tier_change"
	TypeContextChange       = "context_change"
	TypeModeChange          = "mode_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeTTSRInjection       = "ttsr_injection"
	TypeSessionInit         = "session_init"
	TypeMCPToolSelection    = "mcp_tool_selection"
)

// CurrentVersion is the session file format version xcsh writes.
const CurrentVersion = 3

// Field is one top-level member of an entry: its key and raw canonical JSON value.
type Field = jsjson.Field

// Entry is one line of a session file: the header or a session entry. It keeps
// every top-level member as raw JSON in its original order, so unknown types and
// unknown fields survive a load and a rewrite unchanged.
//
// An entry holds its canonical encoding (raw) and where its members are in it
// (jsjson.Members: 8 bytes each, no pointers). It decodes them into fields
// only when it is changed (Set, Delete), until it is encoded again.
type Entry struct {
	// Type is the "type" member ("session" for the header).
	Type string
	// ID is the "id" member; empty when absent or not a string.
	ID string
	// ParentID is the "parentId" member; empty when null, absent or not a string.
	ParentID string
	// Timestamp is the "timestamp" member when it is a string.
	Timestamp string

	raw    []byte         // canonical encoding; nil when it must be rebuilt from fields
	mem    *jsjson.Member // the first of the nmem members of raw; unused when fields is set
	fields *[]Field       // the members decoded, once changed; nil while mem describes them
	seq    int32          // position in its manager's entries: a hint, checked before use
	nmem   uint16
	marks  jsjson.Mark // blob refs and replay payloads seen when it was parsed
}

// RawJSON is a raw JSON value. nil means "undefined": the member is left out.
type RawJSON = json.RawMessage

// newEntry builds an entry from members in the given order; members whose value
// is nil are left out, as JSON.stringify leaves out undefined.
func newEntry(fields ...Field) *Entry {
	fs := make([]Field, 0, len(fields))
	for _, f := range fields {
		if f.Val == nil {
			continue
		}
		fs = append(fs, f)
	}
	e := &Entry{}
	e.encode(fs)
	e.index()
	return e
}

// entryFromValue wraps a parsed, canonical object value.
func entryFromValue(v jsjson.Value) *Entry {
	e := &Entry{}
	e.setValue(v)
	return e
}

// setValue makes e the entry of v, a parsed canonical object value.
func (e *Entry) setValue(v jsjson.Value) {
	*e = Entry{raw: v.Raw, marks: v.Marks}
	switch {
	case v.Long || len(v.Members) > math.MaxUint16:
		fs := v.Fields()
		e.fields = &fs
	case len(v.Members) > 0:
		e.mem, e.nmem = &v.Members[0], uint16(len(v.Members))
	}
	e.index()
}

// members returns the members of e.raw, when fields is nil.
func (e *Entry) members() jsjson.Members {
	if e.mem == nil {
		return nil
	}
	return unsafe.Slice(e.mem, e.nmem)
}

// edit returns the decoded fields of e, decoding them first if needed, for
// a change. The caller sets e.raw to nil.
func (e *Entry) edit() []Field {
	if e.fields == nil {
		fs := e.members().Fields(e.raw)
		e.fields, e.mem, e.nmem = &fs, nil, 0
	}
	return *e.fields
}

// encode sets e.raw to the encoding of fs, and e's members to where they are
// in it. fs is kept instead when its keys cannot be found again from the
// encoding (see encodeMembers) or there are more than 65535.
func (e *Entry) encode(fs []Field) {
	ms := make(jsjson.Members, 0, len(fs))
	var ok bool
	e.raw, ok = encodeMembers(fs, &ms)
	if !ok || len(ms) > math.MaxUint16 {
		e.fields, e.mem, e.nmem = &fs, nil, 0
		return
	}
	e.fields, e.mem, e.nmem = nil, nil, uint16(len(ms))
	if len(ms) > 0 {
		e.mem = &ms[0]
	}
}

func (e *Entry) index() {
	e.Type, e.ID, e.ParentID, e.Timestamp = "", "", "", ""
	if e.fields != nil {
		for _, f := range *e.fields {
			e.indexMember(jsjson.KeyCode(f.Key), f.Val)
		}
		return
	}
	ms := e.members()
	for i, m := range ms {
		if m.Code != 0 {
			e.indexMember(m.Code, ms.Val(e.raw, i))
		}
	}
}

// indexMember sets the field of e a member with key code c fills.
func (e *Entry) indexMember(c uint8, val []byte) {
	switch c {
	case jsjson.KeyType:
		e.Type = internType(val)
	case jsjson.KeyID:
		e.ID = viewString(val)
	case jsjson.KeyParentID:
		e.ParentID = viewString(val)
	case jsjson.KeyTimestamp:
		e.Timestamp = viewString(val)
	}
}

// knownTypes lets entry types share one string each.
var knownTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{TypeSession, TypeMessage, TypeThinkingLevelChange, TypeModelChange, TypeServiceTierChange,
		TypeContextChange, TypeModeChange, TypeCompaction, TypeBranchSummary, TypeCustom, TypeCustomMessage, TypeLabel,
		TypeTTSRInjection, TypeSessionInit, TypeMCPToolSelection} {
		m[t] = t
	}
	return m
}()

func internType(raw []byte) string {
	if string(raw) == `"message"` { // by far the most common: no map lookup
		return TypeMessage
	}
	if len(raw) >= 2 && raw[0] == '"' {
		if t, ok := knownTypes[string(raw[1:len(raw)-1])]; ok {
			return t
		}
	}
	return rawString(raw)
}

// viewString is rawString without a copy for strings without escapes. The
// bytes of entries are never modified once parsed (they come from a file
// read or mapped once, or from the encoder), so the string stays valid.
func viewString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	in := raw[1 : len(raw)-1]
	if len(in) == 0 {
		return ""
	}
	if bytes.IndexByte(in, '\\') < 0 {
		return unsafe.String(&in[0], len(in))
	}
	return rawString(raw)
}

// Fields returns the entry's top-level members in order. The slice must not be modified.
func (e *Entry) Fields() []Field {
	if e.fields != nil {
		return *e.fields
	}
	return e.members().Fields(e.raw)
}

// Get returns the raw value of a top-level member, or nil when absent.
func (e *Entry) Get(key string) []byte {
	if e.fields == nil {
		return e.members().Get(e.raw, key)
	}
	fs := *e.fields
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Key == key {
			return fs[i].Val
		}
	}
	return nil
}

// Has reports whether the member is present.
func (e *Entry) Has(key string) bool { return e.Get(key) != nil }

// GetString returns a string member, or "" when absent or not a string.
func (e *Entry) GetString(key string) string { return rawString(e.Get(key)) }

// Set replaces a member in place or appends it at the end. val must be canonical JSON.
func (e *Entry) Set(key string, val []byte) {
	fs := e.edit()
	e.raw = nil
	for i := range fs {
		if fs[i].Key == key {
			fs[i].Val = val
			e.index()
			return
		}
	}
	*e.fields = append(fs, Field{Key: key, Val: val})
	e.index()
}

// Delete removes a member; it reports whether it was present.
func (e *Entry) Delete(key string) bool {
	if e.Get(key) == nil {
		return false
	}
	fs := e.edit()
	for i := range fs {
		if fs[i].Key == key {
			e.raw = nil
			*e.fields = append(fs[:i:i], fs[i+1:]...)
			e.index()
			return true
		}
	}
	return false
}

// JSON returns the entry as JSON.stringify writes it (without the newline).
func (e *Entry) JSON() []byte {
	if e.raw == nil {
		var fs []Field
		if e.fields != nil {
			fs = *e.fields
		}
		e.encode(fs)
		e.index()
	}
	return e.raw
}

// MarshalJSON implements json.Marshaler.
func (e *Entry) MarshalJSON() ([]byte, error) { return e.JSON(), nil }

// Clone returns a deep copy that shares no mutable state with e. Raw bytes
// and members are never changed in place, so they are shared.
func (e *Entry) Clone() *Entry {
	c := *e
	if e.fields != nil {
		fs := append([]Field(nil), *e.fields...)
		c.fields = &fs
	}
	return &c
}

// encodeFields writes members as an object; integer-like keys go first in
// ascending order, as JavaScript orders them.
func encodeFields(fields []Field) []byte {
	return encodeInto(append([]Field(nil), fields...))
}

// encodeInto is encodeFields that also points every fields[i].Val at its
// bytes in the result, so an entry holds each value once. The result has one
// spare byte of capacity for the newline a writer appends.
func encodeInto(fields []Field) []byte {
	b, _ := encodeMembers(fields, nil)
	return b
}

// encodeMembers is encodeInto that also appends the members of the result,
// in order, to *ms when ms is not nil. It reports whether Member offsets and
// decoded keys find every field again: false for a key that is not valid
// WTF-8, or a result over 4 GiB.
func encodeMembers(fields []Field, ms *jsjson.Members) ([]byte, bool) {
	n := 3
	intKeys := false
	for _, f := range fields {
		n += len(f.Key) + len(f.Val) + 4
		if isIndexKey(f.Key) {
			intKeys = true
		}
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	starts := make([]int, len(fields))
	first, ok := true, true
	put := func(i int) {
		if !first {
			b = append(b, ',')
		}
		first = false
		ks := len(b)
		b = jsjson.AppendString(b, fields[i].Key)
		var m jsjson.Member
		if ms != nil {
			m = keyMember(b[ks:], fields[i].Key)
			if m.Flags&jsjson.KeyEscaped != 0 {
				if k, err := jsjson.DecodeString(b[ks:]); err != nil || k != fields[i].Key {
					ok = false
				}
			}
		}
		b = append(b, ':')
		starts[i] = len(b)
		b = append(b, fields[i].Val...)
		if ms != nil {
			m.ValEnd = uint32(len(b))
			*ms = append(*ms, m)
		}
	}
	if intKeys {
		var ints []int
		for i, f := range fields {
			if isIndexKey(f.Key) {
				ints = append(ints, i)
			}
		}
		sortIndexFields(fields, ints)
		for _, i := range ints {
			put(i)
		}
	}
	for i, f := range fields {
		if intKeys && isIndexKey(f.Key) {
			continue
		}
		put(i)
	}
	b = append(b, '}')
	for i := range fields {
		fields[i].Val = b[starts[i] : starts[i]+len(fields[i].Val) : starts[i]+len(fields[i].Val)]
	}
	return b, ok && uint64(len(b)) <= math.MaxUint32
}

// keyMember returns the key part of the member whose key token (quotes
// included) is tok, the encoding of key.
func keyMember(tok []byte, key string) jsjson.Member {
	m := jsjson.Member{KeyLen: jsjson.LongKey, Code: jsjson.KeyCode(key)}
	raw := tok[1 : len(tok)-1]
	if len(raw) < jsjson.LongKey {
		m.KeyLen = uint16(len(raw))
	}
	if string(raw) != key {
		m.Flags = jsjson.KeyEscaped
	}
	return m
}

func sortIndexFields(fs []Field, idx []int) {
	key := func(i int) uint64 { v, _ := strconv.ParseUint(fs[idx[i]].Key, 10, 64); return v }
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && key(j-1) > key(j); j-- {
			idx[j-1], idx[j] = idx[j], idx[j-1]
		}
	}
}

// isIndexKey reports whether JavaScript treats key as an array index.
func isIndexKey(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	v, _ := strconv.ParseUint(k, 10, 64)
	return v < 4294967295
}

// rawString decodes a raw JSON string, or returns "" for anything else.
func rawString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	s, err := jsjson.DecodeString(raw)
	if err != nil {
		return ""
	}
	return s
}

// str encodes s as a canonical JSON string.
func str(s string) []byte { return jsjson.AppendString(nil, s) }

// num encodes f as JavaScript prints a number.
func num(f float64) []byte { return jsjson.AppendNumber(nil, f) }

var (
	rawNull  = []byte("null")
	rawTrue  = []byte("true")
	rawFalse = []byte("false")
)

func boolRaw(b bool) []byte {
	if b {
		return rawTrue
	}
	return rawFalse
}

// canon returns the canonical form of a caller-supplied raw value; nil stays nil.
func canon(raw []byte) ([]byte, error) {
	if raw == nil {
		return nil, nil
	}
	if jsjson.IsCanonical(raw) {
		return raw, nil // entries copy values when they encode them
	}
	return jsjson.Canonical(raw)
}
