package jsjson

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkMembers checks v's members against an independent scan of v.Raw:
// offsets, decoded keys, codes, flags, and Get of every key (the last wins).
func checkMembers(t *testing.T, v Value) {
	t.Helper()
	if v.Kind != '{' {
		if v.Members != nil || v.Fields() != nil {
			t.Fatalf("%.200q: members on a non-object", v.Raw)
		}
		return
	}
	want := fieldsOf(v.Raw)
	got := v.Fields()
	if len(got) != len(want) {
		t.Fatalf("%.200q: %d fields, scan finds %d", v.Raw, len(got), len(want))
	}
	for i := range want {
		if got[i].Key != want[i].Key || !bytes.Equal(got[i].Val, want[i].Val) {
			t.Fatalf("%.200q: field %d = %q:%q, scan finds %q:%q", v.Raw, i, got[i].Key, got[i].Val, want[i].Key, want[i].Val)
		}
		if cap(got[i].Val) != len(got[i].Val) {
			t.Fatalf("%.200q: field %d value has spare capacity", v.Raw, i)
		}
	}
	if !v.Long {
		ms := v.Members
		for i, m := range ms {
			k := want[i].Key
			if m.Code != KeyCode(k) {
				t.Fatalf("%.200q: key %q code %d, want %d", v.Raw, k, m.Code, KeyCode(k))
			}
			raw := ms.RawKey(v.Raw, i)
			ks := ms.keyStart(v.Raw, i)
			if v.Raw[ks-1] != '"' || v.Raw[ks+len(raw)] != '"' {
				t.Fatalf("%.200q: raw key %q not between quotes", v.Raw, raw)
			}
			if esc := m.Flags&KeyEscaped != 0; esc == validKey(raw) {
				t.Fatalf("%.200q: key %q raw %q escaped flag %v", v.Raw, k, raw, esc)
			}
			// Without whitespace the member is found by arithmetic.
			prev := 0
			if i > 0 {
				prev = int(ms[i-1].ValEnd)
			}
			vs := int(m.ValEnd) - len(ms.Val(v.Raw, i)) // offset of the value
			compact := ks == prev+2 && vs == ks+len(raw)+2
			if spaced := m.Flags&MemberSpaced != 0; spaced == compact {
				t.Fatalf("%.200q: member %d spaced flag %v", v.Raw, i, spaced)
			}
		}
	}
	for _, f := range want {
		var last []byte
		for _, g := range want {
			if g.Key == f.Key {
				last = g.Val
			}
		}
		if g := v.Get(f.Key); !bytes.Equal(g, last) || g == nil {
			t.Fatalf("%.200q: Get(%q) = %q, want %q", v.Raw, f.Key, g, last)
		}
	}
}

// validKey reports whether a raw key needs no decoding: no escapes, valid UTF-8.
func validKey(raw []byte) bool {
	s, err := DecodeString(append(append([]byte{'"'}, raw...), '"'))
	return err == nil && s == string(raw)
}

func TestMemberLookup(t *testing.T) {
	long := strings.Repeat("k", LongKey+5)
	tests := []struct {
		name string
		in   string
		keys []string // decoded keys, in order
		get  map[string]string
	}{
		{"known keys", `{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"id":"inner"}}`,
			[]string{"type", "id", "parentId", "timestamp", "message"},
			map[string]string{"type": `"message"`, "id": `"a1"`, "parentId": `null`, "message": `{"id":"inner"}`, "role": "", "ID": ""}},
		{"unknown keys", `{"zz":1,"ty":2,"typex":3,"":4}`, []string{"zz", "ty", "typex", ""},
			map[string]string{"zz": "1", "ty": "2", "typex": "3", "": "4", "type": "", "z": "", "zzz": ""}},
		{"escaped keys", `{"a\"b":1,"typ\u0065":"x","\u00e9":2,"x\\y":3}`, []string{`a"b`, "type", "é", `x\y`},
			map[string]string{`a"b`: "1", `a\"b`: "", "type": `"x"`, `typ\u0065`: "", "é": "2", `\u00e9`: "", `x\y`: "3", `x\\y`: ""}},
		{"invalid utf-8 key", "{\"k\xff\":1,\"k\":2}", []string{"k\uFFFD", "k"},
			map[string]string{"k\uFFFD": "1", "k\xff": "", "k": "2"}},
		{"lone surrogate key", `{"\ud800":1}`, []string{"\xed\xa0\x80"}, map[string]string{"\xed\xa0\x80": "1", `\ud800`: ""}},
		{"whitespace", "{ \"id\" :\t\"q\" , \"zz\"\n:\r[1, 2] }", []string{"id", "zz"},
			map[string]string{"id": `"q"`, "zz": `[1, 2]`}},
		{"duplicates", `{"id":"a","x":1,"id":"b","x":2,"id":"c"}`, []string{"id", "x", "id", "x", "id"},
			map[string]string{"id": `"c"`, "x": "2"}},
		{"long key", `{"` + long + `":1,"type":"t","` + long + `x" : 2}`, []string{long, "type", long + "x"},
			map[string]string{long: "1", long + "x": "2", long[1:]: "", "type": `"t"`}},
		{"empty", `{}`, nil, map[string]string{"type": ""}},
		{"nested only", `{"a":{"type":"x"}}`, []string{"a"}, map[string]string{"type": "", "a": `{"type":"x"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []uint64{memberLimit, 0} {
				old := memberLimit
				memberLimit = limit
				vs := ParseJSONL([]byte(tt.in))
				memberLimit = old
				if len(vs) != 1 {
					t.Fatalf("%d values", len(vs))
				}
				v := vs[0]
				if v.Long != (limit == 0) || (v.Members == nil) != v.Long {
					t.Fatalf("limit %d: Long %v, %d members", limit, v.Long, len(v.Members))
				}
				var keys []string
				for _, f := range v.Fields() {
					keys = append(keys, f.Key)
				}
				if !slices.Equal(keys, tt.keys) {
					t.Errorf("limit %d: keys %q, want %q", limit, keys, tt.keys)
				}
				for k, want := range tt.get {
					got := v.Get(k)
					if string(got) != want || (got == nil) != (want == "") {
						t.Errorf("limit %d: Get(%q) = %q, want %q", limit, k, got, want)
					}
				}
				checkMembers(t, v)
			}
		})
	}
}

// TestMemberRawKeyLong checks RawKey recovers keys of LongKey bytes or more
// from the value's position, across whitespace.
func TestMemberRawKeyLong(t *testing.T) {
	for _, n := range []int{LongKey - 1, LongKey, LongKey + 1} {
		k := strings.Repeat("a", n)
		for _, sep := range []string{":", " : ", "\n:\t"} {
			vs := ParseJSONL([]byte(`{"` + k + `"` + sep + `true}`))
			m := vs[0].Members[0]
			if got := vs[0].Members.RawKey(vs[0].Raw, 0); string(got) != k {
				t.Errorf("n %d sep %q: raw key of %d bytes", n, sep, len(got))
			}
			if (m.KeyLen == LongKey) != (n >= LongKey) {
				t.Errorf("n %d: KeyLen %d", n, m.KeyLen)
			}
			checkMembers(t, vs[0])
		}
	}
}

// TestKeyCodes checks every code maps back to its key.
func TestKeyCodes(t *testing.T) {
	for c := 1; c < len(keyNames); c++ {
		if got := KeyCode(keyNames[c]); got != uint8(c) {
			t.Errorf("KeyCode(%q) = %d, want %d", keyNames[c], got, c)
		}
		if got := keyCodeOf([]byte(keyNames[c])); got != uint8(c) {
			t.Errorf("keyCodeOf(%q) = %d, want %d", keyNames[c], got, c)
		}
	}
	for _, k := range []string{"", "x", "Type", "types", "parentID", "selectedToolNamesX"} {
		if KeyCode(k) != 0 || keyCodeOf([]byte(k)) != 0 {
			t.Errorf("KeyCode(%q) != 0", k)
		}
	}
}

// TestMembersRandom checks the members of random documents, sequential and
// parallel, against a scan of each value.
func TestMembersRandom(t *testing.T) {
	docs := [][]byte{bigDoc(300, 9)}
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		docs = append(docs, randomDoc(r, 1+r.IntN(12)))
	}
	for _, doc := range docs {
		seq := ParseJSONL(doc)
		for _, v := range seq {
			checkMembers(t, v)
		}
		par := parseJSONL(doc, 3, 0)
		if len(par) != len(seq) {
			t.Fatalf("parallel %d values, sequential %d", len(par), len(seq))
		}
		for i := range par {
			if !slices.Equal(par[i].Members, seq[i].Members) {
				t.Fatalf("%.200q: parallel members %v, sequential %v", seq[i].Raw, par[i].Members, seq[i].Members)
			}
		}
	}
}
