package ui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
)

// dashView is what the list shows.
type dashView int

const (
	viewLive dashView = iota // the panes and running agents
	viewAll                  // every session, running or not
)

// groupMode is how rows are grouped.
type groupMode int

const (
	groupWindow  groupMode = iota // tmux session and window (all sessions: none)
	groupProject                  // working directory
)

// sortMode orders the rows (and the groups, by their first row).
type sortMode int

const (
	sortState    sortMode = iota // waiting, busy, starting, idle, then the rest
	sortActivity                 // most recent activity first
	sortName                     // title
)

func (s sortMode) String() string {
	switch s {
	case sortActivity:
		return "activity"
	case sortName:
		return "name"
	}
	return "state"
}

// dashRow is one row of the list: a pane, an agent outside any pane, or a
// session.
type dashRow struct {
	key   string // "pane:%3", "agent:<pid>", "session:<path>": keeps the selection
	group string // header it is shown under ("" for none)

	pane  *supervisor.Pane  // nil unless a pane
	agent *supervisor.Agent // the running agent, if any
	info  *session.SessionInfo

	sessionPath string // the session the row names ("" for none)
	livePane    string // viewAll: the pane the session's agent runs in
	cwd         string

	title    string // title, else the first prompt
	activity time.Time
	rank     int // state order: waiting first

	short string // lower-cased title, first prompt, cwd, pane id: fuzzy-matched
}

// stateRank orders states: what needs the user first.
func stateRank(st string) int {
	for i, s := range supervisor.StateOrder {
		if s == st {
			return i
		}
	}
	return len(supervisor.StateOrder)
}

// text is the message text a query word may match as a substring.
func (r *dashRow) text() string {
	if r.info == nil {
		return ""
	}
	return r.info.AllMessagesText
}

// liveRows are the rows of the live view: every pane in the snapshot's
// order, then the agents that run in no pane of the server.
func liveRows(s supervisor.Snapshot, infos map[string]session.SessionInfo, group groupMode, home string) []dashRow {
	agents := make(map[int]*supervisor.Agent, len(s.Agents))
	for i := range s.Agents {
		agents[s.Agents[i].PID] = &s.Agents[i]
	}
	rows := make([]dashRow, 0, len(s.Panes)+len(s.Agents))
	for i := range s.Panes {
		p := &s.Panes[i]
		r := dashRow{key: "pane:" + p.ID, pane: p, cwd: p.Cwd, rank: stateRank("")}
		if a := agents[p.Agent]; p.Agent != 0 && a != nil {
			r.agent = a
		}
		if p.Session != nil {
			r.sessionPath = p.Session.Path
			r.title = p.Session.Title
			if p.Session.Cwd != "" {
				r.cwd = p.Session.Cwd
			}
		}
		fillRow(&r, infos)
		switch group {
		case groupProject:
			r.group = shortPath(r.cwd, home)
		default:
			r.group = p.MuxSessionName + ":" + fmt.Sprint(p.WindowIndex)
		}
		rows = append(rows, r)
	}
	for i := range s.Agents {
		a := &s.Agents[i]
		if a.Pane != "" {
			continue
		}
		r := dashRow{key: fmt.Sprintf("agent:%d", a.PID), agent: a, sessionPath: a.SessionFile, cwd: a.Cwd}
		fillRow(&r, infos)
		r.group = "other terminals"
		if group == groupProject {
			r.group = shortPath(r.cwd, home)
		}
		rows = append(rows, r)
	}
	for i := range rows {
		rows[i].short = rowShort(&rows[i])
	}
	return rows
}

// fillRow takes what the agent and the session index know.
func fillRow(r *dashRow, infos map[string]session.SessionInfo) {
	if r.agent != nil {
		r.rank = stateRank(r.agent.State)
		r.activity = r.agent.UpdatedAt
		if r.agent.SessionFile != "" {
			r.sessionPath = r.agent.SessionFile
		}
		if r.agent.Title != "" {
			r.title = r.agent.Title
		}
		if r.agent.Cwd != "" {
			r.cwd = r.agent.Cwd
		}
	} else {
		r.rank = stateRank("")
	}
	if info, ok := infos[r.sessionPath]; ok && r.sessionPath != "" {
		r.info = &info
		if r.title == "" && info.Title != nil {
			r.title = *info.Title
		}
		if r.title == "" && info.FirstMessage != "(no messages)" {
			r.title = info.FirstMessage
		}
		if info.Modified.After(r.activity) {
			r.activity = info.Modified
		}
		if r.cwd == "" {
			r.cwd = info.Cwd
		}
	}
	r.title = session.SanitizeName(r.title)
}

// allRows are the rows of the all-sessions view; live maps a session file to
// the agent writing it.
func allRows(all []session.SessionInfo, s supervisor.Snapshot, group groupMode, home string, cache map[string]shortCached) []dashRow {
	live := make(map[string]*supervisor.Agent, len(s.Agents))
	for i := range s.Agents {
		if f := s.Agents[i].SessionFile; f != "" {
			live[filepath.Clean(f)] = &s.Agents[i]
			live[f] = &s.Agents[i]
		}
	}
	rows := make([]dashRow, len(all))
	for i := range all {
		info := &all[i]
		r := &rows[i]
		// A path is a key no pane or agent key can be ("pane:", "agent:").
		*r = dashRow{key: info.Path, info: info, sessionPath: info.Path, cwd: info.Cwd,
			activity: info.Modified, rank: stateRank("")}
		if len(live) > 0 {
			if a := live[info.Path]; a != nil {
				r.agent, r.livePane, r.rank = a, a.Pane, stateRank(a.State)
				if a.UpdatedAt.After(r.activity) {
					r.activity = a.UpdatedAt
				}
			}
		}
		if group == groupProject {
			r.group = shortPath(r.cwd, home)
		}
		// Title and match text are kept per file version: with thousands
		// of sessions a snapshot must not work them out again.
		if c, ok := cache[info.Path]; ok && c.mod.Equal(info.Modified) && c.live == (r.agent != nil) {
			r.title, r.short = c.title, c.short
			continue
		}
		if info.Title != nil {
			r.title = *info.Title
		}
		if r.title == "" && info.FirstMessage != "(no messages)" {
			r.title = info.FirstMessage
		}
		r.title = session.SanitizeName(r.title)
		r.short = rowShort(r)
		cache[info.Path] = shortCached{mod: info.Modified, live: r.agent != nil, title: r.title, short: r.short}
	}
	return rows
}

// shortCached is the title and match text of a session file as it was.
type shortCached struct {
	mod          time.Time
	live         bool // the text names the agent's model
	title, short string
}

func rowShort(r *dashRow) string {
	var b strings.Builder
	b.WriteString(r.title)
	b.WriteByte(0)
	if r.info != nil {
		b.WriteString(r.info.FirstMessage)
		b.WriteByte(0)
		b.WriteString(r.info.ID)
		b.WriteByte(0)
	}
	b.WriteString(r.cwd)
	if r.pane != nil {
		b.WriteByte(0)
		b.WriteString(r.pane.ID)
		b.WriteByte(0)
		b.WriteString(r.pane.MuxSessionName)
	}
	if r.agent != nil {
		b.WriteByte(0)
		b.WriteString(r.agent.Model)
	}
	return strings.ToLower(b.String())
}

// sortRows orders rows by mode, then groups them: a group comes where its
// first row falls, and keeps its rows together in their order.
func sortRows(rows []dashRow, mode sortMode) {
	less := func(a, b *dashRow) int {
		switch mode {
		case sortActivity:
			if c := b.activity.Compare(a.activity); c != 0 {
				return c
			}
		case sortName:
			if c := strings.Compare(strings.ToLower(a.title), strings.ToLower(b.title)); c != 0 {
				if a.title == "" || b.title == "" {
					// Untitled rows go last.
					return strings.Compare(b.title, a.title)
				}
				return c
			}
		default:
			if a.rank != b.rank {
				return a.rank - b.rank
			}
			// Among the waiting, the one waiting longest first.
			if a.rank == 0 && a.agent != nil && b.agent != nil {
				if c := a.agent.Since.Compare(b.agent.Since); c != 0 {
					return c
				}
			}
		}
		return 0
	}
	sort.SliceStable(rows, func(i, j int) bool { return less(&rows[i], &rows[j]) < 0 })
	order := map[string]int{}
	for _, r := range rows {
		if _, ok := order[r.group]; !ok {
			order[r.group] = len(order)
		}
	}
	if len(order) > 1 {
		sort.SliceStable(rows, func(i, j int) bool { return order[rows[i].group] < order[rows[j].group] })
	}
}

// matchRow reports whether every query word matches: fuzzily in the title,
// first prompt, directory or pane, or as a substring of the message text.
func matchRow(r *dashRow, words []string) bool {
	for _, w := range words {
		if _, ok := fuzzyScore(r.short, w); ok {
			continue
		}
		if !containsFold(r.text(), w) {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains the lower-case word w, ignoring
// ASCII case, without lower-casing s (message text can be large).
func containsFold(s, w string) bool {
	if w == "" {
		return true
	}
	if len(w) > len(s) {
		return false
	}
	c0 := w[0]
	if c0 >= 0x80 {
		return strings.Contains(strings.ToLower(s), w)
	}
	up := c0
	if c0 >= 'a' && c0 <= 'z' {
		up = c0 - 'a' + 'A'
	}
	for i := 0; i+len(w) <= len(s); {
		j := strings.IndexByte(s[i:], c0)
		if up != c0 {
			if k := strings.IndexByte(s[i:], up); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 || i+j+len(w) > len(s) {
			return false
		}
		if strings.EqualFold(s[i+j:i+j+len(w)], w) {
			return true
		}
		i += j + 1
	}
	return false
}

// shortPath shortens a path under home to ~.
func shortPath(p, home string) string {
	if p == "" {
		return ""
	}
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if rel == "." {
				return "~"
			}
			return filepath.Join("~", rel)
		}
	}
	return p
}

// shortAge is a compact duration: 12s, 3m, 2h, 4d.
func shortAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// stateCell is the state column of a row: the agent's state with its age
// (busy 12s, waiting 3m, idle), else what the pane runs.
func stateCell(r *dashRow, now time.Time) string {
	if r.agent != nil {
		switch st := r.agent.State; st {
		case agent.StateBusy, agent.StateWaiting, agent.StateStarting:
			return st + " " + shortAge(now.Sub(r.agent.Since))
		case "":
			return "running"
		default:
			return st
		}
	}
	if r.pane != nil {
		switch r.pane.Foreground {
		case supervisor.FgShell:
			return "shell"
		case supervisor.FgProgram, supervisor.FgAgent:
			if r.pane.ForegroundCommand != "" {
				return r.pane.ForegroundCommand
			}
			return "program"
		}
		if r.pane.Command != "" {
			return r.pane.Command
		}
		return "?"
	}
	return ""
}
