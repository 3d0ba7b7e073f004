package jsjson

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// byteSeq is the set of inputs the UTF-8 helpers accept.
type byteSeq interface{ ~string | ~[]byte }

// seqLen decodes the UTF-8 sequence that starts at s[i] (s[i] >= 0x80) the
// way the WHATWG decoder (TextDecoder, Bun.file().text()) does. It returns the
// length of a valid sequence and true, or the length of the maximal ill-formed
// subpart and false: that subpart becomes exactly one U+FFFD.
func seqLen[T byteSeq](s T, i int) (int, bool) {
	b0 := s[i]
	n := len(s)
	switch {
	case b0 < 0x80:
		return 1, true
	case b0 < 0xC2:
		return 1, false
	case b0 < 0xE0:
		if i+1 < n && s[i+1]&0xC0 == 0x80 {
			return 2, true
		}
		return 1, false
	case b0 < 0xF0:
		lo, hi := byte(0x80), byte(0xBF)
		switch b0 {
		case 0xE0:
			lo = 0xA0
		case 0xED:
			hi = 0x9F
		}
		if i+1 >= n || s[i+1] < lo || s[i+1] > hi {
			return 1, false
		}
		if i+2 >= n || s[i+2]&0xC0 != 0x80 {
			return 2, false
		}
		return 3, true
	case b0 < 0xF5:
		lo, hi := byte(0x80), byte(0xBF)
		switch b0 {
		case 0xF0:
			lo = 0x90
		case 0xF4:
			hi = 0x8F
		}
		if i+1 >= n || s[i+1] < lo || s[i+1] > hi {
			return 1, false
		}
		if i+2 >= n || s[i+2]&0xC0 != 0x80 {
			return 2, false
		}
		if i+3 >= n || s[i+3]&0xC0 != 0x80 {
			return 3, false
		}
		return 4, true
	}
	return 1, false
}

// surrogateAt reports whether s[i:] starts with the WTF-8 (generalised UTF-8)
// encoding of a surrogate code unit, ED A0..BF 80..BF, and returns the unit.
func surrogateAt[T byteSeq](s T, i int) (uint16, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return 0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F), true
	}
	return 0, false
}

// appendSurrogate appends the WTF-8 encoding of surrogate code unit u.
func appendSurrogate(dst []byte, u uint16) []byte {
	return append(dst, 0xED, 0xA0|byte(u>>6)&0x1F, 0x80|byte(u)&0x3F)
}

// appendRune appends the UTF-8 encoding of r (r must be a scalar value or a
// surrogate, which is written as WTF-8).
func appendRune(dst []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(dst, byte(r))
	case r < 0x800:
		return append(dst, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r < 0x10000:
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return append(dst, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// SeqLen decodes the UTF-8 sequence at s[i] as the WHATWG decoder does:
// the length of a valid sequence and true, or the length of the maximal
// ill-formed subpart (one U+FFFD) and false.
func SeqLen(s string, i int) (int, bool) { return seqLen(s, i) }

// SurrogateAt reports whether s[i:] starts with a WTF-8 encoded surrogate
// (ED A0..BF xx) and returns its UTF-16 unit.
func SurrogateAt(s string, i int) (uint16, bool) { return surrogateAt(s, i) }

// UTF16Len returns the length of WTF-8 string s in UTF-16 code units, which is
// what JavaScript's .length reports. Each ill-formed subpart counts as one
// U+FFFD; a surrogate pair written as two WTF-8 surrogates counts as two units.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			i++
			n++
			continue
		}
		if _, ok := surrogateAt(s, i); ok {
			i += 3
			n++
			continue
		}
		l, ok := seqLen(s, i)
		if ok && l == 4 {
			n += 2
		} else {
			n++
		}
		i += l
	}
	return n
}

// plain marks the bytes a JSON string can hold as they are: printable ASCII
// other than '"' and '\\'. The other bytes need a look: quote, backslash,
// control characters and every byte >= 0x80.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// skipPlain returns the index of the first byte at or after i that is not
// plain (see plain), or len(b). It tests eight bytes at a time.
func skipPlain(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (swarLo * '"')
		e := x ^ (swarLo * '\\')
		// The lowest flagged byte of each term is exact (borrows only run
		// upwards), so the lowest flagged byte overall is the answer.
		m := ((q - swarLo) &^ q) | ((e - swarLo) &^ e) | (x - swarLo*0x20) | x
		if m &= swarHi; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// bytesOf returns the bytes of s without copying. The result must not be
// modified.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
