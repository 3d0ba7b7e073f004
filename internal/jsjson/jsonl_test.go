package jsjson

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func raws(vs []Value) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, string(v.Raw))
	}
	return out
}

func TestParseJSONLRules(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"only whitespace", " \t\n \r\n\n", nil},
		{"two lines", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}},
		{"bom", "\xef\xbb\xbf{\"a\":1}\n", []string{`{"a":1}`}},
		{"bom only at start", "{\"a\":1}\n\xef\xbb\xbf{\"b\":2}\n{\"c\":3}\n", []string{`{"a":1}`, `{"c":3}`}},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}},
		{"blank lines and indent", "\n   \n{\"a\":1}\n\n\t{\"b\":2}\n \n", []string{`{"a":1}`, `{"b":2}`}},
		{"bad line", "{\"a\":1}\n{bad}\n{\"c\":3}\n", []string{`{"a":1}`, `{"c":3}`}},
		{"bad first line", "{bad}\n{\"a\":1}\n", []string{`{"a":1}`}},
		{"bad lines after blank lines", "{\"a\":1}\n\n\n{bad}\n\n{\"c\":3}", []string{`{"a":1}`, `{"c":3}`}},
		{"bad last line without newline", "{\"a\":1}\n{bad}", []string{`{"a":1}`}},
		{"multi-line value", "{\"a\":\n1}\n{\"b\":2}\n", []string{"{\"a\":\n1}", `{"b":2}`}},
		{"trailing garbage", "{\"a\":1}xyz\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"two values on a line", "{\"a\":1} {\"a\":2}\n{\"b\":3}\n", []string{`{"a":1}`, `{"b":3}`}},
		{"glued values", "{\"a\":1}{\"b\":2}\n", []string{`{"a":1}`}},
		{"garbage after last value, no newline", "{\"a\":1}\n{\"b\":2} xyz", []string{`{"a":1}`, `{"b":2}`}},
		{"trailing partial", "{\"a\":1}\n{\"a\":2", []string{`{"a":1}`}},
		{"trailing partial with newline", "{\"a\":1}\n{\"a\":2\n", []string{`{"a":1}`}},
		{"partial line then more", "{\"a\":2\n{\"b\":1}\n", []string{`{"b":1}`}},
		{"only partial", "{\"ke", nil},
		{"cut escape at end", "{\"a\":1}\n{\"s\":\"\\u00", []string{`{"a":1}`}},
		{"non-object lines", "42\n[1,2]\n\"str\"\ntrue\nfalse\nnull\n-0.5e3\n", []string{"42", "[1,2]", `"str"`, "true", "false", "null", "-0.5e3"}},
		{"number at end", "{\"a\":1}\n42", []string{`{"a":1}`, "42"}},
		{"number cut in exponent", "{\"a\":1}\n1e", []string{`{"a":1}`}},
		{"leading zero keeps 0", "01\n", []string{"0"}},
		{"literal prefix word", "truex\n", []string{"true"}},
		{"raw tab in string", "{\"a\":\"x\ty\"}\n{\"b\":1}\n", []string{`{"b":1}`}},
		{"invalid utf-8 in string", "{\"a\":\"\xff\xfe\"}\n", []string{"{\"a\":\"\xff\xfe\"}"}},
		{"invalid utf-8 outside string", "{\"a\":1}\xff\n\xff{\"b\":1}\n{\"c\":1}\n", []string{`{"a":1}`, `{"c":1}`}},
		{"lone surrogate escape", "{\"s\":\"\\ud800\"}\n", []string{`{"s":"\ud800"}`}},
		{"value spanning many lines", "[\n1,\n2\n]\n{\"a\":1}\n", []string{"[\n1,\n2\n]", `{"a":1}`}},
		{"unclosed bracket line", "[\n{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		// A value cut off by the end restarts the call after the last good
		// value, which finds the second value of its line.
		{"cut off after two on a line", "{\"c\":3} {\"d\":4}\n{\"e\":", []string{`{"c":3}`, `{"d":4}`}},
		{"cut off spanning lines", "{\"a\":1}\n{\"b\":\n{\"c\":2}", []string{`{"a":1}`}},
		{"error spanning lines", "{\"a\":1}\n{\"b\":\n{\"c\":2}\nx\n{\"d\":3}", []string{`{"a":1}`, `{"c":2}`, `{"d":3}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := raws(ParseJSONL([]byte(tc.in)))
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("ParseJSONL(%q)\n got %q\nwant %q", tc.in, got, want)
			}
			if o := oracle([]byte(tc.in)); !slices.Equal(o, want) {
				t.Errorf("oracle(%q) = %q", tc.in, o)
			}
		})
	}
}

func TestParseJSONLValues(t *testing.T) {
	in := "{\"type\":\"session\",\"id\":\"x\",\"n\":1.50,\"a\":{\"b\":[1, 2]},\"type\":\"again\"}\n" +
		"{\"k\\u0065y\":\"\\u00e9\",\"2\":1}\n[1]\n\"s\"\n"
	vs := ParseJSONL([]byte(in))
	if len(vs) != 4 {
		t.Fatalf("got %d values", len(vs))
	}
	v := vs[0]
	if v.Kind != '{' || v.Canonical {
		t.Errorf("kind %c canonical %v", v.Kind, v.Canonical)
	}
	var keys, vals []string
	for _, f := range v.Fields() {
		keys = append(keys, f.Key)
		vals = append(vals, string(f.Val))
	}
	if want := []string{"type", "id", "n", "a", "type"}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if want := []string{`"session"`, `"x"`, `1.50`, `{"b":[1, 2]}`, `"again"`}; !slices.Equal(vals, want) {
		t.Errorf("vals %q, want %q", vals, want)
	}
	if got := string(v.Get("type")); got != `"again"` {
		t.Errorf("Get(type) = %s", got)
	}
	if fs := vs[1].Fields(); fs[0].Key != "key" || fs[1].Key != "2" {
		t.Errorf("decoded keys %+v", fs)
	}
	if vs[2].Kind != '[' || vs[2].Members != nil || !vs[2].Canonical || vs[3].Kind != '"' {
		t.Errorf("non-object values %+v %+v", vs[2], vs[3])
	}
}

// oracle is a literal transcription of parseJsonlLenient over
// Bun.JSONL.parseChunk (LiteralParser::tryStreamingParse), with its own
// simple recursive value parser, to check the optimised scanner against.
func oracle(data []byte) []string {
	out := []string{}
	pos := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		pos = 3
	}
	for pos < len(data) {
		vals, read, done, isErr := oracleChunk(data[pos:])
		out = append(out, vals...)
		if isErr {
			nl := bytes.IndexByte(data[pos+read:], '\n')
			if nl < 0 {
				break
			}
			pos += read + nl + 1
			continue
		}
		if read == 0 {
			break
		}
		pos += read
		if done {
			break
		}
	}
	return out
}

func oracleChunk(buf []byte) (vals []string, read int, done, isErr bool) {
	ws := func(i int) int {
		for i < len(buf) && strings.IndexByte(" \t\r\n", buf[i]) >= 0 {
			i++
		}
		return i
	}
	i := ws(0)
	for {
		if i >= len(buf) {
			return vals, read, true, false
		}
		end, st := refValue(buf, i, 0)
		switch st {
		case stMore:
			return vals, read, false, false
		case stErr:
			return vals, read, false, true
		}
		vals = append(vals, string(buf[i:end]))
		read = end
		if nl := bytes.IndexByte(buf[end:], '\n'); nl >= 0 {
			i = ws(end + nl + 1)
		} else if ws(end) != len(buf) {
			return vals, read, false, true
		} else {
			i = len(buf)
		}
	}
}

// refValue parses the value at b[i] by recursive descent.
func refValue(b []byte, i, depth int) (int, status) {
	at := func(k int) (byte, bool) {
		if k < len(b) {
			return b[k], true
		}
		return 0, false
	}
	ws := func(k int) int {
		for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
			k++
		}
		return k
	}
	c, ok := at(i)
	if !ok {
		return i, stMore
	}
	switch {
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = ws(i + 1)
		if c2, ok := at(i); !ok {
			return i, stMore
		} else if c2 == closer {
			return i + 1, stOK
		}
		for {
			if c == '{' {
				if c2, ok := at(i); !ok {
					return i, stMore
				} else if c2 != '"' {
					return i, stErr
				}
				end, st := refValue(b, i, depth+1)
				if st != stOK {
					return end, st
				}
				i = ws(end)
				if c2, ok := at(i); !ok {
					return i, stMore
				} else if c2 != ':' {
					return i, stErr
				}
				i = ws(i + 1)
			}
			end, st := refValue(b, i, depth+1)
			if st != stOK {
				return end, st
			}
			i = ws(end)
			c2, ok := at(i)
			if !ok {
				return i, stMore
			}
			if c2 == closer {
				return i + 1, stOK
			}
			if c2 != ',' {
				return i, stErr
			}
			i = ws(i + 1)
		}
	case c == '"':
		for i++; ; i++ {
			c2, ok := at(i)
			if !ok {
				return i, stMore
			}
			switch {
			case c2 == '"':
				return i + 1, stOK
			case c2 < 0x20:
				return i, stErr
			case c2 == '\\':
				e, ok := at(i + 1)
				if !ok {
					return i + 1, stMore
				}
				if strings.IndexByte("\"\\/bfnrt", e) >= 0 {
					i++
					continue
				}
				if e != 'u' {
					return i + 1, stErr
				}
				for k := i + 2; k < i+6; k++ {
					h, ok := at(k)
					if !ok {
						return k, stMore
					}
					if !strings.ContainsRune("0123456789abcdefABCDEF", rune(h)) {
						return k, stErr
					}
				}
				i += 5
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		w := "null"
		if c == 't' {
			w = "true"
		} else if c == 'f' {
			w = "false"
		}
		for k := range len(w) {
			c2, ok := at(i + k)
			if !ok {
				return i + k, stMore
			}
			if c2 != w[k] {
				return i + k, stErr
			}
		}
		return i + len(w), stOK
	case c == '-' || (c >= '0' && c <= '9'):
		digits := func(k int, need bool) (int, status) {
			c2, ok := at(k)
			if need && !ok {
				return k, stMore
			}
			if need && (c2 < '0' || c2 > '9') {
				return k, stErr
			}
			for k < len(b) && b[k] >= '0' && b[k] <= '9' {
				k++
			}
			return k, stOK
		}
		if c == '-' {
			i++
		}
		if c2, ok := at(i); ok && c2 == '0' {
			i++
		} else {
			var st status
			if i, st = digits(i, true); st != stOK {
				return i, st
			}
		}
		if c2, ok := at(i); ok && c2 == '.' {
			var st status
			if i, st = digits(i+1, true); st != stOK {
				return i, st
			}
		}
		if c2, ok := at(i); ok && (c2 == 'e' || c2 == 'E') {
			i++
			if c3, ok := at(i); ok && (c3 == '+' || c3 == '-') {
				i++
			}
			var st status
			if i, st = digits(i, true); st != stOK {
				return i, st
			}
		}
		return i, stOK
	}
	return i, stErr
}

// fragments are the pieces random JSONL documents are made of.
var fragments = []string{
	`{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi\nthere","timestamp":1}}`,
	`{"a":1}`, `{"b":[1,2,{"c":"\u00e9\/"}]}`, `[1,2]`, `42`, `-0`, `"str"`, `true`, `null`,
	`{"2":1,"1":2}`, `{"a":1,"a":2}`, `{bad}`, `{"a":`, `{"a":2`, `[`, `]`, `1,`, `2`, `}`, `xyz`,
	`{"a":1} {"b":2}`, `{"a":1}xyz`, `{"s":"\ud800"}`, "{\"s\":\"\xff\"}", "\xef\xbb\xbf{}", `{"k":"\u00`,
	`  `, "\t", "\r", "", `{"x":1e400}`, `1e`, `"unterminated`, `{"n":1.0}`,
	`{ "a\"b" : 1,"typ\u0065":"x","id":2,"id":3}`,
}

// randomDoc builds a JSONL document from random fragments and separators.
func randomDoc(r *rand.Rand, lines int) []byte {
	var b bytes.Buffer
	for range lines {
		b.WriteString(fragments[r.IntN(len(fragments))])
		switch r.IntN(10) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			b.WriteString(" ")
		case 2:
			// glue the next fragment onto this line
		default:
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func TestParseJSONLOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		doc := randomDoc(r, 1+r.IntN(12))
		got := raws(ParseJSONL(doc))
		if want := oracle(doc); !slices.Equal(got, want) {
			t.Fatalf("doc %d %q\n got %q\nwant %q", n, doc, got, want)
		}
		for _, w := range []int{2, 3, 7} {
			par := raws(parseJSONL(doc, w, 0))
			if !slices.Equal(par, got) {
				t.Fatalf("parallel(%d) doc %q\n got %q\nwant %q", w, doc, par, got)
			}
		}
	}
}

// bigDoc is a large generated session-like document.
func bigDoc(lines int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":"%08x","timestamp":"2025-12-01T00:00:%02d.000Z",`, i, i-1, i%60)
		b.WriteString(`"message":{"role":"assistant","content":[{"type":"text","text":"`)
		for range 30 + r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString(`"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",`)
		fmt.Fprintf(&b, `"usage":{"input":%d,"output":%d,"cost":{"total":%v}},"stopReason":"stop","timestamp":%d}}`,
			r.IntN(100000), r.IntN(5000), r.Float64(), 1733000000000+i)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

var words = []string{"the", "session", "file", "writes", "a", "line", "per", "entry", `\"quoted\"`, `with\nnewline`,
	"naïve", "日本語", "emoji 🎉", `tab\there`, "</script>", "a/b", `back\\slash`, "and", "more", "text"}

func TestParseJSONLParallelBig(t *testing.T) {
	doc := bigDoc(1500, 1)
	seq := parseJSONL(doc, 1, 0)
	if len(seq) != 1500 {
		t.Fatalf("sequential found %d values", len(seq))
	}
	for _, v := range seq {
		if !v.Canonical || len(v.Members) != 5 {
			t.Fatalf("value not canonical or members %d: %s", len(v.Members), v.Raw)
		}
	}
	check := func(name string, doc []byte) {
		t.Helper()
		want := raws(parseJSONL(doc, 1, 0))
		if o := oracle(doc); !slices.Equal(o, want) {
			t.Fatalf("%s: sequential differs from oracle", name)
		}
		for _, w := range []int{2, 5, 16} {
			if got := raws(parseJSONL(doc, w, 0)); !slices.Equal(got, want) {
				t.Fatalf("%s: parallel(%d) gives %d values, sequential %d", name, w, len(got), len(want))
			}
		}
	}
	before := rescans.Load()
	check("clean", doc)
	if n := rescans.Load() - before; n != 0 {
		t.Errorf("clean document needed %d sequential rescans", n)
	}
	// Damage one line in ten, so that many of the boundaries the workers pick
	// fall on damage.
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 24 {
		lines := bytes.SplitAfter(doc, []byte("\n"))
		var d []byte
		for k, l := range lines {
			if r.IntN(10) != 0 || k+1 >= len(lines) || len(l) < 40 || len(lines[k+1]) < 2 {
				d = append(d, l...)
				continue
			}
			body := l[:len(l)-1]
			switch r.IntN(7) {
			case 0: // a good value spanning this line and the next
				next := lines[k+1]
				d = append(d, '[')
				d = append(d, body...)
				d = append(d, ",\n"...)
				d = append(d, next[:len(next)-1]...)
				d = append(d, "]\n"...)
				lines[k+1] = nil
			case 1: // garbage at the start of the line
				d = append(d, "garbage "...)
				d = append(d, l...)
			case 2: // a truncated line
				d = append(d, body[:len(body)-20]...)
				d = append(d, '\n')
			case 3: // blank lines
				d = append(d, l...)
				d = append(d, "\n \n\r\n"...)
			case 4: // an unclosed bracket line
				d = append(d, "[\n"...)
				d = append(d, l...)
			case 5: // two values on the line
				d = append(d, body...)
				d = append(d, " {\"x\":1}\n"...)
			case 6: // a value split over two lines
				d = append(d, body[:30]...)
				d = append(d, '\n')
				d = append(d, body[30:]...)
				d = append(d, '\n')
			}
		}
		if round%2 == 1 {
			d = append(d, `{"cut":`...)
		}
		check(fmt.Sprintf("round %d", round), d)
	}
	if n := rescans.Load() - before; n == 0 {
		t.Error("damaged boundaries never needed a sequential rescan")
	} else {
		t.Logf("%d sequential rescans", n)
	}
}

func TestParseJSONLCanonicalFlag(t *testing.T) {
	for _, in := range canonCorpus {
		vs := ParseJSONL([]byte(in + "\n"))
		for _, v := range vs {
			out, err := Canonical(v.Raw)
			if err != nil {
				t.Errorf("Canonical(%q): %v", v.Raw, err)
				continue
			}
			if got := bytes.Equal(out, v.Raw); got != v.Canonical {
				t.Errorf("%q: flag %v, Canonical(raw)==raw %v", v.Raw, v.Canonical, got)
			}
		}
	}
}

func TestMarks(t *testing.T) {
	tests := []struct {
		in   string
		want Mark
	}{
		{`{"a":"plain"}`, 0},
		{`{"content":[{"type":"image","data":"blob:sha256:00ff"}]}`, MarkBlobRef},
		{`{"blob:sha256:key":"x"}`, 0},
		{`{"p":{"type":"openaiResponsesHistory"}}`, MarkReplayHistory},
		{`{"p":"openaiResponsesHistoryX"}`, 0},
		{`["blob:sha256:1","openaiResponsesHistory"]`, MarkBlobRef | MarkReplayHistory},
		{`{"t":"bob"}`, 0},
	}
	for _, tt := range tests {
		vals := ParseJSONL([]byte(tt.in))
		if len(vals) != 1 || vals[0].Marks != tt.want {
			t.Errorf("%s: marks %v, want %v", tt.in, vals[0].Marks, tt.want)
		}
	}
}
