package conformance

import (
	"strings"
	"testing"
)

func mustDoc(t *testing.T, s string) any {
	t.Helper()
	v, err := parseJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNormalize(t *testing.T) {
	doc := mustDoc(t, `{"peer":"x","refs":{"a":"bbbbbbbb"},"log":[{"result":{"sessionFile":"/s/1_ssssssss.jsonl","sessionId":"ssssssss"}}],
		"snapshots":[{"files":[{"path":"/s/1_ssssssss.jsonl","size":3,"sha256":"h","text":"aaaaaaaa bbbbbbbb"},{"path":"/b/blob","size":1,"sha256":"k"}],
		"entries":[{"type":"message","id":"aaaaaaaa"},{"type":"label","id":"bbbbbbbb"},{"type":"x","id":"abc"}]}]}`)
	got := string(appendJSON(nil, Normalize(doc)))
	// as compare.mjs normalize gives it: numbered by first appearance in the
	// text (refs come first), "abc" too short, blob hashes kept
	want := `{"peer":"x","refs":{"a":"<E1>"},"log":[{"result":{"sessionFile":"/s/1_<S1>.jsonl","sessionId":"<S1>"}}],` +
		`"snapshots":[{"files":[{"path":"/s/1_<S1>.jsonl","text":"<E2> <E1>"},{"path":"/b/blob","size":1,"sha256":"k"}],` +
		`"entries":[{"type":"message","id":"<E2>"},{"type":"label","id":"<E1>"},{"type":"x","id":"abc"}]}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCompare(t *testing.T) {
	a := mustDoc(t, `{"peer":"a","x":[1,2,{"k":"v"}],"y":null,"z":"s"}`)
	b := mustDoc(t, `{"peer":"b","x":[1,3],"y":{},"w":true}`)
	var got []string
	for _, d := range Compare(a, b, true) {
		got = append(got, d.String())
	}
	want := []string{
		`$.x.1: 2 != 3`,
		`$.x.2: {"k":"v"} != <absent>`,
		`$.y: null != {}`,
		`$.z: "s" != <absent>`,
		`$.w: <absent> != true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseDepartures(t *testing.T) {
	deps, err := ParseDepartures(strings.NewReader("# comment\n\n19 $.snapshots.0.files[path=$HOME/a.b].text # why\n"))
	if err != nil || len(deps) != 1 || deps[0].Case != "19" || deps[0].Reason != "why" || deps[0].Line != 3 {
		t.Fatalf("got %+v, %v", deps, err)
	}
	for _, bad := range []string{"19 $.a\n", "19 $.a #\n", "19 # x\n", "19 a # x\n", "19 $.a $.b # x\n"} {
		if _, err := ParseDepartures(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got := splitPath("$.a.0.b[path=$HOME/x.jsonl].c"); strings.Join(got, "|") != "a|0|b|[path=$HOME/x.jsonl]|c" {
		t.Errorf("splitPath: %q", got)
	}
	d := Departure{Case: "21", Path: "$.log.*.result"}
	for path, want := range map[string]bool{"$.log.3.result": true, "$.log.3.result.0.id": true, "$.log.3.error": false, "$.log": false} {
		if d.Matches("21-malformed", path) != want {
			t.Errorf("Matches(%s) != %v", path, want)
		}
	}
	if d.Matches("210-x", "$.log.3.result") || d.Matches("2-x", "$.log.3.result") {
		t.Error("matches another case")
	}
}

func TestCompareCase(t *testing.T) {
	want := mustDoc(t, `{"refs":{},"a":{"text":"v1 file"},"list":[{"path":"p1","n":1},{"path":"p3","n":3}],"e":[{"type":"m","id":"11111111"}],"gone":"x"}`)
	got := mustDoc(t, `{"refs":{},"a":{"text":"v3 file with 22222222"},"list":[{"path":"p1","n":1},{"path":"p2","n":2},{"path":"p3","n":3}],"e":[{"type":"m","id":"22222222"}],"extra":1}`)
	deps := []Departure{
		{Case: "9", Path: "$.a.text", Line: 1},
		{Case: "9", Path: "$.list[path=p2]", Line: 2},
		{Case: "9", Path: "$.gone", Line: 3},
		{Case: "8", Path: "$.extra", Line: 4},
	}
	rem, used := CompareCase("9-x", want, got, deps)
	if len(rem) != 1 || rem[0].Path != "$.extra" {
		t.Errorf("remaining %v", rem)
	}
	if len(used) != 3 {
		t.Errorf("used %v", used)
	}
	// without the departures, the rewritten text also renumbers the ids
	rem, _ = CompareCase("9-x", want, got, nil)
	if len(rem) < 4 {
		t.Errorf("without departures: %v", rem)
	}
}
