package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Options are a manager's dependencies. The zero value works: the real file
// system, the wall clock, random ids, no breadcrumbs.
type Options struct {
	// Storage holds session files; nil means the file system.
	Storage Storage
	// Clock gives "now"; nil means time.Now.
	Clock func() time.Time
	// IDs generates session and entry ids; nil means a random source.
	IDs *IDSource
	// SessionsRoot is <agent>/sessions, the parent of per-directory session dirs.
	SessionsRoot string
	// BlobDir is <agent>/blobs; empty disables externalisation and resolution.
	BlobDir string
	// Home and TmpDir are used to name session dirs.
	Home, TmpDir string
	// OnSessionFile, when set, is called whenever the manager points at a
	// session file (open, create, new session, fork, forkFrom, branched
	// session): the caller writes the terminal's breadcrumb there.
	OnSessionFile func(cwd, sessionFile string)
}

func (o *Options) fill() {
	if o.Storage == nil {
		o.Storage = FileStorage{}
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.IDs == nil {
		o.IDs = NewIDSource(nil)
	}
}

// SessionDir returns (and creates) the session dir for cwd.
func (o Options) SessionDir(cwd string) string {
	return prepareSessionDir(o.SessionsRoot, cwd, o.Home, o.TmpDir)
}

// Manager owns one session: its header, its entries (an append-only tree
// with a movable leaf) and its file.
type Manager struct {
	opt        Options
	st         Storage
	blobs      *BlobStore
	persist    bool
	cwd        string
	sessionDir string
	file       string

	header  *Entry
	entries []*Entry
	byID    map[string]*Entry
	labels  map[string]string
	leaf    string // "" means a null leaf
	hasAsst bool
	name    string // the session name; survives a branched session, whose header has no title

	flushed, ensuredOnDisk, needsRewrite bool
	persistErr                           error
	writer                               Appender
}

// ErrEntryNotFound is returned for an entry id that is not in the session.
var ErrEntryNotFound = errors.New("entry not found")

// NotFoundError names an entry id that is not in the session; its message is the reference's.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return "Entry " + e.ID + " not found" }

// Is makes errors.Is(err, ErrEntryNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrEntryNotFound }

func entryNotFound(id string) error { return &NotFoundError{ID: id} }

func newManager(opt Options, cwd, dir string, persist bool) *Manager {
	opt.fill()
	m := &Manager{opt: opt, st: opt.Storage, persist: persist, cwd: cwd, sessionDir: dir}
	if opt.BlobDir != "" {
		m.blobs = NewBlobStore(opt.Storage, opt.BlobDir)
	}
	return m
}

// Create starts a new persistent session for cwd in sessionDir (default: the
// session dir of cwd). Nothing is written before the first assistant message.
func Create(opt Options, cwd, sessionDir string) *Manager {
	opt.fill()
	if sessionDir == "" {
		sessionDir = opt.SessionDir(cwd)
	} else {
		_ = opt.Storage.MkdirAll(sessionDir)
	}
	m := newManager(opt, cwd, sessionDir, true)
	m.newSession(nil)
	return m
}

// InMemory starts a session that is never written.
func InMemory(opt Options, cwd string) *Manager {
	m := newManager(opt, cwd, "", false)
	m.newSession(nil)
	return m
}

// Open opens the session file at path (its directory is the session dir
// unless sessionDir is given). A legacy file is migrated and rewritten at once,
// keeping its modification time. As in the reference, a missing or invalid
// file is replaced by a fresh session written at exactly that path; callers
// that must not overwrite a user's file check it with Probe first.
func Open(opt Options, path, sessionDir string) (*Manager, error) {
	return OpenIn(opt, path, sessionDir, "")
}

// OpenIn is Open for a manager whose working directory is cwd rather than the
// session header's, as --continue does (the reference's continueRecent): the
// breadcrumb then names cwd. An empty cwd means the header's.
func OpenIn(opt Options, path, sessionDir, cwd string) (*Manager, error) {
	opt.fill()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if sessionDir == "" {
		sessionDir = filepath.Dir(abs)
	}
	m := newManager(opt, cwd, sessionDir, true)
	if err := m.SetSessionFile(abs); err != nil {
		return m, err
	}
	return m, nil
}

// now returns the manager's clock reading.
func (m *Manager) now() time.Time { return m.opt.Clock() }

func (m *Manager) resetState() {
	m.entries = nil
	m.byID = map[string]*Entry{}
	m.labels = map[string]string{}
	m.leaf = ""
	m.hasAsst = false
}

// newSession builds a fresh header (file deferred) and tells the breadcrumb hook.
func (m *Manager) newSession(parentSession []byte) {
	m.closeWriter()
	m.persistErr = nil
	now := m.now()
	id := m.opt.IDs.Snowflake(now)
	ts := ISOTime(now)
	m.header = newEntry(
		Field{Key: "type", Val: str(TypeSession)},
		Field{Key: "version", Val: []byte("3")},
		Field{Key: "id", Val: str(id)},
		Field{Key: "timestamp", Val: str(ts)},
		Field{Key: "cwd", Val: str(m.cwd)},
		Field{Key: "parentSession", Val: parentSession},
	)
	m.resetState()
	m.name = ""
	m.flushed, m.ensuredOnDisk, m.needsRewrite = false, false, false
	if m.persist {
		m.file = filepath.Join(m.sessionDir, FileName(ts, id))
		m.notifyFile()
	} else {
		m.file = ""
	}
}

func (m *Manager) notifyFile() {
	if m.opt.OnSessionFile != nil && m.persist && m.file != "" {
		m.opt.OnSessionFile(m.cwd, m.file)
	}
}

// NewSession starts a new session in the same directory (/new). parentSession
// is raw JSON (nil: none). It returns the new file path ("" in memory).
func (m *Manager) NewSession(parentSession json.RawMessage) string {
	ps, _ := canon(parentSession)
	m.newSession(ps)
	return m.file
}

// SetSessionFile switches the manager to the file at path: load, migrate (with
// an immediate atomic rewrite that keeps the mtime), resolve blobs. The
// manager keeps its working directory (a fresh Open takes the header's). A missing or
// invalid file gets a fresh header written at exactly that path.
func (m *Manager) SetSessionFile(path string) error {
	m.closeWriter()
	m.persistErr = nil
	abs, _ := filepath.Abs(path)
	m.file = abs
	entries, err := LoadEntries(m.st, abs)
	if err != nil {
		if !IsNotExist(err) && !errors.Is(err, ErrNotSession) {
			return err
		}
		if m.cwd == "" {
			m.cwd, _ = filepath.Abs(".")
		}
		file := abs
		m.newSession(nil)
		m.file = file
		m.notifyFile()
		if err := m.rewrite(); err != nil {
			m.latch(err)
			return err
		}
		m.ensuredOnDisk = true
		return nil
	}
	var mtime time.Time
	if fi, err := m.st.Stat(abs); err == nil {
		mtime = fi.ModTime()
	}
	taken := map[string]bool{}
	migrated := Migrate(entries, func() string {
		id := m.opt.IDs.EntryID(func(s string) bool { return taken[s] }, m.now())
		taken[id] = true
		return id
	})
	m.header = entries[0]
	m.name = m.header.GetString("title")
	if m.cwd == "" {
		// opened by path: the session's own directory
		m.cwd = m.header.GetString("cwd")
	}
	if m.cwd == "" {
		m.cwd, _ = filepath.Abs(".")
	}
	m.notifyFile()
	m.loadEntries(entries[1:])
	m.flushed, m.ensuredOnDisk, m.needsRewrite = true, true, false
	if migrated {
		if err := m.rewrite(); err != nil {
			m.latch(err)
			return err
		}
		if !mtime.IsZero() {
			_ = m.st.Chtimes(abs, mtime)
		}
	}
	return nil
}

// loadEntries installs loaded entries: blobs resolved, replay metadata
// sanitised, index and labels rebuilt, leaf at the last entry.
func (m *Manager) loadEntries(entries []*Entry) {
	for _, e := range entries {
		resolveBlobs(e, m.blobs)
	}
	if sanitizeReplayMetadata(entries) {
		m.needsRewrite = true
	}
	m.resetState()
	m.entries = entries
	m.byID = make(map[string]*Entry, len(entries))
	for i, e := range entries {
		e.seq = int32(i)
		m.index(e)
	}
	if n := len(entries); n > 0 {
		m.leaf = entries[n-1].ID
	}
}

func (m *Manager) index(e *Entry) {
	if e.ID != "" {
		m.byID[e.ID] = e
	}
	switch e.Type {
	case TypeLabel:
		target := e.GetString("targetId")
		if l := e.GetString("label"); l != "" {
			m.labels[target] = l
		} else {
			delete(m.labels, target)
		}
	case TypeMessage:
		if !m.hasAsst && string(canonMember(e.Get("message"), "role")) == `"assistant"` {
			m.hasAsst = true
		}
	}
}

// append adds a new entry under the leaf and persists it. The in-memory
// append always happens; a persistence error is returned (and latched).
func (m *Manager) append(typ string, tail ...Field) (string, error) {
	now := m.now()
	id := m.opt.IDs.EntryID(func(s string) bool { _, ok := m.byID[s]; return ok }, now)
	parent := rawNull
	if m.leaf != "" {
		parent = str(m.leaf)
	}
	fields := append([]Field{
		{Key: "type", Val: str(typ)},
		{Key: "id", Val: str(id)},
		{Key: "parentId", Val: parent},
		{Key: "timestamp", Val: str(ISOTime(now))},
	}, tail...)
	if typ == TypeCustom || typ == TypeCustomMessage {
		// custom entries carry their ids last
		fields = append(append([]Field{fields[0]}, tail...), fields[1:4]...)
	}
	e := newEntry(fields...)
	e.seq = int32(len(m.entries))
	m.entries = append(m.entries, e)
	m.index(e)
	m.leaf = id
	return id, m.persistEntry(e)
}

func canonFields(fs ...Field) ([]Field, error) {
	for i := range fs {
		c, err := canon(fs[i].Val)
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", fs[i].Key, err)
		}
		fs[i].Val = c
	}
	return fs, nil
}

func (m *Manager) appendRaw(typ string, fs ...Field) (string, error) {
	fs, err := canonFields(fs...)
	if err != nil {
		return "", fmt.Errorf("append %s: %w", typ, err)
	}
	return m.append(typ, fs...)
}

// AppendMessage appends a message entry; msg is the raw AgentMessage.
func (m *Manager) AppendMessage(msg json.RawMessage) (string, error) {
	return m.appendRaw(TypeMessage, Field{Key: "message", Val: msg})
}

// AppendThinkingLevelChange appends a thinking level (raw string or null).
func (m *Manager) AppendThinkingLevelChange(level json.RawMessage) (string, error) {
	if level == nil {
		level = rawNull
	}
	return m.appendRaw(TypeThinkingLevelChange, Field{Key: "thinkingLevel", Val: level})
}

// AppendModelChange appends a model change ("provider/modelId"), role optional (nil).
func (m *Manager) AppendModelChange(model string, role json.RawMessage) (string, error) {
	return m.appendRaw(TypeModelChange, Field{Key: "model", Val: str(model)}, Field{Key: "role", Val: role})
}

// AppendServiceTierChange appends a service tier (raw value or null).
func (m *Manager) AppendServiceTierChange(tier json.RawMessage) (string, error) {
	if tier == nil {
		tier = rawNull
	}
	return m.appendRaw(TypeServiceTierChange, Field{Key: "serviceTier", Val: tier})
}

// AppendModeChange appends a mode change with optional data.
func (m *Manager) AppendModeChange(mode string, data json.RawMessage) (string, error) {
	return m.appendRaw(TypeModeChange, Field{Key: "mode", Val: str(mode)}, Field{Key: "data", Val: data})
}

// AppendContextChange appends an xcsh context change.
func (m *Manager) AppendContextChange(name, tenant, namespace json.RawMessage) (string, error) {
	return m.appendRaw(TypeContextChange, Field{Key: "contextName", Val: name}, Field{Key: "tenant", Val: tenant}, Field{Key: "namespace", Val: namespace})
}

// AppendSessionInit appends a session_init entry from an object with
// systemPrompt, task, tools and optional outputSchema.
func (m *Manager) AppendSessionInit(init json.RawMessage) (string, error) {
	init, err := canon(init)
	if err != nil {
		return "", fmt.Errorf("append session_init: %w", err)
	}
	return m.append(TypeSessionInit,
		Field{Key: "systemPrompt", Val: member(init, "systemPrompt")},
		Field{Key: "task", Val: member(init, "task")},
		Field{Key: "tools", Val: member(init, "tools")},
		Field{Key: "outputSchema", Val: member(init, "outputSchema")},
	)
}

// Compaction holds the members of a compaction entry; nil raw values are omitted.
type Compaction struct {
	Summary          string
	ShortSummary     json.RawMessage
	FirstKeptEntryID json.RawMessage
	TokensBefore     json.RawMessage
	Details          json.RawMessage
	FromExtension    json.RawMessage
	PreserveData     json.RawMessage
}

// AppendCompaction appends a compaction entry.
func (m *Manager) AppendCompaction(c Compaction) (string, error) {
	return m.appendRaw(TypeCompaction,
		Field{Key: "summary", Val: str(c.Summary)},
		Field{Key: "shortSummary", Val: c.ShortSummary},
		Field{Key: "firstKeptEntryId", Val: c.FirstKeptEntryID},
		Field{Key: "tokensBefore", Val: c.TokensBefore},
		Field{Key: "details", Val: c.Details},
		Field{Key: "fromExtension", Val: c.FromExtension},
		Field{Key: "preserveData", Val: c.PreserveData},
	)
}

// AppendCustomEntry appends extension state that is not part of the context.
func (m *Manager) AppendCustomEntry(customType string, data json.RawMessage) (string, error) {
	return m.appendRaw(TypeCustom, Field{Key: "customType", Val: str(customType)}, Field{Key: "data", Val: data})
}

// AppendCustomMessageEntry appends an extension message that joins the
// context. attribution nil means "agent".
func (m *Manager) AppendCustomMessageEntry(customType string, content json.RawMessage, display bool, details, attribution json.RawMessage) (string, error) {
	if attribution == nil {
		attribution = str("agent")
	}
	return m.appendRaw(TypeCustomMessage,
		Field{Key: "customType", Val: str(customType)},
		Field{Key: "content", Val: content},
		Field{Key: "display", Val: boolRaw(display)},
		Field{Key: "details", Val: details},
		Field{Key: "attribution", Val: attribution},
	)
}

// AppendMCPToolSelection appends the selected MCP tool names (raw array).
func (m *Manager) AppendMCPToolSelection(names json.RawMessage) (string, error) {
	return m.appendRaw(TypeMCPToolSelection, Field{Key: "selectedToolNames", Val: names})
}

// AppendTTSRInjection appends injected rule names (raw array).
func (m *Manager) AppendTTSRInjection(rules json.RawMessage) (string, error) {
	return m.appendRaw(TypeTTSRInjection, Field{Key: "injectedRules", Val: rules})
}

// AppendLabelChange sets (or, with nil or "", clears) the label of targetID.
func (m *Manager) AppendLabelChange(targetID string, label json.RawMessage) (string, error) {
	if _, ok := m.byID[targetID]; !ok {
		return "", entryNotFound(targetID)
	}
	return m.appendRaw(TypeLabel, Field{Key: "targetId", Val: str(targetID)}, Field{Key: "label", Val: label})
}

// Branch moves the leaf to id; the next append becomes its child.
func (m *Manager) Branch(id string) error {
	if _, ok := m.byID[id]; !ok {
		return entryNotFound(id)
	}
	m.leaf = id
	return nil
}

// ResetLeaf sets the leaf to null: the next append starts a new root.
func (m *Manager) ResetLeaf() { m.leaf = "" }

// BranchWithSummary moves the leaf to fromID ("" for the root) and appends a
// branch_summary there.
func (m *Manager) BranchWithSummary(fromID string, summary string, details, fromExtension json.RawMessage) (string, error) {
	if fromID != "" {
		if _, ok := m.byID[fromID]; !ok {
			return "", entryNotFound(fromID)
		}
	}
	m.leaf = fromID
	from := fromID
	if from == "" {
		from = "root"
	}
	return m.appendRaw(TypeBranchSummary,
		Field{Key: "fromId", Val: str(from)},
		Field{Key: "summary", Val: str(summary)},
		Field{Key: "details", Val: details},
		Field{Key: "fromExtension", Val: fromExtension},
	)
}

// SessionID returns the header id.
func (m *Manager) SessionID() string { return m.header.GetString("id") }

// SessionFile returns the session file path ("" in memory).
func (m *Manager) SessionFile() string { return m.file }

// SessionDir returns the directory new session files go to.
func (m *Manager) SessionDir() string { return m.sessionDir }

// Cwd returns the session's working directory.
func (m *Manager) Cwd() string { return m.cwd }

// IsPersisted reports whether the session is written to disk.
func (m *Manager) IsPersisted() bool { return m.persist }

// Header returns the header entry.
func (m *Manager) Header() *Entry { return m.header }

// Entries returns the entries in file order (header excluded). Do not modify.
func (m *Manager) Entries() []*Entry { return m.entries }

// Entry returns the entry with the given id, or nil.
func (m *Manager) Entry(id string) *Entry { return m.byID[id] }

// LeafID returns the leaf id; ok is false when the leaf is null.
func (m *Manager) LeafID() (id string, ok bool) { return m.leaf, m.leaf != "" }

// Label returns the label of an entry, or "".
func (m *Manager) Label(id string) string { return m.labels[id] }

// SessionName returns the session's name (its title), or "".
func (m *Manager) SessionName() string { return m.name }

// BuildContext returns the context at the current leaf.
func (m *Manager) BuildContext() *Context {
	if m.leaf == "" {
		if len(m.entries) == 0 {
			return emptyContext()
		}
		// a null leaf after resetLeaf: the reference passes null, the empty context
		return BuildContext(m.entries, m.byID, Leaf{None: true})
	}
	return BuildContext(m.entries, m.byID, Leaf{ID: m.leaf})
}

// Branch returns the entries from the root to id (the leaf when id is "").
func (m *Manager) BranchPath(id string) []*Entry {
	if id == "" {
		id = m.leaf
	}
	e := m.byID[id]
	if e == nil {
		return nil
	}
	return pathIn(m.entries, m.byID, e)
}

// TreeNode is one node of the session tree.
type TreeNode struct {
	Entry    *Entry
	Label    string
	Children []*TreeNode
}

// Tree returns the entries as a forest: entries whose parent is null, itself
// or unknown are roots; children are ordered by timestamp.
func (m *Manager) Tree() []*TreeNode {
	nodes := make(map[*Entry]*TreeNode, len(m.entries))
	for _, e := range m.entries {
		nodes[e] = &TreeNode{Entry: e, Label: m.labels[e.ID]}
	}
	var roots []*TreeNode
	for _, e := range m.entries {
		n := nodes[e]
		p := m.byID[e.ParentID]
		if e.ParentID == "" || p == nil || p == e {
			roots = append(roots, n)
			continue
		}
		pn := nodes[p]
		pn.Children = append(pn.Children, n)
	}
	var sortKids func(ns []*TreeNode)
	sortKids = func(ns []*TreeNode) {
		for _, n := range ns {
			stableSortByTimestamp(n.Children)
			sortKids(n.Children)
		}
	}
	sortKids(roots)
	return roots
}

func stableSortByTimestamp(ns []*TreeNode) {
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && tsLess(ns[j].Entry.Timestamp, ns[j-1].Entry.Timestamp); j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
}

func tsLess(a, b string) bool {
	am, _ := parseISOms(a)
	bm, _ := parseISOms(b)
	return am < bm
}

// Usage sums the usage of every assistant message in the session.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, PremiumRequests float64
	Cost                                                  float64
}

// MarshalJSON writes the reference's field names.
func (u Usage) MarshalJSON() ([]byte, error) {
	return encodeFields([]Field{
		{Key: "input", Val: num(u.Input)},
		{Key: "output", Val: num(u.Output)},
		{Key: "cacheRead", Val: num(u.CacheRead)},
		{Key: "cacheWrite", Val: num(u.CacheWrite)},
		{Key: "premiumRequests", Val: num(u.PremiumRequests)},
		{Key: "cost", Val: num(u.Cost)},
	}), nil
}

// UsageStatistics totals token usage and cost over all assistant messages
// and the subagent usage that tool results carry in details.usage.
func (m *Manager) UsageStatistics() Usage {
	var u Usage
	f := func(raw []byte) float64 {
		var v float64
		if len(raw) > 0 && json.Unmarshal(raw, &v) == nil {
			return v
		}
		return 0
	}
	for _, e := range m.entries {
		if e.Type != TypeMessage {
			continue
		}
		msg := e.Get("message")
		var us []byte
		switch rawString(member(msg, "role")) {
		case "assistant":
			us = member(msg, "usage")
		case "toolResult":
			// a subagent's usage, reported by the task tool
			us = memberPath(msg, "details", "usage")
		}
		if us == nil {
			continue
		}
		u.Input += f(member(us, "input"))
		u.Output += f(member(us, "output"))
		u.CacheRead += f(member(us, "cacheRead"))
		u.CacheWrite += f(member(us, "cacheWrite"))
		u.PremiumRequests += f(member(us, "premiumRequests"))
		u.Cost += f(memberPath(us, "cost", "total"))
	}
	return u
}

// InjectedTTSRRules returns the injected rules on the current branch.
func (m *Manager) InjectedTTSRRules() []string {
	return BuildContext(m.entries, m.byID, Leaf{ID: m.leaf, None: m.leaf == "" && len(m.entries) > 0}).InjectedTTSRRules
}

// titleSanitizer turns C0 and C1 controls into spaces.
func sanitizeTitle(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			r = ' '
		}
		if r == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// Title sources.
const (
	TitleAuto = "auto"
	TitleUser = "user"
)

// SetSessionName sets the session title. With source "auto" or "user" the
// name is sanitised (controls to spaces, runs collapsed, trimmed), an "auto"
// title never replaces a "user" one, and titleSource is recorded. With an
// empty source the name is stored as given and no titleSource is written,
// as oh-my-pi does. The file is rewritten at once when it exists. It reports
// whether the title was set.
func (m *Manager) SetSessionName(name, source string) (bool, error) {
	if source != "" {
		if source == TitleAuto && m.header.GetString("titleSource") == TitleUser {
			return false, nil
		}
		name = sanitizeTitle(name)
		if name == "" {
			return false, nil
		}
	}
	m.header.Set("title", str(name))
	m.name = name
	if source != "" {
		m.header.Set("titleSource", str(source))
	}
	if !m.persist || m.file == "" {
		return true, nil
	}
	if _, err := m.st.Stat(m.file); err != nil {
		return true, nil
	}
	if m.persistErr != nil {
		return true, m.persistErr
	}
	if err := m.rewrite(); err != nil {
		return true, m.latch(err)
	}
	return true, nil
}
