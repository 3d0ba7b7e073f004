package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) closeCommand() *cobra.Command {
	var wait time.Duration
	c := &cobra.Command{
		Use:   "close <pane | session id | terminal key>",
		Short: "Ask the agent in a tmux pane or kitty window to quit cleanly (its shell stays)",
		Args:  exactArgs(1, "one target: a pane id, a session id or a terminal key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			act, b, err := a.muxActions(cmd)
			if err != nil {
				return err
			}
			defer b.mux.Close()
			ctx, cancel := context.WithTimeout(context.Background(), wait+15*time.Second)
			defer cancel()
			p, err := act.Close(ctx, args[0], wait)
			if err != nil {
				return kittyError(err)
			}
			fmt.Fprintf(a.out, "closed the agent in %s\n", p.ID)
			return nil
		},
	}
	c.Flags().DurationVar(&wait, "wait", 5*time.Second, "how long the agent has to quit before it is interrupted")
	addTmuxFlag(c)
	addKittyFlags(c)
	return c
}
