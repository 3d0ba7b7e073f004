package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/terminal"
)

func (a *app) terminalCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "terminal",
		Short: "Print this terminal's identity: key, rule, tty, generation token, multiplexer",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(_ *cobra.Command, _ []string) error {
			id, err := terminal.Detect(nil)
			if asJSON {
				if werr := writeJSON(a.out, id); werr != nil {
					return werr
				}
			} else {
				key := id.Key
				if key == "" {
					key = "(none: no tty and no terminal variables; breadcrumbs are off)"
				}
				fmt.Fprintf(a.out, "key:      %s\nrule:     %s\n", key, id.Rule)
				if id.TTY != "" {
					fmt.Fprintf(a.out, "tty:      %s (found via %s)\n", id.TTY, id.TTYFrom)
				}
				if id.Token != "" {
					fmt.Fprintf(a.out, "token:    %s\nleader:   %d\n", id.Token, id.Leader)
				}
				if o := id.Overlay; o != nil {
					fmt.Fprintf(a.out, "overlay:  %s %s", o.Kind, o.ID)
					if o.VerifiedBy != "" {
						fmt.Fprintf(a.out, " (verified by %s)", o.VerifiedBy)
					}
					fmt.Fprintln(a.out)
				}
				fmt.Fprintf(a.out, "crumb:    %s\n", a.paths.TerminalSessions)
			}
			if err != nil {
				fmt.Fprintf(a.err, "warning: %v\n", err)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
