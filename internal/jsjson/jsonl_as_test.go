package jsjson

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestParseJSONLAs: converting in the scanning goroutines gives, in order,
// what converting ParseJSONL's values afterwards gives, values a converter
// refuses are left out, and each goroutine gets a converter of its own.
func TestParseJSONLAs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	onlyObjects := func(v Value) (string, bool) { return string(v.Raw), v.Kind == '{' }
	for n := range 2000 {
		doc := randomDoc(r, 1+r.IntN(12))
		var want []string
		for _, v := range ParseJSONL(doc) {
			if s, ok := onlyObjects(v); ok {
				want = append(want, s)
			}
		}
		for _, w := range []int{1, 2, 3, 7} {
			var mu sync.Mutex
			var made []*int
			got := parseAs(doc, w, 0, func() func(Value) (string, bool) {
				calls := new(int)
				mu.Lock()
				made = append(made, calls)
				mu.Unlock()
				return func(v Value) (string, bool) {
					*calls++ // a data race if two goroutines shared a converter
					return onlyObjects(v)
				}
			})
			if !slices.Equal(got, want) {
				t.Fatalf("doc %d %q, %d workers: got %q, want %q", n, doc, w, got, want)
			}
			if len(made) == 0 || len(made) > w+1 {
				t.Fatalf("doc %d, %d workers: %d converters made", n, w, len(made))
			}
		}
	}
}
