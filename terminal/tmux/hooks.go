package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DoorbellHooks are the hooks that ring: every way a pane or window comes or
// goes, and every change of what a client shows. pane-exited fires when a
// program ends by itself, after-kill-pane on kill-pane (terminal-facts.md
// 1.6); window-renamed is left out on purpose: automatic-rename fires it on
// every command a shell runs. tmux 3.3a has no after- hook for
// respawn-pane, break-pane, join-pane or swap-pane; break and join link or
// unlink windows, and a respawned pane is seen at the next safety re-sync.
var DoorbellHooks = []string{
	"after-split-window", "after-new-window", "after-new-session", "after-kill-pane",
	"pane-exited", "pane-died", "window-linked", "window-unlinked",
	"session-created", "session-closed", "session-renamed",
	"window-pane-changed", "session-window-changed", "client-session-changed",
	"client-attached", "client-detached",
}

// HookIndexBase is the first array index the doorbell tries. Users index
// their hooks from 0; an index this high stays clear of them, and the
// doorbell moves up past any index already taken.
const HookIndexBase = 42000

// channelPrefix starts every doorbell channel: "xcsh-<pid>-<n>".
const channelPrefix = "xcsh-"

var doorbellSeq atomic.Int64

// ourHook matches a hook line of show-hooks that a doorbell installed:
// `after-kill-pane[42000] wait-for -S xcsh-123-1`.
var ourHook = regexp.MustCompile(`^([a-z-]+)\[(\d+)\] wait-for -S "?` + channelPrefix + `(\d+)-(\d+)"?$`)

// Doorbell is a set of hooks that ring a wait-for channel, and the waiter
// that listens to it.
type Doorbell struct {
	c       *Client
	channel string
	index   int
	ring    chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	rings   atomic.Int64
}

// InstallDoorbell sets the hooks at a private index and starts the waiter.
// Hooks left by doorbells of processes that no longer run are removed first;
// the user's own hooks are never touched.
func (c *Client) InstallDoorbell(ctx context.Context) (*Doorbell, error) {
	used, err := c.hookLines(ctx)
	if err != nil {
		return nil, err
	}
	taken := map[int]bool{}
	var stale [][]string
	for _, l := range used {
		name, idx, pid, ours := parseHookLine(l)
		if idx < 0 {
			continue
		}
		if ours && pid != os.Getpid() && !processRuns(pid) {
			stale = append(stale, []string{"set-hook", "-gu", fmt.Sprintf("%s[%d]", name, idx)})
			continue
		}
		taken[idx] = true
	}
	index := HookIndexBase
	for taken[index] {
		index++
	}
	channel := fmt.Sprintf("%s%d-%d", channelPrefix, os.Getpid(), doorbellSeq.Add(1))
	cmds := stale
	for _, h := range DoorbellHooks {
		cmds = append(cmds, []string{"set-hook", "-g", fmt.Sprintf("%s[%d]", h, index), "wait-for -S " + channel})
	}
	if err := c.RunBatch(ctx, cmds); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	d := &Doorbell{c: c, channel: channel, index: index, ring: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go d.wait(wctx)
	return d, nil
}

// parseHookLine reads `name[index] command`; idx is -1 for a line without an
// index. ours reports a doorbell's hook, installed by process pid.
func parseHookLine(l string) (name string, idx, pid int, ours bool) {
	if m := ourHook.FindStringSubmatch(l); m != nil {
		idx, _ = strconv.Atoi(m[2])
		pid, _ = strconv.Atoi(m[3])
		return m[1], idx, pid, true
	}
	open := strings.IndexByte(l, '[')
	closing := strings.IndexByte(l, ']')
	if open < 0 || closing < open {
		return "", -1, 0, false
	}
	n, err := strconv.Atoi(l[open+1 : closing])
	if err != nil {
		return "", -1, 0, false
	}
	return l[:open], n, 0, false
}

func processRuns(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// hookLines lists the global session and window hooks that are set.
func (c *Client) hookLines(ctx context.Context) ([]string, error) {
	var lines []string
	for _, scope := range []string{"-g", "-gw"} {
		out, err := c.Run(ctx, "show-hooks", scope)
		if err != nil {
			return nil, err
		}
		for l := range strings.SplitSeq(out, "\n") {
			if strings.Contains(l, "[") {
				lines = append(lines, l)
			}
		}
	}
	return lines, nil
}

// Hooks returns the global hooks that are set, one "name[index] command" a
// line, sorted as tmux prints them; tests compare it before and after.
func (c *Client) Hooks(ctx context.Context) (string, error) {
	lines, err := c.hookLines(ctx)
	return strings.Join(lines, "\n"), err
}

// RunBatch runs several commands: over the control connection one after the
// other, otherwise in one tmux process with the commands separated by ';'.
func (c *Client) RunBatch(ctx context.Context, cmds [][]string) error {
	if len(cmds) == 0 {
		return nil
	}
	if c.control() != nil {
		for _, cmd := range cmds {
			if _, err := c.Run(ctx, cmd...); err != nil {
				return err
			}
		}
		return nil
	}
	var args []string
	for i, cmd := range cmds {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, cmd...)
	}
	_, err := c.Run(ctx, args...)
	return err
}

// C rings (a value arrives) after hooks fired; rings coalesce, so one ring
// may stand for many changes and the receiver must look at everything.
func (d *Doorbell) C() <-chan struct{} { return d.ring }

// Channel is the wait-for channel the hooks ring.
func (d *Doorbell) Channel() string { return d.channel }

// Index is the hook array index in use.
func (d *Doorbell) Index() int { return d.index }

// Rings counts the rings heard.
func (d *Doorbell) Rings() int64 { return d.rings.Load() }

// waiterRetry is the pause after a waiter failed (the server went away).
const waiterRetry = time.Second

// wait runs `tmux wait-for <channel>` again and again: each return is a
// ring. A signal sent while no waiter runs is latched by tmux, so nothing is
// lost between two waiters.
func (d *Doorbell) wait(ctx context.Context) {
	defer close(d.done)
	for ctx.Err() == nil {
		cmd := d.c.command(ctx, "wait-for", d.channel)
		d.c.execs.Add(1)
		err := cmd.Run()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			// The server is gone or refused: tell the owner, then retry
			// slowly; it will notice on its own that panes are gone.
			d.notify()
			select {
			case <-ctx.Done():
				return
			case <-time.After(waiterRetry):
			}
			continue
		}
		d.rings.Add(1)
		d.notify()
	}
}

func (d *Doorbell) notify() {
	select {
	case d.ring <- struct{}{}:
	default:
	}
}

// Close removes the doorbell's hooks (only those) and stops the waiter.
func (d *Doorbell) Close() error {
	var err error
	d.once.Do(func() {
		d.cancel()
		<-d.done
		cmds := make([][]string, 0, len(DoorbellHooks))
		for _, h := range DoorbellHooks {
			cmds = append(cmds, []string{"set-hook", "-gu", fmt.Sprintf("%s[%d]", h, d.index)})
		}
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		if e := d.c.RunBatch(ctx, cmds); e != nil && !errors.Is(e, ErrNoServer) {
			err = e
		}
	})
	return err
}
