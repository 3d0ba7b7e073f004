package jsjson

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestParseTree(t *testing.T) {
	n, err := Parse([]byte(` {"b":1,"2":"x","a":{"k":[true,false,null,1.50]},"b":3,"1":"\ud800"} `))
	if err != nil {
		t.Fatal(err)
	}
	if n.Kind != '{' || !slices.Equal(n.Keys, []string{"b", "2", "a", "1"}) {
		t.Fatalf("keys %q", n.Keys)
	}
	if f, ok := n.Get("b").Float64(); !ok || f != 3 {
		t.Errorf("b = %v (last value wins)", f)
	}
	if s := n.Get("1").Str; s != "\xed\xa0\x80" {
		t.Errorf("lone surrogate decoded as %q", s)
	}
	items := n.Get("a").Get("k").Items
	if len(items) != 4 || items[0].Kind != 't' || !items[0].Bool || items[1].Kind != 'f' || items[2].Kind != 'n' ||
		string(items[3].Num) != "1.50" {
		t.Errorf("items %+v", items)
	}
	if got := string(n.AppendJSON(nil)); got != `{"1":"\ud800","2":"x","b":3,"a":{"k":[true,false,null,1.5]}}` {
		t.Errorf("AppendJSON = %s", got)
	}
	if n.Get("zz") != nil || n.Get("a").Get("k").Get("x") != nil || (*Node)(nil).Get("a") != nil {
		t.Error("Get of a missing key or a non-object is not nil")
	}
}

func TestTreeEdit(t *testing.T) {
	n, _ := Parse([]byte(`{"type":"session","id":"x","timestamp":"t"}`))
	n.Set("id", NewString("y"))
	n.Set("title", NewString("</script> \u2028"))
	n.Set("5", NewNumber(1e21))
	n.Set("n", NewNumber(math.Inf(1)))
	n.Set("gone", nil)
	n.Set("list", NewArray(NewBool(true), nil, NewNumber(-0.0), NewNumber(0.1)))
	n.Set("obj", NewObject())
	if !n.Delete("timestamp") || n.Delete("timestamp") {
		t.Error("Delete reports wrongly")
	}
	want := "{\"5\":1e+21,\"type\":\"session\",\"id\":\"y\",\"title\":\"</script> \u2028\",\"n\":null,\"list\":[true,null,0,0.1],\"obj\":{}}"
	if got := string(n.AppendJSON(nil)); got != want {
		t.Errorf("AppendJSON =\n %s\nwant\n %s", got, want)
	}
	arr := NewArray()
	arr.Set("a", Null())
	if arr.Delete("a") || string(arr.AppendJSON(nil)) != "[]" {
		t.Error("Set/Delete on an array changed it")
	}
	if got := string((*Node)(nil).AppendJSON(nil)); got != "null" {
		t.Errorf("nil node = %s", got)
	}
}

func TestParseTreeErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `[1,]`, `{"a":1,}`, `"x`, `1 2`, `tru`, `-`, `{"a" 1}`, `[1 2]`, `{1:2}`} {
		if n, err := Parse([]byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, %v; want ErrSyntax", in, n, err)
		}
		if _, err := NewRaw([]byte(in)); err == nil {
			t.Errorf("NewRaw(%q) succeeded", in)
		}
	}
}

func TestParseTreeBigObject(t *testing.T) {
	raw := []byte(`{`)
	for i := range 100 {
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, `"k`...)
		raw = append(raw, byte('a'+i%26), byte('a'+i/26))
		raw = append(raw, `":1,"dup":`...)
		raw = AppendNumber(raw, float64(i))
	}
	raw = append(raw, '}')
	n, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Keys) != 101 || n.Keys[1] != "dup" {
		t.Fatalf("%d keys, second %q", len(n.Keys), n.Keys[1])
	}
	if f, _ := n.Get("dup").Float64(); f != 99 {
		t.Errorf("dup = %v", f)
	}
	c, err := Canonical(raw)
	if err != nil || string(c) != string(n.AppendJSON(nil)) {
		t.Errorf("Canonical and tree differ: %v", err)
	}
	if IsCanonical(raw) {
		t.Error("IsCanonical true for duplicate keys in a big object")
	}
}
