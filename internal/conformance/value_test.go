package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The expected documents and the cases were written by JSON.stringify(v, null,
// 1): parsing and writing them again must give the same bytes (key order,
// escapes, numbers).
func TestJSONRoundTripsCorpus(t *testing.T) {
	for _, dir := range []string{"expected", "cases"} {
		files, _ := filepath.Glob(filepath.Join(testdata, dir, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no files in %s", dir)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := parseJSON(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			got := append(indentJSON(v), '\n')
			if !bytes.Equal(got, data) {
				i := 0
				for i < len(got) && i < len(data) && got[i] == data[i] {
					i++
				}
				t.Errorf("%s: differs at byte %d: got %.80q, want %.80q", f, i, got[i:], data[i:])
			}
		}
	}
}

func TestObjectKeyOrder(t *testing.T) {
	v, err := parseJSON([]byte(`{"b":1,"2":2,"a":3,"10":4,"1":5,"01":6,"b":7,"4294967295":8,"4294967294":9}`))
	if err != nil {
		t.Fatal(err)
	}
	got := string(appendJSON(nil, v))
	want := `{"1":5,"2":2,"10":4,"4294967294":9,"b":7,"a":3,"01":6,"4294967295":8}`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestJSONStringsAndNumbers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\ud83d"`, `"\ud83d"`},
		{`"a\u2028b</script>&"`, "\"a\u2028b</script>&\""},
		{`"\u0001\u001f\u007f"`, "\"\\u0001\\u001f\u007f\""},
		{`[1e21,1e-7,-0,0.1,123456789012345680000,1.5e300]`, `[1e+21,1e-7,0,0.1,123456789012345680000,1.5e+300]`},
		{`1e400`, `null`},
	} {
		v, err := parseJSON([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := string(appendJSON(nil, v)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1}x`, `[1,]`, `01`, `"a` + "\n" + `"`, `{'a':1}`, `nul`} {
		if _, err := parseJSON([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if v, err := parseJSON([]byte(" \r\n\t{}\r ")); err != nil || appendJSON(nil, v)[0] != '{' {
		t.Errorf("whitespace around a value: %v", err)
	}
}

func TestUndefined(t *testing.T) {
	o := obj("a", undef, "b", []any{undef, 1.0}, "c", nil)
	if got := string(appendJSON(nil, o)); got != `{"b":[null,1],"c":null}` {
		t.Errorf("got %s", got)
	}
	if _, ok := encodeJSON(undef); ok {
		t.Error("encodeJSON(undefined) is ok")
	}
	p := plain(obj("a", undef, "h", Home+"/x", "n", []any{undef}), Home)
	if got := string(appendJSON(nil, p)); got != `{"h":"$HOME/x","n":[null]}` {
		t.Errorf("plain: got %s", got)
	}
}

func TestRepeatTo(t *testing.T) {
	if got := repeatTo("0123456789", 25); got != "0123456789012345678901234" {
		t.Errorf("got %q", got)
	}
	// a surrogate pair cut in half leaves a lone high surrogate
	s := repeatTo("\U0001F600", 3)
	if utf16Len(s) != 3 || string(appendJSON(nil, s)) != `"😀\ud83d"` {
		t.Errorf("got %s (%d units)", appendJSON(nil, s), utf16Len(s))
	}
	if repeatTo("x", 0) != "" || repeatTo("", 5) != "" {
		t.Error("empty cases")
	}
}

func TestElide(t *testing.T) {
	short := strings.Repeat("a", elideOver)
	if elide(short, Home) != short {
		t.Error("a string of exactly 4096 units is elided")
	}
	// 2049 emoji = 4098 units; the tail starts with a low surrogate
	long := strings.Repeat("\U0001F600", 2049) + "x"
	e, ok := elide(long, Home).(*Object)
	if !ok {
		t.Fatal("not elided")
	}
	if e.Get("length") != float64(4099) || e.Get("utf8Bytes") != float64(2049*4+1) {
		t.Errorf("length/utf8Bytes: %s", appendJSON(nil, e))
	}
	tail := e.Get("tail").(string)
	if utf16Len(tail) != 64 || !strings.HasPrefix(string(appendJSON(nil, tail)), `"\ude00`) {
		t.Errorf("tail: %s", appendJSON(nil, tail))
	}
	if got := elide(Home+"/a", Home); got != "$HOME/a" {
		t.Errorf("home: %v", got)
	}
}

func TestDecodeText(t *testing.T) {
	// WHATWG: one U+FFFD per maximal ill-formed subpart
	for _, c := range []struct{ in, want string }{
		{"a\xffb", "a\uFFFDb"},
		{"\xe2\x82", "\uFFFD"},
		{"\xe2\x82a", "\uFFFDa"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", "\uFFFD"},
	} {
		if got := decodeText([]byte(c.in)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDetIDs(t *testing.T) {
	// det.mjs with HARNESS_SEED=1: the first draw seeds the snowflake counter,
	// entry ids are the fourth draw of each UUID (see expected/01-linear.json)
	rnd := mulberry32(1)
	want := []uint32{0xa087eaf3, 0x00b349c9, 0x8706c4eb, 0xfb2627fd, 0xf7e79d2b}
	for i, w := range want {
		if got := rnd(); got != w {
			t.Fatalf("draw %d: %08x, want %08x", i+1, got, w)
		}
	}
	ids := detIDSource(1)
	for _, w := range []string{"f7e79d2b", "6d010770", "239126bd"} {
		if got := ids.EntryID(nil, Start); got != w {
			t.Errorf("entry id %s, want %s", got, w)
		}
	}
	if got := ids.Snowflake(Start.Add(1000 * 1e6)); got != "143503fefa07eaf4" {
		t.Errorf("session id %s, want 143503fefa07eaf4", got)
	}
}
