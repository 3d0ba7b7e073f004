package session

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// modelsOracle is the reference's forward pass over the path, kept as
// written there: every assistant message sets the default model's place and
// marks it as coming from an assistant, a default model_change unmarks it.
func modelsOracle(path []*Entry) []ModelRole {
	ctx := emptyContext()
	var lastAsst []byte
	fromAsst := false
	for _, e := range path {
		switch e.Type {
		case TypeModelChange:
			if m := e.Get("model"); truthy(m) {
				role := "default"
				if r := e.Get("role"); r != nil && string(r) != "null" {
					role = jsText(r)
				}
				ctx.setModel(role, jsText(m))
				if role == "default" {
					fromAsst = false
				}
			}
		case TypeMessage:
			msg := e.Get("message")
			if rawString(member(msg, "role")) == "assistant" {
				ctx.setModel("default", "")
				lastAsst, fromAsst = msg, true
			}
		}
	}
	if fromAsst {
		ctx.setModel("default", jsText(member(lastAsst, "provider"))+"/"+jsText(member(lastAsst, "model")))
	}
	return ctx.Models
}

// TestContextModelsMatchForwardPass: BuildContext, which looks only into the
// first and last assistant messages, gives the models (values and order) of
// the reference's pass over every entry, on random paths.
func TestContextModelsMatchForwardPass(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		n := r.IntN(9)
		var entries []*Entry
		parent := rawNull
		for i := range n {
			id := fmt.Sprintf("%08x", i+1)
			f := []Field{{Key: "id", Val: str(id)}, {Key: "parentId", Val: parent}, {Key: "timestamp", Val: str("2026-01-01T00:00:00.000Z")}}
			switch r.IntN(4) {
			case 0:
				entries = append(entries, newEntry(append([]Field{{Key: "type", Val: str(TypeMessage)}}, append(f, Field{Key: "message", Val: []byte(`{"role":"user","content":"hi","timestamp":1}`)})...)...))
			case 1:
				msg := fmt.Sprintf(`{"role":"assistant","content":[],"provider":"p%d","model":"m%d","timestamp":1}`, r.IntN(3), i)
				entries = append(entries, newEntry(append([]Field{{Key: "type", Val: str(TypeMessage)}}, append(f, Field{Key: "message", Val: []byte(msg)})...)...))
			default:
				role := []string{"", `"default"`, `"plan"`, `"smol"`, "null"}[r.IntN(5)]
				model := []string{`"a/b"`, `"c/d"`, `""`}[r.IntN(3)]
				mf := []Field{{Key: "model", Val: []byte(model)}}
				if role != "" {
					mf = append(mf, Field{Key: "role", Val: []byte(role)})
				}
				entries = append(entries, newEntry(append([]Field{{Key: "type", Val: str(TypeModelChange)}}, append(f, mf...)...)...))
			}
			parent = str(id)
		}
		got := BuildContext(entries, nil, Leaf{}).Models
		want := modelsOracle(entries)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: models %v, the forward pass gives %v", round, got, want)
		}
	}
}

// TestPathHintMatchesMap: the walk that takes the previous entry by
// position gives the path the map alone gives, with branches, ids used
// twice, missing parents and stale positions.
func TestPathHintMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 2000 {
		n := 1 + r.IntN(12)
		entries := make([]*Entry, 0, n)
		for i := range n {
			id := fmt.Sprintf("%08x", i+1)
			if r.IntN(8) == 0 && i > 0 {
				id = entries[r.IntN(i)].ID // an id used twice
			}
			parent := rawNull
			switch k := r.IntN(6); {
			case i == 0 || k == 0:
			case k == 1:
				parent = str(entries[r.IntN(i)].ID) // a branch
			case k == 2:
				parent = str("ffffffff") // a missing parent
			default:
				parent = str(entries[i-1].ID)
			}
			e := newEntry(Field{Key: "type", Val: str(TypeLabel)}, Field{Key: "id", Val: str(id)}, Field{Key: "parentId", Val: parent})
			e.seq = int32(i)
			if r.IntN(10) == 0 {
				e.seq = int32(r.IntN(n)) // a stale position
			}
			entries = append(entries, e)
		}
		byID := IndexByID(entries)
		leaf := entries[r.IntN(n)]
		got, want := pathIn(entries, byID, leaf), Path(byID, leaf)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: hinted path has %d entries, the map's %d", round, len(got), len(want))
		}
	}
}
