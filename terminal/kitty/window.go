package kitty

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Window is one kitty window (a pane, in tmux's words).
type Window struct {
	ID         int    `json:"id"`
	TabID      int    `json:"tabId"`
	OSWindowID int    `json:"osWindowId"`
	Title      string `json:"title"`
	TabTitle   string `json:"tabTitle"`
	// PID is the process kitty started in the window, the session leader of
	// its tty (terminal-facts.md 4: ls "pid" == the shell's sid).
	PID int `json:"pid"`
	// TTY is the window's terminal, "/dev/pts/N", read from PID's
	// /proc/<pid>/stat (tty_nr); "" when PID is gone, is no longer a session
	// leader (its pid was reused), or /proc is not there (not Linux).
	TTY string `json:"tty"`
	// KittyPID is PID's parent, kitty itself; 0 when TTY is "".
	KittyPID int `json:"kittyPid,omitempty"`
	// Cwd is the working directory of the window's foreground process, as
	// kitty reports it.
	Cwd     string   `json:"cwd"`
	Cmdline []string `json:"cmdline"`
	// Foreground is the foreground process group of the window's tty.
	Foreground []Process `json:"foreground"`
	// Env is the environment kitty gave the window, only the variables that
	// differ from kitty's own (0.26), or from the other windows' (current
	// kitty). It is left out of JSON: launch environments carry credentials.
	Env map[string]string `json:"-"`
	// Active: the window is the one its OS window shows: the active window
	// of the active tab.
	Active bool `json:"active"`
	// Focused: Active, and its OS window has the keyboard focus.
	Focused bool `json:"focused"`
	// AtPrompt: shell integration says the shell waits at its prompt
	// (current kitty only; always false on 0.26).
	AtPrompt bool `json:"atPrompt,omitempty"`
	// Lines and Columns are the window's size in cells.
	Lines   int `json:"lines"`
	Columns int `json:"columns"`
}

// Process is a process in a window's foreground.
type Process struct {
	PID     int      `json:"pid"`
	Cmdline []string `json:"cmdline"`
	Cwd     string   `json:"cwd,omitempty"`
}

// Command is the name of what runs in the window, like tmux's
// pane_current_command: the base name of the program of the last
// foreground process other than the window's own (what its shell runs),
// else of the window's own process.
func (w Window) Command() string {
	for i := len(w.Foreground) - 1; i >= 0; i-- {
		if p := w.Foreground[i]; p.PID != w.PID && len(p.Cmdline) > 0 {
			return filepath.Base(p.Cmdline[0])
		}
	}
	if len(w.Cmdline) > 0 {
		return filepath.Base(w.Cmdline[0])
	}
	return ""
}

// The ls reply. Field names differ across versions; pointers tell a missing
// field from false.
type (
	lsOSWindow struct {
		ID        int     `json:"id"`
		IsFocused bool    `json:"is_focused"`
		Tabs      []lsTab `json:"tabs"`
	}
	lsTab struct {
		ID        int    `json:"id"`
		Title     string `json:"title"`
		IsFocused bool   `json:"is_focused"`
		// is_active_tab (0.26), is_active (0.3x and later).
		IsActiveTab *bool      `json:"is_active_tab"`
		IsActive    *bool      `json:"is_active"`
		Windows     []lsWindow `json:"windows"`
	}
	lsWindow struct {
		ID         int               `json:"id"`
		Title      string            `json:"title"`
		PID        int               `json:"pid"`
		Cwd        string            `json:"cwd"`
		Cmdline    []string          `json:"cmdline"`
		Env        map[string]string `json:"env"`
		Foreground []lsProcess       `json:"foreground_processes"`
		IsFocused  bool              `json:"is_focused"`
		// is_active_window (0.26), is_active (0.3x and later).
		IsActiveWindow *bool `json:"is_active_window"`
		IsActive       *bool `json:"is_active"`
		AtPrompt       bool  `json:"at_prompt"`
		Lines          int   `json:"lines"`
		Columns        int   `json:"columns"`
	}
	lsProcess struct {
		PID     int      `json:"pid"`
		Cmdline []string `json:"cmdline"`
		Cwd     string   `json:"cwd"`
	}
)

// either is the value of whichever of two alternative fields is present.
func either(a, b *bool, fallback bool) bool {
	switch {
	case a != nil:
		return *a
	case b != nil:
		return *b
	}
	return fallback
}

// decodeList flattens an ls reply into windows, OS window by OS window,
// tab by tab, in kitty's order.
func decodeList(data []byte) ([]Window, error) {
	var osws []lsOSWindow
	if err := json.Unmarshal(data, &osws); err != nil {
		return nil, fmt.Errorf("decode ls: %w", err)
	}
	var out []Window
	for _, o := range osws {
		for _, t := range o.Tabs {
			// Without either field (kitty before 0.14) the focused tab is the
			// best guess at the active one.
			tabActive := either(t.IsActive, t.IsActiveTab, t.IsFocused)
			for _, w := range t.Windows {
				active := tabActive && either(w.IsActive, w.IsActiveWindow, w.IsFocused)
				win := Window{
					ID: w.ID, TabID: t.ID, OSWindowID: o.ID, Title: w.Title, TabTitle: t.Title,
					PID: w.PID, Cwd: w.Cwd, Cmdline: w.Cmdline, Env: w.Env,
					Active: active,
					// A window's is_focused is true for the active window of an
					// inactive tab of the focused OS window (0.26); the tab's
					// is_focused is not.
					Focused:  active && o.IsFocused && t.IsFocused && w.IsFocused,
					AtPrompt: w.AtPrompt, Lines: w.Lines, Columns: w.Columns,
				}
				for _, p := range w.Foreground {
					win.Foreground = append(win.Foreground, Process(p))
				}
				out = append(out, win)
			}
		}
	}
	return out, nil
}

// fillProc sets TTY and KittyPID from /proc/<pid>/stat. The window's
// process must still be a session leader: a pid reused by an unrelated
// process would name the wrong tty.
func fillProc(w *Window) {
	if w.PID <= 0 {
		return
	}
	st, err := readStat(w.PID)
	if err != nil || st.sid != w.PID {
		return
	}
	if tty, ok := ptsPath(st.ttyNr); ok {
		w.TTY = tty
	} else if link, err := os.Readlink("/proc/" + strconv.Itoa(w.PID) + "/fd/0"); err == nil &&
		(strings.HasPrefix(link, "/dev/pts/") || strings.HasPrefix(link, "/dev/tty")) && link != "/dev/tty" {
		// Not a Unix98 pty (never the case for kitty): take stdin's device.
		w.TTY = link
	}
	if w.TTY != "" {
		w.KittyPID = st.ppid
	}
}

// stat holds the fields of /proc/<pid>/stat used here.
type stat struct {
	ppid, sid int
	ttyNr     uint64
}

func readStat(pid int) (stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	return parseStat(string(data))
}

// parseStat parses /proc/<pid>/stat; comm, the second field, may hold spaces
// and parentheses, so the fields are counted from the last ')'.
func parseStat(s string) (stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("malformed /proc stat %.40q", s)
	}
	// state(3) ppid(4) pgrp(5) session(6) tty_nr(7): field n is f[n-3].
	f := strings.Fields(s[i+1:])
	if len(f) < 5 {
		return stat{}, fmt.Errorf("malformed /proc stat %.40q", s)
	}
	ppid, err1 := strconv.Atoi(f[1])
	sid, err2 := strconv.Atoi(f[3])
	tty, err3 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return stat{}, fmt.Errorf("malformed /proc stat %.40q", s)
	}
	return stat{ppid: ppid, sid: sid, ttyNr: uint64(uint32(tty))}, nil
}

// ptsPath names a Unix98 pty slave from its device number in the kernel's
// new_encode_dev form (tty_nr): majors 136 to 143 are /dev/pts.
func ptsPath(dev uint64) (string, bool) {
	major := uint32((dev>>8)&0xfff) | uint32((dev>>32)&^0xfff)
	minor := uint32(dev&0xff) | uint32((dev>>12)&^0xff)
	if major < 136 || major > 143 {
		return "", false
	}
	return "/dev/pts/" + strconv.FormatUint(uint64(major-136)*256+uint64(minor), 10), true
}
