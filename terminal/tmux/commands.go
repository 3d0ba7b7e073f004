package tmux

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Where a Spawn puts the new pane.
const (
	KindSplit   = "split"   // beside Target's pane
	KindWindow  = "window"  // a new window in Target's session
	KindSession = "session" // a new session
)

// Spawn describes a new pane.
type Spawn struct {
	// Kind is KindSplit, KindWindow or KindSession.
	Kind string
	// Target is the pane a split divides, or the session (or a pane in it)
	// a window is added to; "" lets tmux choose, which outside tmux is the
	// most recently used session.
	Target string
	// Horizontal splits side by side (tmux -h); otherwise one above the other.
	Horizontal bool
	// Name names the new session or window.
	Name string
	// Cwd is the new pane's working directory.
	Cwd string
	// Env is set in the new pane ("NAME=value" each).
	Env []string
	// Command is run by the default shell (`$SHELL -c`); "" starts the
	// default shell itself.
	Command string
	// Focus makes the new pane current; by default focus stays where it is.
	Focus bool
}

// SpawnArgs builds the tmux command line of s.
func SpawnArgs(s Spawn) ([]string, error) {
	var args []string
	switch s.Kind {
	case KindSplit, "":
		args = []string{"split-window"}
		if s.Horizontal {
			args = append(args, "-h")
		} else {
			args = append(args, "-v")
		}
	case KindWindow:
		args = []string{"new-window"}
		if s.Name != "" {
			args = append(args, "-n", s.Name)
		}
	case KindSession:
		args = []string{"new-session"}
		if s.Name != "" {
			args = append(args, "-s", s.Name)
		}
	default:
		return nil, fmt.Errorf("tmux spawn: unknown kind %q (split, window or session)", s.Kind)
	}
	if !s.Focus || s.Kind == KindSession {
		// A new session is always detached: attaching would take over the
		// caller's terminal.
		args = append(args, "-d")
	}
	if s.Target != "" && s.Kind != KindSession {
		args = append(args, "-t", s.Target)
	}
	if s.Cwd != "" {
		args = append(args, "-c", s.Cwd)
	}
	for _, kv := range s.Env {
		if !strings.Contains(kv, "=") {
			return nil, fmt.Errorf("tmux spawn: environment entry %q has no '='", kv)
		}
		args = append(args, "-e", kv)
	}
	args = append(args, "-P", "-F", paneFormat)
	if s.Command != "" {
		args = append(args, s.Command)
	}
	return args, nil
}

// Spawn creates a pane and returns it, with its id, tty and pid.
func (c *Client) Spawn(ctx context.Context, s Spawn) (Pane, error) {
	if s.Kind == KindWindow && strings.HasPrefix(s.Target, "%") {
		// new-window takes a window target ("can't specify pane here"):
		// the pane's session, at its next free index.
		p, err := c.PaneByID(ctx, s.Target)
		if err != nil {
			return Pane{}, err
		}
		s.Target = p.SessionID + ":"
	}
	args, err := SpawnArgs(s)
	if err != nil {
		return Pane{}, err
	}
	out, err := c.Run(ctx, args...)
	if err != nil {
		return Pane{}, err
	}
	ps, err := parsePanes(out)
	if err != nil {
		return Pane{}, err
	}
	if len(ps) != 1 {
		return Pane{}, fmt.Errorf("tmux %s: printed %d panes, want 1", args[0], len(ps))
	}
	return ps[0], nil
}

// Focus shows pane on the user's client: its session, window and pane become
// the client's current ones. client names the client (as list-clients'
// client_name); "" picks one with PickClient, preferring a client that shows
// preferSession. It returns the client moved.
func (c *Client) Focus(ctx context.Context, pane, client, preferSession string) (string, error) {
	if client == "" {
		cs, err := c.Clients(ctx)
		if err != nil {
			return "", err
		}
		cl, ok := PickClient(cs, preferSession)
		if !ok {
			return "", &Error{Server: c.srv, Args: []string{"switch-client", "-t", pane}, Msg: "no client attached (control-mode clients are never moved)", Err: ErrNoClient}
		}
		client = cl.Name
	}
	// -c always: without it tmux moves the most recently active client,
	// which may be the supervisor's own control client.
	if _, err := c.Run(ctx, "switch-client", "-c", client, "-t", pane); err != nil {
		return "", err
	}
	// switch-client selects the pane's window and pane in its session too;
	// select-pane makes sure the pane is the active one even on a server that
	// only switched the session.
	if _, err := c.Run(ctx, "select-pane", "-t", pane); err != nil {
		return client, err
	}
	return client, nil
}

// Capture returns the last lines of pane's history and screen, wrapped lines
// joined, without escape sequences.
func (c *Client) Capture(ctx context.Context, pane string, lines int) (string, error) {
	args := []string{"capture-pane", "-p", "-J", "-t", pane}
	if lines > 0 {
		args = append(args, "-S", "-"+strconv.Itoa(lines))
	}
	return c.Run(ctx, args...)
}

// SendText types text into pane literally (no key names), then Enter when
// enter is true.
func (c *Client) SendText(ctx context.Context, pane, text string, enter bool) error {
	if text != "" {
		if _, err := c.Run(ctx, "send-keys", "-t", pane, "-l", text); err != nil {
			return err
		}
	}
	if enter {
		if _, err := c.Run(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
			return err
		}
	}
	return nil
}

// Kill closes pane.
func (c *Client) Kill(ctx context.Context, pane string) error {
	_, err := c.Run(ctx, "kill-pane", "-t", pane)
	return err
}

// SetPaneOption sets a pane option (a user option "@name" tags a pane).
func (c *Client) SetPaneOption(ctx context.Context, pane, name, value string) error {
	_, err := c.Run(ctx, "set-option", "-p", "-t", pane, name, value)
	return err
}

// Signal rings channel: `wait-for -S`, latched when nobody waits.
func (c *Client) Signal(ctx context.Context, channel string) error {
	_, err := c.Run(ctx, "wait-for", "-S", channel)
	return err
}

// Sessions lists session ids, most recently active first.
func (c *Client) Sessions(ctx context.Context) ([]string, error) {
	out, err := c.Run(ctx, "list-sessions", "-F", "#{session_activity}"+sep+"#{session_id}")
	if err != nil {
		return nil, err
	}
	type row struct {
		act int64
		id  string
	}
	var rows []row
	for line := range strings.SplitSeq(strings.TrimRight(out, "\n"), "\n") {
		a, id, ok := strings.Cut(line, sep)
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(a, 10, 64)
		rows = append(rows, row{n, id})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].act > rows[j].act })
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	return ids, nil
}
