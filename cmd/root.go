// Package cmd is xcsh's command line: cobra commands and viper configuration.
// It is the only package that reads flags, environment and config files; it
// builds a typed config.Config and hands it to the packages below.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
)

// UsageError marks an error in how the command was called (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitError carries an explicit exit status with an optional message.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// app is what every command needs: streams and resolved configuration.
type app struct {
	in       io.Reader
	out, err io.Writer
	v        *viper.Viper
	cfg      config.Config
	paths    config.Paths
}

func (a *app) sessionOptions() session.Options {
	home := os.Getenv("HOME")
	return session.Options{
		SessionsRoot: a.paths.Sessions,
		BlobDir:      a.paths.Blobs,
		Home:         home,
		TmpDir:       filepath.Clean(os.TempDir()),
	}
}

// Main runs xcsh with args and returns the process exit status.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	if p := os.Getenv("XCSH_CPUPROFILE"); p != "" {
		// a developer's aid: a CPU profile of this run
		if f, err := os.Create(p); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	a := &app{in: in, out: out, err: errw, v: viper.New()}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.Execute()
	if err == nil {
		return 0
	}
	if msg, ok := sentence(err); ok {
		fmt.Fprintln(errw, msg)
		return 1
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintln(errw, ee.Msg)
		}
		return ee.Code
	}
	fmt.Fprintln(errw, "Error:", tidy(err))
	var ue *UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// sentence returns the message of an error that is already a whole sentence
// for the user, such as `Session "3f" not found.`; it is printed as it is,
// without an "Error:" prefix.
func sentence(err error) (string, bool) {
	var nf *session.NotFoundSessionError
	var op *session.OtherProjectError
	var am *session.AmbiguousError
	switch {
	case errors.As(err, &nf):
		return nf.Error(), true
	case errors.As(err, &op):
		return op.Error(), true
	case errors.As(err, &am):
		return am.Error(), true
	}
	return "", false
}

// tidy drops the "file does not exist" that a wrapped fs.ErrNotExist adds to
// a message that already says so ("session file x does not exist: file does
// not exist").
func tidy(err error) string {
	msg := err.Error()
	if errors.Is(err, fs.ErrNotExist) {
		msg = strings.TrimSuffix(msg, ": "+fs.ErrNotExist.Error())
	}
	return msg
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "xcsh [flags] [prompt...]",
		Short:         "A terminal-multiplexer-aware coding-agent supervisor",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Positional arguments are the prompt, and a bare -r takes the first
		// as its value; without this cobra would take them for an unknown
		// sub-command ("xcsh -r 3f2a").
		Args: cobra.ArbitraryArgs,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return a.loadConfig(c)
		},
	}
	root.PersistentFlags().String("agent-dir", "", "agent directory (default ~/.xcsh/agent; env XCSH_AGENT_DIR)")
	root.PersistentFlags().String("config", "", "config file (default <agent dir>/config.yaml when it exists)")
	a.addOpenFlags(root)
	a.addRunFlags(root)
	root.RunE = a.runRoot
	a.addExport(root) // --export runs before everything runRoot does
	root.AddCommand(a.sessionsCommand(), a.demoCommand(), a.terminalCommand())
	root.AddCommand(a.launchCommand(), a.jumpCommand(), a.superviseCommand(), a.statusCommand(), a.dashCommand(), a.closeCommand())
	return root
}

// loadConfig builds the typed config from flags, env (XCSH_*) and the config file.
func (a *app) loadConfig(c *cobra.Command) error {
	v := a.v
	v.SetEnvPrefix("XCSH")
	v.AutomaticEnv()
	_ = v.BindPFlag("agent_dir", c.Flags().Lookup("agent-dir"))
	_ = v.BindEnv("agent_dir", "XCSH_AGENT_DIR")
	if f, _ := c.Flags().GetString("config"); f != "" {
		v.SetConfigFile(f)
		if err := v.ReadInConfig(); err != nil {
			return fmt.Errorf("read config %s: %w", f, err)
		}
	} else {
		base := config.Config{AgentDir: v.GetString("agent_dir")}.Resolve()
		p := filepath.Join(base.Agent, "config.yaml")
		if _, err := os.Stat(p); err == nil {
			v.SetConfigFile(p)
			if err := v.ReadInConfig(); err != nil {
				return fmt.Errorf("read config %s: %w (fix or remove the file)", p, err)
			}
		}
	}
	cfg := config.Default()
	if d := v.GetString("agent_dir"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return fmt.Errorf("agent_dir %q: %w", d, err)
		}
		cfg.AgentDir = abs
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	a.cfg = cfg
	a.paths = cfg.Resolve()
	return nil
}
