package terminal

import (
	"strconv"
	"strings"
)

// candidate is a multiplexer the environment names, with the test that
// recognises its process among our ancestors.
type candidate struct {
	ov      Overlay
	matches func(p procStat) bool
}

// candidates lists the multiplexers named by env, innermost-first in the
// order terminal-facts.md proposes (tmux, WezTerm, kitty). That order only
// decides when the process tree cannot; the process tree decides otherwise.
func candidates(env func(string) string) []candidate {
	var cs []candidate
	if socket, pid, session, ok := parseTMUX(env("TMUX")); ok {
		pane := cleanValue(env("TMUX_PANE"))
		cs = append(cs, candidate{
			ov: Overlay{
				Kind: "tmux", Socket: socket, PID: pid, Session: session, Pane: pane,
			},
			// The pane's session leader is a child of the server, whose pid
			// TMUX names.
			matches: func(p procStat) bool { return p.PID == pid },
		})
	}
	if pane := env("WEZTERM_PANE"); pane != "" {
		cs = append(cs, candidate{
			ov: Overlay{
				Kind: "wezterm", Socket: cleanValue(env("WEZTERM_UNIX_SOCKET")), Pane: cleanValue(pane),
			},
			// wezterm-gui or wezterm-mux-server (comm is cut at 15 bytes); no
			// variable carries its pid.
			matches: func(p procStat) bool { return strings.HasPrefix(p.Comm, "wezterm") },
		})
	}
	if win := env("KITTY_WINDOW_ID"); win != "" {
		pid, _ := strconv.Atoi(env("KITTY_PID"))
		cs = append(cs, candidate{
			ov: Overlay{
				Kind: "kitty", Socket: cleanValue(env("KITTY_LISTEN_ON")), PID: max(pid, 0), Pane: cleanValue(win),
			},
			// A kitty window's shell is a child of kitty (KITTY_PID); kitty
			// before 0.20 did not set KITTY_PID.
			matches: func(p procStat) bool {
				if pid > 0 {
					return p.PID == pid
				}
				return p.Comm == "kitty"
			},
		})
	}
	return cs
}

// parseTMUX splits $TMUX, "<socket path>,<server pid>,<session id number>".
// The socket path may itself contain commas, so it is split from the right.
func parseTMUX(v string) (socket string, pid int, session string, ok bool) {
	i := strings.LastIndexByte(v, ',')
	if i < 0 {
		return "", 0, "", false
	}
	j := strings.LastIndexByte(v[:i], ',')
	if j <= 0 {
		return "", 0, "", false
	}
	pid, err := strconv.Atoi(v[j+1 : i])
	if err != nil || pid <= 0 {
		return "", 0, "", false
	}
	if n, err := strconv.Atoi(v[i+1:]); err == nil && n >= 0 {
		session = "$" + strconv.Itoa(n)
	}
	return cleanValue(v[:j]), pid, session, true
}

// innermost picks the multiplexer this process runs in directly. Outer ids
// leak into inner terminals (every tmux pane carries the KITTY_WINDOW_ID of
// the kitty window that started the server, and a kitty started from a tmux
// pane carries TMUX), so the environment alone cannot tell; the process tree
// can: the multiplexer whose process is the nearest ancestor is the
// innermost. For tmux the pane is then checked against our pane's session
// leader (terminal-facts.md 2.4: pane_pid == sid): the leader's own
// TMUX_PANE names it, and when /proc does not show that, the server is asked
// for the pane whose process is the leader (list membership: a
// `display -t %dead` would succeed silently). Reading /proc costs
// microseconds; a tmux client call 3 to 100 ms, depending on load. When no
// ancestor matches, the first candidate is returned, confirmed by tmux if it
// knows our leader or tty, else unverified.
func innermost(sys system, env func(string) string, chain *lineage, tty string, leader int) *Overlay {
	cs := candidates(env)
	if len(cs) == 0 {
		return nil
	}
	// chain.at(0) is this process, never a multiplexer.
	for i := 1; ; i++ {
		p, ok := chain.at(i)
		if !ok {
			break
		}
		for _, c := range cs {
			if !c.matches(p) {
				continue
			}
			ov := c.ov
			ov.VerifiedBy = VerifiedByProcessTree
			if ov.Kind == "tmux" {
				// The server's child in our line is the pane's session
				// leader, even when we are not in its session; tmux started
				// it with TMUX_PANE set to the pane's id.
				child, _ := chain.at(i - 1)
				if pane, ok := sys.processEnv(child.PID, "TMUX_PANE"); ok && pane != "" {
					ov.Pane = cleanValue(pane)
					ov.VerifiedBy = VerifiedByPaneEnviron
				} else {
					confirmTmux(sys, &ov, child.PID, tty)
				}
			}
			return finish(&ov)
		}
	}
	ov := cs[0].ov
	if ov.Kind == "tmux" {
		confirmTmux(sys, &ov, leader, tty)
	}
	return finish(&ov)
}

// confirmTmux asks the server for the pane whose process is paneLeader, or
// failing that whose tty is ours, and takes the pane id from its answer.
func confirmTmux(sys system, ov *Overlay, paneLeader int, tty string) {
	if paneLeader <= 0 && tty == "" {
		return
	}
	panes, err := sys.tmuxPanes(ov.Socket)
	if err != nil {
		return
	}
	for _, p := range panes {
		if (paneLeader > 0 && p.PID == paneLeader) || (tty != "" && p.TTY == tty) {
			ov.Pane = p.ID
			ov.VerifiedBy = VerifiedByTmux
			return
		}
	}
}

func finish(ov *Overlay) *Overlay {
	switch ov.Kind {
	case "tmux":
		ov.ID = "tmux:" + ov.Socket + ":" + strconv.Itoa(ov.PID) + ":" + ov.Pane
	case "wezterm":
		ov.ID = "wezterm:" + ov.Socket + ":" + ov.Pane
	case "kitty":
		where := ov.Socket
		if ov.PID > 0 {
			where = strconv.Itoa(ov.PID)
		}
		ov.ID = "kitty:" + where + ":" + ov.Pane
	}
	return ov
}

// parseTmuxPanes parses `list-panes -F '#{pane_id} #{pane_pid} #{pane_tty}'`.
func parseTmuxPanes(out string) []tmuxPane {
	var panes []tmuxPane
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		pid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		panes = append(panes, tmuxPane{ID: f[0], PID: pid, TTY: f[2]})
	}
	return panes
}
