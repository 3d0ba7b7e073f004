// Package tmux is xcsh's tmux back end: it lists panes, spawns splits,
// windows and sessions, focuses a pane for the user's own client, checks
// liveness, captures and types into panes, and rings a doorbell when panes
// or windows change.
//
// Every call goes through one Client, which names the server explicitly
// (tmux -L name or -S path) and scrubs TMUX and TMUX_PANE from the child's
// environment, so a test's private server and the user's server are never
// confused. A long-running caller connects a control-mode client
// (Client.Connect) and its queries then cost no process at all; short-lived
// commands fork one tmux client per call.
//
// The doorbell (Doorbell) installs global hooks at a private array index that
// run `wait-for -S <channel>`; it never sets a hook without an index, which
// would clear the user's own hooks, and removes exactly its own on Close.
// Control mode alone cannot replace it: it reports no pane exits, and panes
// of sessions other than the attached one not at all (terminal-facts.md
// 1.6 and 1.7). tmux 3.3a answers a `wait-for` sent over control mode at
// once, so the waiter is a plain `tmux wait-for` process, one per ring.
package tmux
