package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/xcsh-dev/xcsh/agent"
)

// Snapshot is everything the engine knows at one moment. It is a value:
// subscribers may keep it.
type Snapshot struct {
	// Seq increases with every published change.
	Seq uint64 `json:"seq"`
	// At is when the snapshot was taken.
	At time.Time `json:"at"`
	// Server names the multiplexer server ("" without one).
	Server string `json:"server,omitempty"`
	// Writer is the pid of the engine that wrote it (for the file on disk).
	Writer int `json:"writer"`
	// Panes, in server, session, window and pane order.
	Panes []Pane `json:"panes"`
	// Agents are the running agents, in a pane or not.
	Agents []Agent `json:"agents"`
	// Counts are the agents per state ("waiting", "busy", ...).
	Counts map[string]int `json:"counts"`
	// Err is the last error talking to the multiplexer ("" when fine).
	Err string `json:"err,omitempty"`
}

// Pane is a multiplexer pane with what runs in it.
type Pane struct {
	MuxPane
	// Key and Token are the pane's terminal: its breadcrumb key and
	// generation token, from its tty and its session leader.
	Key   string `json:"key"`
	Token string `json:"token"`
	// Foreground is "shell" (at its prompt), "agent", "program" or "".
	Foreground string `json:"foreground"`
	// ForegroundCommand is the foreground process's name.
	ForegroundCommand string `json:"foregroundCommand,omitempty"`
	// Agent is the pid of the agent in the pane, 0 for none.
	Agent int `json:"agent,omitempty"`
	// Session is the session the pane's breadcrumb names (its agent's
	// session while one runs); nil when none.
	Session *SessionRef `json:"session,omitempty"`
	// Hosts is the tmux session this pane shows when a tmux client runs in
	// it (tmux in a kitty window): the pane is that session's terminal, and
	// the session's own panes are listed under their server. Set only when
	// the engine watches that tmux server too.
	Hosts *Hosted `json:"hosts,omitempty"`
}

// Agent is one running agent, from its live file.
type Agent struct {
	PID         int       `json:"pid"`
	State       string    `json:"state"`
	Since       time.Time `json:"since"`
	UpdatedAt   time.Time `json:"updatedAt"`
	Cwd         string    `json:"cwd"`
	SessionFile string    `json:"sessionFile,omitempty"`
	SessionID   string    `json:"sessionId,omitempty"`
	Title       string    `json:"title,omitempty"`
	Model       string    `json:"model,omitempty"`
	TerminalKey string    `json:"terminalKey,omitempty"`
	// Pane is the pane it runs in ("" when none of this server's).
	Pane string `json:"pane,omitempty"`
}

// SessionRef names a session and what is known of it.
type SessionRef struct {
	Path  string `json:"path"`
	ID    string `json:"id,omitempty"`
	Title string `json:"title,omitempty"`
	Cwd   string `json:"cwd,omitempty"`
	// Exists is false for a session that has no file yet (new, no reply).
	Exists bool `json:"exists"`
}

// StateOrder is the order states are counted and shown in: what needs the
// user first.
var StateOrder = []string{agent.StateWaiting, agent.StateBusy, agent.StateIdle, agent.StateStarting}

// CountLine is "2 waiting · 3 busy": the non-zero counts in StateOrder;
// "no agents" when there are none.
func (s Snapshot) CountLine() string {
	var parts []string
	for _, st := range StateOrder {
		if n := s.Counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(parts) == 0 {
		return "no agents"
	}
	return strings.Join(parts, " · ")
}

// PaneByID returns the pane with id.
func (s Snapshot) PaneByID(id string) (Pane, bool) {
	for _, p := range s.Panes {
		if p.ID == id {
			return p, true
		}
	}
	return Pane{}, false
}

// same reports whether two snapshots say the same, apart from Seq and At.
func (s Snapshot) same(o Snapshot) bool {
	a, b := s, o
	a.Seq, b.Seq, a.At, b.At = 0, 0, time.Time{}, time.Time{}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func sortPanes(ps []Pane) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		if a.MuxSession != b.MuxSession {
			return idLess(a.MuxSession, b.MuxSession)
		}
		if a.WindowIndex != b.WindowIndex {
			return a.WindowIndex < b.WindowIndex
		}
		return idLess(a.ID, b.ID)
	})
}

// idLess orders tmux ids ("%2" < "%10") numerically.
func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// SnapshotDir is where engines keep their snapshot files, in the agent dir.
func SnapshotDir(agentDir string) string { return filepath.Join(agentDir, "supervisor") }

// snapshotFileName names the snapshot file of a server.
func snapshotFileName(server string) string {
	if server == "" {
		server = "files"
	}
	var b strings.Builder
	for _, r := range server {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String() + ".json"
}

// ErrNoSnapshot: no engine keeps a snapshot file, or none of them runs.
var ErrNoSnapshot = errors.New("no supervisor is running (start one with `xcsh supervise`)")

// ReadSnapshot reads the newest snapshot file in dir whose engine still
// runs; server, when not "", picks that server's file.
func ReadSnapshot(dir, server string) (Snapshot, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Snapshot{}, ErrNoSnapshot
	}
	if err != nil {
		return Snapshot{}, err
	}
	var best Snapshot
	found := false
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		if server != "" && name != snapshotFileName(server) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var s Snapshot
		if json.Unmarshal(data, &s) != nil || !running(s.Writer, 0) {
			continue
		}
		if !found || s.At.After(best.At) {
			best, found = s, true
		}
	}
	if !found {
		return Snapshot{}, ErrNoSnapshot
	}
	return best, nil
}
