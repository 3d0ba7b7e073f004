package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/supervisor"
)

func (a *app) superviseCommand() *cobra.Command {
	var printConfig, printKitty, stay bool
	c := &cobra.Command{
		Use:   "supervise",
		Short: "Run the supervisor without a screen: keep breadcrumbs fresh and the snapshot `xcsh status` reads",
		Long: `Run the supervisor engine without a screen, for a tmux config or a user service.
It watches the agent dir and the tmux server (hooks at a private index that it
removes on exit; the user's own hooks are never changed), keeps breadcrumbs
fresh and keeps the snapshot that ` + "`xcsh status`" + ` reads. It ends with the server
unless --stay. --print-tmux-config prints the lines to add to ~/.tmux.conf.

kitty: with --kitty (or --kitty-socket ADDR, or outside tmux in a kitty whose
KITTY_LISTEN_ON is set) it watches kitty instead; kitty sends no events, so its
windows are listed every 2 s and when an agent starts or stops.
--print-kitty-config prints the kitty.conf lines that turn kitty's remote
control on.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printConfig {
				a.printTmuxConfig()
				return nil
			}
			if printKitty {
				a.printKittyConfig()
				return nil
			}
			b, err := backendOf(cmd, nil)
			if err != nil {
				return err
			}
			mux := b.mux
			if b.kitty {
				// Once, to say what to add to kitty.conf when remote control
				// is off, rather than waiting for a kitty that cannot answer
				// (with --stay, it says so and waits).
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := mux.Start(ctx)
				cancel()
				if err != nil && !stay {
					return kittyError(err)
				} else if err != nil {
					fmt.Fprintln(a.err, kittyError(err))
				}
			}
			if s, err := supervisor.ReadSnapshot(supervisor.SnapshotDir(a.paths.Agent), mux.Name()); err == nil {
				fmt.Fprintf(a.err, "%s is already supervised (pid %d)\n", mux.Name(), s.Writer)
				return nil
			}
			e := supervisor.New(supervisor.Config{
				Paths: a.paths, Mux: mux, WriteSnapshot: true, ExitWithServer: !stay,
				OnError: func(err error) { fmt.Fprintln(a.err, "xcsh supervise:", err) },
			})
			ctx, cancel := signalContext()
			defer cancel()
			err = e.Run(ctx)
			if errors.Is(err, supervisor.ErrServerGone) {
				return nil
			}
			return err
		},
	}
	c.Flags().BoolVar(&printConfig, "print-tmux-config", false, "print the lines to add to ~/.tmux.conf and exit")
	c.Flags().BoolVar(&printKitty, "print-kitty-config", false, "print the lines to add to kitty.conf and exit")
	c.Flags().BoolVar(&stay, "stay", false, "keep running when the tmux server (or kitty) exits")
	addTmuxFlag(c)
	addKittyFlags(c)
	return c
}

// printTmuxConfig prints tmux.conf lines: the supervisor started with the
// server, agent counts in the status bar, and a jump key.
func (a *app) printTmuxConfig() {
	self := selfCommand()
	fmt.Fprintf(a.out, `# xcsh: supervise agents on this server (the supervisor ends with the server)
run-shell -b '%[1]s supervise'
# agent counts in the status bar, from the supervisor's snapshot (no tmux call)
set -g status-interval 5
set -ga status-right ' #(%[1]s status --tmux)'
# prefix + J: jump to a pane by pane id, session id or terminal key
bind-key J command-prompt -p 'jump to:' "run-shell '%[1]s jump %%%%'"
# prefix + A: a new agent beside this pane
bind-key A run-shell '%[1]s launch --split h --target "#{pane_id}" --cwd "#{pane_current_path}"'
# prefix + a: the dashboard in a popup (Enter jumps and closes it)
%[2]s
`, self, dashTmuxBinding(self))
}
