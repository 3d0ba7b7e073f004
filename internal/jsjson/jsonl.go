package jsjson

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// Field is one top-level member of an object value, in source order.
type Field struct {
	Key string // decoded key (WTF-8, see AppendString)
	Val []byte // raw bytes of the value, a sub-slice of the input
}

// Value is one value found by ParseJSONL.
//
// Canonical is exact: it is true if and only if Canonical(Raw) returns Raw.
// It is false on whitespace between tokens, escapes JSON.stringify writes
// differently (\/, \u escapes of printable characters or surrogate pairs,
// uppercase hex, short escapes spelt \u000a), invalid UTF-8, numbers not in
// Number::toString form, array-index keys out of JavaScript order, and
// duplicate keys at any depth.
type Value struct {
	Raw       []byte // exact bytes of the value (sub-slice of the input, no surrounding whitespace)
	Kind      byte   // '{', '[', '"', 'n' (null), 't', 'f', '0' (number)
	Canonical bool   // Raw is byte-identical to its canonical form (no normalisation needed)
	Marks     Mark   // string values with a marked prefix somewhere in the value
	// Long: an object too long for Member offsets (4 GiB); Members is nil
	// and Get and Fields scan Raw.
	Long bool
	// Members: for objects, the top-level members in source order
	// (duplicates included as they appear), as offsets into Raw; nil
	// otherwise.
	Members Members
}

// Get returns the raw value of the last member named key (the one
// JSON.parse keeps), or nil if v has none.
func (v *Value) Get(key string) []byte {
	if v.Long {
		fs := fieldsOf(v.Raw)
		for i := len(fs) - 1; i >= 0; i-- {
			if fs[i].Key == key {
				return fs[i].Val
			}
		}
		return nil
	}
	return v.Members.Get(v.Raw, key)
}

// Fields returns the top-level members of an object decoded, in source
// order (duplicates included); nil for other values. Each call builds them.
func (v *Value) Fields() []Field {
	if v.Long {
		return fieldsOf(v.Raw)
	}
	return v.Members.Fields(v.Raw)
}

// AppendCanonical appends the canonical form of v: Raw itself when it is
// already canonical.
func (v *Value) AppendCanonical(dst []byte) ([]byte, error) {
	if v.Canonical {
		return append(dst, v.Raw...), nil
	}
	return AppendCanonical(dst, v.Raw)
}

// parallelMin is the input size from which ParseJSONL splits the work.
const parallelMin = 4 << 20

// ParseJSONL parses data as Bun's lenient JSONL reader does: the loop of
// parseJsonlLenient over Bun.JSONL.parseChunk (JavaScriptCore's
// LiteralParser::tryStreamingParse) on the file's decoded text.
//
//   - A UTF-8 BOM at the very start is skipped.
//   - Values are separated by newlines. Whitespace (space, tab, CR, LF) before
//     a value is skipped, so blank lines and CRLF are fine; a value may span
//     lines.
//   - After a value, the rest of its line is ignored ({"a":1}xyz keeps {"a":1}).
//   - A value that cannot be completed (bad JSON) is dropped and parsing goes
//     on after the first newline at or after its start; with no such newline
//     parsing stops.
//   - A value cut off by the end of the data is dropped. Parsing then starts
//     again right after the last good value, where a value on the same line
//     after it may be found; with no good value before it, parsing stops.
//     "Cut off" means every byte seen was a valid continuation (a valid JSON
//     prefix), as in the current WebKit fork of Bun.
//   - Any JSON value is returned, not only objects. Invalid UTF-8 inside
//     strings is accepted (it decodes to U+FFFD); outside strings it is an
//     error.
//
// Inputs of parallelMin bytes or more are split at newlines and scanned by up
// to runtime.GOMAXPROCS goroutines; the result is identical to the
// sequential scan.
func ParseJSONL(data []byte) []Value {
	return parseJSONL(data, runtime.GOMAXPROCS(0), parallelMin)
}

// ParseJSONLAs is ParseJSONL that hands each value to a converter in the
// goroutine that scanned it, while the value's bytes are still in the CPU's
// caches, and returns the converted values in input order. newConv is called
// once per goroutine, so a converter may keep unshared state (an allocation
// slab); a converter returning false leaves the value out. Values of a part
// that is scanned again (see parseParallel) are converted again, and the
// first conversions dropped.
func ParseJSONLAs[T any](data []byte, newConv func() func(Value) (T, bool)) []T {
	return parseAs(data, runtime.GOMAXPROCS(0), parallelMin, newConv)
}

// parseJSONL is ParseJSONL with the parallelism as parameters (for tests).
func parseJSONL(data []byte, workers, minSize int) []Value {
	return parseAs(data, workers, minSize, keepValue)
}

// keepValue is the converter of ParseJSONL: every value as it is.
func keepValue() func(Value) (Value, bool) { return func(v Value) (Value, bool) { return v, true } }

// parseAs is ParseJSONLAs with the parallelism as parameters.
func parseAs[T any](data []byte, workers, minSize int, newConv func() func(Value) (T, bool)) []T {
	start := 0
	if bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) {
		start = 3
	}
	if workers > 1 && len(data) >= minSize {
		return parseParallel(data, start, workers, newConv)
	}
	s := newScanner(data, true, len(data))
	var out []T
	s.run(collect(&out, newConv()), s.fresh(start), len(data)+1)
	return out
}

// collect returns an emit function for scanner.run that converts values and
// appends them to *out.
func collect[T any](out *[]T, conv func(Value) (T, bool)) func(Value) {
	return func(v Value) {
		if t, ok := conv(v); ok {
			*out = append(*out, t)
		}
	}
}

// runState is the state of the lenient loop at the start of a value attempt.
type runState struct {
	q        int  // where the next value starts (after whitespace)
	stopped  bool // the loop has ended
	hasGood  bool // the current parseChunk call has produced a value
	lastEnd  int  // end of that value
	pristine bool // no value and no error since this state was made by fresh
	// moreFirst: a cut-off value was met while pristine, which stopped the
	// loop; with hasGood true it would have restarted at lastEnd.
	moreFirst bool
}

// fresh is the state at a new parseChunk call at p with no values yet.
func (s *scanner) fresh(p int) runState {
	q := s.skipWS(p)
	return runState{q: q, stopped: q >= len(s.data), pristine: true}
}

// run continues the lenient loop from st, passing values to emit, until it
// stops or the next value would start at or after stopAt.
//
// The loop of parseJsonlLenient reduces to three rules, because a value's
// fate depends only on the bytes from its start:
//   - a good value: keep it and go on after the first newline at or after
//     its end (stop if there is none);
//   - an error: go on after the first newline at or after the value's start
//     (the call restarts at earlier newlines first, but each restart skips
//     whitespace to the same failing value);
//   - cut off by the end: stop, unless this parseChunk call already had a
//     good value; then a new call starts right after that value.
func (s *scanner) run(emit func(Value), st runState, stopAt int) runState {
	b := s.data
	moreAt := -1 // a value known to be cut off by the end of the data
	for !st.stopped && st.q < stopAt {
		q := st.q
		end, res := 0, stMore
		if q != moreAt {
			end, res = s.scanValue(q)
		}
		switch res {
		case stOK:
			v := Value{Raw: b[q:end], Kind: kindOf(b[q]), Canonical: s.canon, Marks: s.marks}
			if s.collect && v.Kind == '{' {
				v.Members = s.takeMembers()
				if uint64(len(v.Raw)) > memberLimit {
					v.Members, v.Long = nil, true
				}
			}
			emit(v)
			st.hasGood, st.lastEnd, st.pristine = true, end, false
			nl := bytes.IndexByte(b[end:], '\n')
			if nl < 0 {
				st.stopped = true
				break
			}
			st.q = s.skipWS(end + nl + 1)
		case stErr:
			s.dropMembers()
			nl := bytes.IndexByte(b[q:], '\n')
			if nl < 0 {
				st.stopped = true
				break
			}
			st.hasGood, st.pristine = false, false
			st.q = s.skipWS(q + nl + 1)
		case stMore:
			// Restarts after the last good value meet this value again;
			// it fails the same way, so it is scanned only once.
			moreAt = q
			s.dropMembers()
			if !st.hasGood {
				if st.pristine {
					st.moreFirst = true
				}
				st.stopped = true
				break
			}
			st.hasGood = false
			st.q = s.skipWS(st.lastEnd)
		}
		if st.q >= len(b) {
			st.stopped = true
		}
	}
	return st
}

// kindOf maps the first byte of a value to Value.Kind.
func kindOf(c byte) byte {
	switch c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	}
	return '0'
}

// chunkResult is what one goroutine found in its part of the data.
type chunkResult[T any] struct {
	from, to int // the part: values starting in [from, to)
	first    runState
	exit     runState
	values   []T
}

// rescans counts the parts scanned again sequentially (for tests).
var rescans atomic.Int64

// parseParallel scans parts of data split at newlines concurrently, each as
// if a parseChunk call started there, then joins them. A part's result is
// used only if the sequential state at its start is the one the part
// assumed: the next value starts at the same place. Otherwise (a value
// spanning the boundary, a cut-off value right after it) the part is scanned
// again sequentially from the true state.
func parseParallel[T any](data []byte, start, workers int, newConv func() func(Value) (T, bool)) []T {
	bounds := []int{start}
	size := len(data) - start
	for k := 1; k < workers; k++ {
		at := start + size*k/workers
		if at < bounds[len(bounds)-1] {
			continue
		}
		nl := bytes.IndexByte(data[at:], '\n')
		if nl < 0 {
			break
		}
		if b := at + nl + 1; b > bounds[len(bounds)-1] && b < len(data) {
			bounds = append(bounds, b)
		}
	}
	bounds = append(bounds, len(data)+1)
	parts := make([]chunkResult[T], len(bounds)-1)
	var wg sync.WaitGroup
	for k := range parts {
		parts[k].from, parts[k].to = bounds[k], bounds[k+1]
		wg.Go(func() {
			p := &parts[k]
			s := newScanner(data, true, p.to-p.from)
			p.first = s.fresh(p.from)
			p.values = make([]T, 0, (p.to-p.from)/1024+16)
			p.exit = s.run(collect(&p.values, newConv()), p.first, p.to)
		})
	}
	wg.Wait()

	total := 0
	for _, p := range parts {
		total += len(p.values)
	}
	out := make([]T, 0, total)
	cur := parts[0].exit
	out = append(out, parts[0].values...)
	var seq *scanner
	var seqEmit func(Value)
	for _, p := range parts[1:] {
		if cur.stopped {
			break
		}
		if cur.q == p.first.q && !(cur.hasGood && p.exit.moreFirst) {
			out = append(out, p.values...)
			if p.exit.pristine {
				// No value and no error in the part: the call's state
				// (hasGood, lastEnd) is still the one coming in.
				cur.q, cur.stopped = p.exit.q, p.exit.stopped
			} else {
				cur = p.exit
			}
			continue
		}
		rescans.Add(1)
		if seq == nil {
			seq = newScanner(data, true, len(data)/len(parts))
			seqEmit = collect(&out, newConv())
		}
		cur = seq.run(seqEmit, cur, p.to)
	}
	return out
}
