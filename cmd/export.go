package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/session"
)

// addExport registers --export on the root command. It is handled before
// anything else the root command does: no session is opened, no breadcrumb
// written, no agent started.
func (a *app) addExport(root *cobra.Command) {
	root.Flags().String("export", "", "write a session file as a self-contained HTML page and exit (output path as the first argument, default xcsh-session-<name>.html)")
	next := root.RunE
	root.RunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed("export") {
			return a.runExport(c, args)
		}
		return next(c, args)
	}
}

// runExport is `xcsh --export <session.jsonl> [out.html]`. Unlike the
// reference, a missing input is an error ("File not found: <path>") and never
// becomes a new session file: the input is only read (session.Load).
func (a *app) runExport(c *cobra.Command, args []string) error {
	in, _ := c.Flags().GetString("export")
	if in == "" {
		return &UsageError{Msg: "--export needs a session file: xcsh --export <session.jsonl> [out.html]"}
	}
	if len(args) > 1 {
		return &UsageError{Msg: fmt.Sprintf("--export takes one output path, got %d arguments: xcsh --export <session.jsonl> [out.html]", len(args))}
	}
	out := ""
	if len(args) == 1 {
		out = args[0]
	}
	if _, err := os.Stat(in); errors.Is(err, fs.ErrNotExist) {
		return &ExitError{Code: 1, Msg: "File not found: " + in}
	}
	m, err := session.Load(a.sessionOptions(), in)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &ExitError{Code: 1, Msg: "File not found: " + in}
		}
		return err
	}
	path, err := session.ExportFile(m, out, "", session.ExportOptions{})
	if err != nil {
		return fmt.Errorf("export %s: %w", in, err)
	}
	fmt.Fprintf(a.out, "Exported to: %s\n", path)
	return nil
}
