package jsjson

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Node is a JSON value as an ordered tree, for the rare paths that must
// change a value. Objects keep their keys in insertion order; AppendJSON
// writes them in JavaScript order (array-index keys first).
type Node struct {
	Kind  byte     // as Value.Kind
	Str   string   // decoded string (WTF-8) for '"'
	Num   []byte   // raw number token for '0' (canonicalised on output)
	Bool  bool     // for 't' and 'f'
	Keys  []string // object keys in insertion order (duplicates already merged: last value, first position)
	Vals  []*Node  // object values, parallel to Keys
	Items []*Node  // array items
}

// Parse parses one JSON text (whitespace around it is allowed) into a tree.
// Of duplicate keys the last value is kept at the position of the first.
func Parse(raw []byte) (*Node, error) {
	p := treeParser{b: raw}
	n, i, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if i = p.skipWS(i); i != len(raw) {
		return nil, syntaxError(i, "data after value")
	}
	return n, nil
}

// NewRaw parses raw into a tree; it is Parse under the name the
// constructors share.
func NewRaw(raw []byte) (*Node, error) { return Parse(raw) }

// NewString returns a string node; s is WTF-8.
func NewString(s string) *Node { return &Node{Kind: '"', Str: s} }

// NewNumber returns a number node. NaN and the infinities give a null node,
// which is what JSON.stringify writes for them.
func NewNumber(f float64) *Node {
	if math.IsInf(f, 0) || f != f {
		return Null()
	}
	return &Node{Kind: '0', Num: AppendNumber(nil, f)}
}

// NewBool returns a true or false node.
func NewBool(v bool) *Node {
	if v {
		return &Node{Kind: 't', Bool: true}
	}
	return &Node{Kind: 'f'}
}

// Null returns a null node.
func Null() *Node { return &Node{Kind: 'n'} }

// NewObject returns an empty object node.
func NewObject() *Node { return &Node{Kind: '{'} }

// NewArray returns an array node holding items.
func NewArray(items ...*Node) *Node { return &Node{Kind: '[', Items: items} }

// Float64 returns the value of a number node as JSON.parse reads it.
func (n *Node) Float64() (float64, bool) {
	if n == nil || n.Kind != '0' {
		return 0, false
	}
	return parseNumber(n.Num), true
}

// Get returns the value of key, or nil if it is absent or n is not an object.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != '{' {
		return nil
	}
	if i := slices.Index(n.Keys, key); i >= 0 {
		return n.Vals[i]
	}
	return nil
}

// Set sets key to v: in place if key exists, else at the end. A nil v is
// kept and, like undefined in JavaScript, omitted on output. Set does nothing
// if n is not an object.
func (n *Node) Set(key string, v *Node) {
	if n == nil || n.Kind != '{' {
		return
	}
	if i := slices.Index(n.Keys, key); i >= 0 {
		n.Vals[i] = v
		return
	}
	n.Keys = append(n.Keys, key)
	n.Vals = append(n.Vals, v)
}

// Delete removes key and reports whether it was there.
func (n *Node) Delete(key string) bool {
	if n == nil || n.Kind != '{' {
		return false
	}
	i := slices.Index(n.Keys, key)
	if i < 0 {
		return false
	}
	n.Keys = slices.Delete(n.Keys, i, i+1)
	n.Vals = slices.Delete(n.Vals, i, i+1)
	return true
}

// AppendJSON appends the canonical JSON form of n, as JSON.stringify writes
// it: array-index keys first in ascending order, then the other keys in
// insertion order. Nil object values are omitted and nil array items are
// written as null (as JavaScript does with undefined); a nil n is null.
func (n *Node) AppendJSON(dst []byte) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	switch n.Kind {
	case '"':
		return AppendString(dst, n.Str)
	case '0':
		return appendCanonNumber(dst, n.Num)
	case 't', 'f':
		if n.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case '[':
		dst = append(dst, '[')
		for i, it := range n.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = it.AppendJSON(dst)
		}
		return append(dst, ']')
	case '{':
		return n.appendObject(dst)
	}
	return append(dst, "null"...)
}

func (n *Node) appendObject(dst []byte) []byte {
	dst = append(dst, '{')
	first := true
	put := func(i int) {
		if n.Vals[i] == nil {
			return
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = AppendString(dst, n.Keys[i])
		dst = append(dst, ':')
		dst = n.Vals[i].AppendJSON(dst)
	}
	var idx []int
	for i, k := range n.Keys {
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, i)
		}
	}
	if len(idx) > 0 {
		slices.SortFunc(idx, func(a, b int) int {
			x, _ := arrayIndex(n.Keys[a])
			y, _ := arrayIndex(n.Keys[b])
			return cmp.Compare(x, y)
		})
		for _, i := range idx {
			put(i)
		}
	}
	for i, k := range n.Keys {
		if _, ok := arrayIndex(k); !ok {
			put(i)
		}
	}
	return append(dst, '}')
}

// treeParser builds a Node tree from JSON text.
type treeParser struct {
	b     []byte
	depth int
}

func (p *treeParser) skipWS(i int) int {
	for i < len(p.b) && isWS[p.b[i]] {
		i++
	}
	return i
}

func (p *treeParser) value(i int) (*Node, int, error) {
	b := p.b
	if i = p.skipWS(i); i >= len(b) {
		return nil, i, syntaxError(i, "unexpected end of data")
	}
	c := b[i]
	if c == '{' || c == '[' {
		if p.depth++; p.depth > maxDepth {
			return nil, i, fmt.Errorf("%w at offset %d", ErrTooDeep, i)
		}
		defer func() { p.depth-- }()
	}
	switch c {
	case '{':
		return p.object(i + 1)
	case '[':
		n := &Node{Kind: '['}
		if i = p.skipWS(i + 1); i < len(b) && b[i] == ']' {
			return n, i + 1, nil
		}
		for {
			it, j, err := p.value(i)
			if err != nil {
				return nil, j, err
			}
			n.Items = append(n.Items, it)
			if i = p.skipWS(j); i >= len(b) {
				return nil, i, syntaxError(i, "unexpected end of data")
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return n, i + 1, nil
			default:
				return nil, i, syntaxError(i, "expected ',' or ']'")
			}
		}
	case '"':
		s, j, err := p.str(i)
		if err != nil {
			return nil, j, err
		}
		return &Node{Kind: '"', Str: s}, j, nil
	case 't', 'f', 'n':
		w := "null"
		if c == 't' {
			w = "true"
		} else if c == 'f' {
			w = "false"
		}
		if end, st := literal(b, i, w); st == stOK {
			return &Node{Kind: c, Bool: c == 't'}, end, nil
		}
		return nil, i, syntaxError(i, "invalid literal")
	}
	s := scanner{data: b}
	if b[i] != '-' && (b[i] < '0' || b[i] > '9') {
		return nil, i, syntaxError(i, "unexpected character")
	}
	end, st := s.scanNumber(i)
	if st != stOK {
		return nil, end, syntaxError(end, "invalid number")
	}
	return &Node{Kind: '0', Num: slices.Clone(b[i:end])}, end, nil
}

// str decodes the string token at b[i] ('"').
func (p *treeParser) str(i int) (string, int, error) {
	out, j, err := appendDecoded(nil, p.b, i+1)
	return string(out), j, err
}

func (p *treeParser) object(i int) (*Node, int, error) {
	b := p.b
	n := &Node{Kind: '{'}
	if i = p.skipWS(i); i < len(b) && b[i] == '}' {
		return n, i + 1, nil
	}
	var index map[string]int // built once the object is big
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, i, syntaxError(i, "expected string key")
		}
		k, j, err := p.str(i)
		if err != nil {
			return nil, j, err
		}
		if i = p.skipWS(j); i >= len(b) || b[i] != ':' {
			return nil, i, syntaxError(i, "expected ':'")
		}
		v, j, err := p.value(i + 1)
		if err != nil {
			return nil, j, err
		}
		at := -1
		if index != nil {
			if x, ok := index[k]; ok {
				at = x
			}
		} else {
			at = slices.Index(n.Keys, k)
		}
		if at >= 0 {
			n.Vals[at] = v
		} else {
			n.Keys = append(n.Keys, k)
			n.Vals = append(n.Vals, v)
			if index != nil {
				index[k] = len(n.Keys) - 1
			} else if len(n.Keys) > 32 {
				index = make(map[string]int, 2*len(n.Keys))
				for x, key := range n.Keys {
					index[key] = x
				}
			}
		}
		if i = p.skipWS(j); i >= len(b) {
			return nil, i, syntaxError(i, "unexpected end of data")
		}
		switch b[i] {
		case ',':
			i = p.skipWS(i + 1)
		case '}':
			return n, i + 1, nil
		default:
			return nil, i, syntaxError(i, "expected ',' or '}'")
		}
	}
}
