package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/xcsh-dev/xcsh/terminal/kitty"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

// Multiplexer is a terminal multiplexer back end (DESIGN.md, "Packages":
// tmux now, kitty and WezTerm later), as the engine and the actions use it.
type Multiplexer interface {
	// Name identifies the server, e.g. "tmux -L work".
	Name() string
	// Start prepares a long-running user: a persistent connection for cheap
	// queries and the change doorbell. One-shot users skip it.
	Start(ctx context.Context) error
	// Changes rings after panes or windows changed; nil when the back end
	// has no events (the engine then polls gently).
	Changes() <-chan struct{}
	// Panes lists every pane: one query per call.
	Panes(ctx context.Context) ([]MuxPane, error)
	// Cheap reports whether Panes costs no process (a persistent
	// connection is up), so the engine may list panes on any change.
	Cheap() bool
	// Spawn opens a pane and returns it with its tty and pid.
	Spawn(ctx context.Context, s SpawnSpec) (MuxPane, error)
	// Focus shows pane on the user's client (never a control client):
	// client names one, "" picks the most recently active, preferring one
	// that shows preferSession. It returns the client moved.
	Focus(ctx context.Context, pane, client, preferSession string) (string, error)
	// Alive reports whether pane exists.
	Alive(ctx context.Context, pane string) (bool, error)
	// Capture returns the last lines of pane.
	Capture(ctx context.Context, pane string, lines int) (string, error)
	// SendText types text into pane, then Enter when enter is true.
	SendText(ctx context.Context, pane, text string, enter bool) error
	// Kill closes pane.
	Kill(ctx context.Context, pane string) error
	// Hold returns a shell command that blocks until Release(key) is
	// called: a new pane runs it before its agent, so its breadcrumb is
	// written before anything starts in it.
	Hold(key string) string
	// Release lets the Hold(key) command end.
	Release(ctx context.Context, key string) error
	// Close ends the connection and removes the doorbell's hooks.
	Close() error
}

// MuxPane is one pane as the multiplexer reports it.
type MuxPane struct {
	Server string `json:"server"`
	// MuxSession is the multiplexer's session ("$0"), not an xcsh session.
	MuxSession     string `json:"muxSession"`
	MuxSessionName string `json:"muxSessionName"`
	Window         string `json:"window"` // "@3"
	WindowIndex    int    `json:"windowIndex"`
	ID             string `json:"id"` // "%7"
	TTY            string `json:"tty"`
	PID            int    `json:"pid"` // the pane's session leader
	Cwd            string `json:"cwd"`
	Command        string `json:"command"`
	// Active: the pane is the one its session shows (active pane of the
	// current window).
	Active bool `json:"active"`
	// Visible: Active, and a user's client shows the session.
	Visible bool `json:"visible"`
}

// SpawnSpec describes a new pane.
type SpawnSpec struct {
	Kind       string // "split", "window" or "session"
	Target     string // pane to split, or session (or pane) for a window
	Horizontal bool   // split side by side
	Name       string // session or window name
	Cwd        string
	Env        []string
	Command    string // shell command; "" for the default shell
	Focus      bool
}

// Tmux is the tmux Multiplexer.
type Tmux struct {
	c       *tmux.Client
	mu      sync.Mutex // guards bell
	bell    *tmux.Doorbell
	changes chan struct{}
	stop    chan struct{}
}

var _ Multiplexer = (*Tmux)(nil)

// NewTmux returns the back end for srv; env is the environment of the tmux
// processes it starts (nil: this process's, without TMUX and TMUX_PANE).
func NewTmux(srv tmux.Server, env []string) (*Tmux, error) {
	c, err := tmux.New(srv, tmux.Options{Env: env})
	if err != nil {
		return nil, err
	}
	return &Tmux{c: c, changes: make(chan struct{}, 1), stop: make(chan struct{})}, nil
}

// Client is the tmux client underneath, for counting processes.
func (t *Tmux) Client() *tmux.Client { return t.c }

// Name implements Multiplexer.
func (t *Tmux) Name() string { return "tmux " + t.c.Server().String() }

// Start connects control mode (to the most recently used session) and
// installs the doorbell.
func (t *Tmux) Start(ctx context.Context) error {
	if err := t.connect(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bell == nil {
		b, err := t.c.InstallDoorbell(ctx)
		if err != nil {
			return err
		}
		t.bell = b
		go t.merge(b.C())
	}
	return nil
}

// merge forwards the doorbell's rings and the control client's change
// notifications to Changes.
func (t *Tmux) merge(bell <-chan struct{}) {
	for {
		select {
		case <-t.stop:
			return
		case <-bell:
		case <-t.c.Changes():
		}
		select {
		case t.changes <- struct{}{}:
		default:
		}
	}
}

func (t *Tmux) connect(ctx context.Context) error {
	if t.c.Connected() {
		return nil
	}
	ss, err := t.c.Sessions(ctx)
	if err != nil {
		return err
	}
	if len(ss) == 0 {
		return fmt.Errorf("tmux %s: no session to attach a control client to", t.c.Server())
	}
	return t.c.Connect(ctx, ss[0])
}

// Changes implements Multiplexer.
func (t *Tmux) Changes() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bell == nil {
		return nil
	}
	return t.changes
}

// Panes lists panes with one list-panes. With the control connection up,
// visibility needs the clients too (the control client counts as attached);
// that second query costs no process.
func (t *Tmux) Panes(ctx context.Context) ([]MuxPane, error) {
	t.mu.Lock()
	long := t.bell != nil
	t.mu.Unlock()
	if long && !t.c.Connected() {
		// The control client went with its session: attach to another.
		_ = t.connect(ctx)
	}
	ps, err := t.c.ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	human := map[string]int{}
	counted := false
	if ctlPID := t.c.ControlPID(); ctlPID != 0 {
		if cs, err := t.c.Clients(ctx); err == nil {
			counted = true
			for _, cl := range cs {
				if cl.PID != ctlPID {
					human[cl.SessionID]++
				}
			}
		}
	}
	name := t.Name()
	out := make([]MuxPane, 0, len(ps))
	for _, p := range ps {
		if p.Dead {
			continue
		}
		attached := p.Attached
		if counted {
			attached = human[p.SessionID]
		}
		active := p.Active && p.WindowOn
		out = append(out, MuxPane{
			Server: name, MuxSession: p.SessionID, MuxSessionName: p.SessionName, Window: p.WindowID,
			WindowIndex: p.WindowIndex, ID: p.ID, TTY: p.TTY, PID: p.PID, Cwd: p.Cwd, Command: p.Command,
			Active: active, Visible: active && attached > 0,
		})
	}
	return out, nil
}

// Cheap implements Multiplexer: true while the control client is up.
func (t *Tmux) Cheap() bool { return t.c.Connected() }

// Spawn implements Multiplexer.
func (t *Tmux) Spawn(ctx context.Context, s SpawnSpec) (MuxPane, error) {
	p, err := t.c.Spawn(ctx, tmux.Spawn{
		Kind: s.Kind, Target: s.Target, Horizontal: s.Horizontal, Name: s.Name,
		Cwd: s.Cwd, Env: s.Env, Command: s.Command, Focus: s.Focus,
	})
	if err != nil {
		return MuxPane{}, err
	}
	return MuxPane{
		Server: t.Name(), MuxSession: p.SessionID, MuxSessionName: p.SessionName, Window: p.WindowID,
		WindowIndex: p.WindowIndex, ID: p.ID, TTY: p.TTY, PID: p.PID, Cwd: p.Cwd, Command: p.Command,
		Active: p.Active && p.WindowOn,
	}, nil
}

// Focus implements Multiplexer.
func (t *Tmux) Focus(ctx context.Context, pane, client, preferSession string) (string, error) {
	return t.c.Focus(ctx, pane, client, preferSession)
}

// Alive implements Multiplexer.
func (t *Tmux) Alive(ctx context.Context, pane string) (bool, error) { return t.c.Alive(ctx, pane) }

// Capture implements Multiplexer.
func (t *Tmux) Capture(ctx context.Context, pane string, lines int) (string, error) {
	return t.c.Capture(ctx, pane, lines)
}

// SendText implements Multiplexer.
func (t *Tmux) SendText(ctx context.Context, pane, text string, enter bool) error {
	return t.c.SendText(ctx, pane, text, enter)
}

// Kill implements Multiplexer.
func (t *Tmux) Kill(ctx context.Context, pane string) error { return t.c.Kill(ctx, pane) }

// Hold is `tmux wait-for <channel>`: inside a pane tmux finds its server
// through $TMUX, which tmux sets there.
func (t *Tmux) Hold(key string) string {
	return shQuote(t.c.Bin()) + " wait-for " + shQuote(holdChannel(key))
}

// Release implements Multiplexer: the signal is latched when the pane's
// waiter has not started yet.
func (t *Tmux) Release(ctx context.Context, key string) error {
	return t.c.Signal(ctx, holdChannel(key))
}

func holdChannel(key string) string { return "xcsh-hold-" + key }

// Close implements Multiplexer.
func (t *Tmux) Close() error {
	var err error
	t.mu.Lock()
	if t.bell != nil {
		close(t.stop)
		err = t.bell.Close()
		t.bell = nil
	}
	t.mu.Unlock()
	return errors.Join(err, t.c.Close())
}

// isGone reports an error that means the server is not there: no tmux
// server, or no kitty answering on its socket.
func isGone(err error) bool {
	return errors.Is(err, tmux.ErrNoServer) || errors.Is(err, kitty.ErrRemoteControlDisabled)
}
