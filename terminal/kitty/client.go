package kitty

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Client sends remote control commands to one kitty instance, one
// connection per call. It is safe for concurrent use.
type Client struct {
	addr             string // as given to New
	network, address string // for net.Dial

	calls atomic.Int64 // round trips made, see Calls
}

// New returns a client of the kitty listening on addr ("unix:/path",
// "unix:@name" or "tcp:host:port", as in KITTY_LISTEN_ON). It only parses
// addr; the first call finds out whether kitty answers.
func New(addr string) (*Client, error) {
	network, address, err := ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	return &Client{addr: addr, network: network, address: address}, nil
}

// FromEnv returns a client of the kitty named by KITTY_LISTEN_ON (getenv:
// os.Getenv when nil). Inside a kitty window without it the error wraps both
// ErrNoAddress and ErrRemoteControlDisabled: that kitty listens on no socket.
func FromEnv(getenv func(string) string) (*Client, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	addr := getenv("KITTY_LISTEN_ON")
	if addr == "" {
		if getenv("KITTY_WINDOW_ID") != "" {
			return nil, fmt.Errorf("kitty: %w: %w", ErrRemoteControlDisabled, ErrNoAddress)
		}
		return nil, fmt.Errorf("kitty: %w", ErrNoAddress)
	}
	return New(addr)
}

// Addr is the socket address, as given to New.
func (c *Client) Addr() string { return c.addr }

// Calls is the number of round trips made so far.
func (c *Client) Calls() int64 { return c.calls.Load() }

// Call sends one command and returns its data: the raw JSON of the reply's
// "data" (for most commands a JSON string), nil when it has none. A context
// without a deadline gets DefaultTimeout. A command kitty answers with an
// error gives an *Error.
func (c *Client) Call(ctx context.Context, cmd string, payload any) (json.RawMessage, error) {
	f, err := encodeFrame(cmd, payload)
	if err != nil {
		return nil, &Error{Addr: c.addr, Cmd: cmd, Err: err}
	}
	return c.send(ctx, cmd, f)
}

// send makes one round trip with frames, all belonging to cmd.
func (c *Client) send(ctx context.Context, cmd string, frames ...[]byte) (json.RawMessage, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	c.calls.Add(1)
	r, err := roundTrip(ctx, c.network, c.address, frames...)
	if err != nil {
		return nil, &Error{Addr: c.addr, Cmd: cmd, Err: err}
	}
	if !r.OK {
		return nil, &Error{Addr: c.addr, Cmd: cmd, Msg: r.Error, Traceback: r.Traceback, Err: classify(r.Error)}
	}
	return r.Data, nil
}

// dataString decodes data that kitty sends as a JSON string.
func dataString(cmd string, data json.RawMessage) (string, error) {
	if len(data) == 0 || string(data) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return "", fmt.Errorf("kitty %s: reply data %.40q is not a string: %w", cmd, data, err)
	}
	return s, nil
}

func matchID(id int) string { return "id:" + strconv.Itoa(id) }

// List lists every window of every tab and OS window: one ls, plus a
// /proc/<pid>/stat read per window for its tty.
func (c *Client) List(ctx context.Context) ([]Window, error) {
	data, err := c.Call(ctx, "ls", nil)
	if err != nil {
		return nil, err
	}
	s, err := dataString("ls", data)
	if err != nil {
		return nil, err
	}
	ws, err := decodeList([]byte(s))
	if err != nil {
		return nil, &Error{Addr: c.addr, Cmd: "ls", Err: err}
	}
	for i := range ws {
		fillProc(&ws[i])
	}
	return ws, nil
}

// Window returns the window id, or an error wrapping ErrNotFound.
func (c *Client) Window(ctx context.Context, id int) (Window, error) {
	ws, err := c.List(ctx)
	if err != nil {
		return Window{}, err
	}
	for _, w := range ws {
		if w.ID == id {
			return w, nil
		}
	}
	return Window{}, &Error{Addr: c.addr, Cmd: "ls", Msg: "no window " + strconv.Itoa(id), Err: ErrNotFound}
}

// Alive reports whether window id exists.
func (c *Client) Alive(ctx context.Context, id int) (bool, error) {
	_, err := c.Window(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Kinds of LaunchSpec.Type.
const (
	TypeWindow   = "window"    // a window in a tab (kitty's default)
	TypeTab      = "tab"       // a new tab in an OS window
	TypeOSWindow = "os-window" // a new OS window
)

// LaunchSpec describes a new window.
type LaunchSpec struct {
	// Type is TypeWindow (when ""), TypeTab or TypeOSWindow.
	Type string
	// Match picks the tab a window opens in, or the OS window a tab opens in,
	// as a kitty tab match ("id:3"); "" is the active tab.
	Match string
	// Cwd is the working directory; "" is kitty's (kitty also understands
	// "current", the active window's).
	Cwd string
	// Env holds NAME=VALUE pairs added to kitty's environment.
	Env []string
	// Args is the command and its arguments, run directly (no shell); empty
	// runs the default shell.
	Args []string
	// Title is the window title; TabTitle the title of a new tab.
	Title, TabTitle string
	// Hold keeps the window open after its command exits.
	Hold bool
	// Focus gives the new window the focus; by default the focused window
	// keeps it, so spawning an agent never takes the user's keyboard.
	Focus bool
	// Location is where in the tab a window goes: "after", "before",
	// "first", "last", "neighbor", "vsplit", "hsplit", "split" or "default".
	Location string
}

// launchPayload is kitty's launch payload; its keys are not the CLI flags'
// names (terminal-facts.md 4: "title" is silently ignored).
type launchPayload struct {
	Args        []string `json:"args"`
	Type        string   `json:"type,omitempty"`
	Match       string   `json:"match,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	Env         []string `json:"env,omitempty"`
	WindowTitle string   `json:"window_title,omitempty"`
	TabTitle    string   `json:"tab_title,omitempty"`
	Hold        bool     `json:"hold,omitempty"`
	KeepFocus   bool     `json:"keep_focus"`
	Location    string   `json:"location,omitempty"`
}

// Launch opens a window and returns its id.
func (c *Client) Launch(ctx context.Context, s LaunchSpec) (int, error) {
	switch s.Type {
	case "", TypeWindow, TypeTab, TypeOSWindow:
	default:
		return 0, fmt.Errorf("kitty launch: unsupported type %q", s.Type)
	}
	for _, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return 0, fmt.Errorf("kitty launch: environment entry %q is not NAME=VALUE", kv)
		}
	}
	p := launchPayload{
		Args: s.Args, Type: s.Type, Match: s.Match, Cwd: s.Cwd, Env: s.Env,
		WindowTitle: s.Title, TabTitle: s.TabTitle, Hold: s.Hold, KeepFocus: !s.Focus, Location: s.Location,
	}
	if p.Args == nil {
		p.Args = []string{}
	}
	data, err := c.Call(ctx, "launch", p)
	if err != nil {
		return 0, err
	}
	s2, err := dataString("launch", data)
	if err != nil {
		return 0, err
	}
	id, err := strconv.Atoi(strings.TrimSpace(s2))
	if err != nil || id <= 0 {
		// kitty answers "0" when it opened nothing (a type such as
		// "background" has no window).
		return 0, &Error{Addr: c.addr, Cmd: "launch", Msg: fmt.Sprintf("no window id in reply %q", s2)}
	}
	return id, nil
}

// Focus focuses window id: its tab becomes the active one and its OS window
// is raised. kitty has switched tab and window by the time it answers; the
// OS window's keyboard focus comes with the window system's focus event, so
// List may report Focused a moment later when focus moves between OS
// windows.
func (c *Client) Focus(ctx context.Context, id int) error {
	_, err := c.Call(ctx, "focus-window", map[string]any{"match": matchID(id)})
	return err
}

// Close closes window id; its processes get SIGHUP.
func (c *Client) Close(ctx context.Context, id int) error {
	_, err := c.Call(ctx, "close-window", map[string]any{"match": matchID(id)})
	return err
}

// sendChunk is the most text one send-text command carries, as in kitty's
// own client; current kitty refuses messages over 64 KiB.
const sendChunk = 1024

// SendText types text into window id, as if pasted without bracketed paste
// ("\r" is Enter). Long text goes as several commands over one connection.
func (c *Client) SendText(ctx context.Context, id int, text string) error {
	var frames [][]byte
	for b := []byte(text); len(b) > 0; {
		n := min(len(b), sendChunk)
		f, err := encodeFrame("send-text", map[string]any{
			"match": matchID(id), "data": "base64:" + base64.StdEncoding.EncodeToString(b[:n]),
		})
		if err != nil {
			return &Error{Addr: c.addr, Cmd: "send-text", Err: err}
		}
		frames = append(frames, f)
		b = b[n:]
	}
	if len(frames) == 0 {
		return nil
	}
	_, err := c.send(ctx, "send-text", frames...)
	// kitty 0.26 answers a successful send-text with silence; current kitty
	// answers ok. Both answer a failure.
	if errors.Is(err, ErrNoResponse) {
		return nil
	}
	return err
}

// GetText returns the text of window id: its last lines lines of screen and
// scrollback, without trailing blank lines, or the whole screen when lines
// is 0 or less.
func (c *Client) GetText(ctx context.Context, id, lines int) (string, error) {
	extent := "screen"
	if lines > 0 {
		extent = "all"
	}
	data, err := c.Call(ctx, "get-text", map[string]any{"match": matchID(id), "extent": extent})
	if err != nil {
		return "", err
	}
	s, err := dataString("get-text", data)
	if err != nil || lines <= 0 {
		return s, err
	}
	return lastLines(s, lines), nil
}

// lastLines keeps the last n lines of s after dropping trailing blank lines
// (the unused bottom of the screen), each ending in "\n".
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	if len(ls) == 0 {
		return ""
	}
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n") + "\n"
}
