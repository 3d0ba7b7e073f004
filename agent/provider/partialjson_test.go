package provider

import (
	"encoding/json"
	"testing"
)

func TestParseArguments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{}`},
		{`   `, `{}`},
		{`[1,2]`, `{}`},
		{`"x"`, `{}`},
		{`{"path":"a.go"}`, `{"path":"a.go"}`},
		{`{"path":"a.g`, `{"path":"a.g"}`},
		{`{"path":"a\"b`, `{"path":"a\"b"}`},
		{`{"path":"a\`, `{"path":"a"}`},
		{`{"pa`, `{}`},
		{`{"path"`, `{}`},
		{`{"path":`, `{}`},
		{`{"a":1,`, `{"a":1}`},
		{`{"a":12`, `{"a":12}`},
		{`{"a":tr`, `{}`},
		{`{"a":1,"b":tr`, `{"a":1}`},
		{`{"a":[1,2`, `{"a":[1,2]}`},
		{`{"a":{"b":"c"},"d":[`, `{"a":{"b":"c"},"d":[]}`},
		{`{"a":1}xyz`, `{"a":1}`},
		{`{"a":1]`, `{}`},
	} {
		got := ParseArguments(tc.in)
		if !json.Valid(got) {
			t.Errorf("ParseArguments(%q) = %s: not JSON", tc.in, got)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("ParseArguments(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzParseArguments(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":[1,{"b":null}],"c":"\u00e9`, `{"x":tru`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseArguments(s)
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("ParseArguments(%q) = %s: %v", s, got, err)
		}
	})
}
