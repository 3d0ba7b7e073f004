package jsjson

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Canonical returns the canonical form of one JSON value: the bytes
// JSON.stringify(JSON.parse(raw)) produces in JavaScript. raw is one JSON text
// (whitespace around it is allowed) read as UTF-8 with invalid bytes decoded
// to U+FFFD. The canonical form has no whitespace, object keys in JavaScript
// order (array-index keys first in ascending order, then the others in
// insertion order; of duplicate keys the last value wins at the position of
// the first), strings escaped as JSON.stringify escapes them, and numbers
// written by ECMAScript Number::toString (out-of-range numbers become null).
func Canonical(raw []byte) ([]byte, error) {
	return AppendCanonical(nil, raw)
}

// AppendCanonical appends the canonical form of raw (see Canonical) to dst.
func AppendCanonical(dst, raw []byte) ([]byte, error) {
	lo, hi := trimWS(raw)
	if IsCanonical(raw[lo:hi]) {
		return append(dst, raw[lo:hi]...), nil
	}
	c := canonPool.Get().(*canonizer)
	defer func() {
		c.b, c.depth = nil, 0
		canonPool.Put(c)
	}()
	c.b = raw
	start := len(dst)
	dst = slices.Grow(dst, hi-lo)
	out, i, err := c.value(dst, lo)
	if err != nil {
		return dst[:start], err
	}
	if i = c.skipWS(i); i != len(raw) {
		return dst[:start], syntaxError(i, "data after value")
	}
	return out, nil
}

// Scratch space for IsCanonical and AppendCanonical.
var (
	scanPool  = sync.Pool{New: func() any { return new(scanner) }}
	canonPool = sync.Pool{New: func() any { return new(canonizer) }}
)

// IsCanonical reports whether raw is valid JSON already in canonical form
// (see Canonical), with no whitespace around it.
func IsCanonical(raw []byte) bool {
	if len(raw) == 0 || isWS[raw[0]] {
		return false
	}
	s := scanPool.Get().(*scanner)
	s.data = raw
	end, st := s.scanValue(0)
	ok := st == stOK && end == len(raw) && s.canon
	s.data = nil
	scanPool.Put(s)
	return ok
}

// trimWS returns the bounds of raw without JSON whitespace around it.
func trimWS(raw []byte) (int, int) {
	lo, hi := 0, len(raw)
	for lo < hi && isWS[raw[lo]] {
		lo++
	}
	for hi > lo && isWS[raw[hi-1]] {
		hi--
	}
	return lo, hi
}

// member is one "key":value of an object being canonicalised, as a range of
// the output.
type member struct {
	key        int // start of the key's canonical string literal in the output
	colon      int // index of the ':' after it
	end        int // end of the value
	index      int64
	isIndex    bool
	firstIndex int // position of the first member with this key
}

// canonizer writes the canonical form of a JSON text. members is a stack of
// the members of the open objects.
type canonizer struct {
	b       []byte
	depth   int
	members []member
	tmp     []byte
}

func (c *canonizer) skipWS(i int) int {
	for i < len(c.b) && isWS[c.b[i]] {
		i++
	}
	return i
}

// value appends the canonical form of the value at b[i] (after whitespace).
func (c *canonizer) value(dst []byte, i int) ([]byte, int, error) {
	b := c.b
	if i = c.skipWS(i); i >= len(b) {
		return dst, i, syntaxError(i, "unexpected end of data")
	}
	switch b[i] {
	case '{', '[':
		if c.depth++; c.depth > maxDepth {
			return dst, i, fmt.Errorf("%w at offset %d", ErrTooDeep, i)
		}
		defer func() { c.depth-- }()
		if b[i] == '{' {
			return c.object(dst, i+1)
		}
		return c.array(dst, i+1)
	case '"':
		return appendCanonString(dst, b, i+1)
	case 't', 'f', 'n':
		for _, w := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(b[i:], []byte(w)) {
				return append(dst, w...), i + len(w), nil
			}
		}
		return dst, i, syntaxError(i, "invalid literal")
	}
	s := scanner{data: b} // canon false: no canonical check needed here
	end, st := s.scanNumber(i)
	if st != stOK {
		if b[i] != '-' && (b[i] < '0' || b[i] > '9') {
			return dst, i, syntaxError(i, "unexpected character")
		}
		return dst, end, syntaxError(end, "invalid number")
	}
	return appendCanonNumber(dst, b[i:end]), end, nil
}

// array appends the canonical form of the array whose '[' is at b[i-1].
func (c *canonizer) array(dst []byte, i int) ([]byte, int, error) {
	dst = append(dst, '[')
	if i = c.skipWS(i); i < len(c.b) && c.b[i] == ']' {
		return append(dst, ']'), i + 1, nil
	}
	for {
		var err error
		if dst, i, err = c.value(dst, i); err != nil {
			return dst, i, err
		}
		if i = c.skipWS(i); i >= len(c.b) {
			return dst, i, syntaxError(i, "unexpected end of data")
		}
		switch c.b[i] {
		case ',':
			dst = append(dst, ',')
			i++
		case ']':
			return append(dst, ']'), i + 1, nil
		default:
			return dst, i, syntaxError(i, "expected ',' or ']'")
		}
	}
}

// object appends the canonical form of the object whose '{' is at b[i-1].
func (c *canonizer) object(dst []byte, i int) ([]byte, int, error) {
	b := c.b
	start := len(dst)
	dst = append(dst, '{')
	if i = c.skipWS(i); i < len(b) && b[i] == '}' {
		return append(dst, '}'), i + 1, nil
	}
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	for {
		if i >= len(b) || b[i] != '"' {
			return dst, i, syntaxError(i, "expected string key")
		}
		if len(c.members) > base {
			dst = append(dst, ',')
		}
		m := member{key: len(dst)}
		var err error
		if dst, i, err = appendCanonString(dst, b, i+1); err != nil {
			return dst, i, err
		}
		m.colon = len(dst)
		m.index, m.isIndex = arrayIndex(dst[m.key+1 : m.colon-1])
		if i = c.skipWS(i); i >= len(b) || b[i] != ':' {
			return dst, i, syntaxError(i, "expected ':'")
		}
		dst = append(dst, ':')
		if dst, i, err = c.value(dst, i+1); err != nil {
			return dst, i, err
		}
		m.end = len(dst)
		c.members = append(c.members, m)
		if i = c.skipWS(i); i >= len(b) {
			return dst, i, syntaxError(i, "unexpected end of data")
		}
		if b[i] == '}' {
			i++
			break
		}
		if b[i] != ',' {
			return dst, i, syntaxError(i, "expected ',' or '}'")
		}
		i = c.skipWS(i + 1)
	}
	dst = append(dst, '}')
	return c.reorder(dst, start, base), i, nil
}

// reorder rewrites the object written at dst[start:] into JavaScript
// property order when its members are not in it already.
func (c *canonizer) reorder(dst []byte, start, base int) []byte {
	ms := c.members[base:]
	keyOf := func(m member) []byte { return dst[m.key:m.colon] }
	sorted, dup := true, false
	seenNonIndex := false
	var last int64 = -1
	for k := range ms {
		ms[k].firstIndex = k
		if ms[k].isIndex {
			if seenNonIndex || ms[k].index <= last {
				sorted = false
			}
			last = ms[k].index
		} else {
			seenNonIndex = true
		}
	}
	// Find duplicates: firstIndex points at the first member with the key.
	if len(ms) <= 16 {
		for k := 1; k < len(ms); k++ {
			for j := 0; j < k; j++ {
				if ms[j].firstIndex == j && bytes.Equal(keyOf(ms[j]), keyOf(ms[k])) {
					ms[k].firstIndex = j
					dup = true
					break
				}
			}
		}
	} else {
		first := make(map[string]int, len(ms))
		for k := range ms {
			key := string(keyOf(ms[k]))
			if j, ok := first[key]; ok {
				ms[k].firstIndex = j
				dup = true
			} else {
				first[key] = k
			}
		}
	}
	if sorted && !dup {
		return dst
	}
	// winner[j] is the last member with the key first seen at j.
	winner := make([]int, len(ms))
	for k := range ms {
		winner[ms[k].firstIndex] = k
	}
	order := make([]int, 0, len(ms))
	for k := range ms {
		if ms[k].firstIndex == k {
			order = append(order, k)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int {
		mx, my := ms[x], ms[y]
		switch {
		case mx.isIndex && my.isIndex:
			return cmp.Compare(mx.index, my.index)
		case mx.isIndex:
			return -1
		case my.isIndex:
			return 1
		}
		return 0
	})
	c.tmp = append(c.tmp[:0], '{')
	for n, k := range order {
		if n > 0 {
			c.tmp = append(c.tmp, ',')
		}
		w := ms[winner[k]]
		c.tmp = append(c.tmp, dst[w.key:w.end]...)
	}
	c.tmp = append(c.tmp, '}')
	return append(dst[:start], c.tmp...)
}

// appendCanonString appends the canonical form of the string whose opening
// quote is at b[i-1] and returns the index after its closing quote.
func appendCanonString(dst, b []byte, i int) ([]byte, int, error) {
	dst, i, err := appendStringBody(append(dst, '"'), b, i, appendCanonEscape)
	if err != nil {
		return dst, i, err
	}
	return append(dst, '"'), i, nil
}

// appendCanonEscape appends the canonical form of the escape at b[i] ('\\')
// and returns the index after it.
func appendCanonEscape(dst, b []byte, i int) ([]byte, int, error) {
	if i+1 >= len(b) {
		return dst, i, syntaxError(i, "unterminated string")
	}
	switch c := b[i+1]; c {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return append(dst, '\\', c), i + 2, nil
	case '/':
		return append(dst, '/'), i + 2, nil
	case 'u':
	default:
		return dst, i + 1, syntaxError(i+1, "invalid escape")
	}
	u, j, st := hex4(b, i+2)
	if st != stOK {
		return dst, j, syntaxError(j, "invalid \\u escape")
	}
	switch {
	case u < 0x80 && !plain[u]:
		return appendEscapedASCII(dst, byte(u)), j, nil
	case u >= 0xD800 && u <= 0xDBFF:
		if j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
			if lo, k, st := hex4(b, j+2); st == stOK && lo >= 0xDC00 && lo <= 0xDFFF {
				return appendRune(dst, 0x10000+(rune(u)-0xD800)<<10+rune(lo)-0xDC00), k, nil
			}
		}
		return appendU(dst, u), j, nil
	case u >= 0xDC00 && u <= 0xDFFF:
		return appendU(dst, u), j, nil
	}
	return appendRune(dst, rune(u)), j, nil
}
