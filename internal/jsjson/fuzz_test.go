package jsjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"
)

func FuzzParseJSONL(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n{bad}\n{\"b\":[1,2]}\r\n",
		"\xef\xbb\xbf{\"a\":\n1} x\n42\n\"s\\ud800\"\n{\"c\":",
		"{\"2\":1,\"1\":2,\"a\":1,\"a\":{\"x\":1e21}}\n[ 1 ]\n",
		"{\"c\":3} {\"d\":4}\n{\"e\":",
		"[\n1,\n2]\n{\"s\":\"\xff\\/\"}",
		"{ \"a\\\"b\" : 1,\"typ\\u0065\":\"x\",\"id\":2,\"id\":3}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vs := ParseJSONL(data)
		if got, want := raws(vs), oracle(data); !slices.Equal(got, want) {
			t.Fatalf("ParseJSONL = %q, oracle %q", got, want)
		}
		if par := raws(parseJSONL(data, 3, 0)); !slices.Equal(par, raws(vs)) {
			t.Fatalf("parallel = %q, sequential %q", par, raws(vs))
		}
		for _, v := range vs {
			checkMembers(t, v)
			c, err := Canonical(v.Raw)
			if err != nil {
				t.Fatalf("Canonical(%q): %v", v.Raw, err)
			}
			if eq := bytes.Equal(c, v.Raw); eq != v.Canonical {
				t.Fatalf("%q: Canonical flag %v, canonical form %q", v.Raw, v.Canonical, c)
			}
			if v.Kind != '{' {
				if v.Members != nil {
					t.Fatalf("%q: members on a non-object", v.Raw)
				}
				continue
			}
			// The last field of each key is the tree's member.
			n, err := Parse(v.Raw)
			if err != nil {
				t.Fatalf("Parse(%q): %v", v.Raw, err)
			}
			last := map[string][]byte{}
			var order []string
			for _, fl := range v.Fields() {
				if _, ok := last[fl.Key]; !ok {
					order = append(order, fl.Key)
				}
				last[fl.Key] = fl.Val
			}
			if !slices.Equal(order, n.Keys) {
				t.Fatalf("%q: field keys %q, tree keys %q", v.Raw, order, n.Keys)
			}
			for k, raw := range last {
				fc, err := Canonical(raw)
				if err != nil || !bytes.Equal(fc, n.Get(k).AppendJSON(nil)) {
					t.Fatalf("%q: field %q = %q", v.Raw, k, raw)
				}
			}
		}
	})
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"2":2,"1":3,"a":4}`, ` [1.0, -0, 1e21, 1E-7, 0.1, 5e-324] `, `"\u00e9\/\ud800\ud83d\ude00\u001F"`,
		`{"a":1,"a":{"b":2,"b":3}}`, "\"\xff\xe6\x97\"", `123456789012345678901`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, x []byte) {
		c, err := Canonical(x)
		n, perr := Parse(x)
		if (err == nil) != (perr == nil) {
			t.Fatalf("Canonical error %v, Parse error %v", err, perr)
		}
		if err != nil {
			if IsCanonical(x) {
				t.Fatalf("IsCanonical true for invalid %q", x)
			}
			return
		}
		if c2, err := Canonical(c); err != nil || !bytes.Equal(c2, c) {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", x, c, c2, err)
		}
		if !IsCanonical(c) {
			t.Fatalf("IsCanonical(%q) = false", c)
		}
		if IsCanonical(x) != bytes.Equal(x, c) {
			t.Fatalf("IsCanonical(%q) = %v, canonical form %q", x, IsCanonical(x), c)
		}
		if tc := n.AppendJSON(nil); !bytes.Equal(tc, c) {
			t.Fatalf("tree gives %q, Canonical %q", tc, c)
		}
		// encoding/json reads invalid UTF-8 and lone surrogates differently.
		if !utf8.Valid(x) || bytes.Contains(bytes.ToLower(x), []byte(`\ud`)) {
			return
		}
		var a, b any
		if json.Unmarshal(x, &a) != nil {
			return
		}
		if err := json.Unmarshal(c, &b); err != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q decodes to %v, canonical %q to %v (%v)", x, a, c, b, err)
		}
	})
}
