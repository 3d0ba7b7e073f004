package supervisor

import (
	"context"
	"maps"
)

// Hosted is the tmux session shown in another multiplexer's pane: a kitty
// window (or a tmux pane) whose terminal a tmux client is attached from.
type Hosted struct {
	// Server is the tmux server's Name ("tmux -L work").
	Server string `json:"server"`
	// MuxSession and MuxSessionName are the session the client shows.
	MuxSession     string `json:"muxSession"`
	MuxSessionName string `json:"muxSessionName"`
	// Pane is the pane the client shows, the session's active one.
	Pane string `json:"pane"`
	// Client is the client's name, its tty, as tmux names it.
	Client string `json:"client"`
}

// hostLister is a multiplexer whose clients are terminals of others: tmux,
// whose clients run in kitty windows.
type hostLister interface {
	// hostClients lists the clients a user attached, not control clients.
	hostClients(ctx context.Context) ([]hostClient, error)
}

// hostClient is one client of a hostLister.
type hostClient struct {
	TTY string
	Hosted
}

// hostClients implements hostLister: one list-clients, over the control
// connection when it is up.
func (t *Tmux) hostClients(ctx context.Context) ([]hostClient, error) {
	cs, err := t.c.Clients(ctx)
	if err != nil {
		return nil, err
	}
	name := t.Name()
	out := make([]hostClient, 0, len(cs))
	for _, c := range cs {
		if c.Control || c.TTY == "" {
			continue
		}
		out = append(out, hostClient{TTY: c.TTY, Hosted: Hosted{
			Server: name, MuxSession: c.SessionID, MuxSessionName: c.SessionName, Pane: c.PaneID, Client: c.Name,
		}})
	}
	return out, nil
}

// findHosts marks the panes that host a tmux client of one of the engine's
// tmux servers, matching the client's tty to the pane's. The clients are
// asked for only when a pane runs tmux, so with no tmux in sight a listing
// costs nothing more. passMu must be held.
func (e *Engine) findHosts(ctx context.Context) {
	e.hosts = nil
	candidates := false
	for _, p := range e.panes {
		if p.Command == "tmux" && p.TTY != "" {
			candidates = true
			break
		}
	}
	if !candidates {
		return
	}
	byTTY := map[string]*Hosted{}
	for _, m := range e.muxes {
		hl, ok := m.(hostLister)
		if !ok {
			continue
		}
		cs, err := hl.hostClients(ctx)
		if err != nil {
			continue
		}
		for _, c := range cs {
			h := c.Hosted
			byTTY[c.TTY] = &h
		}
	}
	for _, p := range e.panes {
		if h, ok := byTTY[p.TTY]; ok && p.TTY != "" && p.Server != h.Server {
			if e.hosts == nil {
				e.hosts = map[string]*Hosted{}
			}
			e.hosts[paneKey(p)] = h
		}
	}
}

// sameHosts reports whether two host markings say the same.
func sameHosts(a, b map[string]*Hosted) bool {
	return maps.EqualFunc(a, b, func(x, y *Hosted) bool { return *x == *y })
}
