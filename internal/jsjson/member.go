package jsjson

import (
	"math"
	"unsafe"
)

// Member is one top-level member of an object value, located in the value's
// raw bytes (Value.Raw) from its own fields and the previous member's ValEnd
// (see Members). It holds no pointers: slices of members cost the garbage
// collector nothing to scan and no write barriers to fill.
//
// In canonical form, where the key of member i starts two bytes after the
// previous value ends (after `{"` or `,"`) and its value two bytes after the
// key (after `":`), the offsets follow by arithmetic; a member with
// whitespace around its key is marked MemberSpaced and found by skipping it.
type Member struct {
	ValEnd uint32 // offset after the value's last byte
	KeyLen uint16 // bytes between the key's quotes; LongKey when there are more
	Code   uint8  // KeyCode of the decoded key: 0 for keys without a code
	Flags  uint8  // KeyEscaped, MemberSpaced
}

// LongKey is Member.KeyLen for keys of LongKey bytes or more; their end is
// found by scanning the key.
const LongKey = math.MaxUint16

// Member flags.
const (
	// KeyEscaped: the key's raw bytes are not its decoded form (an escape
	// or invalid UTF-8).
	KeyEscaped uint8 = 1 << iota
	// MemberSpaced: there is whitespace between the previous value (or the
	// object's '{') and the member's key, or between the key and the value.
	MemberSpaced
)

// memberLimit is the longest value whose members fit Member's offsets; a
// longer one gets none, and Value.Fields finds them by scanning its bytes.
// A variable so tests can lower it.
var memberLimit uint64 = math.MaxUint32

// Members are the top-level members of an object value, in source order.
// Their methods take raw, the bytes of the object, and a member's index.
type Members []Member

// keyStart returns the offset of the first byte of the key of member i,
// after its opening quote.
func (ms Members) keyStart(raw []byte, i int) int {
	prev := 0 // the '{'
	if i > 0 {
		prev = int(ms[i-1].ValEnd) // the ','
	}
	if ms[i].Flags&MemberSpaced == 0 {
		return prev + 2
	}
	j := skipWSAt(raw, prev) + 1 // past the '{' or ','
	return skipWSAt(raw, j) + 1  // past the opening quote
}

// keyEnd returns the offset of the closing quote of member i's key, whose
// first byte is at ks.
func (ms Members) keyEnd(raw []byte, i, ks int) int {
	if n := ms[i].KeyLen; n != LongKey {
		return ks + int(n)
	}
	j := ks
	for raw[j] != '"' {
		if raw[j] == '\\' {
			j++
		}
		j++
	}
	return j
}

// skipWSAt returns the index of the first non-whitespace byte of b at or after i.
func skipWSAt(b []byte, i int) int {
	for i < len(b) && isWS[b[i]] {
		i++
	}
	return i
}

// RawKey returns the key of member i as it is in raw, without its quotes
// (escapes are not decoded).
func (ms Members) RawKey(raw []byte, i int) []byte {
	ks := ms.keyStart(raw, i)
	return raw[ks:ms.keyEnd(raw, i, ks)]
}

// Key returns the decoded key of member i (WTF-8, see AppendString).
func (ms Members) Key(raw []byte, i int) string {
	if c := ms[i].Code; c != 0 {
		return keyNames[c]
	}
	ks := ms.keyStart(raw, i)
	ke := ms.keyEnd(raw, i, ks)
	if ms[i].Flags&KeyEscaped == 0 {
		return string(raw[ks:ke])
	}
	s, _ := DecodeString(raw[ks-1 : ke+1])
	return s
}

// Val returns the raw value of member i. Its capacity ends with it, so
// appending to it never writes into raw.
func (ms Members) Val(raw []byte, i int) []byte {
	m := ms[i]
	var vs int
	if m.Flags&MemberSpaced == 0 && m.KeyLen != LongKey {
		prev := 0
		if i > 0 {
			prev = int(ms[i-1].ValEnd)
		}
		vs = prev + 2 + int(m.KeyLen) + 2
	} else {
		ks := ms.keyStart(raw, i)
		vs = ms.keyEnd(raw, i, ks) + 1 // past the closing quote
		if m.Flags&MemberSpaced != 0 {
			vs = skipWSAt(raw, skipWSAt(raw, vs)+1) // past the colon
		} else {
			vs++
		}
	}
	return raw[vs:m.ValEnd:m.ValEnd]
}

// Is reports whether the decoded key of member i is key, whose KeyCode is
// code. Keys with a code are compared by code alone.
func (ms Members) Is(raw []byte, i int, key string, code uint8) bool {
	m := ms[i]
	if code != 0 || m.Code != 0 {
		return m.Code == code
	}
	if m.Flags&KeyEscaped != 0 {
		return ms.Key(raw, i) == key
	}
	if m.KeyLen != LongKey && int(m.KeyLen) != len(key) {
		return false
	}
	return string(ms.RawKey(raw, i)) == key
}

// Index returns the index of the last member named key (the one JSON.parse
// keeps), or -1 if there is none.
func (ms Members) Index(raw []byte, key string) int {
	code := KeyCode(key)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms.Is(raw, i, key, code) {
			return i
		}
	}
	return -1
}

// Get returns the raw value of the last member named key, or nil.
func (ms Members) Get(raw []byte, key string) []byte {
	if i := ms.Index(raw, key); i >= 0 {
		return ms.Val(raw, i)
	}
	return nil
}

// Fields returns the members decoded, in order; nil when there are none.
func (ms Members) Fields(raw []byte) []Field {
	if len(ms) == 0 {
		return nil
	}
	fs := make([]Field, len(ms))
	for i := range ms {
		fs[i] = Field{Key: ms.Key(raw, i), Val: ms.Val(raw, i)}
	}
	return fs
}

// fieldsOf finds the top-level members of raw, a valid object, by scanning
// it: for objects too long for Member's offsets.
func fieldsOf(raw []byte) []Field {
	s := newScanner(raw, false, 0)
	var fs []Field
	i := s.skipWS(1)
	if raw[i] == '}' {
		return nil
	}
	for {
		ks := i
		i, _, _ = s.scanKey(i + 1)
		key, _ := DecodeString(raw[ks:i])
		i = s.skipWS(s.skipWS(i) + 1) // past the colon
		vs := i
		i, _ = s.scanValue(i)
		fs = append(fs, Field{Key: key, Val: raw[vs:i:i]})
		if i = s.skipWS(i); raw[i] == '}' {
			return fs
		}
		i = s.skipWS(i + 1) // past the comma
	}
}

// Codes of well-known keys (see KeyCode): the top-level keys of session
// entries and headers.
const (
	KeyType uint8 = 1 + iota
	KeyID
	KeyParentID
	KeyTimestamp
	KeyMessage
	KeyVersion
	KeyCwd
	KeyParentSession
	KeyTitle
	KeyTitleSource
	KeyThinkingLevel
	KeyModel
	KeyRole
	KeyServiceTier
	KeyMode
	KeyData
	KeyContextName
	KeyTenant
	KeyNamespace
	KeySystemPrompt
	KeyTask
	KeyTools
	KeyOutputSchema
	KeySummary
	KeyShortSummary
	KeyFirstKeptEntryID
	KeyTokensBefore
	KeyDetails
	KeyFromExtension
	KeyPreserveData
	KeyFromID
	KeyCustomType
	KeyContent
	KeyDisplay
	KeyAttribution
	KeyTargetID
	KeyLabel
	KeyInjectedRules
	KeySelectedToolNames
)

// keyNames maps key codes to their keys.
var keyNames = [...]string{"",
	"type", "id", "parentId", "timestamp", "message", "version", "cwd", "parentSession", "title", "titleSource",
	"thinkingLevel", "model", "role", "serviceTier", "mode", "data", "contextName", "tenant", "namespace",
	"systemPrompt", "task", "tools", "outputSchema", "summary", "shortSummary", "firstKeptEntryId",
	"tokensBefore", "details", "fromExtension", "preserveData", "fromId", "customType", "content", "display",
	"attribution", "targetId", "label", "injectedRules", "selectedToolNames",
}

// KeyCode returns the code of a well-known key (KeyType...), or 0.
func KeyCode(key string) uint8 {
	switch key {
	case "type":
		return KeyType
	case "id":
		return KeyID
	case "parentId":
		return KeyParentID
	case "timestamp":
		return KeyTimestamp
	case "message":
		return KeyMessage
	case "version":
		return KeyVersion
	case "cwd":
		return KeyCwd
	case "parentSession":
		return KeyParentSession
	case "title":
		return KeyTitle
	case "titleSource":
		return KeyTitleSource
	case "thinkingLevel":
		return KeyThinkingLevel
	case "model":
		return KeyModel
	case "role":
		return KeyRole
	case "serviceTier":
		return KeyServiceTier
	case "mode":
		return KeyMode
	case "data":
		return KeyData
	case "contextName":
		return KeyContextName
	case "tenant":
		return KeyTenant
	case "namespace":
		return KeyNamespace
	case "systemPrompt":
		return KeySystemPrompt
	case "task":
		return KeyTask
	case "tools":
		return KeyTools
	case "outputSchema":
		return KeyOutputSchema
	case "summary":
		return KeySummary
	case "shortSummary":
		return KeyShortSummary
	case "firstKeptEntryId":
		return KeyFirstKeptEntryID
	case "tokensBefore":
		return KeyTokensBefore
	case "details":
		return KeyDetails
	case "fromExtension":
		return KeyFromExtension
	case "preserveData":
		return KeyPreserveData
	case "fromId":
		return KeyFromID
	case "customType":
		return KeyCustomType
	case "content":
		return KeyContent
	case "display":
		return KeyDisplay
	case "attribution":
		return KeyAttribution
	case "targetId":
		return KeyTargetID
	case "label":
		return KeyLabel
	case "injectedRules":
		return KeyInjectedRules
	case "selectedToolNames":
		return KeySelectedToolNames
	}
	return 0
}

// keyCodeOf is KeyCode of a raw key without escapes, without a copy.
func keyCodeOf(k []byte) uint8 {
	if len(k) < 2 || len(k) > len("selectedToolNames") {
		return 0
	}
	return KeyCode(unsafe.String(&k[0], len(k)))
}
