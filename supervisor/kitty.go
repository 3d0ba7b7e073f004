package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// Kitty is the kitty Multiplexer: a pane is a kitty window, a window a kitty
// tab, a session an OS window.
//
//   - ID is the window id in decimal, as KITTY_WINDOW_ID says it ("7").
//   - Window is "tab-<tab id>" and WindowIndex the tab's place in its OS
//     window.
//   - MuxSession and MuxSessionName are "kitty-<OS window id>".
//   - Active: the window is the active one of the active tab; Visible is
//     the same (an OS window always shows its active tab).
//
// Targets of Spawn are a window id, "tab-N" or "kitty-N". Kinds: "split" is
// a window in the target's tab (kitty's layout places it; Horizontal asks
// for a vsplit in the splits layout), "window" a tab in the target's OS
// window, "session" a new OS window.
//
// kitty pushes no events: Changes is nil, and the engine lists windows
// every Config.Poll while a Kitty is in use, and on file-watch signals (a
// listing is one socket round trip, no process: Cheap is true).
type Kitty struct {
	c *kitty.Client

	mu    sync.Mutex        // guards holds
	holds map[string]string // Hold key -> its FIFO's directory, until Release
}

var _ Multiplexer = (*Kitty)(nil)

// spawnTTYTimeout bounds the wait for a new window's process to become its
// tty's session leader: kitty answers launch once it has forked, and the
// child calls setsid right after.
const spawnTTYTimeout = 5 * time.Second

// releaseTimeout bounds Release when ctx has no deadline.
const releaseTimeout = 15 * time.Second

// NewKitty returns the back end of the kitty listening on addr ("unix:/path",
// as KITTY_LISTEN_ON says it).
func NewKitty(addr string) (*Kitty, error) {
	c, err := kitty.New(addr)
	if err != nil {
		return nil, err
	}
	return newKitty(c), nil
}

func newKitty(c *kitty.Client) *Kitty { return &Kitty{c: c, holds: map[string]string{}} }

// Client is the kitty client underneath, for counting round trips.
func (k *Kitty) Client() *kitty.Client { return k.c }

// Name implements Multiplexer: "kitty <address>".
func (k *Kitty) Name() string { return "kitty " + k.c.Addr() }

// Start checks that kitty answers; with remote control off the error wraps
// kitty.ErrRemoteControlDisabled (kitty.SetupHelp explains the fix).
func (k *Kitty) Start(ctx context.Context) error {
	_, err := k.c.List(ctx)
	return err
}

// Changes implements Multiplexer: kitty has no events.
func (k *Kitty) Changes() <-chan struct{} { return nil }

// Cheap implements Multiplexer: a listing is one socket round trip.
func (k *Kitty) Cheap() bool { return true }

// Panes lists every window with one ls. A connection kitty resets or
// closes unanswered is tried once more: kitty does that while it quits, and
// the second try then finds it gone rather than reporting a spurious error.
func (k *Kitty) Panes(ctx context.Context) ([]MuxPane, error) {
	ws, err := k.c.List(ctx)
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, kitty.ErrNoResponse) {
		ws, err = k.c.List(ctx)
	}
	if err != nil {
		return nil, err
	}
	return k.panes(ws), nil
}

// panes converts windows, in kitty's order, to panes.
func (k *Kitty) panes(ws []kitty.Window) []MuxPane {
	name := k.Name()
	out := make([]MuxPane, 0, len(ws))
	tabIndex := map[int]int{} // tab id -> its index in its OS window
	tabs := map[int]int{}     // OS window id -> tabs seen
	for _, w := range ws {
		idx, ok := tabIndex[w.TabID]
		if !ok {
			idx = tabs[w.OSWindowID]
			tabs[w.OSWindowID]++
			tabIndex[w.TabID] = idx
		}
		out = append(out, kittyPane(name, w, idx))
	}
	return out
}

func kittyPane(server string, w kitty.Window, tabIndex int) MuxPane {
	osw := osWindowName(w.OSWindowID)
	return MuxPane{
		Server: server, MuxSession: osw, MuxSessionName: osw,
		Window: tabName(w.TabID), WindowIndex: tabIndex, ID: strconv.Itoa(w.ID),
		TTY: w.TTY, PID: w.PID, Cwd: w.Cwd, Command: w.Command(),
		Active: w.Active, Visible: w.Active,
	}
}

func osWindowName(id int) string { return "kitty-" + strconv.Itoa(id) }
func tabName(id int) string      { return "tab-" + strconv.Itoa(id) }

// windowID parses a pane id: the window id in decimal.
func windowID(pane string) (int, error) {
	id, err := strconv.Atoi(pane)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%w: %q is no kitty window id", ErrNoTarget, pane)
	}
	return id, nil
}

// Spawn opens a window, tab or OS window and returns it once its process
// leads its tty.
func (k *Kitty) Spawn(ctx context.Context, s SpawnSpec) (MuxPane, error) {
	ls := kitty.LaunchSpec{Cwd: s.Cwd, Env: s.Env, Focus: s.Focus}
	if s.Command != "" {
		ls.Args = []string{"/bin/sh", "-c", s.Command}
	}
	switch s.Kind {
	case "", "split":
		if s.Horizontal {
			ls.Location = "vsplit"
		} else {
			ls.Location = "hsplit"
		}
	case "window":
		ls.Type, ls.TabTitle = kitty.TypeTab, s.Name
	case "session":
		ls.Type, ls.TabTitle = kitty.TypeOSWindow, s.Name
	default:
		return MuxPane{}, fmt.Errorf("kitty spawn: unknown kind %q", s.Kind)
	}
	if s.Target != "" && ls.Type != kitty.TypeOSWindow {
		ws, err := k.c.List(ctx)
		if err != nil {
			return MuxPane{}, err
		}
		tab, err := targetTab(ws, s.Target)
		if err != nil {
			return MuxPane{}, err
		}
		ls.Match = "id:" + strconv.Itoa(tab)
	}
	id, err := k.c.Launch(ctx, ls)
	if err != nil {
		return MuxPane{}, err
	}
	deadline := time.Now().Add(spawnTTYTimeout)
	for {
		ws, err := k.c.List(ctx)
		if err != nil {
			return MuxPane{}, err
		}
		for _, p := range k.panes(ws) {
			if p.ID == strconv.Itoa(id) && p.TTY != "" {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			return MuxPane{}, fmt.Errorf("kitty window %d: its process did not start within %s", id, spawnTTYTimeout)
		}
		select {
		case <-ctx.Done():
			return MuxPane{}, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// targetTab finds the tab a target names: a window's tab, a tab, or the
// active tab of an OS window (else its first).
func targetTab(ws []kitty.Window, target string) (int, error) {
	var osID int
	switch {
	case strings.HasPrefix(target, "tab-"):
		n, err := strconv.Atoi(target[len("tab-"):])
		for _, w := range ws {
			if err == nil && w.TabID == n {
				return n, nil
			}
		}
	case strings.HasPrefix(target, "kitty-"):
		osID, _ = strconv.Atoi(target[len("kitty-"):])
	default:
		n, err := strconv.Atoi(target)
		for _, w := range ws {
			if err == nil && w.ID == n {
				return w.TabID, nil
			}
		}
	}
	tab := 0
	for _, w := range ws {
		if osID > 0 && w.OSWindowID == osID && (tab == 0 || w.Active) {
			tab = w.TabID
		}
	}
	if tab == 0 {
		return 0, fmt.Errorf("%w: %q is no kitty window, tab-N or kitty-N", ErrNoTarget, target)
	}
	return tab, nil
}

// Focus shows the window: its tab becomes the active one and its OS window
// is raised. kitty has no clients: client and preferSession are ignored,
// and the OS window ("kitty-N") is returned as the client moved.
func (k *Kitty) Focus(ctx context.Context, pane, _, _ string) (string, error) {
	id, err := windowID(pane)
	if err != nil {
		return "", err
	}
	w, err := k.c.Window(ctx, id)
	if err != nil {
		return "", err
	}
	if err := k.c.Focus(ctx, id); err != nil {
		return "", err
	}
	return osWindowName(w.OSWindowID), nil
}

// Alive implements Multiplexer.
func (k *Kitty) Alive(ctx context.Context, pane string) (bool, error) {
	id, err := windowID(pane)
	if err != nil {
		// Not a kitty window id: no window of this kitty.
		return false, nil
	}
	return k.c.Alive(ctx, id)
}

// Capture implements Multiplexer.
func (k *Kitty) Capture(ctx context.Context, pane string, lines int) (string, error) {
	id, err := windowID(pane)
	if err != nil {
		return "", err
	}
	return k.c.GetText(ctx, id, lines)
}

// SendText implements Multiplexer; Enter is a carriage return.
func (k *Kitty) SendText(ctx context.Context, pane, text string, enter bool) error {
	id, err := windowID(pane)
	if err != nil {
		return err
	}
	if enter {
		text += "\r"
	}
	return k.c.SendText(ctx, id, text)
}

// Kill closes the window; its processes get SIGHUP.
func (k *Kitty) Kill(ctx context.Context, pane string) error {
	id, err := windowID(pane)
	if err != nil {
		return err
	}
	return k.c.Close(ctx, id)
}

// holdFIFO is the name of the FIFO in a hold's directory.
const holdFIFO = "go"

// Hold makes a FIFO in a private directory and returns the command that
// waits on it: kitty has no wait-for. Opening a FIFO for reading blocks
// until a writer comes, so the window's shell waits in `read` until Release
// writes a line; a writer that closes without one (Close) makes `read` fail,
// and the command after `&&` never starts. When the FIFO cannot be made the
// command fails at once and Release reports why.
func (k *Kitty) Hold(key string) string {
	dir, err := os.MkdirTemp("", "xcsh-hold-")
	if err == nil {
		if err = syscall.Mkfifo(filepath.Join(dir, holdFIFO), 0o600); err != nil {
			_ = os.RemoveAll(dir)
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		k.holds[key] = ""
		return "false"
	}
	k.holds[key] = dir
	return "read _ < " + shQuote(filepath.Join(dir, holdFIFO))
}

// Release lets the Hold(key) command end: it waits (up to ctx's deadline,
// else releaseTimeout) for the window's shell to open the FIFO, writes the
// line and removes the FIFO. Waiting keeps a one-shot `xcsh launch` from
// exiting before its window got the line, which a FIFO does not keep.
func (k *Kitty) Release(ctx context.Context, key string) error {
	k.mu.Lock()
	dir, ok := k.holds[key]
	delete(k.holds, key)
	k.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("kitty release: no hold %q", key)
	case dir == "":
		return fmt.Errorf("kitty hold %q: could not make its FIFO", key)
	}
	defer os.RemoveAll(dir)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, releaseTimeout)
		defer cancel()
	}
	path := filepath.Join(dir, holdFIFO)
	for {
		// O_NONBLOCK: the open fails with ENXIO until a reader has the FIFO
		// open (or is blocked opening it), instead of blocking.
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			_, err = syscall.Write(fd, []byte("\n"))
			return errors.Join(err, syscall.Close(fd))
		}
		if !errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("kitty release %q: %w", key, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kitty release %q: the window never waited: %w", key, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Close removes the FIFOs of holds never released. There is no connection
// to end: each call has its own.
func (k *Kitty) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	for key, dir := range k.holds {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		delete(k.holds, key)
	}
	return nil
}
