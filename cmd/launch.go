package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

// addTmuxFlag adds --tmux-socket to a command that talks to tmux.
func addTmuxFlag(c *cobra.Command) {
	c.Flags().String("tmux-socket", "", "tmux server socket name, as tmux -L (default: the server of this environment)")
}

// tmuxServerOf is the server --tmux-socket names, else the one this process
// runs in ($TMUX), else tmux's default socket.
func tmuxServerOf(c *cobra.Command) tmux.Server {
	if name, _ := c.Flags().GetString("tmux-socket"); name != "" {
		return tmux.Server{Name: name}
	}
	return tmux.ServerFromEnv(nil)
}

// callerPane is $TMUX_PANE when this process runs in a pane of srv.
func callerPane(srv tmux.Server) string {
	pane := os.Getenv("TMUX_PANE")
	if pane == "" {
		return ""
	}
	here := tmux.ServerFromEnv(nil)
	if here.SocketPath(nil) != srv.SocketPath(nil) {
		return ""
	}
	return pane
}

// actions builds the supervisor's actions on the tmux server c names.
func (a *app) actions(c *cobra.Command) (*supervisor.Actions, *supervisor.Tmux, error) {
	srv := tmuxServerOf(c)
	mux, err := supervisor.NewTmux(srv, nil)
	if err != nil {
		return nil, nil, err
	}
	return a.actionsOn(c, mux), mux, nil
}

// actionsOn builds the supervisor's actions on mux.
func (a *app) actionsOn(c *cobra.Command, mux supervisor.Multiplexer) *supervisor.Actions {
	agentCmd := strings.Fields(a.v.GetString("agent_command"))
	if f := c.Flags().Lookup("agent-cmd"); f != nil && f.Changed {
		agentCmd = strings.Fields(f.Value.String())
	}
	if len(agentCmd) == 0 {
		agentCmd = []string{selfCommand()}
	}
	return &supervisor.Actions{
		Paths: a.paths, Mux: mux, Session: a.sessionOptions(),
		AgentCommand: agentCmd, Env: a.paneEnv(),
	}
}

// selfCommand is this executable (so a pane runs the same build), unless it
// is a test binary; then "xcsh" from PATH.
func selfCommand() string {
	if exe, err := os.Executable(); err == nil && !strings.HasSuffix(exe, ".test") {
		return exe
	}
	return "xcsh"
}

// paneEnv is what a new pane needs from this process's environment: tmux
// gives a pane its server's environment (kitty a window kitty's own), and
// the agent must use the same agent dir as the command that launched it.
func (a *app) paneEnv() []string {
	var env []string
	if a.cfg.AgentDir != "" {
		env = append(env, "XCSH_AGENT_DIR="+a.paths.Agent)
	}
	for _, k := range []string{"PI_CODING_AGENT_DIR", "PI_CONFIG_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// signalContext is cancelled on SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

func (a *app) launchCommand() *cobra.Command {
	var (
		split, sessionName, cwd, resume, fork, target string
		window, asJSON, keepShell, focus              bool
	)
	c := &cobra.Command{
		Use:   "launch [flags] [-- agent args...]",
		Short: "Start an agent in a new tmux or kitty split, window or session, or in an idle shell pane; print its pane id",
		Long: `Start an agent in tmux or kitty and print the pane id.

Where: --split h|v splits --target (default: this pane inside tmux), --window
adds a window to --target's session, --session NAME starts a session. With
--target alone, the agent is typed into that pane, which must be a shell at
its prompt (never a pane where an agent or another program runs). Without any
of them: a split of this pane inside tmux, else a window of the most recent
session.

--resume ID and --fork ID continue a session (a fork is written first, in
--cwd); the pane's breadcrumb names the session before the agent starts, so
` + "`xcsh -c`" + ` there continues it even after a restart. Arguments after -- go to
the agent, e.g. ` + "`xcsh launch --split h -- --model scripted/demo`" + `.

kitty: outside tmux, in a kitty whose KITTY_LISTEN_ON is set (or with --kitty
or --kitty-socket ADDR), panes are kitty windows and pane ids their window
ids: a split is a window in --target's tab (default: this window's), --window
a new tab, --session NAME a new OS window. ` + "`xcsh supervise --print-kitty-config`" + `
prints the kitty.conf lines that turn kitty's remote control on.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var agentArgs []string
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				agentArgs = args[n:]
				args = args[:n]
			}
			if len(args) > 0 {
				return &UsageError{Msg: fmt.Sprintf("launch: unexpected argument %q (agent arguments go after --)", args[0])}
			}
			spec := supervisor.LaunchSpec{
				Cwd: cwd, Resume: resume, Fork: fork, Target: target, Args: agentArgs,
				KeepShell: keepShell, Focus: focus, Name: sessionName,
			}
			places := 0
			if split != "" {
				places++
				switch split {
				case "h":
					spec.Kind, spec.Horizontal = "split", true
				case "v":
					spec.Kind = "split"
				default:
					return &UsageError{Msg: fmt.Sprintf("--split %q: use h (side by side) or v (one above the other)", split)}
				}
			}
			if window {
				places++
				spec.Kind = "window"
			}
			if sessionName != "" {
				places++
				spec.Kind = "session"
			}
			if places > 1 {
				return &UsageError{Msg: "--split, --window and --session exclude each other"}
			}
			if resume != "" && fork != "" {
				return &UsageError{Msg: "--resume and --fork exclude each other"}
			}
			act, b, err := a.muxActions(cmd)
			if err != nil {
				return err
			}
			defer b.mux.Close()
			here := b.here
			switch {
			case places == 0 && target != "":
				spec.Into = true
			case places == 0 && here != "":
				spec.Kind, spec.Target = "split", here
			case places == 0:
				spec.Kind = "window"
			case spec.Kind != "session" && target == "" && here != "":
				spec.Target = here
			}
			if spec.Cwd == "" && spec.Resume == "" && !spec.Into {
				spec.Cwd, _ = os.Getwd()
			}
			if spec.Cwd != "" {
				if abs, err := filepath.Abs(spec.Cwd); err == nil {
					spec.Cwd = abs
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := act.Launch(ctx, spec)
			if errors.Is(err, tmux.ErrNoServer) && !b.kitty && places == 0 && target == "" {
				// No server yet: start one, in a session of its own.
				spec.Kind, spec.Name, spec.Target = "session", "xcsh", ""
				res, err = act.Launch(ctx, spec)
			}
			if err != nil {
				return launchError(err)
			}
			if asJSON {
				return writeJSON(a.out, res)
			}
			fmt.Fprintln(a.out, res.Pane.ID)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&split, "split", "", "split the target pane: h side by side, v one above the other")
	f.BoolVar(&window, "window", false, "open a new window in the target's session")
	f.StringVar(&sessionName, "session", "", "start a new tmux session (kitty: OS window) with this name")
	f.StringVar(&cwd, "cwd", "", "directory of the new pane (default: here; a resume uses the session's own)")
	f.StringVar(&resume, "resume", "", "resume this session (id prefix or path)")
	f.StringVar(&fork, "fork", "", "fork this session (id prefix or path) into --cwd and continue the fork")
	f.StringVar(&target, "target", "", "pane to split or, alone, an idle shell pane to run the agent in")
	f.String("agent-cmd", "", "agent command line (default: config agent_command, else xcsh)")
	f.BoolVar(&keepShell, "keep-shell", true, "leave a shell in a new pane when the agent exits")
	f.BoolVar(&focus, "focus", false, "make the new pane current")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	addTmuxFlag(c)
	addKittyFlags(c)
	return c
}

// launchError turns the actions' refusals into sentences.
func launchError(err error) error {
	var nf *session.NotFoundSessionError
	if errors.As(err, &nf) {
		return err
	}
	if errors.Is(err, supervisor.ErrBusyPane) {
		return &ExitError{Code: 1, Msg: "Refused: " + err.Error() + ". Use a new split (--split h) or a pane at its shell prompt."}
	}
	return kittyError(err)
}
