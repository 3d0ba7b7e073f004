package terminal

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Identity of the terminal this process runs in.
type Identity struct {
	// Key is the breadcrumb file name: "pts-3", "kitty-7", "tmux-%3", ...,
	// always sanitised (see SanitizeKeyPart); "" when there is none.
	Key string `json:"key"`
	// Rule names the rule that gave Key: "tty", "KITTY_WINDOW_ID",
	// "TMUX_PANE", "TERM_SESSION_ID", "WT_SESSION", or "none".
	Rule string `json:"rule"`
	// TTY is the terminal device, e.g. "/dev/pts/3"; "" when none was found.
	TTY string `json:"tty"`
	// TTYFrom says how TTY was found: "stdin", "stdout", "stderr",
	// "/proc/self/stat" or "/dev/tty"; "" when it was not.
	TTYFrom string `json:"ttyFrom"`
	// Token is the generation token, "sid=<leader pid>:<leader start time in
	// clock ticks>;boot=<boot id>"; "" without a tty or when the tty's
	// session leader was not found. When the leader has exited its start
	// time is unknown and the token is the weaker "sid=<pid>;boot=<boot id>".
	Token string `json:"token"`
	// Leader is the pid of the tty's session leader (the shell a tmux pane or
	// kitty window started); 0 without a tty or when it was not found.
	Leader int `json:"leader"`
	// Overlay is the innermost multiplexer; nil when the environment names
	// none.
	Overlay *Overlay `json:"overlay"`
}

// Overlay is the multiplexer-native identity of the terminal.
type Overlay struct {
	// Kind is "tmux", "wezterm" or "kitty".
	Kind string `json:"kind"`
	// ID is the overlay as one string: "tmux:<socket>:<server pid>:<pane>",
	// "wezterm:<socket>:<pane>", "kitty:<kitty pid or listen address>:<window>".
	ID string `json:"id"`
	// Socket is the tmux server socket path (from TMUX), kitty's
	// KITTY_LISTEN_ON address or WEZTERM_UNIX_SOCKET.
	Socket string `json:"socket,omitempty"`
	// PID is the tmux server pid (from TMUX) or KITTY_PID.
	PID int `json:"pid,omitempty"`
	// Session is the tmux session id ("$0") the pane was created in.
	Session string `json:"session,omitempty"`
	// Pane is the tmux pane ("%3"), kitty window or WezTerm pane id.
	Pane string `json:"pane"`
	// VerifiedBy says what confirmed the overlay, strongest first:
	//   - "pane environment" (tmux): the tmux server is the nearest
	//     multiplexer among our ancestors, and Pane is the TMUX_PANE the server
	//     gave the pane's session leader (its child in our line), read from
	//     /proc/<leader>/environ, so a stale or forged TMUX_PANE is corrected;
	//   - "tmux list-panes" (tmux): the server lists a pane whose process is
	//     our pane's session leader, or whose tty is ours; Pane is its answer;
	//   - "process tree": the multiplexer's process is an ancestor of this
	//     process and no nearer one is; Pane is taken from the environment;
	//   - "": taken from the environment alone; it may have leaked from an
	//     outer terminal.
	VerifiedBy string `json:"verifiedBy,omitempty"`
}

// Values of Overlay.VerifiedBy.
const (
	VerifiedByPaneEnviron = "pane environment"
	VerifiedByTmux        = "tmux list-panes"
	VerifiedByProcessTree = "process tree"
)

// Detect identifies the terminal of the running process from its fds 0, 1
// and 2, /proc and env (os.Getenv when nil). It reads a few /proc files and
// normally spawns no process; only when /proc cannot confirm a tmux pane does
// it run one `tmux list-panes`. The Identity is filled as far as possible
// even when err is not nil; err reports what could not be read.
func Detect(env func(string) string) (Identity, error) {
	if env == nil {
		env = os.Getenv
	}
	return detect(hostSystem(), env)
}

// system is what detection needs from the operating system; tests fake it.
type system interface {
	// fdTTY returns the terminal device open on fd, if any.
	fdTTY(fd int) (path string, dev uint64, ok bool)
	// stat reads /proc/<pid>/stat; pid 0 is this process.
	stat(pid int) (procStat, error)
	// devPath names the tty device dev (tty_nr encoding).
	devPath(dev uint64) (string, bool)
	// devTTY opens /dev/tty and asks for the real device (TIOCGDEV).
	devTTY() (path string, dev uint64, err error)
	// sessionLeader finds a live session leader whose controlling tty is dev.
	sessionLeader(dev uint64) int
	// bootID returns /proc/sys/kernel/random/boot_id.
	bootID() (string, error)
	// processEnv looks name up in /proc/<pid>/environ, the environment the
	// process was started with.
	processEnv(pid int, name string) (string, bool)
	// tmuxPanes lists the panes of the tmux server at socket.
	tmuxPanes(socket string) ([]tmuxPane, error)
}

// procStat holds the fields of /proc/<pid>/stat detection uses.
type procStat struct {
	PID       int
	Comm      string
	PPID      int
	SID       int
	TTYNr     uint64 // controlling tty, encoded as the kernel's new_encode_dev; 0 for none
	StartTime uint64 // clock ticks since boot
}

// tmuxPane is one row of `tmux list-panes -a`.
type tmuxPane struct {
	ID  string // "%3"
	PID int    // pane_pid, the pane's session leader
	TTY string // "/dev/pts/3"
}

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 64

func detect(sys system, env func(string) string) (Identity, error) {
	var errs []error
	self, err := sys.stat(0)
	if err != nil {
		errs = append(errs, fmt.Errorf("detect terminal: %w", err))
	}
	id := Identity{Rule: "none"}

	var dev uint64
	id.TTY, dev, id.TTYFrom = findTTY(sys, self)

	chain := &lineage{sys: sys}
	if err == nil {
		chain.procs = []procStat{self}
	}
	if id.TTY != "" {
		id.Leader = findLeader(sys, chain, dev)
		boot, err := sys.bootID()
		if err != nil {
			errs = append(errs, fmt.Errorf("detect terminal: %w", err))
		}
		id.Token = token(sys, id.Leader, boot)
	}
	id.Key, id.Rule = key(id.TTY, env)
	id.Overlay = innermost(sys, env, chain, id.TTY, id.Leader)
	return id, errors.Join(errs...)
}

// findTTY tries, in order, fds 0, 1, 2 (what TypeScript xcsh reads is fd 0),
// the controlling tty in /proc/self/stat, and /dev/tty.
func findTTY(sys system, self procStat) (path string, dev uint64, from string) {
	for fd, name := range []string{"stdin", "stdout", "stderr"} {
		if p, d, ok := sys.fdTTY(fd); ok {
			return p, d, name
		}
	}
	if self.TTYNr != 0 {
		if p, ok := sys.devPath(self.TTYNr); ok {
			return p, self.TTYNr, "/proc/self/stat"
		}
	}
	if p, d, err := sys.devTTY(); err == nil {
		return p, d, "/dev/tty"
	}
	return "", 0, ""
}

// lineage is this process and its ancestors, read from /proc as far as
// they are needed: most detections stop at the process itself or its
// parent, and a deep process tree costs one /proc read per level.
type lineage struct {
	sys   system
	procs []procStat // procs[0] is this process, procs[i+1] the parent of procs[i]
	end   bool       // no more ancestors: pid 1 reached, unreadable, or too deep
}

// at returns the i-th process up the tree, reading it if needed.
func (l *lineage) at(i int) (procStat, bool) {
	for len(l.procs) <= i && !l.end {
		if len(l.procs) == 0 || len(l.procs) >= maxAncestors {
			l.end = true
			break
		}
		last := l.procs[len(l.procs)-1]
		if last.PPID <= 0 {
			l.end = true
			break
		}
		next, err := l.sys.stat(last.PPID)
		if err != nil {
			l.end = true
			break
		}
		l.procs = append(l.procs, next)
	}
	if i < len(l.procs) {
		return l.procs[i], true
	}
	return procStat{}, false
}

// findLeader returns the session leader of tty dev: the session of the
// nearest process in chain whose controlling tty is dev, else whatever live
// session leader owns dev (a tty found on an fd but not our controlling
// tty, as after setsid).
func findLeader(sys system, chain *lineage, dev uint64) int {
	for i := 0; ; i++ {
		p, ok := chain.at(i)
		if !ok {
			break
		}
		if p.TTYNr == dev && p.SID > 0 {
			return p.SID
		}
	}
	return sys.sessionLeader(dev)
}

// token formats the generation token of the terminal whose session leader is
// leader.
func token(sys system, leader int, boot string) string {
	if leader <= 0 {
		// Without a leader nothing tells two terminals on the same tty apart;
		// a token of the boot id alone would only pretend to.
		return ""
	}
	t := "sid=" + strconv.Itoa(leader)
	// The leader must still be alive and still be a session leader: a pid
	// reused by an unrelated process would give a wrong start time.
	if st, err := sys.stat(leader); err == nil && st.SID == leader {
		t += ":" + strconv.FormatUint(st.StartTime, 10)
	}
	if boot != "" {
		t += ";boot=" + boot
	}
	return t
}

// keyRules are TypeScript xcsh's environment rules, in its order.
var keyRules = []struct{ env, prefix string }{
	{"KITTY_WINDOW_ID", "kitty-"},
	{"TMUX_PANE", "tmux-"},
	{"TERM_SESSION_ID", "apple-"},
	{"WT_SESSION", "wt-"},
}

// key derives the breadcrumb key as TypeScript xcsh does: the tty path
// without /dev/ and with '/' replaced by '-', else the first non-empty
// environment id with its prefix.
func key(tty string, env func(string) string) (key, rule string) {
	if rest, ok := strings.CutPrefix(tty, "/dev/"); ok && rest != "" {
		return SanitizeKeyPart(strings.ReplaceAll(rest, "/", "-")), "tty"
	}
	for _, r := range keyRules {
		if v := env(r.env); v != "" {
			return r.prefix + SanitizeKeyPart(v), r.env
		}
	}
	return "", "none"
}
