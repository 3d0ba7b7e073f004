package session

import (
	"bytes"
	"encoding/json"
)

// Leaf selects the leaf BuildContext starts from.
type Leaf struct {
	// ID is the leaf entry id; empty or unknown means the last entry in file order.
	ID string
	// None asks for the empty context (an explicit null leaf).
	None bool
}

// LeafAt returns the Leaf for an entry id.
func LeafAt(id string) Leaf { return Leaf{ID: id} }

// ModelRole is one member of the context's models map.
type ModelRole struct {
	Role  string
	Model string
}

// Context is what the model sees at a leaf (reference section 4).
type Context struct {
	// Messages are the messages of the path, raw, plus synthesised custom,
	// branchSummary and compactionSummary messages.
	Messages []json.RawMessage
	// ThinkingLevel is the last thinking level on the path ("off" by default).
	ThinkingLevel json.RawMessage
	// ServiceTier is the last service tier on the path; nil when unset.
	ServiceTier json.RawMessage
	// Models maps a role ("default", ...) to "provider/modelId", in insertion order.
	Models []ModelRole
	// ActiveContextName and ActiveContextTenant come from context_change entries.
	ActiveContextName, ActiveContextTenant json.RawMessage
	// InjectedTTSRRules are the distinct injected rule names, first seen first.
	InjectedTTSRRules []string
	// SelectedMCPToolNames is the last MCP tool selection.
	SelectedMCPToolNames json.RawMessage
	// HasPersistedMCPToolSelection reports whether a selection was found.
	HasPersistedMCPToolSelection bool
	// Mode and ModeData come from the last mode_change ("none" by default).
	Mode, ModeData json.RawMessage
}

// Model returns the model of a role, or "".
func (c *Context) Model(role string) string {
	for _, m := range c.Models {
		if m.Role == role {
			return m.Model
		}
	}
	return ""
}

func (c *Context) setModel(role, model string) {
	for i := range c.Models {
		if c.Models[i].Role == role {
			c.Models[i].Model = model
			return
		}
	}
	c.Models = append(c.Models, ModelRole{role, model})
}

// MarshalJSON writes the context with the reference's field names.
func (c *Context) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"messages":[`)
	for i, m := range c.Messages {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteString(`],"thinkingLevel":`)
	b.Write(c.ThinkingLevel)
	if c.ServiceTier != nil {
		b.WriteString(`,"serviceTier":`)
		b.Write(c.ServiceTier)
	}
	b.WriteString(`,"models":{`)
	for i, m := range c.Models {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(str(m.Role))
		b.WriteByte(':')
		b.Write(str(m.Model))
	}
	b.WriteByte('}')
	if c.ActiveContextName != nil {
		b.WriteString(`,"activeContextName":`)
		b.Write(c.ActiveContextName)
	}
	if c.ActiveContextTenant != nil {
		b.WriteString(`,"activeContextTenant":`)
		b.Write(c.ActiveContextTenant)
	}
	b.WriteString(`,"injectedTtsrRules":[`)
	for i, r := range c.InjectedTTSRRules {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(str(r))
	}
	b.WriteString(`],"selectedMCPToolNames":`)
	b.Write(c.SelectedMCPToolNames)
	b.WriteString(`,"hasPersistedMCPToolSelection":`)
	b.Write(boolRaw(c.HasPersistedMCPToolSelection))
	b.WriteString(`,"mode":`)
	b.Write(c.Mode)
	if c.ModeData != nil {
		b.WriteString(`,"modeData":`)
		b.Write(c.ModeData)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func emptyContext() *Context {
	return &Context{
		Messages:             []json.RawMessage{},
		ThinkingLevel:        str("off"),
		SelectedMCPToolNames: []byte("[]"),
		Mode:                 str("none"),
	}
}

// Path returns the entries from the root to leaf, following parentId links. A
// missing parent ends the walk; a cycle is cut where it closes.
func Path(byID map[string]*Entry, leaf *Entry) []*Entry { return pathIn(nil, byID, leaf) }

// pathIn is Path that takes the entries byID indexes, in file order, as a
// hint: an entry's parent is most often the entry just before it, and that
// is checked by position, a string compare, instead of a lookup in a map of
// 100,000 ids. The hint is taken only when no id is used twice, so that an id
// names one entry, the one byID has.
func pathIn(entries []*Entry, byID map[string]*Entry, leaf *Entry) []*Entry {
	if entries != nil && !uniqueIDs(entries, byID) {
		entries = nil
	}
	var rev []*Entry
	if entries != nil {
		rev = make([]*Entry, 0, len(entries))
	}
	seen := 0
	for e := leaf; e != nil; {
		rev = append(rev, e)
		seen++
		if e.ParentID == "" || seen > len(byID)+1 {
			break
		}
		var next *Entry
		if p := int(e.seq); p > 0 && p < len(entries) && entries[p] == e && entries[p-1].ID == e.ParentID {
			next = entries[p-1]
		} else {
			next = byID[e.ParentID]
		}
		if next == e {
			break
		}
		e = next
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// assistantBounds returns the positions of the first and the last assistant
// message in path, -1 when there is none.
func assistantBounds(path []*Entry) (first, last int) {
	isAsst := func(e *Entry) bool {
		return e.Type == TypeMessage && string(canonMember(e.Get("message"), "role")) == `"assistant"`
	}
	first, last = -1, -1
	for i, e := range path {
		if isAsst(e) {
			first = i
			break
		}
	}
	if first < 0 {
		return -1, -1
	}
	for i := len(path) - 1; i >= first; i-- {
		if isAsst(path[i]) {
			return first, i
		}
	}
	return first, first
}

// uniqueIDs reports whether byID indexes exactly the entries with an id,
// each id once.
func uniqueIDs(entries []*Entry, byID map[string]*Entry) bool {
	n := 0
	for _, e := range entries {
		if e.ID != "" {
			n++
		}
	}
	return n == len(byID)
}

// IndexByID maps entry ids to entries; the last entry with an id wins.
func IndexByID(entries []*Entry) map[string]*Entry {
	m := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		if e.ID != "" {
			m[e.ID] = e
		}
	}
	return m
}

// BuildContext rebuilds the model context at leaf from entries (header
// excluded, file order) exactly as the reference's buildSessionContext. byID
// may be nil.
func BuildContext(entries []*Entry, byID map[string]*Entry, leaf Leaf) *Context {
	ctx := emptyContext()
	if leaf.None {
		return ctx
	}
	if byID == nil {
		byID = IndexByID(entries)
	}
	var le *Entry
	if leaf.ID != "" {
		le = byID[leaf.ID]
	}
	if le == nil {
		if len(entries) == 0 {
			return ctx
		}
		le = entries[len(entries)-1]
	}
	path := pathIn(entries, byID, le)

	// The default model comes from the last assistant message unless a
	// default model_change follows it, and takes its place in Models where
	// the first of either is. Only the first and the last assistant messages
	// matter, so only they are looked into: a message's bytes are touched
	// here only while searching for them.
	firstAsst, lastAsst := assistantBounds(path)
	lastDefaultChange := -1
	var comp *Entry
	compIdx := -1
	var rules map[string]bool
	for i, e := range path {
		switch e.Type {
		case TypeThinkingLevelChange:
			v := e.Get("thinkingLevel")
			if v == nil || bytes.Equal(v, rawNull) {
				v = str("off")
			}
			ctx.ThinkingLevel = v
		case TypeModelChange:
			if m := e.Get("model"); truthy(m) {
				role := "default"
				if r := e.Get("role"); r != nil && !bytes.Equal(r, rawNull) {
					role = jsText(r)
				}
				ctx.setModel(role, jsText(m))
				if role == "default" {
					lastDefaultChange = i
				}
			}
		case TypeMessage:
			if i == firstAsst {
				ctx.setModel("default", "") // its place; the value is decided after the pass
			}
		case TypeServiceTierChange:
			v := e.Get("serviceTier")
			if bytes.Equal(v, rawNull) {
				v = nil
			}
			ctx.ServiceTier = v
		case TypeContextChange:
			ctx.ActiveContextName = e.Get("contextName")
			ctx.ActiveContextTenant = e.Get("tenant")
		case TypeCompaction:
			comp, compIdx = e, i
		case TypeTTSRInjection:
			elements(e.Get("injectedRules"), func(v []byte) {
				name := jsText(v)
				if rules == nil {
					rules = map[string]bool{}
				}
				if !rules[name] {
					rules[name] = true
					ctx.InjectedTTSRRules = append(ctx.InjectedTTSRRules, name)
				}
			})
		case TypeMCPToolSelection:
			if v := e.Get("selectedToolNames"); v != nil && v[0] == '[' {
				ctx.SelectedMCPToolNames = v
			} else {
				ctx.SelectedMCPToolNames = []byte("[]")
			}
			ctx.HasPersistedMCPToolSelection = true
		case TypeModeChange:
			ctx.Mode = e.Get("mode")
			ctx.ModeData = e.Get("data")
		}
	}

	if lastAsst >= 0 && lastAsst > lastDefaultChange {
		msg := path[lastAsst].Get("message")
		ctx.setModel("default", jsText(member(msg, "provider"))+"/"+jsText(member(msg, "model")))
	}

	msgs := make([]json.RawMessage, 0, len(path))
	add := func(e *Entry) {
		if m := entryMessage(e); m != nil {
			msgs = append(msgs, m)
		}
	}
	if comp == nil {
		for _, e := range path {
			add(e)
		}
		ctx.Messages = msgs
		return ctx
	}
	payload := remotePayload(comp)
	msgs = append(msgs, compactionSummaryMessage(comp, payload))
	if payload == nil {
		first := comp.GetString("firstKeptEntryId")
		on := false
		for _, e := range path[:compIdx] {
			if !on && first != "" && e.ID == first {
				on = true
			}
			if on {
				add(e)
			}
		}
	}
	for _, e := range path[compIdx+1:] {
		add(e)
	}
	ctx.Messages = msgs
	return ctx
}

// entryMessage returns the message an entry contributes to the context, or nil.
func entryMessage(e *Entry) json.RawMessage {
	switch e.Type {
	case TypeMessage:
		m := e.Get("message")
		if m == nil {
			return rawNull
		}
		return m
	case TypeCustomMessage:
		return encodeFields(fieldList{
			{Key: "role", Val: str("custom")},
			{Key: "customType", Val: e.Get("customType")},
			{Key: "content", Val: e.Get("content")},
			{Key: "display", Val: e.Get("display")},
			{Key: "details", Val: e.Get("details")},
			{Key: "attribution", Val: e.Get("attribution")},
			{Key: "timestamp", Val: msTime(e.Timestamp)},
		}.omitNil())
	case TypeBranchSummary:
		if !truthy(e.Get("summary")) {
			return nil
		}
		return encodeFields(fieldList{
			{Key: "role", Val: str("branchSummary")},
			{Key: "summary", Val: e.Get("summary")},
			{Key: "fromId", Val: e.Get("fromId")},
			{Key: "timestamp", Val: msTime(e.Timestamp)},
		}.omitNil())
	}
	return nil
}

func compactionSummaryMessage(c *Entry, payload []byte) json.RawMessage {
	return encodeFields(fieldList{
		{Key: "role", Val: str("compactionSummary")},
		{Key: "summary", Val: c.Get("summary")},
		{Key: "shortSummary", Val: c.Get("shortSummary")},
		{Key: "tokensBefore", Val: c.Get("tokensBefore")},
		{Key: "providerPayload", Val: payload},
		{Key: "timestamp", Val: msTime(c.Timestamp)},
	}.omitNil())
}

// remotePayload returns the openaiResponsesHistory payload of a compaction, or nil.
func remotePayload(c *Entry) []byte {
	rc := memberPath(c.Get("preserveData"), "openaiRemoteCompaction")
	if len(rc) == 0 || rc[0] != '{' {
		return nil
	}
	prov := member(rc, "provider")
	hist := member(rc, "replacementHistory")
	if rawString(prov) == "" || len(hist) == 0 || hist[0] != '[' {
		return nil
	}
	return encodeFields([]Field{
		{Key: "type", Val: str("openaiResponsesHistory")},
		{Key: "provider", Val: prov},
		{Key: "items", Val: hist},
	})
}

type fieldList []Field

func (fl fieldList) omitNil() []Field {
	out := fl[:0:0]
	for _, f := range fl {
		if f.Val != nil {
			out = append(out, f)
		}
	}
	return out
}

// msTime converts an entry's ISO timestamp to epoch ms as new Date(ts).getTime(); null when invalid.
func msTime(ts string) []byte {
	ms, ok := parseISOms(ts)
	if !ok {
		return rawNull
	}
	return num(float64(ms))
}

// truthy reports JavaScript truthiness of a raw value; nil (undefined) is falsy.
func truthy(v []byte) bool {
	switch string(v) {
	case "", "null", "false", "0", `""`, "-0":
		return false
	}
	if v[0] >= '0' && v[0] <= '9' || v[0] == '-' {
		var f float64
		if json.Unmarshal(v, &f) == nil && f == 0 {
			return false
		}
	}
	return true
}

// jsText converts a raw value to a string as JavaScript's String() would for
// the simple cases: strings as they are, undefined and null by name, other
// values as their JSON text.
func jsText(v []byte) string {
	switch {
	case v == nil:
		return "undefined"
	case v[0] == '"':
		return rawString(v)
	}
	return string(v)
}
