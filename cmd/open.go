package cmd

import (
	"github.com/spf13/cobra"
)

// openFlags are the flags that choose which session the agent opens.
type openFlags struct {
	cont       bool
	resume     string
	resumeSet  bool
	fork       string
	noSession  bool
	sessionDir string
	explain    bool
}

func (a *app) addOpenFlags(c *cobra.Command) {
	f := c.Flags()
	f.BoolP("continue", "c", false, "this terminal's last session, else the newest in this directory, else a new one")
	f.StringP("resume", "r", "", "resume a session by id prefix or path (a picker without a value)")
	f.Lookup("resume").NoOptDefVal = " "
	f.String("fork", "", "fork a session (id prefix or path) into this directory and continue it")
	f.Bool("no-session", false, "keep the session in memory only")
	f.String("session-dir", "", "directory for session files")
	f.Bool("explain", false, "with -c, -r or --fork: print which session would be opened and why; open nothing")
}

func (a *app) runRoot(c *cobra.Command, args []string) error {
	return c.Help()
}
