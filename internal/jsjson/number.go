package jsjson

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// AppendNumber appends f as ECMAScript Number::toString(f) writes it: the
// shortest digits that round-trip, in plain notation when the decimal
// exponent is in [-7, 21) and as "1.5e-7" / "1e+21" otherwise. -0 is written
// as "0"; NaN and the infinities as "NaN", "Infinity" and "-Infinity" (JSON
// has no such values: JSON.stringify writes null, see appendJSONNumber).
func AppendNumber(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f < 1<<53 && f == math.Trunc(f) {
		// Every integer below 2^53 is exact, and its digits are the shortest.
		return strconv.AppendUint(dst, uint64(f), 10)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	var digits [24]byte
	k := 0
	p := 0
	for ; e[p] != 'e'; p++ {
		if e[p] != '.' {
			digits[k] = e[p]
			k++
		}
	}
	x, _ := strconv.Atoi(string(e[p+1:]))
	n := x + 1 // value = 0.d1d2...dk * 10^n
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// parseNumber parses a JSON number token as JSON.parse does (correctly
// rounded; out-of-range magnitudes become ±Infinity or ±0).
func parseNumber(tok []byte) float64 {
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	return f
}

// simpleInt reports whether the JSON number token tok is an integer of at
// most 15 digits other than "-0": such a token is its own canonical form.
func simpleInt(tok []byte) bool {
	i := 0
	if len(tok) > 0 && tok[0] == '-' {
		i = 1
		if len(tok) == 2 && tok[1] == '0' {
			return false
		}
	}
	if len(tok)-i > 15 || len(tok) == i {
		return false
	}
	for ; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return false
		}
	}
	return true
}

// simpleDecimal reports whether the JSON number token tok is a decimal
// fraction that is its own canonical form for a simple reason: no exponent,
// no trailing zero, at most 15 significant digits and at most five zeros
// after "0.". Decimals of at most 15 significant digits map to distinct
// doubles, so these digits are the shortest that round-trip, and the decimal
// exponent is in the range Number::toString writes in plain notation.
func simpleDecimal(tok []byte) bool {
	i := 0
	if len(tok) > 0 && tok[0] == '-' {
		i = 1
	}
	intStart := i
	for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
		i++
	}
	intLen := i - intStart
	if intLen == 0 || i >= len(tok) || tok[i] != '.' {
		return false
	}
	i++
	fracStart := i
	for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
		i++
	}
	if i != len(tok) || i == fracStart || tok[i-1] == '0' {
		return false
	}
	sig := intLen + i - fracStart
	if intLen == 1 && tok[intStart] == '0' {
		z := 0
		for tok[fracStart+z] == '0' {
			z++
		}
		if z > 5 {
			return false
		}
		sig = i - fracStart - z
	}
	return sig <= 15
}

// numberIsCanonical reports whether the valid JSON number token tok is
// written exactly as JSON.stringify(JSON.parse(tok)) writes it.
func numberIsCanonical(tok []byte) bool {
	if simpleInt(tok) || simpleDecimal(tok) {
		return true
	}
	var buf [40]byte
	return bytes.Equal(appendJSONNumber(buf[:0], parseNumber(tok)), tok)
}

// appendJSONNumber appends f as JSON.stringify does: non-finite values
// become null.
func appendJSONNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || f != f {
		return append(dst, "null"...)
	}
	return AppendNumber(dst, f)
}

// appendCanonNumber appends the canonical form of the valid JSON number
// token tok.
func appendCanonNumber(dst, tok []byte) []byte {
	if simpleInt(tok) {
		return append(dst, tok...)
	}
	return appendJSONNumber(dst, parseNumber(tok))
}
