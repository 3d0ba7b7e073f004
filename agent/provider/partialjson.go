package provider

import (
	"encoding/json"
	"strings"
)

var emptyObject = json.RawMessage("{}")

// ParseArguments turns tool-call argument text, possibly cut off mid-stream,
// into a JSON object. Complete JSON is returned as it is; an unfinished
// object is closed at the last point where it still parses (an unfinished
// string value is kept, closed); empty or unusable text, or a value that is
// not an object, gives {}.
func ParseArguments(s string) json.RawMessage {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '{' {
		return emptyObject
	}
	if json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	if r := completeJSON(t); r != nil {
		return r
	}
	return emptyObject
}

// completeJSON closes a truncated JSON object. It scans once, remembering the
// last prefix that is valid once its open brackets are closed (right after an
// opening bracket, before a comma, after a closed container), and first tries
// the whole text with an open string value closed.
func completeJSON(s string) json.RawMessage {
	type frame struct {
		open     byte
		wantsKey bool // in an object, the next string is a key
	}
	var stack []frame
	closers := func(n int) string {
		b := make([]byte, 0, n)
		for i := n - 1; i >= 0; i-- {
			if stack[i].open == '{' {
				b = append(b, '}')
			} else {
				b = append(b, ']')
			}
		}
		return string(b)
	}
	safe := ""
	inString, escaped, stringIsKey := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if stringIsKey {
					stack[len(stack)-1].wantsKey = false
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			stringIsKey = len(stack) > 0 && stack[len(stack)-1].open == '{' && stack[len(stack)-1].wantsKey
		case '{', '[':
			stack = append(stack, frame{open: c, wantsKey: c == '{'})
			safe = s[:i+1] + closers(len(stack))
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				// The object closed before the end: trailing text is garbage.
				if json.Valid([]byte(s[:i+1])) {
					return json.RawMessage(s[:i+1])
				}
				return nil
			}
			safe = s[:i+1] + closers(len(stack))
		case ',':
			if len(stack) > 0 {
				safe = s[:i] + closers(len(stack))
				if stack[len(stack)-1].open == '{' {
					stack[len(stack)-1].wantsKey = true
				}
			}
		}
	}
	if len(stack) == 0 {
		return nil
	}
	if inString && !stringIsKey {
		body := s
		if escaped {
			body = body[:len(body)-1]
		}
		cand := body + `"` + closers(len(stack))
		if json.Valid([]byte(cand)) {
			return json.RawMessage(cand)
		}
	} else if !inString {
		cand := strings.TrimRight(s, " \t\r\n") + closers(len(stack))
		if json.Valid([]byte(cand)) {
			return json.RawMessage(cand)
		}
	}
	if safe != "" && json.Valid([]byte(safe)) {
		return json.RawMessage(safe)
	}
	return nil
}
