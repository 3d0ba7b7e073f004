package jsjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"q\"b\\", `"q\"b\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x0b", `"\u0000\u0001\u001f\u000b"`},
		{"\x7f", "\"\x7f\""},
		{"</script>&a/b", `"</script>&a/b"`},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"é日本🎉", `"é日本🎉"`},
		{"\xed\xa0\x80", `"\ud800"`},                       // lone high surrogate
		{"\xed\xbf\xbf", `"\udfff"`},                       // lone low surrogate
		{"a\xed\xb0\x80\xed\xa0\x80b", `"a\udc00\ud800b"`}, // low then high: two lone
		{"\xed\xa0\xbd\xed\xb8\x80", `"😀"`},                // high then low: a pair
		{"\xff", "\"\uFFFD\""},
		{"\xe6\x97", "\"\uFFFD\""},       // truncated sequence: one U+FFFD
		{"\xe6\x97x", "\"\uFFFDx\""},     // maximal subpart then ASCII
		{"\xc0\xaf", "\"\uFFFD\uFFFD\""}, // overlong: two
		{"\xf0\x9f\x98", "\"\uFFFD\""},   // truncated 4-byte
		{"\xf4\x90\x80\x80", "\"\uFFFD\uFFFD\uFFFD\uFFFD\""},
	} {
		if got := string(AppendString(nil, tc.in)); got != tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDecodeString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`""`, ""},
		{`"a\"\\\/\b\f\n\r\t"`, "a\"\\/\b\f\n\r\t"},
		{`"\u0041\u00e9\u00E9"`, "Aéé"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"\ud800"`, "\xed\xa0\x80"},
		{`"\ud800x"`, "\xed\xa0\x80x"},
		{`"\udc00\ud800"`, "\xed\xb0\x80\xed\xa0\x80"},
		{`"\ud800\ud800"`, "\xed\xa0\x80\xed\xa0\x80"},
		{"\"\xff\"", "\uFFFD"},
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD"}, // raw surrogate bytes are not UTF-8
	} {
		got, err := DecodeString([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("DecodeString(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if back := string(AppendString(nil, got)); tc.in[1] != '\xff' && tc.in[1] != '\xed' {
			c, _ := Canonical([]byte(tc.in))
			if back != string(c) {
				t.Errorf("AppendString(DecodeString(%s)) = %s, want %s", tc.in, back, c)
			}
		}
	}
	for _, in := range []string{``, `"`, `"abc`, `"\x"`, `"\u12"`, "\"a\tb\"", `"a"b`, `x`} {
		if _, err := DecodeString([]byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("DecodeString(%q) error %v, want ErrSyntax", in, err)
		}
	}
}

func TestUTF16Len(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 1}, {"日本", 2}, {"🎉", 2}, {"\xed\xa0\x80", 1},
		{"\xff", 1}, {"\xe6\x97", 1}, {"a\xc0\xafb", 4},
	} {
		if got := UTF16Len(tc.in); got != tc.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

var tenth = 0.1 // a variable, so that 0.1+0.2 is float64 arithmetic

func TestAppendNumber(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {100, "100"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {123e18, "123000000000000000000"},
		{1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {1e-6, "0.000001"}, {0.0005, "0.0005"},
		{tenth + 2*tenth, "0.30000000000000004"}, {0.1, "0.1"}, {-2.5, "-2.5"},
		{123456789012345678901, "123456789012345680000"}, {12345678901234567890, "12345678901234567000"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{9007199254740993, "9007199254740992"}, {1.5e300, "1.5e+300"}, {-1e-10, "-1e-10"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.NaN(), "NaN"},
	} {
		if got := string(AppendNumber(nil, tc.in)); got != tc.want {
			t.Errorf("AppendNumber(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"2":2,"1":3,"a":4}`, `{"1":3,"2":2,"b":1,"a":4}`},
		{` { "a" : [ 1 , 2 ] } `, `{"a":[1,2]}`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{`{"x":{"k":1,"k":{"z":0}}}`, `{"x":{"k":{"z":0}}}`},
		{`{"01":1,"1":2,"4294967295":3,"4294967294":4,"-1":5}`, `{"1":2,"4294967294":4,"01":1,"4294967295":3,"-1":5}`},
		{`{"\u0031":1,"a":2,"1":3}`, `{"1":3,"a":2}`},
		{`[0, -0, 1.0, 100.0, 1e21, 1E-7, 0.30000000000000004, 1.5e-7]`, `[0,0,1,100,1e+21,1e-7,0.30000000000000004,1.5e-7]`},
		{`[123456789012345678901, 5e-324, 1.7976931348623157e308, 0.0005, 1e400, -1e400, 1e-400]`,
			`[123456789012345680000,5e-324,1.7976931348623157e+308,0.0005,null,null,0]`},
		{`"\/\u0041\u00e9\u2028\u2029\u007f<>&"`, "\"/Aé\u2028\u2029\x7f<>&\""},
		{`"\u001F\u001f\u0008\u0009\u000a\u000c\u000d\u000b"`, `"\u001f\u001f\b\t\n\f\r\u000b"`},
		{`"\uD800\udfff\ud83d\ude00\uDBFF"`, "\"\U000103ff😀\\udbff\""},
		{`"\uDFFF\ud800x\uDBFF"`, `"\udfff\ud800x\udbff"`},
		{"\"\xff\xe6\x97\"", "\"\uFFFD\uFFFD\""},
		{`"</script>"`, `"</script>"`},
		{`{"a":true,"b":false,"c":null,"d":""}`, `{"a":true,"b":false,"c":null,"d":""}`},
		{"\t[]\r\n", `[]`},
	} {
		got, err := Canonical([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{``, ` `, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `[1 2]`, `01`, `1.`, `-`, `.5`, `+1`,
		`tru`, `nul`, `{a:1}`, `'a'`, `"\x"`, "\"\t\"", `1 2`, `{"a":1}x`, "\xef\xbb\xbf{}", `NaN`, `[1]]`, "\xff"} {
		if got, err := Canonical([]byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Canonical(%q) = %s, %v; want ErrSyntax", in, got, err)
		}
		if IsCanonical([]byte(in)) {
			t.Errorf("IsCanonical(%q) = true", in)
		}
	}
}

// canonCorpus is a set of valid JSON texts, canonical or not.
var canonCorpus = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1`, `-1`, `1.5`, `1.50`, `1e3`, `1000`, `1e21`, `1e+21`, `1E+21`, `1e-7`,
	`0.000001`, `1e-6`, `123456789012345`, `1234567890123456`, `12345678901234567`, `9007199254740993`,
	`0.1`, `0.30000000000000004`, `5e-324`, `1.7976931348623157e+308`, `1e400`, `-0.0`, `100.0`,
	`true`, `false`, `null`, `"a"`, `"\n"`, `"\u000a"`, `"\/"`, `"\u001f"`, `"\u001F"`, `"\u0000"`,
	`"\ud800"`, `"\uD800"`, `"\ud83d\ude00"`, "\"😀\"", `"\udc00\ud800"`, "\"\u2028\"", `"\u2028"`,
	"\"\xff\"", `"é"`, `"\u00e9"`, "\"\x7f\"", `"\u007f"`, `"\""`, `"\\"`, `"\u0022"`,
	`{"a":1}`, `{"a":1,"b":2}`, `{"b":1,"a":2}`, `{"a":1,"a":1}`, `{"1":1,"0":0}`, `{"0":0,"1":1}`,
	`{"0":0,"a":1}`, `{"a":1,"0":0}`, `{"01":1,"1":1}`, `{"1":1,"01":1}`, `{"4294967294":1,"a":1}`,
	`{"a":1,"4294967295":1}`, `{"a":1,"4294967294":1}`, `{"\u0061":1,"a":2}`, `{"\n":1,"\n":2}`,
	`{"x":{"y":{"z":1,"z":2}}}`, `{"x":[{"a":1},{"a":1,"b":2}]}`, `[{"b":1,"a":2}]`, `[[1,2],[3]]`,
	`{ "a":1}`, `{"a" :1}`, `{"a": 1}`, `{"a":1 }`, `[1, 2]`, `[ ]`, `{ }`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":18}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18}`,
	`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1733000000000}}`,
}

func TestTooDeep(t *testing.T) {
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	deep := "[" + ok + " ]"
	if _, err := Canonical([]byte(ok + " ")); err != nil {
		t.Errorf("Canonical at depth %d: %v", maxDepth, err)
	}
	if _, err := Canonical([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Canonical too deep: %v", err)
	}
	if _, err := Parse([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Parse too deep: %v", err)
	}
	// The scanner is iterative: ParseJSONL and IsCanonical take any depth.
	if vs := ParseJSONL([]byte(deep + "\n")); len(vs) != 1 || vs[0].Canonical {
		t.Errorf("ParseJSONL of a deep value: %d values", len(vs))
	}
}

func TestIsCanonicalAgrees(t *testing.T) {
	for _, in := range canonCorpus {
		out, err := Canonical([]byte(in))
		if err != nil {
			t.Errorf("Canonical(%q): %v", in, err)
			continue
		}
		if got, want := IsCanonical([]byte(in)), string(out) == in; got != want {
			t.Errorf("IsCanonical(%q) = %v, Canonical gives %s", in, got, out)
		}
		if !IsCanonical(out) {
			t.Errorf("IsCanonical(Canonical(%q) = %s) = false", in, out)
		}
		if n, err := Parse([]byte(in)); err != nil || string(n.AppendJSON(nil)) != string(out) {
			t.Errorf("Parse(%q).AppendJSON = %s, %v; want %s", in, n.AppendJSON(nil), err, out)
		}
	}
}

func TestMarshal(t *testing.T) {
	v := map[string]any{"b": "<&>\u2028", "2": 1.0, "a": []any{1e21, 0.1, nil}, "1": json.RawMessage(`{"z": 1}`)}
	got, err := Marshal(v)
	want := "{\"1\":{\"z\":1},\"2\":1,\"a\":[1e+21,0.1,null],\"b\":\"<&>\u2028\"}"
	if err != nil || string(got) != want {
		t.Errorf("Marshal = %s, %v; want %s", got, err, want)
	}
	if _, err := Marshal(math.NaN()); err == nil {
		t.Error("Marshal(NaN) succeeded")
	}
}

// randomJSON builds a random JSON text with awkward whitespace, numbers,
// strings and keys.
func randomJSON(r *rand.Rand, depth int) string {
	ws := func() string { return []string{"", "", "", " ", "\n", "\t "}[r.IntN(6)] }
	switch k := r.IntN(10); {
	case depth > 3 || k < 3:
		return []string{`0`, `-0`, `1.0`, `1e21`, `1e-7`, `123456789012345678901`, `0.1`, `5e-324`, `1E400`,
			`-12.5e-3`, `100`, `true`, `false`, `null`, `42`, `0.30000000000000004`, `1.5e-7`, `1e308`}[r.IntN(18)]
	case k < 6:
		return randomString(r)
	case k < 8:
		var b strings.Builder
		b.WriteString("[" + ws())
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString("," + ws())
			}
			b.WriteString(randomJSON(r, depth+1) + ws())
		}
		b.WriteString("]")
		return b.String()
	}
	var b strings.Builder
	b.WriteString("{" + ws())
	keys := []string{`"a"`, `"b"`, `"0"`, `"1"`, `"10"`, `"01"`, `"-1"`, `"4294967295"`, `"4294967294"`, `"\u0061"`, `"\ud800"`, `"é"`}
	for i := range r.IntN(5) {
		if i > 0 {
			b.WriteString("," + ws())
		}
		b.WriteString(keys[r.IntN(len(keys))] + ws() + ":" + ws() + randomJSON(r, depth+1) + ws())
	}
	b.WriteString("}")
	return b.String()
}

func randomString(r *rand.Rand) string {
	parts := []string{"a", "é", "日", "🎉", `\"`, `\\`, `\/`, `\n`, `\u000a`, `\u001f`, `\u001F`, `\u0041`,
		`\ud800`, `\uDC00`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\u2028`, "\u2028", "\x7f", "\xff", "\xe6\x97", "\xed\xa0\x80", "<", " "}
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(6) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	b.WriteByte('"')
	return b.String()
}

// TestNodeDifferential compares Canonical with JSON.stringify(JSON.parse(x))
// in node, when node is installed.
func TestNodeDifferential(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	r := rand.New(rand.NewPCG(5, 6))
	inputs := append([]string{}, canonCorpus...)
	for range 2000 {
		inputs = append(inputs, randomJSON(r, 0))
	}
	for i := range 300 {
		f := math.Float64frombits(r.Uint64())
		if i%2 == 0 {
			f = float64(r.IntN(1e9)) * math.Pow(10, float64(r.IntN(60)-30))
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			inputs = append(inputs, string(AppendNumber(nil, f)), string(json.Number(strings.ToUpper(string(AppendNumber(nil, f))))))
		}
	}
	var enc []string
	for _, in := range inputs {
		enc = append(enc, base64.StdEncoding.EncodeToString([]byte(in)))
	}
	stdin, _ := json.Marshal(enc)
	script := `let d="";process.stdin.on("data",c=>d+=c);process.stdin.on("end",()=>{
		const out=JSON.parse(d).map(b=>{try{const s=Buffer.from(b,"base64").toString("utf8");
		return Buffer.from(JSON.stringify(JSON.parse(s)),"utf8").toString("base64")}catch(e){return null}});
		process.stdout.write(JSON.stringify(out))})`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(stdin)
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var outs []*string
	if err := json.Unmarshal(res, &outs); err != nil || len(outs) != len(inputs) {
		t.Fatalf("node output: %v (%d results)", err, len(outs))
	}
	for i, in := range inputs {
		got, err := Canonical([]byte(in))
		if outs[i] == nil {
			if err == nil {
				t.Errorf("Canonical(%q) = %s, node rejects it", in, got)
			}
			continue
		}
		want, _ := base64.StdEncoding.DecodeString(*outs[i])
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Canonical(%q) = %s, %v; node gives %s", in, got, err, want)
		}
		if IsCanonical([]byte(in)) != (in == string(want)) {
			t.Errorf("IsCanonical(%q) = %v; node gives %s", in, !(in == string(want)), want)
		}
	}
}
