package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) jumpCommand() *cobra.Command {
	var client string
	c := &cobra.Command{
		Use:   "jump <pane | session id | terminal key>",
		Short: "Show a pane on your tmux client: its session, window and pane become current",
		Long: `Show a pane on your tmux client. The target is a pane id (%3), a terminal
key (pts-3) or an id prefix of the session a pane's agent or breadcrumb names.
The client moved is --client, else the one showing this pane's session when run
inside tmux, else the most recently active one; control-mode clients are never
moved.`,
		Args: exactArgs(1, "one target: a pane id, a session id or a terminal key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			act, mux, err := a.actions(cmd)
			if err != nil {
				return err
			}
			defer mux.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			p, moved, err := act.Jump(ctx, args[0], client, callerPane(tmuxServerOf(cmd)))
			if err != nil {
				return err
			}
			fmt.Fprintf(a.out, "%s (%s, window %d) on client %s\n", p.ID, p.MuxSessionName, p.WindowIndex, moved)
			return nil
		},
	}
	c.Flags().StringVar(&client, "client", "", "the client to move (as tmux list-clients names it)")
	addTmuxFlag(c)
	return c
}
