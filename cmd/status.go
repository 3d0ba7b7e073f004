package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/supervisor"
)

func (a *app) statusCommand() *cobra.Command {
	var asJSON, forTmux bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Agent counts per state (e.g. 2 waiting · 3 busy) from the supervisor's snapshot; no tmux call",
		Long: `Print how many agents wait for you, work and idle, from the snapshot file a
running ` + "`xcsh supervise`" + ` keeps: cheap enough for a status bar that runs it every
few seconds. --tmux prints it with tmux colours; --json prints the snapshot.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			server := ""
			if cmd.Flags().Changed("tmux-socket") {
				if mux, err := supervisor.NewTmux(tmuxServerOf(cmd), nil); err == nil {
					server = mux.Name()
				}
			}
			snap, err := supervisor.ReadSnapshot(supervisor.SnapshotDir(a.paths.Agent), server)
			if errors.Is(err, supervisor.ErrNoSnapshot) {
				if forTmux {
					return nil // an empty status segment, not an error in the bar
				}
				return &ExitError{Code: 1, Msg: err.Error()}
			}
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				return writeJSON(a.out, snap)
			case forTmux:
				fmt.Fprintln(a.out, tmuxStatus(snap))
			default:
				fmt.Fprintln(a.out, snap.CountLine())
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the snapshot as JSON")
	c.Flags().BoolVar(&forTmux, "tmux", false, "print for a tmux status bar, with colours")
	addTmuxFlag(c)
	return c
}

// tmuxColours are the status-bar colours of the states.
var tmuxColours = map[string]string{"waiting": "yellow", "busy": "cyan", "idle": "default", "starting": "default"}

// tmuxStatus is the count line with tmux style markup; '#' never comes
// from data here, the counts are numbers and the states fixed words.
func tmuxStatus(s supervisor.Snapshot) string {
	var parts []string
	for _, st := range supervisor.StateOrder {
		n := s.Counts[st]
		if n == 0 {
			continue
		}
		if col := tmuxColours[st]; col != "default" {
			parts = append(parts, fmt.Sprintf("#[fg=%s]%d %s#[default]", col, n, st))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " · ")
}
