package jsjson

import (
	"encoding/binary"
	"math/bits"
)

// status is the outcome of scanning one value.
type status uint8

const (
	stOK   status = iota // a complete value
	stErr                // a byte that no JSON text can continue with
	stMore               // the data ended inside the value (a valid prefix)
)

// isWS marks JSON whitespace: space, tab, LF and CR.
var isWS = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// frame is one open container of the value being scanned.
type frame struct {
	obj        bool
	bigObj     bool  // more than smallObj keys: duplicates are checked when it closes
	keyBase    int   // first index in scanner.keys of this object's keys
	lastInt    int64 // last integer-like key, -1 if none
	seenNonInt bool  // a key that is not integer-like was seen
}

// scanner scans JSON values in data. Its slices are scratch space reused
// from value to value, so scanning allocates nothing per nested value.
type scanner struct {
	data  []byte
	stack []frame
	keys  []keyRef
	order []int // scratch for the duplicate check of big objects

	canon bool // the value scanned so far is in canonical form
	marks Mark // string values seen in the value so far that start with a marked prefix

	// Top-level members, collected when collect is set. members is the
	// current block; values own sub-slices of it.
	collect     bool
	members     []Member
	memberStart int
	memberBlock int // size of the next block of members
}

// newScanner returns a scanner for data; collect asks for top-level members.
// size is the number of bytes it is expected to scan.
func newScanner(data []byte, collect bool, size int) *scanner {
	return &scanner{data: data, collect: collect, memberBlock: min(max(size/64, 64), 4096)}
}

// skipWS returns the index of the first non-whitespace byte at or after i.
func (s *scanner) skipWS(i int) int {
	for i < len(s.data) && isWS[s.data[i]] {
		i++
	}
	return i
}

// ws skips whitespace inside a value; any whitespace makes it non-canonical.
func (s *scanner) ws(i int) int {
	j := s.skipWS(i)
	if j != i {
		s.canon = false
	}
	return j
}

// scanValue scans the value that starts at data[i], a non-whitespace byte.
// It returns the end of the value (for stOK) or where scanning stopped.
// s.canon reports whether the value is in canonical form. With s.collect, the
// members of a top-level object are appended to s.members from s.memberStart.
func (s *scanner) scanValue(i int) (int, status) {
	b := s.data
	n := len(b)
	s.canon = true
	s.marks = 0
	s.stack = s.stack[:0]
	s.keys = s.keys[:0]
	s.startMembers()
	var (
		st      status
		c       byte
		base    = i    // start of the value: member offsets are relative to it
		mem     Member // the current top-level member
		prevEnd int    // end of the previous one, relative to base (0: none)
		keyEnd  int    // end of the current one's key token
	)

value:
	if i >= n {
		return i, stMore
	}
	c = b[i]
	switch c {
	case '"':
		if i+1 < n && (b[i+1] == 'b' || b[i+1] == 'o') {
			s.markString(i + 1)
		}
		if i, st = s.scanString(i + 1); st != stOK {
			return i, st
		}
	case '{':
		s.stack = append(s.stack, frame{obj: true, keyBase: len(s.keys), lastInt: -1})
		if i = s.ws(i + 1); i >= n {
			return i, stMore
		}
		if b[i] == '}' {
			i++
			s.stack = s.stack[:len(s.stack)-1]
			goto after
		}
		goto key
	case '[':
		s.stack = append(s.stack, frame{})
		if i = s.ws(i + 1); i >= n {
			return i, stMore
		}
		if b[i] == ']' {
			i++
			s.stack = s.stack[:len(s.stack)-1]
			goto after
		}
		goto value
	case 't':
		if i, st = literal(b, i, "true"); st != stOK {
			return i, st
		}
	case 'f':
		if i, st = literal(b, i, "false"); st != stOK {
			return i, st
		}
	case 'n':
		if i, st = literal(b, i, "null"); st != stOK {
			return i, st
		}
	default:
		if c != '-' && (c < '0' || c > '9') {
			return i, stErr
		}
		if i, st = s.scanNumber(i); st != stOK {
			return i, st
		}
	}

after:
	switch len(s.stack) {
	case 0:
		return i, stOK
	case 1:
		if s.collect && s.stack[0].obj {
			mem.ValEnd = uint32(i - base)
			prevEnd = i - base
			s.addMember(mem)
		}
	}
	if i = s.ws(i); i >= n {
		return i, stMore
	}
	c = b[i]
	if top := &s.stack[len(s.stack)-1]; c == ',' {
		if i = s.ws(i + 1); !top.obj {
			goto value
		}
	} else if (top.obj && c == '}') || (!top.obj && c == ']') {
		if top.obj && s.canon && top.bigObj {
			s.checkBigObject(top.keyBase)
		}
		if top.obj {
			s.keys = s.keys[:top.keyBase]
		}
		s.stack = s.stack[:len(s.stack)-1]
		i++
		goto after
	} else {
		return i, stErr
	}

key:
	if i >= n {
		return i, stMore
	}
	if b[i] != '"' {
		return i, stErr
	}
	{
		ks := i
		var simple bool
		if i, st, simple = s.scanKey(i + 1); st != stOK {
			return i, st
		}
		if len(s.stack) == 1 && s.collect {
			mem = s.keyMember(base, prevEnd, ks, i, simple)
			keyEnd = i
		}
		if s.canon {
			s.addKey(ks+1, i-1, simple)
		}
	}
	if i = s.ws(i); i >= n {
		return i, stMore
	}
	if b[i] != ':' {
		return i, stErr
	}
	i = s.ws(i + 1)
	if len(s.stack) == 1 && s.collect && i != keyEnd+1 {
		mem.Flags |= MemberSpaced
	}
	goto value
}

// Mark flags string values with a prefix that a reader must act on, so it
// need not search the whole input for them again.
type Mark uint8

// Marks reported in Value.Marks.
const (
	// MarkBlobRef: a string value starts with "blob:sha256:".
	MarkBlobRef Mark = 1 << iota
	// MarkReplayHistory: a string value is "openaiResponsesHistory".
	MarkReplayHistory
)

var (
	blobPrefix    = []byte("blob:sha256:")
	replayHistory = []byte("openaiResponsesHistory\"")
)

// markString records the marks of the string value whose content starts at i.
func (s *scanner) markString(i int) {
	b := s.data[i:]
	if len(b) >= len(blobPrefix) && string(b[:len(blobPrefix)]) == string(blobPrefix) {
		s.marks |= MarkBlobRef
	} else if len(b) >= len(replayHistory) && string(b[:len(replayHistory)]) == string(replayHistory) {
		s.marks |= MarkReplayHistory
	}
}

// literal matches the keyword w at b[i:].
func literal(b []byte, i int, w string) (int, status) {
	for k := 0; k < len(w); k++ {
		if i+k >= len(b) {
			return i + k, stMore
		}
		if b[i+k] != w[k] {
			return i + k, stErr
		}
	}
	return i + len(w), stOK
}

// scanNumber scans the number token at data[i] ('-' or a digit).
func (s *scanner) scanNumber(i int) (int, status) {
	b := s.data
	n := len(b)
	start := i
	if b[i] == '-' {
		if i++; i >= n {
			return i, stMore
		}
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, stErr
	}
	simple := true
	if i < n && b[i] == '.' {
		simple = false
		if i++; i >= n {
			return i, stMore
		}
		if b[i] < '0' || b[i] > '9' {
			return i, stErr
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		simple = false
		if i++; i >= n {
			return i, stMore
		}
		if b[i] == '+' || b[i] == '-' {
			if i++; i >= n {
				return i, stMore
			}
		}
		if b[i] < '0' || b[i] > '9' {
			return i, stErr
		}
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if s.canon && (!simple || !simpleInt(b[start:i])) && !numberIsCanonical(b[start:i]) {
		s.canon = false
	}
	return i, stOK
}

// scanString scans a string whose opening quote is at data[i-1] and returns
// the index after the closing quote.
func (s *scanner) scanString(i int) (int, status) {
	i, st, _ := s.scanKey(i)
	return i, st
}

// scanKey is scanString that also reports whether the string is simple: no
// escapes and valid UTF-8, so its raw bytes are its value.
func (s *scanner) scanKey(i int) (int, status, bool) {
	b := s.data
	n := len(b)
	simple := true
	for {
		// Skip plain bytes, eight at a time (see skipPlain).
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ (swarLo * '"')
			e := x ^ (swarLo * '\\')
			m := ((q - swarLo) &^ q) | ((e - swarLo) &^ e) | (x - swarLo*0x20) | x
			if m &= swarHi; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < n && plain[b[i]] {
			i++
		}
		if i >= n {
			return i, stMore, simple
		}
	special:
		c := b[i]
		switch {
		case c == '"':
			return i + 1, stOK, simple
		case c == '\\':
			simple = false
			if i+1 < n && shortEscape[b[i+1]] {
				i += 2
				continue
			}
			var st status
			if i, st = s.escape(i); st != stOK {
				return i, st, simple
			}
		case c < 0x20:
			return i, stErr, simple
		case c >= 0xC2 && c < 0xE0 && i+1 < n && b[i+1]&0xC0 == 0x80:
			i += 2
		case c >= 0xE1 && c < 0xF0 && c != 0xED && i+2 < n && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80:
			i += 3
		default:
			l, ok := seqLen(b, i)
			if !ok {
				simple = false
				s.canon = false
			}
			i += l
		}
	}
}

// shortEscape marks the characters after a backslash that make a two-byte
// escape JSON.stringify writes the same way.
var shortEscape = [256]bool{'"': true, '\\': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// hexVal maps hex digits to their value and other bytes to 0xFF.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

// hex4 decodes the four hex digits at b[i:]. It reports stMore when the data
// ends first, and stErr (with the offending index) on a non-hex byte.
func hex4(b []byte, i int) (uint16, int, status) {
	var u uint16
	for k := i; k < i+4; k++ {
		if k >= len(b) {
			return 0, k, stMore
		}
		v := hexVal[b[k]]
		if v == 0xFF {
			return 0, k, stErr
		}
		u = u<<4 | uint16(v)
	}
	return u, i + 4, stOK
}

// lowerHex reports whether the four hex digits at b[i:] have no uppercase.
func lowerHex(b []byte, i int) bool {
	for _, c := range b[i : i+4] {
		if c >= 'A' && c <= 'F' {
			return false
		}
	}
	return true
}

// escape scans the escape sequence at data[i] ('\\') and updates s.canon.
func (s *scanner) escape(i int) (int, status) {
	b := s.data
	if i+1 >= len(b) {
		return i + 1, stMore
	}
	switch b[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return i + 2, stOK
	case '/':
		s.canon = false
		return i + 2, stOK
	case 'u':
	default:
		return i + 1, stErr
	}
	u, j, st := hex4(b, i+2)
	if st != stOK {
		return j, st
	}
	if !s.canon {
		return j, stOK
	}
	switch {
	case u < 0x20:
		// Canonical only where JSON.stringify has no short escape.
		if u == '\b' || u == '\t' || u == '\n' || u == '\f' || u == '\r' || !lowerHex(b, i+2) {
			s.canon = false
		}
	case u >= 0xD800 && u <= 0xDBFF:
		// A high surrogate followed by a low one is a pair, written literally.
		if j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
			if lo, _, st := hex4(b, j+2); st == stOK && lo >= 0xDC00 && lo <= 0xDFFF {
				s.canon = false
			}
		}
		if !lowerHex(b, i+2) {
			s.canon = false
		}
	case u >= 0xDC00 && u <= 0xDFFF:
		// A lone low surrogate (a paired one was handled with its high half).
		if !lowerHex(b, i+2) {
			s.canon = false
		}
	default:
		s.canon = false
	}
	return j, stOK
}
