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
		Short: "Show a pane on your tmux client, or focus a kitty window: its session, window and pane become current",
		Long: `Show a pane on your tmux client. The target is a pane id (%3), a terminal
key (pts-3) or an id prefix of the session a pane's agent or breadcrumb names.
The client moved is --client, else the one showing this pane's session when run
inside tmux, else the most recently active one; control-mode clients are never
moved.

kitty: outside tmux, in a kitty whose KITTY_LISTEN_ON is set (or with --kitty
or --kitty-socket ADDR), the target is a kitty window (its id, terminal key or
session): its tab becomes the active one, and its OS window is raised.`,
		Args: exactArgs(1, "one target: a pane id, a session id or a terminal key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			act, b, err := a.muxActions(cmd)
			if err != nil {
				return err
			}
			defer b.mux.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			p, moved, err := act.Jump(ctx, args[0], client, b.here)
			if err != nil {
				return kittyError(err)
			}
			if b.kitty {
				fmt.Fprintf(a.out, "kitty window %s (%s, tab %d) focused\n", p.ID, moved, p.WindowIndex)
				return nil
			}
			fmt.Fprintf(a.out, "%s (%s, window %d) on client %s\n", p.ID, p.MuxSessionName, p.WindowIndex, moved)
			return nil
		},
	}
	c.Flags().StringVar(&client, "client", "", "the client to move (as tmux list-clients names it)")
	addTmuxFlag(c)
	addKittyFlags(c)
	return c
}
