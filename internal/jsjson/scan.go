package jsjson

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
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

// keyRef is a key of an open object, kept to detect duplicates while the
// value is still canonical (then equal raw bytes mean equal keys).
type keyRef struct {
	hash       uint64
	start, end int
}

// smallObj is the number of keys up to which duplicates are found by a
// linear scan as each key arrives.
const smallObj = 16

// scanner scans JSON values in data. Its slices are scratch space reused
// from value to value, so scanning allocates nothing per nested value.
type scanner struct {
	data  []byte
	stack []frame
	keys  []keyRef
	order []int // scratch for the duplicate check of big objects

	canon bool // the value scanned so far is in canonical form

	// Top-level fields, collected when collect is set. fields is the current
	// block; values own sub-slices of it.
	collect    bool
	fields     []Field
	fieldStart int
	fieldBlock int // size of the next block of fields
	intern     map[string]string
}

// newScanner returns a scanner for data; collect asks for top-level fields.
// size is the number of bytes it is expected to scan.
func newScanner(data []byte, collect bool, size int) *scanner {
	return &scanner{data: data, collect: collect, intern: map[string]string{},
		fieldBlock: min(max(size/64, 64), 4096)}
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
// members of a top-level object are appended to s.fields from s.fieldStart.
func (s *scanner) scanValue(i int) (int, status) {
	b := s.data
	n := len(b)
	s.canon = true
	s.stack = s.stack[:0]
	s.keys = s.keys[:0]
	s.startFields()
	var (
		st       status
		c        byte
		valStart int    // start of the current top-level member's value
		key      string // its decoded key
	)

value:
	if i >= n {
		return i, stMore
	}
	c = b[i]
	switch c {
	case '"':
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
			s.addField(key, b[valStart:i])
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
			key = s.decodeKey(b[ks:i], simple)
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
	if len(s.stack) == 1 {
		valStart = i
	}
	goto value
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

// decodeKey returns the decoded top-level key for the raw token tok.
func (s *scanner) decodeKey(tok []byte, simple bool) string {
	if simple {
		raw := tok[1 : len(tok)-1]
		if k, ok := s.intern[string(raw)]; ok {
			return k
		}
		k := string(raw)
		if len(s.intern) < 4096 {
			s.intern[k] = k
		}
		return k
	}
	k, _ := DecodeString(tok)
	return k
}

// startFields begins the fields of a new value.
func (s *scanner) startFields() {
	if !s.collect {
		return
	}
	if cap(s.fields)-len(s.fields) < 32 {
		s.fields = make([]Field, 0, s.fieldBlock)
		s.fieldBlock = 4096
	}
	s.fieldStart = len(s.fields)
}

// addField appends a top-level member, moving the value's fields to a new
// block when the current one is full.
func (s *scanner) addField(key string, val []byte) {
	if len(s.fields) == cap(s.fields) {
		cur := s.fields[s.fieldStart:]
		nf := make([]Field, len(cur), max(s.fieldBlock, 2*len(cur)))
		copy(nf, cur)
		s.fields, s.fieldStart = nf, 0
	}
	s.fields = append(s.fields, Field{Key: key, Val: val})
}

// takeFields returns the fields of the value just scanned.
func (s *scanner) takeFields() []Field {
	f := s.fields[s.fieldStart:len(s.fields):len(s.fields)]
	s.fieldStart = len(s.fields)
	return f
}

// dropFields discards the fields of a value that failed.
func (s *scanner) dropFields() {
	if s.collect {
		s.fields = s.fields[:s.fieldStart]
	}
}

// arrayIndex parses k as a canonical array index ("0", "42"; no leading
// zeros; below 2^32-1), the keys that JavaScript objects list first.
func arrayIndex[T byteSeq](k T) (int64, bool) {
	if len(k) == 0 || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	var v int64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, v < 1<<32-1
}

// addKey records key data[start:end] (between the quotes) of the innermost
// object and checks the canonical key order and duplicates.
func (s *scanner) addKey(start, end int, simple bool) {
	b := s.data
	top := &s.stack[len(s.stack)-1]
	raw := b[start:end]
	if v, ok := arrayIndex(raw); ok && simple {
		if top.seenNonInt || v <= top.lastInt {
			s.canon = false
			return
		}
		top.lastInt = v
	} else {
		top.seenNonInt = true
	}
	h := keyHash(raw)
	if len(s.keys)-top.keyBase < smallObj {
		for _, k := range s.keys[top.keyBase:] {
			if k.hash == h && bytes.Equal(b[k.start:k.end], raw) {
				s.canon = false
				return
			}
		}
	} else {
		top.bigObj = true
	}
	s.keys = append(s.keys, keyRef{hash: h, start: start, end: end})
}

// checkBigObject looks for duplicate keys among s.keys[base:] by sorting.
func (s *scanner) checkBigObject(base int) {
	keys := s.keys[base:]
	s.order = s.order[:0]
	for i := range keys {
		s.order = append(s.order, i)
	}
	slices.SortFunc(s.order, func(a, b int) int {
		ha, hb := keys[a].hash, keys[b].hash
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return 0
	})
	for x := 1; x < len(s.order); x++ {
		a := keys[s.order[x-1]]
		for y := x; y < len(s.order) && keys[s.order[y]].hash == a.hash; y++ {
			k := keys[s.order[y]]
			if bytes.Equal(s.data[a.start:a.end], s.data[k.start:k.end]) {
				s.canon = false
				return
			}
		}
	}
}

// keyHash is a cheap hash of a key's raw bytes: its length and its first and
// last eight bytes. Equal hashes are confirmed by comparing the bytes.
func keyHash(k []byte) uint64 {
	var a, z uint64
	if len(k) >= 8 {
		a = binary.LittleEndian.Uint64(k)
		z = binary.LittleEndian.Uint64(k[len(k)-8:])
	} else {
		for i, c := range k {
			a |= uint64(c) << (8 * i)
		}
	}
	h := (a*0x9E3779B97F4A7C15 ^ z) * 0xFF51AFD7ED558CCD
	return h ^ h>>29 ^ uint64(len(k))
}
