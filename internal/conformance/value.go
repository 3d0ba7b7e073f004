package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// The replayer works on JSON values the way the JavaScript harness does, so
// that documents come out with the same keys in the same order:
//
//	nil        null
//	bool       true, false
//	float64    a number (a JavaScript double)
//	string     a string, in WTF-8 (lone surrogates as their 3-byte encoding,
//	           as package jsjson writes them)
//	[]any      an array
//	*Object    an object, keys in JavaScript order
//	Undefined  undefined: left out of objects, null in arrays (JSON.stringify)

// Undefined is JavaScript's undefined.
type Undefined struct{}

// undef is the Undefined value.
var undef = Undefined{}

func isUndef(v any) bool { _, ok := v.(Undefined); return ok }

// Object is a JavaScript object: string keys in JavaScript's property order,
// array-index keys first in ascending numeric order, then the others in
// insertion order.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// obj builds an object from key, value pairs.
func obj(kv ...any) *Object {
	o := NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in order. The slice must not be modified.
func (o *Object) Keys() []string { return o.keys }

// Has reports whether key is present (even with an undefined value).
func (o *Object) Has(key string) bool { _, ok := o.vals[key]; return ok }

// Get returns the value of key, or Undefined when absent.
func (o *Object) Get(key string) any {
	if v, ok := o.vals[key]; ok {
		return v
	}
	return undef
}

// Set sets key; an existing key keeps its position.
func (o *Object) Set(key string, v any) {
	if _, ok := o.vals[key]; ok {
		o.vals[key] = v
		return
	}
	o.vals[key] = v
	if idx, ok := indexKey(key); ok {
		// index keys go first, ascending
		i := sort.Search(len(o.keys), func(i int) bool {
			j, ok := indexKey(o.keys[i])
			return !ok || j > idx
		})
		o.keys = append(o.keys, "")
		copy(o.keys[i+1:], o.keys[i:])
		o.keys[i] = key
		return
	}
	o.keys = append(o.keys, key)
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			return
		}
	}
}

// indexKey reports whether JavaScript treats key as an array index.
func indexKey(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	v, _ := strconv.ParseUint(k, 10, 64)
	return v, v < 4294967295
}

// MarshalJSON writes the object as JSON.stringify does.
func (o *Object) MarshalJSON() ([]byte, error) { return appendJSON(nil, o), nil }

// ---- encoding ----

// encodeJSON returns JSON.stringify(v); ok is false when v is undefined.
func encodeJSON(v any) ([]byte, bool) {
	if isUndef(v) {
		return nil, false
	}
	return appendJSON(nil, v), true
}

// appendJSON appends JSON.stringify(v) (compact).
func appendJSON(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil, Undefined:
		return append(dst, "null"...)
	case bool:
		if x {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case float64:
		return appendNum(dst, x)
	case string:
		return jsjson.AppendString(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	case *Object:
		dst = append(dst, '{')
		first := true
		for _, k := range x.keys {
			e := x.vals[k]
			if isUndef(e) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsjson.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendJSON(dst, e)
		}
		return append(dst, '}')
	}
	panic(fmt.Sprintf("conformance: not a JSON value: %T", v))
}

func appendNum(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return jsjson.AppendNumber(dst, f)
}

// indentJSON returns JSON.stringify(v, null, 1).
func indentJSON(v any) []byte {
	var b bytes.Buffer
	writeIndented(&b, v, 0)
	return b.Bytes()
}

func writeIndented(b *bytes.Buffer, v any, depth int) {
	nl := func(d int) {
		b.WriteByte('\n')
		for i := 0; i < d; i++ {
			b.WriteByte(' ')
		}
	}
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeIndented(b, e, depth+1)
		}
		nl(depth)
		b.WriteByte(']')
	case *Object:
		first := true
		for _, k := range x.keys {
			e := x.vals[k]
			if isUndef(e) {
				continue
			}
			if first {
				b.WriteByte('{')
			} else {
				b.WriteByte(',')
			}
			first = false
			nl(depth + 1)
			b.Write(jsjson.AppendString(nil, k))
			b.WriteString(": ")
			writeIndented(b, e, depth+1)
		}
		if first {
			b.WriteString("{}")
			return
		}
		nl(depth)
		b.WriteByte('}')
	default:
		b.Write(appendJSON(nil, v))
	}
}

// ---- parsing ----

var errJSON = errors.New("invalid JSON")

// parseJSON parses one JSON text as JSON.parse does: whitespace around the
// value is allowed, nothing else. Strings come out as WTF-8.
func parseJSON(data []byte) (any, error) {
	p := parser{b: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, fmt.Errorf("%w: data after value at offset %d", errJSON, p.i)
	}
	return v, nil
}

// mustParse parses JSON the program itself produced.
func mustParse(data []byte) any {
	v, err := parseJSON(data)
	if err != nil {
		panic(fmt.Sprintf("conformance: bad JSON %.200q: %v", data, err))
	}
	return v
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errJSON, what, p.i)
}

func (p *parser) value(depth int) (any, error) {
	if depth > 10000 {
		return nil, p.fail("nesting too deep")
	}
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		o := NewObject()
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return o, nil
		}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return nil, p.fail("expected key")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.fail("expected ':'")
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return o, nil
			}
			return nil, p.fail("expected ',' or '}'")
		}
	case c == '[':
		p.i++
		a := []any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return a, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return a, nil
			}
			return nil, p.fail("expected ',' or ']'")
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.lit("true", true)
	case c == 'f':
		return p.lit("false", false)
	case c == 'n':
		return p.lit("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	}
	return nil, p.fail("unexpected character")
}

func (p *parser) lit(word string, v any) (any, error) {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return nil, p.fail("invalid literal")
	}
	p.i += len(word)
	return v, nil
}

func (p *parser) num() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("invalid number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.fail("invalid number")
	}
	return f, nil
}

func (p *parser) str() (string, error) {
	start := p.i
	i := p.i + 1
	for i < len(p.b) {
		c := p.b[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.b) {
		return "", p.fail("unterminated string")
	}
	p.i = i + 1
	s, err := jsjson.DecodeString(p.b[start:p.i])
	if err != nil {
		return "", fmt.Errorf("%w: string at offset %d: %v", errJSON, start, err)
	}
	return s, nil
}

// ---- deep copy ----

// clone deep-copies v (objects and arrays; scalars are immutable).
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	case *Object:
		out := &Object{keys: append([]string(nil), x.keys...), vals: make(map[string]any, len(x.vals))}
		for k, e := range x.vals {
			out.vals[k] = clone(e)
		}
		return out
	}
	return v
}
