package tmux

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Pane is one row of `list-panes -a`.
type Pane struct {
	ServerPID   int    `json:"serverPid"`   // #{pid}
	SessionID   string `json:"sessionId"`   // "$0"
	SessionName string `json:"sessionName"` // "main"
	WindowID    string `json:"windowId"`    // "@3"
	WindowIndex int    `json:"windowIndex"`
	ID          string `json:"id"` // "%7"
	Index       int    `json:"index"`
	TTY         string `json:"tty"` // "/dev/pts/7"
	PID         int    `json:"pid"` // the pane's session leader
	Command     string `json:"command"`
	Active      bool   `json:"active"`       // the active pane of its window
	WindowOn    bool   `json:"windowActive"` // its window is its session's current window
	Attached    int    `json:"attached"`     // clients attached to its session, control-mode ones too
	Dead        bool   `json:"dead"`
	Cwd         string `json:"cwd"` // pane_current_path; last, so it may hold any character
}

// sep separates the fields of a listing: tmux prints it as it is, and no
// session name, command or path in practice contains it.
const sep = "\x1f"

// paneFormat lists the fields of Pane, in order.
var paneFormat = strings.Join([]string{
	"#{pid}", "#{session_id}", "#{session_name}", "#{window_id}", "#{window_index}",
	"#{pane_id}", "#{pane_index}", "#{pane_tty}", "#{pane_pid}", "#{pane_current_command}",
	"#{pane_active}", "#{window_active}", "#{session_attached}", "#{pane_dead}",
	"#{pane_current_path}",
}, sep)

const paneFields = 15

// parsePane parses one line printed with paneFormat.
func parsePane(line string) (Pane, error) {
	f := strings.SplitN(line, sep, paneFields)
	if len(f) != paneFields {
		return Pane{}, fmt.Errorf("tmux pane line %q: %d fields, want %d", line, len(f), paneFields)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	p := Pane{
		ServerPID: num(f[0]), SessionID: f[1], SessionName: f[2], WindowID: f[3], WindowIndex: num(f[4]),
		ID: f[5], Index: num(f[6]), TTY: f[7], PID: num(f[8]), Command: f[9],
		Active: f[10] == "1", WindowOn: f[11] == "1", Attached: num(f[12]), Dead: f[13] == "1", Cwd: f[14],
	}
	if !strings.HasPrefix(p.ID, "%") {
		return Pane{}, fmt.Errorf("tmux pane line %q: no pane id", line)
	}
	return p, nil
}

func parsePanes(out string) ([]Pane, error) {
	var panes []Pane
	for line := range strings.SplitSeq(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		p, err := parsePane(line)
		if err != nil {
			return nil, err
		}
		panes = append(panes, p)
	}
	return panes, nil
}

// ListPanes lists every pane of the server: one `list-panes -a`.
func (c *Client) ListPanes(ctx context.Context) ([]Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		return nil, err
	}
	return parsePanes(out)
}

// PaneByID returns one pane. `display -p -t %dead` succeeds with empty
// output (terminal-facts.md 1.4), so the pane is listed instead.
func (c *Client) PaneByID(ctx context.Context, id string) (Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-t", id, "-F", paneFormat, "-f", "#{==:#{pane_id},"+id+"}")
	if err != nil {
		return Pane{}, err
	}
	ps, err := parsePanes(out)
	if err != nil {
		return Pane{}, err
	}
	if len(ps) != 1 {
		return Pane{}, &Error{Server: c.srv, Args: []string{"list-panes", "-t", id}, Msg: "can't find pane: " + id, Err: ErrNotFound}
	}
	return ps[0], nil
}

// Alive reports whether pane id exists.
func (c *Client) Alive(ctx context.Context, id string) (bool, error) {
	_, err := c.Run(ctx, "has-session", "-t", id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ClientInfo is one row of `list-clients`.
type ClientInfo struct {
	Name        string `json:"name"` // "/dev/pts/4"
	TTY         string `json:"tty"`
	PID         int    `json:"pid"`
	Control     bool   `json:"control"`  // a control-mode client
	Activity    int64  `json:"activity"` // time of its last activity (epoch seconds)
	SessionID   string `json:"sessionId"`
	SessionName string `json:"sessionName"`
	PaneID      string `json:"paneId"` // the pane it shows
}

var clientFormat = strings.Join([]string{
	"#{client_pid}", "#{client_control_mode}", "#{client_activity}", "#{session_id}",
	"#{pane_id}", "#{client_tty}", "#{session_name}", "#{client_name}",
}, sep)

// Clients lists the clients attached to the server.
func (c *Client) Clients(ctx context.Context) ([]ClientInfo, error) {
	out, err := c.Run(ctx, "list-clients", "-F", clientFormat)
	if err != nil {
		return nil, err
	}
	var cs []ClientInfo
	for line := range strings.SplitSeq(strings.TrimRight(out, "\n"), "\n") {
		f := strings.SplitN(line, sep, 8)
		if len(f) != 8 {
			continue
		}
		pid, _ := strconv.Atoi(f[0])
		act, _ := strconv.ParseInt(f[2], 10, 64)
		cs = append(cs, ClientInfo{
			PID: pid, Control: f[1] == "1", Activity: act, SessionID: f[3],
			PaneID: f[4], TTY: f[5], SessionName: f[6], Name: f[7],
		})
	}
	return cs, nil
}

// PickClient chooses the user's client to focus with: never a control-mode
// client (switch-client without -c moved the supervisor's own control client,
// terminal-facts.md 1.3). A client showing session (when not "") wins; then
// the most recently active.
func PickClient(clients []ClientInfo, session string) (ClientInfo, bool) {
	var human []ClientInfo
	for _, cl := range clients {
		if !cl.Control {
			human = append(human, cl)
		}
	}
	if len(human) == 0 {
		return ClientInfo{}, false
	}
	sort.SliceStable(human, func(i, j int) bool {
		ai, aj := session != "" && human[i].SessionID == session, session != "" && human[j].SessionID == session
		if ai != aj {
			return ai
		}
		return human[i].Activity > human[j].Activity
	})
	return human[0], true
}
