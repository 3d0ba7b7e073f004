package tmux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// errControlGone: the control client ended; the command was not answered
// and may be retried over a forked client.
var errControlGone = errors.New("tmux control connection ended")

// errCommand marks a %error reply.
var errCommand = errors.New("command failed")

// control is one control-mode client (tmux -C). Replies come framed as
// "%begin <time> <number> <flags>" ... "%end|%error <time> <number> <flags>";
// flags is 1 for the replies to this client's own commands. Notifications
// never appear inside a block (terminal-facts.md 1.7).
type control struct {
	pid   int
	stdin io.WriteCloser

	mu      sync.Mutex // one command in flight at a time
	replies chan reply
	done    chan struct{} // closed when the reader ends
	stop    func()
	notify  func() // called on a notification of a layout, window or session change
}

type reply struct {
	lines []string
	err   bool
}

// controlReplyTimeout bounds the wait for the connection's first reply.
const controlReplyTimeout = 3 * time.Second

func startControl(c *Client, args []string) (*control, error) {
	// Not bound to a caller's context: the connection lives until close.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := c.command(ctx, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("tmux %s control mode: %w", c.srv, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("tmux %s control mode: %w", c.srv, err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	c.execs.Add(1)
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("tmux %s control mode: %w", c.srv, err)
	}
	ctl := &control{
		pid:     cmd.Process.Pid,
		stdin:   stdin,
		replies: make(chan reply, 1),
		done:    make(chan struct{}),
		notify:  c.notifyChange,
	}
	ctl.stop = func() {
		// Closing stdin detaches the client; the kill is for a hung one.
		_ = stdin.Close()
		cancel()
	}
	go func() {
		ctl.read(stdout)
		_ = cmd.Wait()
		close(ctl.done)
	}()
	// A first command proves the client attached: with no session to attach
	// to, tmux prints an error and exits.
	pctx, pcancel := context.WithTimeout(context.Background(), controlReplyTimeout)
	defer pcancel()
	if _, err := ctl.run(pctx, []string{"display-message", "-p", "ok"}); err != nil {
		ctl.close()
		<-ctl.done
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, c.wrap(args, msg, err)
	}
	return ctl, nil
}

// read parses the client's output until it ends.
func (ctl *control) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var (
		in    bool
		mine  bool
		guard string // "<time> <number>" of the open block
		lines []string
	)
	for sc.Scan() {
		line := sc.Text()
		if !in {
			if rest, ok := strings.CutPrefix(line, "%begin "); ok {
				f := strings.Fields(rest)
				if len(f) == 3 {
					in, guard, mine, lines = true, f[0]+" "+f[1], f[2] == "1", nil
				}
			}
			if changeNotification(line) && ctl.notify != nil {
				ctl.notify()
			}
			continue
		}
		if end, ok := blockEnd(line, guard); ok {
			in = false
			if mine {
				select {
				case ctl.replies <- reply{lines: lines, err: end == "%error"}:
				default:
					// Nobody asked (a command abandoned by a cancelled
					// context closes the connection, so this is rare): drop.
				}
			}
			continue
		}
		lines = append(lines, line)
	}
}

// changeNotification reports a notification that says panes, windows or
// sessions changed. Control mode reports pane changes only for the attached
// session (terminal-facts.md 1.7), so it backs up the doorbell, whose
// wait-for latch tmux 3.3a clears again on a second signal sent while no
// waiter listens.
func changeNotification(line string) bool {
	for _, p := range []string{
		"%layout-change ", "%window-add ", "%window-close ", "%unlinked-window-add ", "%unlinked-window-close ",
		"%sessions-changed", "%session-window-changed ", "%window-pane-changed ", "%client-session-changed ",
	} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// blockEnd reports whether line closes the block opened with guard; output
// lines may start with '%' too (pane ids), so the guard must match.
func blockEnd(line, guard string) (string, bool) {
	for _, kw := range []string{"%end ", "%error "} {
		if rest, ok := strings.CutPrefix(line, kw); ok && strings.HasPrefix(rest, guard+" ") {
			return strings.TrimSpace(kw), true
		}
	}
	return "", false
}

func (ctl *control) gone() bool {
	select {
	case <-ctl.done:
		return true
	default:
		return false
	}
}

func (ctl *control) close() {
	ctl.stop()
}

// run sends one command and waits for its reply. A cancelled wait closes
// the connection, because its reply would otherwise answer the next command.
func (ctl *control) run(ctx context.Context, args []string) (string, error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if ctl.gone() {
		return "", errControlGone
	}
	// Drain a reply left by an earlier command nobody waited for.
	select {
	case <-ctl.replies:
	default:
	}
	if _, err := io.WriteString(ctl.stdin, quoteCommand(args)+"\n"); err != nil {
		return "", errControlGone
	}
	select {
	case r := <-ctl.replies:
		out := strings.Join(r.lines, "\n")
		if len(r.lines) > 0 {
			out += "\n"
		}
		if r.err {
			return "", &replyError{msg: strings.TrimSpace(out)}
		}
		return out, nil
	case <-ctl.done:
		return "", errControlGone
	case <-ctx.Done():
		ctl.close()
		return "", ctx.Err()
	}
}

// replyError is a %error reply; its text is tmux's message.
type replyError struct{ msg string }

func (e *replyError) Error() string { return e.msg }
func (e *replyError) Unwrap() error { return errCommand }

// quoteCommand turns argv into a tmux command line. Each argument that is
// not plainly safe is single-quoted: inside single quotes tmux expands
// nothing (no $VAR, no ~, no #comment, no ';'), and a quote is written as
// '\” as in sh.
func quoteCommand(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteArg(a))
	}
	return b.String()
}

func quoteArg(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,=/+") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
