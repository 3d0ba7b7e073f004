package conformance

import (
	"unicode/utf8"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// JavaScript string helpers over WTF-8 strings (see value.go).

// utf16Len returns JavaScript's s.length.
func utf16Len(s string) int { return jsjson.UTF16Len(s) }

// utf16Units returns the UTF-16 code units of WTF-8 string s.
func utf16Units(s string) []uint16 {
	out := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			out = append(out, uint16(s[i]))
			i++
			continue
		}
		if u, ok := jsjson.SurrogateAt(s, i); ok {
			out = append(out, u)
			i += 3
			continue
		}
		l, ok := jsjson.SeqLen(s, i)
		if !ok {
			out = append(out, 0xFFFD)
			i += l
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i : i+l])
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			out = append(out, uint16(r))
		}
		i += l
	}
	return out
}

// fromUnits returns the WTF-8 string of UTF-16 code units: pairs become
// characters, lone surrogates their 3-byte encoding.
func fromUnits(u []uint16) string {
	b := make([]byte, 0, len(u)*3/2+4)
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if c >= 0xD800 && c <= 0xDBFF && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] <= 0xDFFF {
			c = 0x10000 + (c-0xD800)<<10 + rune(u[i+1]) - 0xDC00
			i++
			b = utf8.AppendRune(b, c)
			continue
		}
		if c >= 0xD800 && c <= 0xDFFF {
			b = append(b, 0xE0|byte(c>>12), 0x80|byte(c>>6)&0x3F, 0x80|byte(c)&0x3F)
			continue
		}
		b = utf8.AppendRune(b, c)
	}
	return string(b)
}

// toUTF8 returns what Buffer.from(s, "utf8") holds: lone surrogates (and any
// ill-formed byte) become U+FFFD.
func toUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			b = append(b, s[i])
			i++
			continue
		}
		if _, ok := jsjson.SurrogateAt(s, i); ok {
			b = append(b, "\uFFFD"...)
			i += 3
			continue
		}
		l, ok := jsjson.SeqLen(s, i)
		if ok {
			b = append(b, s[i:i+l]...)
		} else {
			b = append(b, "\uFFFD"...)
		}
		i += l
	}
	return string(b)
}

// decodeText returns buf.toString("utf8") of Node: each maximal ill-formed
// subpart becomes one U+FFFD.
func decodeText(buf []byte) string {
	if utf8.Valid(buf) {
		return string(buf)
	}
	s := string(buf)
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		l, ok := jsjson.SeqLen(s, i)
		if ok {
			b = append(b, s[i:i+l]...)
		} else {
			b = append(b, "\uFFFD"...)
		}
		i += l
	}
	return string(b)
}

// repeatTo returns unit repeated and cut to n UTF-16 code units.
func repeatTo(unit string, n int) string {
	if n <= 0 {
		return ""
	}
	u := utf16Units(unit)
	if len(u) == 0 {
		return ""
	}
	out := make([]uint16, 0, n+len(u))
	for len(out) < n {
		out = append(out, u...)
	}
	return fromUnits(out[:n])
}

// sliceUnits returns s.slice(from, to) in UTF-16 code units (to < 0: to the end).
func sliceUnits(s string, from, to int) string {
	u := utf16Units(s)
	if to < 0 || to > len(u) {
		to = len(u)
	}
	if from < 0 {
		from = 0
	}
	if from > to {
		return ""
	}
	return fromUnits(u[from:to])
}
