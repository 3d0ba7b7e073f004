package jsjson

import (
	"math"
	"unsafe"
)

// Member is one top-level member of an object value, located by offsets into
// the value's raw bytes (Value.Raw). It holds no pointers: slices of members
// cost the garbage collector nothing to scan and no write barriers to fill.
type Member struct {
	KeyStart uint32 // offset of the key's first byte, after its opening quote
	ValStart uint32 // offset of the value's first byte
	ValEnd   uint32 // offset after the value's last byte
	KeyLen   uint16 // bytes between the key's quotes; LongKey when there are more
	Code     uint8  // KeyCode of the decoded key: 0 for keys without a code
	Flags    uint8  // KeyEscaped
}

// LongKey is Member.KeyLen for keys of LongKey bytes or more; their length
// is found again from the raw bytes when needed.
const LongKey = math.MaxUint16

// KeyEscaped is set in Member.Flags when the key's raw bytes are not its
// decoded form: it has an escape or invalid UTF-8.
const KeyEscaped uint8 = 1

// memberLimit is the longest value whose members fit Member's offsets; a
// longer one gets none, and Value.Fields finds them by scanning its bytes.
// A variable so tests can lower it.
var memberLimit uint64 = math.MaxUint32

// Val returns the raw value of m in raw, the bytes of the object holding it.
// Its capacity ends with it, so appending to it never writes into raw.
func (m Member) Val(raw []byte) []byte { return raw[m.ValStart:m.ValEnd:m.ValEnd] }

// RawKey returns the key of m as it is in raw, without its quotes (escapes
// are not decoded).
func (m Member) RawKey(raw []byte) []byte {
	if m.KeyLen != LongKey {
		return raw[m.KeyStart : m.KeyStart+uint32(m.KeyLen)]
	}
	// Between the closing quote and the value there are only whitespace
	// and the colon.
	j := int(m.ValStart)
	for j > 0 && isWS[raw[j-1]] {
		j--
	}
	j-- // ':'
	for j > 0 && isWS[raw[j-1]] {
		j--
	}
	return raw[m.KeyStart : j-1]
}

// Key returns the decoded key of m (WTF-8, see AppendString).
func (m Member) Key(raw []byte) string {
	if m.Code != 0 {
		return keyNames[m.Code]
	}
	k := m.RawKey(raw)
	if m.Flags&KeyEscaped == 0 {
		return string(k)
	}
	s, _ := DecodeString(raw[m.KeyStart-1 : int(m.KeyStart)+len(k)+1])
	return s
}

// Is reports whether the decoded key of m is key, whose KeyCode is code.
// Keys with a code are compared by code alone.
func (m *Member) Is(raw []byte, key string, code uint8) bool {
	if code != 0 || m.Code != 0 {
		return m.Code == code
	}
	if m.Flags&KeyEscaped != 0 {
		return m.Key(raw) == key
	}
	if m.KeyLen != LongKey && int(m.KeyLen) != len(key) {
		return false
	}
	return string(m.RawKey(raw)) == key
}

// Lookup returns the raw value of the last of members named key (the one
// JSON.parse keeps), or nil if there is none. raw holds the members.
func Lookup(raw []byte, members []Member, key string) []byte {
	code := KeyCode(key)
	for i := len(members) - 1; i >= 0; i-- {
		if members[i].Is(raw, key, code) {
			return members[i].Val(raw)
		}
	}
	return nil
}

// Fields returns members decoded, in order. raw holds the members.
func Fields(raw []byte, members []Member) []Field {
	if len(members) == 0 {
		return nil
	}
	fs := make([]Field, len(members))
	for i := range members {
		fs[i] = Field{Key: members[i].Key(raw), Val: members[i].Val(raw)}
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
