package conformance

import (
	"encoding/base64"
	"fmt"
	"math"
)

// Port of harness/lib/values.mjs.

// detBytes returns b[i] = (i*31 + seed*7) & 0xff.
func detBytes(seed, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i*31 + seed*7) & 0xff)
	}
	return b
}

// resolve replaces the placeholders in v ($repeat, $b64, $ref, $home, $file,
// $sid, $entryId, $undefined) exactly as resolveValue does.
func (r *replayer) resolve(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			rv, err := r.resolve(e)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	case *Object:
		switch {
		case x.Has("$repeat"):
			return repeatTo(jsString(x.Get("$repeat")), jsInt(x.Get("length"))), nil
		case x.Has("$b64"):
			spec, _ := x.Get("$b64").(*Object)
			if spec == nil {
				return nil, fmt.Errorf("harness: bad $b64")
			}
			return base64.StdEncoding.EncodeToString(detBytes(jsInt(spec.Get("seed")), jsInt(spec.Get("bytes")))), nil
		case x.Has("$ref"):
			name := jsString(x.Get("$ref"))
			id, ok := r.refs.get(name)
			if !ok {
				return nil, fmt.Errorf("harness: unknown ref %s", name)
			}
			return id, nil
		case x.Has("$home"):
			return r.home + "/" + jsString(x.Get("$home")), nil
		case x.Has("$file"):
			m := r.managers.get(jsString(x.Get("$file")))
			if m == nil || m.SessionFile() == "" {
				return undef, nil
			}
			return m.SessionFile(), nil
		case x.Has("$sid"):
			m := r.managers.get(jsString(x.Get("$sid")))
			if m == nil {
				return undef, nil
			}
			return m.SessionID(), nil
		case x.Has("$entryId"):
			spec, _ := x.Get("$entryId").(*Object)
			if spec == nil {
				return nil, fmt.Errorf("harness: bad $entryId")
			}
			name := jsString(spec.Get("sm"))
			m := r.managers.get(name)
			if m == nil {
				return nil, fmt.Errorf("harness: no manager %s", name)
			}
			idx := jsInt(spec.Get("index"))
			es := m.Entries()
			i := idx
			if i < 0 {
				i += len(es)
			}
			if i < 0 || i >= len(es) {
				return nil, fmt.Errorf("harness: manager %s has no entry %s", name, jsString(spec.Get("index")))
			}
			if id := es[i].Get("id"); id != nil {
				return mustParse(id), nil
			}
			return undef, nil
		case x.Has("$undefined"):
			return undef, nil
		}
		out := NewObject()
		for _, k := range x.keys {
			rv, err := r.resolve(x.vals[k])
			if err != nil {
				return nil, err
			}
			out.Set(k, rv)
		}
		return out, nil
	}
	return v, nil
}

// jsString converts v as JavaScript's String(v) does for JSON values.
func jsString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case Undefined:
		return "undefined"
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return string(appendNum(nil, x))
	case []any:
		s := ""
		for i, e := range x {
			if i > 0 {
				s += ","
			}
			if e != nil && !isUndef(e) {
				s += jsString(e)
			}
		}
		return s
	case *Object:
		return "[object Object]"
	}
	return fmt.Sprint(v)
}

// jsInt returns a number value as an int (0 for anything else).
func jsInt(v any) int {
	if f, ok := v.(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return int(f)
	}
	return 0
}

// truthy is JavaScript truthiness.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil, Undefined:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}
