package tools

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestBuiltinSpecs(t *testing.T) {
	t.Parallel()
	ts := Builtin(Options{})
	var names []string
	for _, tool := range ts {
		s := tool.Spec()
		names = append(names, s.Name)
		if len(s.Description) < 100 {
			t.Errorf("%s: description too short for a model to follow: %q", s.Name, s.Description)
		}
		var sch struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			Additional *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(s.Parameters, &sch); err != nil {
			t.Fatalf("%s: parameters are not JSON: %v", s.Name, err)
		}
		if sch.Type != "object" || len(sch.Required) == 0 || sch.Additional == nil || *sch.Additional {
			t.Errorf("%s: schema %s is not a closed object with required fields", s.Name, s.Parameters)
		}
		for _, r := range sch.Required {
			if _, ok := sch.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", s.Name, r)
			}
		}
		for name, p := range sch.Properties {
			var ps struct{ Type, Description string }
			if err := json.Unmarshal(p, &ps); err != nil || ps.Type == "" || ps.Description == "" {
				t.Errorf("%s.%s: property schema %s lacks a type or description", s.Name, name, p)
			}
		}
		if ByName(ts, s.Name) != tool {
			t.Errorf("ByName(%q) is not the tool", s.Name)
		}
	}
	if !slices.Equal(names, []string{NameRead, NameWrite, NameEdit, NameBash}) {
		t.Errorf("Builtin names = %v", names)
	}
	if ByName(ts, "python") != nil {
		t.Error("ByName of an unknown tool is not nil")
	}
	if len(Specs(ts)) != 4 {
		t.Error("Specs length")
	}
	for _, tool := range ts {
		if tool.NeedsApproval() {
			t.Errorf("%s needs approval by default", tool.Spec().Name)
		}
	}
}

// TestMalformedArguments sends every tool arguments that are not what its
// schema says; each must come back as an error result naming the problem.
func TestMalformedArguments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ args, want string }{
		{`{`, "not valid JSON"},
		{`"path"`, "must be a JSON object"},
		{`[]`, "must be a JSON object"},
		{`null`, "missing required argument"},
		{``, "missing required argument"},
		{`{"zzz":1}`, `unknown argument "zzz"`},
		{`{"path":{},"command":{},"content":1,"old_text":1,"new_text":1}`, "must be a string"},
	}
	for _, tool := range Builtin(Options{}) {
		name := tool.Spec().Name
		for _, c := range cases {
			r := tool.Run(context.Background(), Env{Cwd: dir}, json.RawMessage(c.args), nil)
			if !r.IsError || !strings.Contains(r.Text(), "invalid arguments for "+name) || !strings.Contains(r.Text(), c.want) {
				t.Errorf("%s(%s) = %v %q, want an error with %q", name, c.args, r.IsError, r.Text(), c.want)
			}
		}
	}
}

func TestIntentArgumentTolerated(t *testing.T) {
	t.Parallel()
	r := call(t, Env{Cwd: t.TempDir()}, NameBash, `{"_i":"say hi","command":"echo hi"}`)
	if got := wantOK(t, r); got != "hi" {
		t.Errorf("text = %q", got)
	}
}

func TestRecoverResult(t *testing.T) {
	t.Parallel()
	r := func() (res Result) {
		defer recoverResult("demo", &res)
		panic("boom")
	}()
	wantErr(t, r, "internal error in the demo tool: boom")
	if !strings.Contains(string(r.Details), "stack") {
		t.Errorf("details = %s, want the stack", r.Details)
	}
}

// applyOps rebuilds b from a and an edit script, checking the script on the way.
func applyOps(t *testing.T, a, b []string, ops []lineOp) []string {
	t.Helper()
	var out []string
	ai := 0
	for _, o := range ops {
		switch o.kind {
		case ' ':
			if o.a != ai || a[o.a] != b[o.b] || o.b != len(out) {
				t.Fatalf("bad keep %+v", o)
			}
			out = append(out, a[o.a])
			ai++
		case '-':
			if o.a != ai {
				t.Fatalf("bad delete %+v at %d", o, ai)
			}
			ai++
		case '+':
			if o.b != len(out) {
				t.Fatalf("bad insert %+v at %d", o, len(out))
			}
			out = append(out, b[o.b])
		}
	}
	if ai != len(a) {
		t.Fatalf("script consumed %d of %d lines", ai, len(a))
	}
	return out
}

func TestDiffLinesRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() []string {
		s := make([]string, rng.IntN(30))
		for i := range s {
			s[i] = string(rune('a' + rng.IntN(4)))
		}
		return s
	}
	for range 2000 {
		a, b := gen(), gen()
		ops := diffLines(a, b)
		if got := applyOps(t, a, b, ops); !slices.Equal(got, b) {
			t.Fatalf("diff of %q -> %q rebuilt %q", a, b, got)
		}
		// The bounded search falls back to a plain replace, still correct.
		if mid, ok := myers(a, b, 3); ok {
			applyOps(t, a, b, mid)
		}
	}
}

func FuzzDiffLines(f *testing.F) {
	f.Add("a\nb\nc", "a\nc\nd")
	f.Add("", "x")
	f.Add("x\ny\nx\ny", "y\nx\ny\nx")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := strings.Split(x, "\n"), strings.Split(y, "\n")
		if got := applyOps(t, a, b, diffLines(a, b)); !slices.Equal(got, b) {
			t.Fatalf("rebuilt %q, want %q", got, b)
		}
		compactDiff(x, y)
	})
}
