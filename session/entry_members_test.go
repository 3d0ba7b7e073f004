package session

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// checkEntry checks every lookup of e against a tree parse of its JSON: Get
// of each key and of absent ones, Fields, and the indexed fields.
func checkEntry(t *testing.T, e *Entry, absent ...string) {
	t.Helper()
	raw := e.JSON()
	n, err := jsjson.Parse(raw)
	if err != nil || n.Kind != '{' {
		t.Fatalf("entry JSON %q: %v", raw, err)
	}
	if c, err := jsjson.Canonical(raw); err != nil || !bytes.Equal(c, raw) {
		t.Fatalf("entry JSON %q not canonical", raw)
	}
	for i, k := range n.Keys {
		want := n.Vals[i].AppendJSON(nil)
		if got := e.Get(k); !bytes.Equal(got, want) {
			t.Errorf("%q: Get(%q) = %q, want %q", raw, k, got, want)
		}
		if !e.Has(k) {
			t.Errorf("%q: Has(%q) = false", raw, k)
		}
	}
	for _, k := range absent {
		if got := e.Get(k); got != nil {
			t.Errorf("%q: Get(%q) = %q, want nil", raw, k, got)
		}
	}
	var keys []string
	for _, f := range e.Fields() {
		keys = append(keys, f.Key)
		if !bytes.Equal(f.Val, n.Get(f.Key).AppendJSON(nil)) {
			t.Errorf("%q: field %q = %q", raw, f.Key, f.Val)
		}
	}
	if !slices.Equal(keys, n.Keys) {
		t.Errorf("%q: Fields keys %q, want %q", raw, keys, n.Keys)
	}
	str := func(k string) string {
		if v := n.Get(k); v != nil && v.Kind == '"' {
			return v.Str
		}
		return ""
	}
	if e.Type != str("type") || e.ID != str("id") || e.ParentID != str("parentId") || e.Timestamp != str("timestamp") {
		t.Errorf("%q: indexed %q %q %q %q", raw, e.Type, e.ID, e.ParentID, e.Timestamp)
	}
}

func parseOne(t *testing.T, line string) *Entry {
	t.Helper()
	es := ParseEntries([]byte(line))
	if len(es) != 1 {
		t.Fatalf("%q: %d entries", line, len(es))
	}
	return es[0]
}

func TestEntryMemberLookup(t *testing.T) {
	long := strings.Repeat("k", 70000)
	tests := []struct {
		name   string
		line   string
		get    map[string]string // key -> raw value ("" for absent)
		absent []string
	}{
		{"known keys", `{"type":"message","id":"a1","parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","id":"x"}}`,
			map[string]string{"type": `"message"`, "id": `"a1"`, "message": `{"role":"user","id":"x"}`, "role": ""},
			[]string{"role", "Type", "ids", "i", "summary"}},
		{"unknown keys", `{"type":"future","zeta":1,"typ":2,"":3,"parentIdx":4}`,
			map[string]string{"zeta": "1", "typ": "2", "": "3", "parentIdx": "4", "parentId": ""},
			[]string{"zet", "zetaa", "parentId", "id"}},
		{"escaped keys", `{"type":"x","a\"b":1,"c\\d":2,"\u00e9":3,"line\nbreak":4,"\ud800":5}`,
			map[string]string{`a"b`: "1", `c\d`: "2", "é": "3", "line\nbreak": "4", "\xed\xa0\x80": "5"},
			[]string{`a\"b`, `c\\d`, `\u00e9`, `line\nbreak`, `\ud800`, "ab"}},
		{"escaped known key", `{"typ\u0065":"message","i\u0064":"q"}`,
			map[string]string{"type": `"message"`, "id": `"q"`}, []string{`typ\u0065`}},
		{"long key", `{"type":"x","` + long + `":1,"` + long + `z":2}`,
			map[string]string{long: "1", long + "z": "2"}, []string{long[1:], long + "y"}},
		{"not canonical", "{ \"type\" : \"message\",\n\"id\":\"a\", \"n\":1.50, \"2\":1, \"1\":2}",
			map[string]string{"type": `"message"`, "n": "1.5", "2": "1", "1": "2"}, []string{" type"}},
		{"duplicates", `{"type":"a","id":"x","type":"b","k":1,"k":2}`,
			map[string]string{"type": `"b"`, "k": "2", "id": `"x"`}, nil},
		{"non-string ids", `{"type":1,"id":2,"parentId":null,"timestamp":3}`,
			map[string]string{"type": "1", "parentId": "null"}, nil},
		{"empty", `{}`, nil, []string{"id", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseOne(t, tt.line)
			if e.fields != nil {
				t.Fatalf("a parsed entry has decoded fields")
			}
			for k, want := range tt.get {
				if got := e.Get(k); string(got) != want || (got == nil) != (want == "") {
					t.Errorf("Get(%q) = %q, want %q", k, got, want)
				}
			}
			checkEntry(t, e, tt.absent...)

			// Changes decode the fields; encoding goes back to members.
			c := e.Clone()
			c.Set("zz", []byte(`true`))
			c.Set("type", []byte(`"changed"`))
			if c.fields == nil || c.raw != nil {
				t.Fatalf("Set left the entry as parsed")
			}
			if got := c.Get("zz"); string(got) != "true" || c.Type != "changed" {
				t.Errorf("after Set: Get(zz) = %q, Type %q", got, c.Type)
			}
			checkEntry(t, c, tt.absent...)
			if c.fields != nil {
				t.Errorf("JSON kept decoded fields")
			}
			if !c.Delete("zz") || c.Delete("zz") || c.Get("zz") != nil {
				t.Errorf("Delete(zz)")
			}
			checkEntry(t, c, append(tt.absent, "zz")...)

			// The original is untouched by the clone's changes.
			if e.Get("zz") != nil || (e.Type == "changed") {
				t.Errorf("clone shares state: %q", e.JSON())
			}
			checkEntry(t, e, append(tt.absent, "zz")...)
			if got := string(e.JSON()); got != string(parseOne(t, tt.line).JSON()) {
				t.Errorf("original changed: %q", got)
			}
		})
	}
}

// TestEntryCloneIndependence changes an entry and its clone in every state.
func TestEntryCloneIndependence(t *testing.T) {
	line := `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user"},"x":1}`
	e := parseOne(t, line)
	c := e.Clone()
	e.Set("x", []byte("2"))
	if got := string(c.Get("x")); got != "1" {
		t.Errorf("clone sees original's Set: x = %s", got)
	}
	c2 := e.Clone() // a clone of a changed, not yet encoded entry
	c2.Set("x", []byte("3"))
	c2.Delete("message")
	if got := string(e.Get("x")); got != "2" || e.Get("message") == nil {
		t.Errorf("original sees clone's changes: %s", e.JSON())
	}
	if got, want := string(e.JSON()), strings.Replace(line, `"x":1`, `"x":2`, 1); got != want {
		t.Errorf("original = %s\nwant       %s", got, want)
	}
	if got := string(c2.JSON()); got != `{"type":"message","id":"a","parentId":null,"timestamp":"t","x":3}` {
		t.Errorf("clone = %s", got)
	}
	if got := string(c.JSON()); got != line {
		t.Errorf("first clone = %s", got)
	}
}

// TestNewEntryMembers checks entries built from fields: integer keys first,
// keys that need escapes, and keys that are not valid WTF-8 (kept decoded).
func TestNewEntryMembers(t *testing.T) {
	e := newEntry(Field{Key: "type", Val: str("x")}, Field{Key: "b", Val: rawTrue}, Field{Key: "2", Val: num(2)},
		Field{Key: "1", Val: num(1)}, Field{Key: `q"`, Val: rawNull}, Field{Key: "gone", Val: nil})
	if got := string(e.JSON()); got != `{"1":1,"2":2,"type":"x","b":true,"q\"":null}` {
		t.Errorf("JSON = %s", got)
	}
	if e.fields != nil {
		t.Errorf("new entry kept decoded fields")
	}
	checkEntry(t, e, "gone", `q\"`)

	bad := newEntry(Field{Key: "type", Val: str("x")}, Field{Key: "k\xff", Val: rawTrue})
	if bad.fields == nil {
		t.Errorf("a key that is not valid WTF-8 must stay decoded")
	}
	if got := string(bad.Get("k\xff")); got != "true" {
		t.Errorf(`Get("k\xff") = %q`, got)
	}
}

func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 112 {
		t.Errorf("Entry is %d bytes, want at most 112", n)
	}
}

// TestEntryManyMembers: an entry with more members than Entry counts keeps
// them decoded, and behaves the same.
func TestEntryManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"x"`)
	for i := range 70000 {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString("}")
	e := parseOne(t, b.String())
	if e.fields == nil {
		t.Fatalf("70001 members kept as offsets")
	}
	if got := string(e.Get("k69999")); got != "69999" || e.Type != "x" || len(e.Fields()) != 70001 {
		t.Errorf("Get(k69999) = %q, Type %q, %d fields", got, e.Type, len(e.Fields()))
	}
	if got := string(e.JSON()); got != b.String() {
		t.Errorf("JSON changed")
	}
	e.Set("k5", []byte(`"five"`))
	if got := string(e.JSON()); got != strings.Replace(b.String(), `"k5":5,`, `"k5":"five",`, 1) {
		t.Errorf("JSON after Set wrong")
	}
}
