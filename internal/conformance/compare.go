package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Port of harness/compare.mjs.

// ParseDocument parses a result document.
func ParseDocument(data []byte) (any, error) { return parseJSON(data) }

// Normalize renames every entry id and session id in doc to <E1>, <E2>, ...
// and <S1>, ... in order of first appearance in its JSON text (everywhere,
// file text and names included) and drops sha256 and size of files whose
// text or lines are recorded, as compare.mjs normalize does. doc is not
// modified.
func Normalize(doc any) any {
	ids := newOrderedSet()
	sids := newOrderedSet()
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case *Object:
			id, idIsStr := x.Get("id").(string)
			typ, typIsStr := x.Get("type").(string)
			if typ == "session" && idIsStr {
				sids.add(id)
			} else if idIsStr && typIsStr {
				ids.add(id)
			}
			if sid, ok := x.Get("sessionId").(string); ok {
				sids.add(sid)
			}
			for _, k := range x.keys {
				visit(x.vals[k])
			}
		}
	}
	visit(doc)
	if o, ok := doc.(*Object); ok {
		if refs, ok := o.Get("refs").(*Object); ok {
			for _, k := range refs.keys {
				if s, ok := refs.vals[k].(string); ok {
					ids.add(s)
				}
			}
		}
	}
	text := appendJSON(nil, doc)
	order := func(set *orderedSet, prefix string) {
		var list []string
		for _, s := range set.items {
			if utf16Len(s) >= 4 {
				list = append(list, s)
			}
		}
		pos := make(map[string]int, len(list))
		for _, s := range list {
			pos[s] = bytes.Index(text, []byte(s))
		}
		sort.SliceStable(list, func(i, j int) bool { return pos[list[i]] < pos[list[j]] })
		names := make(map[string]string, len(list))
		for i, s := range list {
			names[s] = "<" + prefix + strconv.Itoa(i+1) + ">"
		}
		byLen := append([]string(nil), list...)
		sort.SliceStable(byLen, func(i, j int) bool { return utf16Len(byLen[i]) > utf16Len(byLen[j]) })
		for _, s := range byLen {
			text = bytes.ReplaceAll(text, []byte(s), []byte(names[s]))
		}
	}
	order(sids, "S")
	order(ids, "E")
	out := mustParse(text)
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				strip(e)
			}
		case *Object:
			if _, ok := x.Get("path").(string); ok && x.Has("sha256") && (x.Has("text") || x.Has("lines")) {
				x.Delete("sha256")
				x.Delete("size")
			}
			for _, k := range x.keys {
				strip(x.vals[k])
			}
		}
	}
	strip(out)
	return out
}

type orderedSet struct {
	items []string
	seen  map[string]bool
}

func newOrderedSet() *orderedSet { return &orderedSet{seen: map[string]bool{}} }

func (s *orderedSet) add(v string) {
	if !s.seen[v] {
		s.seen[v] = true
		s.items = append(s.items, v)
	}
}

// Difference is one difference between two documents.
type Difference struct {
	// Path is the JSON path, "$.snapshots.0.files.2.text".
	Path string
	// Want and Got are the values, as JSON (cut to 200 UTF-16 units), or "<absent>".
	Want, Got string
}

func (d Difference) String() string { return d.Path + ": " + d.Want + " != " + d.Got }

// Compare normalises both documents (unless keepIDs), ignores their "peer",
// and returns their differences in compare.mjs order (all of them).
func Compare(expected, actual any, keepIDs bool) []Difference {
	if !keepIDs {
		expected = Normalize(expected)
		actual = Normalize(actual)
	} else {
		expected, actual = clone(expected), clone(actual)
	}
	if o, ok := expected.(*Object); ok {
		o.Delete("peer")
	}
	if o, ok := actual.(*Object); ok {
		o.Delete("peer")
	}
	var out []Difference
	diff(expected, actual, "$", &out)
	return out
}

// jsType returns typeof v, and whether v is an array and whether it is null.
func jsType(v any) (string, bool, bool) {
	switch v.(type) {
	case nil:
		return "object", false, true
	case bool:
		return "boolean", false, false
	case float64:
		return "number", false, false
	case string:
		return "string", false, false
	case []any:
		return "object", true, false
	case *Object:
		return "object", false, false
	}
	return "undefined", false, false
}

func show(v any) string {
	b, ok := encodeJSON(v)
	if !ok {
		return "undefined"
	}
	s := string(b)
	if len(s) > 200 && utf16Len(s) > 200 {
		s = sliceUnits(s, 0, 200)
	}
	return toUTF8(s) // a cut pair prints as U+FFFD, as Node prints it
}

func diff(a, b any, p string, out *[]Difference) {
	ta, aa, an := jsType(a)
	tb, ba, bn := jsType(b)
	if ta != tb || aa != ba || an != bn {
		*out = append(*out, Difference{p, show(a), show(b)})
		return
	}
	switch x := a.(type) {
	case []any:
		y := b.([]any)
		n := max(len(x), len(y))
		for i := 0; i < n; i++ {
			k := p + "." + strconv.Itoa(i)
			switch {
			case i >= len(x):
				*out = append(*out, Difference{k, "<absent>", show(y[i])})
			case i >= len(y):
				*out = append(*out, Difference{k, show(x[i]), "<absent>"})
			default:
				diff(x[i], y[i], k, out)
			}
		}
		return
	case *Object:
		y := b.(*Object)
		keys := append([]string(nil), x.keys...)
		for _, k := range y.keys {
			if !x.Has(k) {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			kp := p + "." + k
			switch {
			case !x.Has(k):
				*out = append(*out, Difference{kp, "<absent>", show(y.Get(k))})
			case !y.Has(k):
				*out = append(*out, Difference{kp, show(x.Get(k)), "<absent>"})
			default:
				diff(x.Get(k), y.Get(k), kp, out)
			}
		}
		return
	}
	if a != b {
		*out = append(*out, Difference{p, show(a), show(b)})
	}
}

// Departure is one line of the departures file: differences of case Case at
// JSON path Path (or below it) are deliberate, for Reason.
type Departure struct {
	Case, Path, Reason string
	Line               int
}

// ParseDepartures reads a departures file: one "<case> <json path prefix> #
// <reason>" per line; blank lines and lines starting with '#' are ignored.
// <case> is a case name ("19-legacy-v1") or its number ("19"). The path is a
// path of the comparison ("$.snapshots.0.files.3.text"); a "*" segment
// stands for any key or index and a "[key=value]" segment for the array
// element whose member key is the string value
// ("$.snapshots.0.files[path=$HOME/extra/legacy/v1.jsonl].text"). Every line
// needs a reason.
func ParseDepartures(r io.Reader) ([]Departure, error) {
	var out []Departure
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		spec, reason, ok := strings.Cut(line, "#")
		reason = strings.TrimSpace(reason)
		if !ok || reason == "" {
			return nil, fmt.Errorf("departures line %d: no reason (want `<case> <path> # <reason>`)", n)
		}
		f := strings.Fields(spec)
		if len(f) != 2 {
			return nil, fmt.Errorf("departures line %d: want `<case> <path> # <reason>`", n)
		}
		if !strings.HasPrefix(f[1], "$") {
			return nil, fmt.Errorf("departures line %d: path %q does not start with $", n, f[1])
		}
		out = append(out, Departure{Case: f[0], Path: f[1], Reason: reason, Line: n})
	}
	return out, sc.Err()
}

// LoadDepartures reads a departures file.
func LoadDepartures(path string) ([]Departure, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseDepartures(f)
}

// splitPath splits a departure path after its "$" into segments: keys,
// indexes, "*" (any one key or index) and selectors "[key=value]" (the array
// element whose member key is the string value). Dots inside brackets do not
// split.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "$")
	var out []string
	cur := strings.Builder{}
	depth := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range p {
		switch {
		case r == '[' && depth == 0:
			flush()
			depth++
			cur.WriteRune(r)
		case r == ']' && depth == 1:
			depth--
			cur.WriteRune(r)
			flush()
		case r == '.' && depth == 0:
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// selector parses a "[key=value]" segment.
func selector(seg string) (key, value string, ok bool) {
	if !strings.HasPrefix(seg, "[") || !strings.HasSuffix(seg, "]") {
		return "", "", false
	}
	return strings.Cut(seg[1:len(seg)-1], "=")
}

// Matches reports whether the departure covers a difference at path in
// caseName: the path itself or anything below it. A "*" segment of the
// departure's path matches any one key or index; a selector segment matches
// nothing here (CompareCase resolves selectors against the documents).
func (d Departure) Matches(caseName, path string) bool {
	if !d.forCase(caseName) {
		return false
	}
	ps := splitPath(path)
	ds := splitPath(d.Path)
	if len(ps) < len(ds) {
		return false
	}
	for i, seg := range ds {
		if seg != "*" && seg != ps[i] {
			return false
		}
	}
	return true
}

func (d Departure) forCase(caseName string) bool {
	return d.Case == caseName || strings.HasPrefix(caseName, d.Case+"-")
}

// CompareCase compares the reference's document with ours for one case and
// returns the differences that no departure explains, and the departures that
// explained one. A departure's value is taken from the reference's document
// into a copy of ours before both are normalised, so that what it covers (a
// file rewritten with migrated ids, say) does not also shift the numbering of
// ids everywhere else; differences left under a departure's path (a member
// one side lacks) are dropped too.
func CompareCase(caseName string, expected, actual any, deps []Departure) (remaining []Difference, used []Departure) {
	actual = clone(actual)
	hit := make([]bool, len(deps))
	for i, dep := range deps {
		if !dep.forCase(caseName) {
			continue
		}
		if substitute(expected, &actual, splitPath(dep.Path)) {
			hit[i] = true
		}
	}
	diffs := Compare(expected, actual, false)
	for _, d := range diffs {
		covered := false
		for i, dep := range deps {
			if dep.Matches(caseName, d.Path) {
				covered, hit[i] = true, true
			}
		}
		if !covered {
			remaining = append(remaining, d)
		}
	}
	for i, dep := range deps {
		if hit[i] {
			used = append(used, dep)
		}
	}
	return remaining, used
}

// substitute copies into *act the values of exp at the path segs (keys or
// indexes, "*" for any) and reports whether anything changed. A member that
// only our side has is removed.
func substitute(exp any, act *any, segs []string) bool {
	if len(segs) == 0 {
		eb, _ := encodeJSON(exp)
		ab, _ := encodeJSON(*act)
		if string(eb) == string(ab) {
			return false
		}
		*act = clone(exp)
		return true
	}
	seg, rest := segs[0], segs[1:]
	changed := false
	switch e := exp.(type) {
	case *Object:
		a, ok := (*act).(*Object)
		if !ok {
			return false
		}
		keys := []string{seg}
		if seg == "*" {
			keys = append([]string(nil), e.keys...)
			for _, k := range a.keys {
				if !e.Has(k) {
					keys = append(keys, k)
				}
			}
		}
		for _, k := range keys {
			switch {
			case e.Has(k) && a.Has(k):
				v := a.Get(k)
				if substitute(e.Get(k), &v, rest) {
					a.Set(k, v)
					changed = true
				}
			case e.Has(k) && len(rest) == 0:
				a.Set(k, clone(e.Get(k)))
				changed = true
			case a.Has(k) && len(rest) == 0:
				a.Delete(k)
				changed = true
			}
		}
	case []any:
		a, ok := (*act).([]any)
		if !ok {
			return false
		}
		if key, val, ok := selector(seg); ok {
			find := func(arr []any) int {
				for i, x := range arr {
					if o, ok := x.(*Object); ok && o.Get(key) == any(val) {
						return i
					}
				}
				return -1
			}
			ei, ai := find(e), find(a)
			switch {
			case ei >= 0 && ai >= 0:
				return substitute(e[ei], &a[ai], rest)
			case ai >= 0 && len(rest) == 0:
				*act = append(a[:ai:ai], a[ai+1:]...)
				return true
			case ei >= 0 && len(rest) == 0:
				at := min(ei, len(a))
				*act = append(append(a[:at:at], clone(e[ei])), a[at:]...)
				return true
			}
			return false
		}
		lo, hi := 0, min(len(e), len(a))
		if seg != "*" {
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= hi {
				return false
			}
			lo, hi = i, i+1
		}
		for i := lo; i < hi; i++ {
			if substitute(e[i], &a[i], rest) {
				changed = true
			}
		}
	}
	return changed
}
