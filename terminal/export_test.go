package terminal

import "fmt"

// TmuxPanes exposes the tmux back end of detection to the real-tmux tests:
// "<pane id> <pane pid> <pane tty>" per pane of the server at socket.
func TmuxPanes(socket string) ([]string, error) {
	panes, err := hostSystem().tmuxPanes(socket)
	var rows []string
	for _, p := range panes {
		rows = append(rows, fmt.Sprintf("%s %d %s", p.ID, p.PID, p.TTY))
	}
	return rows, err
}
