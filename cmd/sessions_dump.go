package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/session"
)

func (a *app) sessionsDump() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "dump <file>",
		Short: "Print the /dump text of a session's context (configuration and messages) on stdout",
		Args:  exactArgs(1, "a session file"),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := a.load(args[0])
			if err != nil {
				return err
			}
			ctx := m.BuildContext()
			var level string
			_ = json.Unmarshal(ctx.ThinkingLevel, &level)
			text := session.DumpText(session.DumpInput{Model: ctx.Model("default"), ThinkingLevel: level, Messages: ctx.Messages})
			if asJSON {
				return writeJSON(a.out, map[string]string{"path": m.SessionFile(), "text": text})
			}
			_, err = fmt.Fprintln(a.out, text)
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
