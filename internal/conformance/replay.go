package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/terminal"
)

const (
	// Home is the HOME every case runs in; the cases hard-code it.
	Home = "/tmp/peer-harness-home"
	// LockPath is the file locked (flock) while a case runs in Home.
	LockPath = "/tmp/peer-harness-home.lock"
	// Peer is the "peer" member of our result documents.
	Peer = "xcsh-go"

	agentRel = ".xcsh/agent"
)

// Start is the virtual clock's origin; op i runs at Start + 1000*(i+1) ms.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Case is one conformance case: {name, description, ops[]}.
type Case struct {
	Name        string
	Description string
	// Ops are the operations as parsed JSON values (*Object each).
	Ops []any
}

// ParseCase parses a case file.
func ParseCase(data []byte) (Case, error) {
	v, err := parseJSON(data)
	if err != nil {
		return Case{}, fmt.Errorf("parse case: %w", err)
	}
	o, ok := v.(*Object)
	if !ok {
		return Case{}, errors.New("parse case: not an object")
	}
	c := Case{Name: jsString(o.Get("name")), Description: jsString(o.Get("description"))}
	ops, ok := o.Get("ops").([]any)
	if !ok {
		return Case{}, fmt.Errorf("parse case %s: no ops", c.Name)
	}
	for i, op := range ops {
		if _, ok := op.(*Object); !ok {
			return Case{}, fmt.Errorf("parse case %s: op %d is not an object", c.Name, i)
		}
	}
	c.Ops = ops
	return c, nil
}

// LoadCase reads and parses a case file.
func LoadCase(path string) (Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Case{}, err
	}
	c, err := ParseCase(data)
	if err != nil {
		return Case{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// LoadCases reads every *.json case in dir, sorted by file name.
func LoadCases(dir string) ([]Case, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Case
	for _, n := range names {
		c, err := LoadCase(n)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Result is a result document: {peer, case, home, refs, log, snapshots}.
type Result struct{ doc *Object }

// Doc returns the document as a JSON value (see value.go).
func (r Result) Doc() any { return r.doc }

// MarshalJSON writes the document compactly.
func (r Result) MarshalJSON() ([]byte, error) { return appendJSON(nil, r.doc), nil }

// Indented returns the document as JSON.stringify(doc, null, 1) plus a newline,
// the form gen-corpus.mjs writes.
func (r Result) Indented() []byte { return append(indentJSON(r.doc), '\n') }

// ---- ordered maps ----

type refMap struct {
	keys []string
	m    map[string]any
}

func (r *refMap) set(k string, v any) {
	if r.m == nil {
		r.m = map[string]any{}
	}
	if _, ok := r.m[k]; !ok {
		r.keys = append(r.keys, k)
	}
	r.m[k] = v
}

func (r *refMap) get(k string) (any, bool) { v, ok := r.m[k]; return v, ok }

type managerMap struct {
	names []string
	m     map[string]*session.Manager
}

func (mm *managerMap) set(k string, m *session.Manager) {
	if mm.m == nil {
		mm.m = map[string]*session.Manager{}
	}
	if _, ok := mm.m[k]; !ok {
		mm.names = append(mm.names, k)
	}
	mm.m[k] = m
}

func (mm *managerMap) get(k string) *session.Manager { return mm.m[k] }

// ---- the replayer ----

type replayer struct {
	c        Case
	home     string
	agent    string
	now      time.Time
	opt      session.Options
	refs     refMap
	managers managerMap
	stamped  map[string]time.Time
	log      []any
	snaps    []any
}

// unsupportedError is an op the replayer does not know.
type unsupportedError struct{ op string }

func (e *unsupportedError) Error() string { return "unsupported by this peer: " + e.op }

// Replay runs one case against package session exactly as gen-corpus.mjs runs
// it against the reference, and returns the result document.
//
// It takes an exclusive lock on LockPath, wipes and recreates Home, and for
// the duration of the case sets the process environment (HOME, TZ=UTC, no
// terminal ids), the working directory (Home) and time.Local (UTC); all are
// restored before it returns. Cases must not be replayed concurrently in one
// process, and package session keeps some process-wide state (the once per
// process migration of home-encoded session dirs), so a faithful replay of
// several cases runs each in a fresh process: see ReplayIsolated. The error is
// for failures of the replayer itself; what the session store does, errors
// included, is in the document.
func Replay(c Case) (res Result, err error) {
	unlock, err := lockFile(LockPath)
	if err != nil {
		return Result{}, fmt.Errorf("replay %s: lock %s: %w", c.Name, LockPath, err)
	}
	defer unlock()
	restore, err := enterHome()
	if err != nil {
		return Result{}, fmt.Errorf("replay %s: %w", c.Name, err)
	}
	defer restore()

	r := &replayer{c: c, home: Home, agent: filepath.Join(Home, agentRel), now: Start, stamped: map[string]time.Time{}}
	r.opt = session.Options{
		Storage:       session.FileStorage{},
		Clock:         func() time.Time { return r.now },
		IDs:           detIDSource(1),
		SessionsRoot:  filepath.Join(r.agent, "sessions"),
		BlobDir:       filepath.Join(r.agent, "blobs"),
		Home:          Home,
		TmpDir:        "/tmp",
		OnSessionFile: r.writeCrumb,
	}
	defer func() {
		for _, n := range r.managers.names {
			_ = r.managers.m[n].Close()
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("replay %s: panic: %v", c.Name, p)
		}
	}()
	for i, op := range c.Ops {
		r.step(i, op.(*Object))
	}
	refs := NewObject()
	for _, k := range r.refs.keys {
		refs.Set(k, r.refs.m[k])
	}
	doc := obj(
		"peer", Peer,
		"case", c.Name,
		"home", "$HOME",
		"refs", plain(refs, r.home),
		"log", orEmpty(r.log),
		"snapshots", orEmpty(r.snaps),
	)
	return Result{doc: doc}, nil
}

func orEmpty(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}

// enterHome prepares the process for a case and returns the function that
// undoes it.
func enterHome() (func(), error) {
	env := os.Environ()
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	local := time.Local
	restore := func() {
		_ = os.Chdir(wd)
		os.Clearenv()
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				_ = os.Setenv(k, v)
			}
		}
		time.Local = local
		if os.Getenv("XCSH_CONFORMANCE_KEEP") == "" {
			_ = os.RemoveAll(Home)
		}
	}
	if err := os.RemoveAll(Home); err != nil {
		return nil, fmt.Errorf("wipe %s: %w", Home, err)
	}
	if err := os.MkdirAll(Home, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", Home, err)
	}
	if err := os.Chdir(Home); err != nil {
		return nil, err
	}
	for _, k := range []string{"TMUX_PANE", "KITTY_WINDOW_ID", "TERM_SESSION_ID", "WT_SESSION", "PI_CODING_AGENT_DIR", "TMUX", "PI_CONFIG_DIR"} {
		_ = os.Unsetenv(k)
	}
	_ = os.Setenv("HOME", Home)
	_ = os.Setenv("TZ", "UTC")
	time.Local = time.UTC
	return restore, nil
}

// terminalKey derives the terminal key from the environment as the reference
// does without a tty (the replay has none): KITTY_WINDOW_ID, TMUX_PANE,
// TERM_SESSION_ID, WT_SESSION, the value sanitised as package terminal
// sanitises it; "" when none is set (no breadcrumbs). terminal.Detect would
// look at the tty of the process running the replay, so it is not used.
func terminalKey() string {
	for _, r := range []struct{ env, prefix string }{
		{"KITTY_WINDOW_ID", "kitty-"},
		{"TMUX_PANE", "tmux-"},
		{"TERM_SESSION_ID", "apple-"},
		{"WT_SESSION", "wt-"},
	} {
		if v := os.Getenv(r.env); v != "" {
			return r.prefix + terminal.SanitizeKeyPart(v)
		}
	}
	return ""
}

func (r *replayer) crumbDir() string { return filepath.Join(r.agent, "terminal-sessions") }

// writeCrumb is Options.OnSessionFile: the terminal's breadcrumb names the file.
func (r *replayer) writeCrumb(cwd, file string) {
	key := terminalKey()
	if key == "" {
		return
	}
	_ = breadcrumb.Write(r.crumbDir(), key, breadcrumb.Crumb{Cwd: cwd, SessionFile: file})
}

// continueRecent is the reference's SessionManager.continueRecent (reference
// section 7): the terminal's breadcrumb when valid, else the newest session in
// the dir, else a new session.
func (r *replayer) continueRecent(cwd, sessionDir string) (*session.Manager, error) {
	dir := sessionDir
	if dir == "" {
		dir = r.opt.SessionDir(cwd)
	}
	file := ""
	if key := terminalKey(); key != "" {
		if c, err := breadcrumb.Read(r.crumbDir(), key); err == nil {
			if ok, _ := breadcrumb.Validate(c, cwd, "", nil); ok {
				file = c.SessionPath()
			}
		}
	}
	if file == "" {
		file = session.MostRecentSession(r.opt.Storage, dir)
	}
	if file != "" {
		return session.Open(r.opt, file, dir)
	}
	return session.Create(r.opt, cwd, dir), nil
}

// roots are the directories (below HOME) whose files are snapshotted and stamped.
var roots = []string{agentRel, "extra"}

// stamp sets the mtime of every changed file (blobs excepted) to the virtual clock.
func (r *replayer) stamp() {
	for _, p := range listHomeFiles(r.home, roots) {
		if isBlobPath(p) {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if prev, ok := r.stamped[p]; ok && prev.Equal(st.ModTime()) {
			continue
		}
		if err := os.Chtimes(p, r.now, r.now); err != nil {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			r.stamped[p] = st.ModTime()
		}
	}
}

// step runs op i and appends its log record.
func (r *replayer) step(i int, raw *Object) {
	r.now = r.now.Add(time.Second)
	rec := obj("i", float64(i), "op", raw.Get("op"))
	if sm := raw.Get("sm"); truthy(sm) {
		rec.Set("sm", sm)
	}
	result, touched, err := r.exec(raw)
	if err != nil {
		var u *unsupportedError
		if errors.As(err, &u) {
			rec.Set("error", "unsupported")
			rec.Set("unsupported", true)
		} else {
			rec.Set("error", err.Error())
		}
	} else if !isUndef(result) {
		rec.Set("result", plain(result, r.home))
	}
	if touched != nil {
		if err := touched.Flush(); err != nil {
			rec.Set("persistError", err.Error())
		}
	}
	r.stamp()
	r.log = append(r.log, rec)
}

// managerOps are the ops that act on manager o.sm.
var managerOps = map[string]func(r *replayer, m *session.Manager, o *Object) (any, error){
	"appendMessage": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendMessage(rawArg(o, "message")))
	},
	"appendThinkingLevelChange": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendThinkingLevelChange(rawArg(o, "level")))
	},
	"appendModelChange": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendModelChange(strArg(o, "model"), rawArg(o, "role")))
	},
	"appendServiceTierChange": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendServiceTierChange(rawArg(o, "tier")))
	},
	"appendModeChange": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendModeChange(strArg(o, "mode"), rawArg(o, "data")))
	},
	"appendSessionInit": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendSessionInit(rawArg(o, "init")))
	},
	"appendCompaction": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendCompaction(session.Compaction{
			Summary:          strArg(o, "summary"),
			ShortSummary:     rawArg(o, "shortSummary"),
			FirstKeptEntryID: rawArg(o, "firstKeptEntryId"),
			TokensBefore:     rawArg(o, "tokensBefore"),
			Details:          rawArg(o, "details"),
			FromExtension:    rawArg(o, "fromExtension"),
			PreserveData:     rawArg(o, "preserveData"),
		}))
	},
	"appendCustomEntry": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendCustomEntry(strArg(o, "customType"), rawArg(o, "data")))
	},
	"appendCustomMessageEntry": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendCustomMessageEntry(strArg(o, "customType"), rawArg(o, "content"),
			truthy(o.Get("display")), rawArg(o, "details"), rawArg(o, "attribution")))
	},
	"appendMCPToolSelection": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendMCPToolSelection(rawArg(o, "names")))
	},
	"appendTtsrInjection": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendTTSRInjection(rawArg(o, "rules")))
	},
	"appendLabelChange": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.AppendLabelChange(strArg(o, "targetId"), rawArg(o, "label")))
	},
	"branch": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return undef, m.Branch(strArg(o, "id"))
	},
	"resetLeaf": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		m.ResetLeaf()
		return undef, nil
	},
	"branchWithSummary": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return idResult(m.BranchWithSummary(strArg(o, "id"), strArg(o, "summary"), rawArg(o, "details"), rawArg(o, "fromExtension")))
	},
	"createBranchedSession": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return pathResult(m.CreateBranchedSession(strArg(o, "leafId")))
	},
	"fork": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		oldFile, newFile, ok, err := m.Fork()
		if err != nil {
			return nil, err
		}
		if !ok {
			return undef, nil
		}
		return obj("oldSessionFile", oldFile, "newSessionFile", newFile), nil
	},
	"newSession": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		var parent json.RawMessage
		if opts, ok := o.Get("options").(*Object); ok {
			parent = rawArg(opts, "parentSession")
		}
		return pathResult(m.NewSession(parent), nil)
	},
	"setSessionFile": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return undef, m.SetSessionFile(strArg(o, "path"))
	},
	"setSessionName": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		_, err := m.SetSessionName(strArg(o, "name"), "")
		return undef, err
	},
	"ensureOnDisk": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return undef, m.EnsureOnDisk()
	},
	"flush": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return undef, m.Flush()
	},
	"close": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return undef, m.Close()
	},
	"rewriteEntries": func(r *replayer, m *session.Manager, o *Object) (any, error) {
		return undef, m.RewriteEntries()
	},
}

func idResult(id string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return id, nil
}

func pathResult(p string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if p == "" {
		return undef, nil
	}
	return p, nil
}

// rawArg returns o[key] as raw JSON; nil when absent or undefined.
func rawArg(o *Object, key string) json.RawMessage {
	b, ok := encodeJSON(o.Get(key))
	if !ok {
		return nil
	}
	return b
}

// strArg returns o[key] as a string: "" when absent, undefined or null.
func strArg(o *Object, key string) string {
	switch v := o.Get(key).(type) {
	case Undefined, nil:
		return ""
	case string:
		return v
	default:
		return jsString(v)
	}
}

// cwdArg returns o[key], or the process cwd when it is absent.
func cwdArg(o *Object, key string) string {
	if s := strArg(o, key); s != "" {
		return s
	}
	wd, _ := os.Getwd()
	return wd
}

// exec runs one op: its result (undef for none), the manager it touched, or an error.
func (r *replayer) exec(raw *Object) (any, *session.Manager, error) {
	opName := jsString(raw.Get("op"))
	o := raw
	if opName != "snapshot" {
		v, err := r.resolve(raw)
		if err != nil {
			return nil, nil, err
		}
		o = v.(*Object)
	}
	switch opName {
	case "snapshot":
		return undef, nil, r.snapshot(o)
	case "writeFile":
		p := strArg(o, "path")
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			return nil, nil, err
		}
		return undef, nil, os.WriteFile(p, []byte(toUTF8(strArg(o, "text"))), 0o666)
	case "setMtime":
		p := strArg(o, "path")
		t, err := time.Parse(time.RFC3339Nano, strArg(o, "mtime"))
		if err != nil {
			return nil, nil, fmt.Errorf("harness: bad mtime: %w", err)
		}
		if err := os.Chtimes(p, t, t); err != nil {
			return nil, nil, err
		}
		if st, err := os.Stat(p); err == nil {
			r.stamped[p] = st.ModTime()
		}
		return undef, nil, nil
	case "env":
		if set, ok := o.Get("set").(*Object); ok {
			for _, k := range set.Keys() {
				_ = os.Setenv(k, jsString(set.Get(k)))
			}
		}
		if unset, ok := o.Get("unset").([]any); ok {
			for _, k := range unset {
				_ = os.Unsetenv(jsString(k))
			}
		}
		return undef, nil, nil
	case "loadEntriesFromFile":
		es, err := session.LoadEntries(r.opt.Storage, strArg(o, "path"))
		if err != nil {
			if session.IsNotExist(err) || errors.Is(err, session.ErrNotSession) {
				return []any{}, nil, nil
			}
			return nil, nil, err
		}
		return entryValues(es), nil, nil
	case "create", "open", "continueRecent", "forkFrom", "inMemory":
		var m *session.Manager
		var err error
		switch opName {
		case "create":
			m = session.Create(r.opt, cwdArg(o, "cwd"), strArg(o, "sessionDir"))
		case "open":
			m, err = session.Open(r.opt, strArg(o, "path"), strArg(o, "sessionDir"))
		case "continueRecent":
			m, err = r.continueRecent(cwdArg(o, "cwd"), strArg(o, "sessionDir"))
		case "forkFrom":
			m, err = session.ForkFrom(r.opt, strArg(o, "source"), cwdArg(o, "cwd"), strArg(o, "sessionDir"))
		case "inMemory":
			m = session.InMemory(r.opt, cwdArg(o, "cwd"))
		}
		if err != nil {
			if m != nil {
				_ = m.Close()
			}
			return nil, nil, err
		}
		r.managers.set(jsString(o.Get("sm")), m)
		res := NewObject()
		if f := m.SessionFile(); f != "" {
			res.Set("sessionFile", f)
		}
		res.Set("sessionId", m.SessionID())
		return res, m, nil
	}
	fn := managerOps[opName]
	if fn == nil {
		return nil, nil, &unsupportedError{op: opName}
	}
	name := jsString(o.Get("sm"))
	m := r.managers.get(name)
	if m == nil {
		return nil, nil, fmt.Errorf("harness: no manager %s", name)
	}
	res, err := fn(r, m, o)
	if err != nil {
		return nil, m, err
	}
	if as := o.Get("as"); truthy(as) {
		if s, ok := res.(string); ok {
			r.refs.set(jsString(as), s)
		}
	}
	return res, m, nil
}

// entryValues returns entries as JSON values.
func entryValues(es []*session.Entry) []any {
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = mustParse(e.JSON())
	}
	return out
}

// marshalValue returns the JSON value of a json.Marshaler.
func marshalValue(m json.Marshaler) any {
	b, err := m.MarshalJSON()
	if err != nil {
		panic(fmt.Sprintf("conformance: marshal %T: %v", m, err))
	}
	return mustParse(b)
}
