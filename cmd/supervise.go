package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/supervisor"
)

func (a *app) superviseCommand() *cobra.Command {
	var printConfig, stay bool
	c := &cobra.Command{
		Use:   "supervise",
		Short: "Run the supervisor without a screen: keep breadcrumbs fresh and the snapshot `xcsh status` reads",
		Long: `Run the supervisor engine without a screen, for a tmux config or a user service.
It watches the agent dir and the tmux server (hooks at a private index that it
removes on exit; the user's own hooks are never changed), keeps breadcrumbs
fresh and keeps the snapshot that ` + "`xcsh status`" + ` reads. It ends with the server
unless --stay. --print-tmux-config prints the lines to add to ~/.tmux.conf.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printConfig {
				a.printTmuxConfig()
				return nil
			}
			srv := tmuxServerOf(cmd)
			mux, err := supervisor.NewTmux(srv, nil)
			if err != nil {
				return err
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
	c.Flags().BoolVar(&stay, "stay", false, "keep running when the tmux server exits")
	addTmuxFlag(c)
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
`, self)
}
