package session

import "bytes"

// member returns the raw value of the top-level member key of the JSON object
// raw, or nil. raw must be valid JSON (it always is: it came from the parser or
// the encoder). Only keys are compared, values are skipped without decoding, so
// looking up "role" in a 2 KB message costs a few dozen byte comparisons.
// JSON.parse keeps the last of duplicate keys, so the whole object is walked.
func member(raw []byte, key string) []byte { return findMember(raw, key, false) }

// canonMember is member for a canonical value (every value an Entry holds):
// JSON.stringify writes no duplicate keys, so the first match is the one,
// and the scan stops there instead of walking the rest of the object.
func canonMember(raw []byte, key string) []byte { return findMember(raw, key, true) }

// findMember is member, stopping at the first match when first is set.
func findMember(raw []byte, key string, first bool) []byte {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil
	}
	i++
	var found []byte
	for {
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return found
		}
		if raw[i] == ',' {
			i++
			continue
		}
		ks := i
		i = skipString(raw, i)
		k := raw[ks:i]
		i = skipWS(raw, i)
		if i < len(raw) && raw[i] == ':' {
			i++
		}
		i = skipWS(raw, i)
		vs := i
		i = skipValue(raw, i)
		if keyEquals(k, key) {
			if found = raw[vs:i]; first {
				return found
			}
		}
	}
}

// memberPath follows nested members: memberPath(raw, "a", "b") is raw.a.b.
func memberPath(raw []byte, keys ...string) []byte {
	for _, k := range keys {
		raw = member(raw, k)
		if raw == nil {
			return nil
		}
	}
	return raw
}

// elements calls fn for every element of the JSON array raw.
func elements(raw []byte, fn func(v []byte)) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return
	}
	i++
	for {
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == ']' {
			return
		}
		if raw[i] == ',' {
			i++
			continue
		}
		s := i
		i = skipValue(raw, i)
		fn(raw[s:i])
	}
}

func keyEquals(tok []byte, key string) bool {
	if len(tok) == len(key)+2 {
		return string(tok[1:len(tok)-1]) == key
	}
	if bytes.IndexByte(tok, '\\') >= 0 {
		return rawString(tok) == key
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index after the string token starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		// the quote is escaped when an odd number of backslashes precede it
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 1 {
			i++
			continue
		}
		return i + 1
	}
	return len(b)
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\n', '\r', '\t':
				return i
			}
			i++
		}
		return i
	}
}
