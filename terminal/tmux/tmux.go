package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Errors callers test for with errors.Is.
var (
	// ErrNoServer: no tmux server listens on the socket.
	ErrNoServer = errors.New("no tmux server")
	// ErrNotFound: the pane, window, session or client named does not exist.
	ErrNotFound = errors.New("not found")
	// ErrNoClient: no client other than control-mode clients is attached.
	ErrNoClient = errors.New("no tmux client attached")
)

// DefaultTimeout bounds a call made without a deadline of its own: a hung
// server must not hang the supervisor.
const DefaultTimeout = 5 * time.Second

// Server names one tmux server by its socket.
type Server struct {
	// Name is the socket name, as `tmux -L`; used when Path is empty.
	Name string `json:"name,omitempty"`
	// Path is the socket path, as `tmux -S`.
	Path string `json:"path,omitempty"`
}

// ServerFromEnv is the server of the current environment: the socket path in
// $TMUX inside tmux, else the default socket name.
func ServerFromEnv(getenv func(string) string) Server {
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := getenv("TMUX"); v != "" {
		if p, _, ok := strings.Cut(v, ","); ok && p != "" {
			return Server{Path: p}
		}
	}
	return Server{Name: "default"}
}

// args names the server on a tmux command line.
func (s Server) args() []string {
	if s.Path != "" {
		return []string{"-S", s.Path}
	}
	name := s.Name
	if name == "" {
		name = "default"
	}
	return []string{"-L", name}
}

// String is "-L name" or "-S path", as it is given to tmux.
func (s Server) String() string { return strings.Join(s.args(), " ") }

// SocketPath is where the server's socket is: Path, else
// $TMUX_TMPDIR (or /tmp)/tmux-<uid>/<name>, as tmux computes it.
func (s Server) SocketPath(getenv func(string) string) string {
	if s.Path != "" {
		return s.Path
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	name := s.Name
	if name == "" {
		name = "default"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// Options configure a Client.
type Options struct {
	// Bin is the tmux executable; default "tmux" found on PATH.
	Bin string
	// Env is the environment of every tmux process started; default
	// os.Environ(). TMUX and TMUX_PANE are always removed from it: the
	// server is named on the command line, never inherited.
	Env []string
}

// Client runs tmux commands against one server. It is safe for concurrent
// use.
type Client struct {
	srv Server
	bin string
	env []string

	execs atomic.Int64 // tmux processes started, see Execs

	mu  sync.Mutex
	ctl *control // set by Connect, cleared when the connection ends

	changes chan struct{} // see Changes
}

// New returns a client of srv.
func New(srv Server, opt Options) (*Client, error) {
	bin := opt.Bin
	if bin == "" {
		bin = "tmux"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("tmux: %w", err)
	}
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	return &Client{srv: srv, bin: p, env: scrubEnv(env), changes: make(chan struct{}, 1)}, nil
}

// Changes receives a value (coalesced) when the control connection reports
// a change of layout, windows or sessions.
func (c *Client) Changes() <-chan struct{} { return c.changes }

func (c *Client) notifyChange() {
	select {
	case c.changes <- struct{}{}:
	default:
	}
}

// scrubEnv drops TMUX and TMUX_PANE: with them tmux would prefer the
// server and session of the caller's pane over the one named.
func scrubEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Server is the server the client talks to.
func (c *Client) Server() Server { return c.srv }

// Bin is the absolute path of the tmux executable.
func (c *Client) Bin() string { return c.bin }

// Execs is the number of tmux processes the client has started: one per
// command run without a control connection, plus the control clients and
// doorbell waiters.
func (c *Client) Execs() int64 { return c.execs.Load() }

// argv is the one place a tmux command line is built: the server is always
// named.
func (c *Client) argv(args ...string) []string {
	return append(c.srv.args(), args...)
}

// command prepares a tmux process; it dies with this process (Pdeathsig),
// so no waiter or control client outlives a crashed supervisor.
func (c *Client) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.bin, c.argv(args...)...)
	cmd.Env = c.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// Run runs one tmux command and returns its output. It goes over the control
// connection when there is one and forks a tmux client otherwise. A context
// without a deadline gets DefaultTimeout.
func (c *Client) Run(ctx context.Context, args ...string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	if ctl := c.control(); ctl != nil && controlSafe(args) {
		out, err := ctl.run(ctx, args)
		var re *replyError
		switch {
		case err == nil:
			return out, nil
		case errors.As(err, &re):
			return "", c.wrap(args, re.msg, err)
		case !errors.Is(err, errControlGone):
			return "", fmt.Errorf("tmux %s %s: %w", c.srv, strings.Join(args, " "), err)
		}
		c.dropControl(ctl)
	}
	return c.exec(ctx, args...)
}

// exec forks a tmux client for one command.
func (c *Client) exec(ctx context.Context, args ...string) (string, error) {
	cmd := c.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	c.execs.Add(1)
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return stdout.String(), fmt.Errorf("tmux %s %s: %w", c.srv, strings.Join(args, " "), ctx.Err())
		}
		return stdout.String(), c.wrap(args, strings.TrimSpace(stderr.String()), err)
	}
	return stdout.String(), nil
}

// Error is a failed tmux command.
type Error struct {
	Server Server
	Args   []string
	Msg    string // tmux's message, e.g. "can't find pane: %9"
	Err    error  // the exit status, or ErrNoServer / ErrNotFound
}

func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("tmux %s %s: %s", e.Server, strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// wrap classifies tmux's complaint.
func (c *Client) wrap(args []string, msg string, err error) error {
	msg = strings.TrimSpace(msg)
	switch {
	case strings.HasPrefix(msg, "no server running"),
		strings.HasPrefix(msg, "error connecting to"),
		strings.Contains(msg, "server exited unexpectedly"):
		err = ErrNoServer
	case strings.HasPrefix(msg, "can't find"),
		strings.HasPrefix(msg, "no such"),
		strings.HasPrefix(msg, "session not found"),
		strings.HasPrefix(msg, "window not found"),
		strings.HasPrefix(msg, "pane not found"):
		err = ErrNotFound
	}
	return &Error{Server: c.srv, Args: args, Msg: msg, Err: err}
}

// control returns the live control connection, if any.
func (c *Client) control() *control {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctl != nil && c.ctl.gone() {
		c.ctl = nil
	}
	return c.ctl
}

func (c *Client) dropControl(ctl *control) {
	c.mu.Lock()
	if c.ctl == ctl {
		c.ctl = nil
	}
	c.mu.Unlock()
	ctl.close()
}

// Connected reports whether a control connection is up.
func (c *Client) Connected() bool { return c.control() != nil }

// ControlPID is the pid of the control-mode client, 0 without one; it lets
// callers tell the supervisor's own client from the user's.
func (c *Client) ControlPID() int {
	if ctl := c.control(); ctl != nil {
		return ctl.pid
	}
	return 0
}

// Connect starts a control-mode client attached to session (any session
// when ""), with no pane output and no effect on window sizes. Commands then
// go over it until it ends (its session closed, the server exited, Close);
// after that they fork tmux clients again until Connect is called anew.
func (c *Client) Connect(ctx context.Context, session string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctl != nil && !c.ctl.gone() {
		return nil
	}
	args := []string{"-C", "attach-session", "-f", "no-output,ignore-size"}
	if session != "" {
		args = append(args, "-t", session)
	}
	ctl, err := startControl(c, args)
	if err != nil {
		return err
	}
	c.ctl = ctl
	return nil
}

// Close ends the control connection, if any.
func (c *Client) Close() error {
	c.mu.Lock()
	ctl := c.ctl
	c.ctl = nil
	c.mu.Unlock()
	if ctl != nil {
		ctl.close()
	}
	return nil
}

// controlSafe reports whether args can go over the control connection: a
// command line there is one line, and tmux 3.3a answers wait-for at once
// instead of blocking.
func controlSafe(args []string) bool {
	if len(args) > 0 && args[0] == "wait-for" {
		return false
	}
	for _, a := range args {
		if strings.ContainsAny(a, "\n\r") {
			return false
		}
	}
	return true
}
