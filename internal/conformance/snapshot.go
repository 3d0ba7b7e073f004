package conformance

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/xcsh-dev/xcsh/session"
)

// snapshot records the world as gen-corpus.mjs snapshot() does. o is the
// unresolved op; placeholders inside it are resolved where the reference
// resolves them.
func (r *replayer) snapshot(o *Object) error {
	s := obj("name", o.Get("name"), "now", session.ISOTime(r.now))
	if files := o.Get("files"); !(files == false) {
		var recs []any
		for _, p := range listHomeFiles(r.home, roots) {
			recs = append(recs, snapshotFile(p, r.home))
		}
		s.Set("files", orEmpty(recs))
	}
	mans := NewObject()
	names := r.managers.names
	if sms, ok := o.Get("sms").([]any); ok {
		names = nil
		for _, n := range sms {
			names = append(names, jsString(n))
		}
	}
	for _, name := range names {
		m := r.managers.get(name)
		if m == nil {
			mans.Set(name, nil)
			continue
		}
		d, err := r.describe(m, o)
		if err != nil {
			return err
		}
		mans.Set(name, plain(d, r.home))
	}
	s.Set("managers", mans)

	if list, ok := o.Get("list").([]any); ok {
		out := make([]any, 0, len(list))
		for _, l := range list {
			lo, _ := l.(*Object)
			if lo == nil {
				lo = NewObject()
			}
			cwd, err := r.resolve(lo.Get("cwd"))
			if err != nil {
				return err
			}
			dir, err := r.resolve(lo.Get("sessionDir"))
			if err != nil {
				return err
			}
			rec := NewObject()
			rec.Set("cwd", plain(cwd, r.home))
			if pd := plain(dir, r.home); !isUndef(pd) {
				rec.Set("sessionDir", pd)
			} else {
				rec.Set("sessionDir", nil)
			}
			d, _ := dir.(string)
			if d == "" {
				c, _ := cwd.(string)
				if c == "" {
					c, _ = os.Getwd()
				}
				d = r.opt.SessionDir(c)
			}
			rec.Set("result", plain(infoValues(session.ListSessions(r.opt.Storage, d)), r.home))
			out = append(out, rec)
		}
		s.Set("list", out)
	}
	if recent, ok := o.Get("recent").([]any); ok {
		out := make([]any, 0, len(recent))
		for _, x := range recent {
			ro, _ := x.(*Object)
			if ro == nil {
				ro = NewObject()
			}
			dirV, err := r.resolve(ro.Get("dir"))
			if err != nil {
				return err
			}
			dir, _ := dirV.(string)
			limit := 3
			if l, ok := ro.Get("limit").(float64); ok {
				limit = int(l)
			}
			rows := []any{}
			for _, rs := range session.RecentSessions(r.opt.Storage, dir, limit) {
				rows = append(rows, plain(obj(
					"path", rs.Path,
					"mtime", session.ISOTime(rs.Mtime),
					"fullName", rs.FullName,
					"name", rs.Name,
					"timeAgo", session.TimeAgo(r.now, rs.Mtime),
				), r.home))
			}
			out = append(out, obj("dir", plain(dirV, r.home), "limit", ro.Get("limit"), "result", rows))
		}
		s.Set("recent", out)
	}
	if mr, ok := o.Get("mostRecent").([]any); ok {
		out := make([]any, 0, len(mr))
		for _, x := range mr {
			dirV, err := r.resolve(x)
			if err != nil {
				return err
			}
			dir, _ := dirV.(string)
			var res any
			if p := session.MostRecentSession(r.opt.Storage, dir); p != "" {
				res = p
			}
			out = append(out, obj("dir", plain(dirV, r.home), "result", plain(res, r.home)))
		}
		s.Set("mostRecent", out)
	}
	if truthy(o.Get("listAll")) {
		s.Set("listAll", plain(infoValues(session.ListAllSessions(r.opt.Storage, filepath.Join(r.agent, "sessions"))), r.home))
	}
	r.snaps = append(r.snaps, s)
	return nil
}

func infoValues(infos []session.SessionInfo) []any {
	out := make([]any, len(infos))
	for i, in := range infos {
		out[i] = marshalValue(in)
	}
	return out
}

// describe is api.describe(sm) plus entries, context, leaves, labels and tree.
func (r *replayer) describe(m *session.Manager, o *Object) (d *Object, err error) {
	d = NewObject()
	d.Set("sessionId", m.SessionID())
	if f := m.SessionFile(); f != "" {
		d.Set("sessionFile", f)
	}
	d.Set("sessionDir", m.SessionDir())
	d.Set("cwd", m.Cwd())
	if n := m.SessionName(); n != "" {
		d.Set("sessionName", n)
	}
	d.Set("isPersisted", m.IsPersisted())
	if id, ok := m.LeafID(); ok {
		d.Set("leafId", id)
	} else {
		d.Set("leafId", nil)
	}
	d.Set("header", mustParse(m.Header().JSON()))
	d.Set("usage", marshalValue(m.UsageStatistics()))
	rules := []any{}
	for _, x := range m.InjectedTTSRRules() {
		rules = append(rules, x)
	}
	d.Set("injectedTtsrRules", rules)
	entries := m.Entries()
	d.Set("entries", entryValues(entries))
	if ctx, err := safeContext(func() *session.Context { return m.BuildContext() }); err != nil {
		d.Set("contextError", err.Error())
	} else {
		d.Set("context", marshalValue(ctx))
	}
	if leaves, ok := o.Get("leaves").([]any); ok {
		lv := NewObject()
		for _, x := range leaves {
			lf, _ := x.(*Object)
			if lf == nil {
				lf = NewObject()
			}
			var id any = undef
			if lf.Has("id") {
				if id, err = r.resolve(lf.Get("id")); err != nil {
					return nil, err
				}
			}
			leaf := session.Leaf{}
			var leafID any
			switch x := id.(type) {
			case Undefined:
				leafID = "<undefined>"
			case nil:
				leaf.None = true
				leafID = nil
			case string:
				leaf.ID = x
				leafID = x
			default:
				leafID = x
			}
			ctx, cerr := safeContext(func() *session.Context { return session.BuildContext(entries, nil, leaf) })
			if cerr != nil {
				lv.Set(jsString(lf.Get("name")), obj("error", cerr.Error()))
			} else {
				lv.Set(jsString(lf.Get("name")), obj("leafId", leafID, "context", marshalValue(ctx)))
			}
		}
		d.Set("leaves", lv)
	}
	if labelsOf, ok := o.Get("labelsOf").([]any); ok {
		lb := NewObject()
		for _, x := range labelsOf {
			n := jsString(x)
			var v any
			if id, ok := r.refs.get(n); ok {
				if s, ok := id.(string); ok {
					if l := m.Label(s); l != "" {
						v = l
					}
				}
			}
			lb.Set(n, v)
		}
		d.Set("labels", lb)
	}
	if truthy(o.Get("tree")) {
		d.Set("tree", treeValues(m.Tree()))
	}
	return d, nil
}

func treeValues(nodes []*session.TreeNode) []any {
	out := make([]any, len(nodes))
	for i, n := range nodes {
		t := NewObject()
		if id := n.Entry.Get("id"); id != nil {
			t.Set("id", mustParse(id))
		}
		if typ := n.Entry.Get("type"); typ != nil {
			t.Set("type", mustParse(typ))
		}
		if n.Label != "" {
			t.Set("label", n.Label)
		}
		t.Set("children", treeValues(n.Children))
		out[i] = t
	}
	return out
}

// safeContext runs a context build, turning a panic into an error (the
// reference records a thrown error as contextError).
func safeContext(f func() *session.Context) (ctx *session.Context, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return f(), nil
}
