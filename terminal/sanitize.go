package terminal

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// MaxKeyPartLen bounds the length in bytes of SanitizeKeyPart's result.
const MaxKeyPartLen = 128

// SanitizeKeyPart makes an environment value safe as part of a file name: it
// replaces '/', '\\', control characters, invalid UTF-8, a leading '.' and
// every '.' that would follow another '.' with '_', so the result contains
// no path separator and no "..". A result longer than MaxKeyPartLen bytes is
// cut and ends in a hash of the whole value, so distinct long values stay
// distinct. Values that are already safe, such as "%3", "7" or
// "w0t0p0:8A3F...", are returned unchanged, which keeps keys equal to those
// TypeScript xcsh writes.
func SanitizeKeyPart(v string) string {
	var b strings.Builder
	b.Grow(len(v))
	prev := byte(0)
	for i, r := range v {
		var c string
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(v[i:], "\uFFFD"):
			c = "_" // an invalid byte, not a literal U+FFFD
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			c = "_"
		case r == '/', r == '\\':
			c = "_"
		case r == '.' && (i == 0 || prev == '.'):
			c = "_"
		default:
			c = string(r)
		}
		b.WriteString(c)
		prev = c[len(c)-1]
	}
	s := b.String()
	if len(s) <= MaxKeyPartLen {
		return s
	}
	sum := sha256.Sum256([]byte(v))
	suffix := "-" + hex.EncodeToString(sum[:4])
	cut := MaxKeyPartLen - len(suffix)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	// The cut may leave a '.' at the end; the '-' that follows keeps ".."
	// impossible.
	return s[:cut] + suffix
}

// cleanValue makes an environment value safe to show and store (JSON, live
// state files): control characters and invalid UTF-8 are replaced with '_'
// and the length is bounded. Unlike SanitizeKeyPart it keeps '/', since
// socket paths are values too.
func cleanValue(v string) string {
	const maxLen = 1024
	if len(v) > maxLen {
		cut := maxLen
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(v, "_"))
}
