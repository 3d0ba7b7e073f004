package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// args decodes a tool call's arguments leniently but checks them strictly:
// unknown keys and wrong types are reported by name, numbers may come as
// numeric strings and booleans as "true"/"false", since models do that.
type args struct {
	tool    string
	allowed []string
	m       map[string]json.RawMessage
	errs    []string
}

// intentKey is the intent-tracing property the loop normally strips; it is
// tolerated here in case it reaches a tool.
const intentKey = "_i"

// parseArgs reads raw (an object, or empty/null for {}) and checks its keys.
func parseArgs(tool string, raw json.RawMessage, allowed ...string) *args {
	a := &args{tool: tool, allowed: allowed, m: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a
	}
	if raw[0] != '{' {
		a.errs = append(a.errs, "arguments must be a JSON object")
		return a
	}
	if err := json.Unmarshal(raw, &a.m); err != nil {
		a.errs = append(a.errs, "arguments are not valid JSON: "+err.Error())
		return a
	}
	var unknown []string
	for k := range a.m {
		if k != intentKey && !slices.Contains(allowed, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		a.errs = append(a.errs, fmt.Sprintf("unknown argument %s (allowed: %s)", strings.Join(unknown, ", "), strings.Join(allowed, ", ")))
	}
	return a
}

// get returns the raw value of name, or nil when absent or null.
func (a *args) get(name string) json.RawMessage {
	v, ok := a.m[name]
	if !ok || string(v) == "null" {
		return nil
	}
	return v
}

// str returns the string argument name; a missing required one is an error.
func (a *args) str(name string, required bool) string {
	v := a.get(name)
	if v == nil {
		if required {
			a.errs = append(a.errs, fmt.Sprintf("missing required argument %q (a string)", name))
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		a.errs = append(a.errs, fmt.Sprintf("argument %q must be a string, got %s", name, jsonKind(v)))
	}
	return s
}

// num returns the number argument name and whether it was given.
func (a *args) num(name string) (float64, bool) {
	v := a.get(name)
	if v == nil {
		return 0, false
	}
	var f float64
	err := json.Unmarshal(v, &f)
	if err != nil {
		var s string
		if json.Unmarshal(v, &s) == nil {
			f, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
		}
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		a.errs = append(a.errs, fmt.Sprintf("argument %q must be a number, got %s", name, jsonKind(v)))
		return 0, false
	}
	return f, true
}

// boolean returns the boolean argument name (false when absent).
func (a *args) boolean(name string) bool {
	v := a.get(name)
	if v == nil {
		return false
	}
	switch strings.Trim(string(v), `"`) {
	case "true":
		return true
	case "false":
		return false
	}
	a.errs = append(a.errs, fmt.Sprintf("argument %q must be a boolean, got %s", name, jsonKind(v)))
	return false
}

// failed returns an error result listing every problem, or nil.
func (a *args) failed() *Result {
	if len(a.errs) == 0 {
		return nil
	}
	r := errorf("invalid arguments for %s: %s", a.tool, strings.Join(a.errs, "; "))
	return &r
}

// jsonKind names the JSON type of v for error messages.
func jsonKind(v json.RawMessage) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
