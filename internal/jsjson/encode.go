package jsjson

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by the errors this package returns for invalid JSON.
var ErrSyntax = errors.New("invalid json")

// maxDepth bounds the nesting Canonical and Parse accept. They recurse, and
// JavaScript's JSON.stringify throws a RangeError long before this depth.
const maxDepth = 10000

// ErrTooDeep is wrapped by the error for values nested deeper than maxDepth.
var ErrTooDeep = errors.New("json nested too deeply")

// syntaxError reports invalid JSON at byte offset off.
func syntaxError(off int, what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, off)
}

const hexDigits = "0123456789abcdef"

// appendU appends the escape \uXXXX for code unit u, with lowercase hex.
func appendU(dst []byte, u uint16) []byte {
	return append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
}

// appendEscapedASCII appends the JSON.stringify form of the non-plain ASCII
// byte c: a quote, a backslash or a control character.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return appendU(dst, uint16(c))
}

// AppendString appends s as a JSON string literal in canonical form, the way
// JSON.stringify writes the JavaScript string s stands for. s is WTF-8: valid
// UTF-8 plus the 3-byte encodings of surrogates (ED A0 80..ED BF BF). A lone
// surrogate is written as \udxxx; a high and a low surrogate in a row form a
// pair and are written as the character. Other invalid bytes become U+FFFD,
// one per maximal ill-formed subpart as TextDecoder does.
func AppendString(dst []byte, s string) []byte {
	b := bytesOf(s)
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(b); {
		i = skipPlain(b, i)
		if i >= len(b) {
			break
		}
		c := b[i]
		if c < 0x80 {
			dst = append(dst, b[start:i]...)
			dst = appendEscapedASCII(dst, c)
			i++
			start = i
			continue
		}
		if u, ok := surrogateAt(b, i); ok {
			dst = append(dst, b[start:i]...)
			if lo, ok := surrogateAt(b, i+3); ok && u < 0xDC00 && lo >= 0xDC00 {
				r := 0x10000 + (rune(u)-0xD800)<<10 + rune(lo) - 0xDC00
				dst = appendRune(dst, r)
				i += 6
			} else {
				dst = appendU(dst, u)
				i += 3
			}
			start = i
			continue
		}
		l, ok := seqLen(b, i)
		if !ok {
			dst = append(dst, b[start:i]...)
			dst = append(dst, 0xEF, 0xBF, 0xBD)
			start = i + l
		}
		i += l
	}
	dst = append(dst, b[start:]...)
	return append(dst, '"')
}

// DecodeString decodes a raw JSON string token (with its quotes) into WTF-8:
// lone surrogate escapes are kept as 3-byte sequences, escaped surrogate pairs
// are combined, and invalid UTF-8 becomes U+FFFD.
func DecodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", syntaxError(0, "expected string")
	}
	out, end, err := appendDecoded(nil, raw, 1)
	if err != nil {
		return "", err
	}
	if end != len(raw) {
		return "", syntaxError(end, "data after string")
	}
	return string(out), nil
}

// appendDecoded decodes the string whose opening quote is at b[i-1] into dst
// (WTF-8) and returns the index after its closing quote.
func appendDecoded(dst, b []byte, i int) ([]byte, int, error) {
	return appendStringBody(dst, b, i, appendUnescaped)
}

// appendStringBody copies the body of the string token whose opening quote
// is at b[i-1] into dst up to the closing quote, whose index+1 it returns:
// plain runs as they are, invalid UTF-8 as U+FFFD, and each escape through
// esc (which decodes it, or writes its canonical form).
func appendStringBody(dst, b []byte, i int, esc func(dst, b []byte, i int) ([]byte, int, error)) ([]byte, int, error) {
	start := i
	for {
		i = skipPlain(b, i)
		if i >= len(b) {
			return dst, i, syntaxError(i, "unterminated string")
		}
		c := b[i]
		switch {
		case c == '"':
			return append(dst, b[start:i]...), i + 1, nil
		case c == '\\':
			dst = append(dst, b[start:i]...)
			var err error
			if dst, i, err = esc(dst, b, i); err != nil {
				return dst, i, err
			}
			start = i
		case c < 0x20:
			return dst, i, syntaxError(i, "control character in string")
		default:
			l, ok := seqLen(b, i)
			if !ok {
				dst = append(dst, b[start:i]...)
				dst = append(dst, 0xEF, 0xBF, 0xBD)
				start = i + l
			}
			i += l
		}
	}
}

// appendUnescaped decodes the escape at b[i] ('\\') into dst (WTF-8). An
// escaped high surrogate followed by an escaped low one is decoded as a pair.
func appendUnescaped(dst, b []byte, i int) ([]byte, int, error) {
	if i+1 >= len(b) {
		return dst, i, syntaxError(i, "unterminated string")
	}
	switch c := b[i+1]; c {
	case '"', '\\', '/':
		return append(dst, c), i + 2, nil
	case 'b':
		return append(dst, '\b'), i + 2, nil
	case 'f':
		return append(dst, '\f'), i + 2, nil
	case 'n':
		return append(dst, '\n'), i + 2, nil
	case 'r':
		return append(dst, '\r'), i + 2, nil
	case 't':
		return append(dst, '\t'), i + 2, nil
	case 'u':
	default:
		return dst, i + 1, syntaxError(i+1, "invalid escape")
	}
	u, j, st := hex4(b, i+2)
	if st != stOK {
		return dst, j, syntaxError(j, "invalid \\u escape")
	}
	if u >= 0xD800 && u <= 0xDBFF && j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
		if lo, k, st := hex4(b, j+2); st == stOK && lo >= 0xDC00 && lo <= 0xDFFF {
			return appendRune(dst, 0x10000+(rune(u)-0xD800)<<10+rune(lo)-0xDC00), k, nil
		}
	}
	return appendRune(dst, rune(u)), j, nil
}

// Marshal encodes v with encoding/json and returns the canonical form: keys
// in JavaScript order, no HTML escaping, U+2028 and U+2029 literal, numbers
// as ECMAScript writes them.
func Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("jsjson: marshal: %w", err)
	}
	return Canonical(raw)
}
