package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/xcsh-dev/xcsh/terminal"
)

// proc is what the engine reads of /proc/<pid>/stat.
type proc struct {
	PID       int
	Comm      string
	State     byte // 'R', 'S', 'Z', ...
	PPID      int
	PGRP      int
	SID       int
	TPGID     int    // the foreground process group of its terminal
	StartTime uint64 // clock ticks since boot
}

var errStat = errors.New("unexpected /proc stat format")

// readProc reads /proc/<pid>/stat; comm may hold spaces and parentheses, so
// the fields after it are taken from after the last ')'.
func readProc(pid int) (proc, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, err
	}
	s := string(data)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return proc{}, errStat
	}
	f := strings.Fields(s[closing+1:])
	if len(f) < 20 {
		return proc{}, errStat
	}
	// field n (1-based, as in proc(5)) is f[n-3]
	num := func(n int) int { v, _ := strconv.Atoi(f[n-3]); return v }
	start, _ := strconv.ParseUint(f[22-3], 10, 64)
	return proc{
		PID: pid, Comm: s[open+1 : closing], State: f[0][0],
		PPID: num(4), PGRP: num(5), SID: num(6), TPGID: num(8), StartTime: start,
	}, nil
}

// running reports whether pid runs and, when start is not 0, started then. A
// zombie does not run: kill(pid, 0) still succeeds for one, which would keep
// a closed pane's agent "alive" until its parent reaps it.
func running(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	p, err := readProc(pid)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false
		}
		// No /proc (not Linux): ask the kernel.
		err := syscall.Kill(pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	if p.State == 'Z' || p.State == 'X' {
		return false
	}
	return start == 0 || p.StartTime == start
}

var bootID = sync.OnceValue(func() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
})

// terminalKey is the breadcrumb key of a terminal on tty, derived as package
// terminal derives it: /dev/pts/3 -> pts-3.
func terminalKey(tty string) string {
	rest, ok := strings.CutPrefix(tty, "/dev/")
	if !ok || rest == "" {
		return ""
	}
	return terminal.SanitizeKeyPart(strings.ReplaceAll(rest, "/", "-"))
}

// terminalToken is the generation token of the terminal whose session leader
// is leader, in package terminal's format: "sid=<pid>:<start>;boot=<id>".
func terminalToken(leader int) string {
	if leader <= 0 {
		return ""
	}
	t := "sid=" + strconv.Itoa(leader)
	if p, err := readProc(leader); err == nil && p.SID == leader && p.State != 'Z' {
		t += ":" + strconv.FormatUint(p.StartTime, 10)
	} else {
		return ""
	}
	if b := bootID(); b != "" {
		t += ";boot=" + b
	}
	return t
}

// token is a parsed generation token.
type token struct {
	leader   int
	start    uint64 // 0 when the token is the weak form without it
	boot     string
	parsedOK bool
}

func parseToken(s string) token {
	var t token
	for part := range strings.SplitSeq(s, ";") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "sid":
			pid, start, hasStart := strings.Cut(v, ":")
			n, err := strconv.Atoi(pid)
			if err != nil {
				return token{}
			}
			t.leader = n
			if hasStart {
				st, err := strconv.ParseUint(start, 10, 64)
				if err != nil {
					return token{}
				}
				t.start = st
			}
			t.parsedOK = true
		case "boot":
			t.boot = v
		}
	}
	return t
}

// gone reports whether the terminal that wrote token s certainly no longer
// exists: another boot, or its session leader no longer runs. A token that
// cannot be parsed is never judged gone.
func tokenGone(s string) bool {
	t := parseToken(s)
	if !t.parsedOK {
		return false
	}
	if b := bootID(); t.boot != "" && b != "" && t.boot != b {
		return true
	}
	return !running(t.leader, t.start)
}

// shells are the programs that count as a shell at its prompt.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true, "ksh": true, "mksh": true,
	"ash": true, "tcsh": true, "csh": true, "nu": true, "elvish": true, "yash": true, "oksh": true,
}

// Foreground kinds of a pane.
const (
	FgShell   = "shell"   // the pane's shell is in the foreground: at its prompt
	FgAgent   = "agent"   // an xcsh agent runs in the foreground
	FgProgram = "program" // another program runs
	FgUnknown = ""        // not found out (no /proc, pane gone)
)

// foreground classifies what runs in the foreground of the terminal whose
// session leader is leader. tpgid, read from the leader's stat, is the
// terminal's foreground process group (terminal-facts.md section 3); its
// leader is a shell at its prompt when it is a shell with no child in that
// group (`sh -c 'sleep 9'` runs sleep in its own group, an interactive shell
// puts every job in a group of its own). Only /proc is read, a few small
// files per pane; agentPIDs are the live agents' pids.
func foreground(leader int, agentPIDs map[int]bool) (kind, comm string) {
	p, err := readProc(leader)
	if err != nil || p.TPGID <= 0 {
		return FgUnknown, ""
	}
	fg := p
	if p.TPGID != p.PGRP || p.PID != p.PGRP {
		if fg, err = readProc(p.TPGID); err != nil {
			return FgProgram, ""
		}
	}
	// Walk down the foreground group: the first child in the group is what
	// the shell (or wrapper) waits for.
	for range 8 {
		if agentPIDs[fg.PID] {
			return FgAgent, fg.Comm
		}
		child, ok := childInGroup(fg.PID, p.TPGID)
		if !ok {
			break
		}
		fg = child
	}
	if agentPIDs[fg.PID] {
		return FgAgent, fg.Comm
	}
	if fg.PID == p.TPGID && shells[strings.TrimPrefix(fg.Comm, "-")] {
		return FgShell, fg.Comm
	}
	return FgProgram, fg.Comm
}

// childInGroup returns a child of pid in process group pgrp.
func childInGroup(pid, pgrp int) (proc, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return proc{}, false
	}
	for f := range strings.FieldsSeq(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		if c, err := readProc(n); err == nil && c.PGRP == pgrp && c.State != 'Z' {
			return c, true
		}
	}
	return proc{}, false
}

// shQuote quotes s for a POSIX shell (and fish): safe words stay as they
// are, anything else is single-quoted with ' written as '\”.
func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:=/+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shJoin quotes and joins argv into one command line.
func shJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shQuote(a)
	}
	return strings.Join(q, " ")
}

// writeFileAtomic writes data to path by rename.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
