package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

// addKittyFlags adds --kitty and --kitty-socket to a command that acts on
// tmux or kitty.
func addKittyFlags(c *cobra.Command) {
	c.Flags().Bool("kitty", false, "act on kitty (the one KITTY_LISTEN_ON names) instead of tmux")
	c.Flags().String("kitty-socket", "", "act on the kitty listening on `ADDR` (unix:/path, as KITTY_LISTEN_ON says it) instead of tmux")
}

// backend is the multiplexer a command acts on, tmux or kitty.
type backend struct {
	mux   supervisor.Multiplexer
	kitty bool
	// here is the caller's own pane on mux: $TMUX_PANE in a pane of that
	// tmux server, $KITTY_WINDOW_ID in a window of that kitty (outside
	// tmux); "" otherwise.
	here string
}

// backendOf chooses the multiplexer c acts on: --kitty-socket or --kitty
// name kitty and --tmux-socket tmux; without them, tmux inside tmux (tmux
// in a kitty window is tmux: innermost first), else the kitty
// KITTY_LISTEN_ON names, else tmux. In a kitty window that listens on no
// socket (remote control off) and outside tmux, the error says what to add
// to kitty.conf.
func backendOf(c *cobra.Command, getenv func(string) string) (backend, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	addr, _ := c.Flags().GetString("kitty-socket")
	useKitty, _ := c.Flags().GetBool("kitty")
	tmuxChosen := c.Flags().Changed("tmux-socket")
	if (addr != "" || useKitty) && tmuxChosen {
		return backend{}, &UsageError{Msg: "--tmux-socket and --kitty/--kitty-socket exclude each other"}
	}
	inTmux := getenv("TMUX") != ""
	switch {
	case addr != "":
	case useKitty || (!tmuxChosen && !inTmux && (getenv("KITTY_LISTEN_ON") != "" || getenv("KITTY_WINDOW_ID") != "")):
		if _, err := kitty.FromEnv(getenv); err != nil {
			return backend{}, kittyError(err)
		}
		addr = getenv("KITTY_LISTEN_ON")
	default:
		// As tmuxServerOf and callerPane, through getenv.
		env := tmux.ServerFromEnv(getenv)
		srv := env
		if name, _ := c.Flags().GetString("tmux-socket"); name != "" {
			srv = tmux.Server{Name: name}
		}
		mux, err := supervisor.NewTmux(srv, nil)
		if err != nil {
			return backend{}, err
		}
		b := backend{mux: mux}
		if inTmux && env.SocketPath(nil) == srv.SocketPath(nil) {
			b.here = getenv("TMUX_PANE")
		}
		return b, nil
	}
	mux, err := supervisor.NewKitty(addr)
	if err != nil {
		return backend{}, &UsageError{Msg: "--kitty-socket: " + err.Error()}
	}
	b := backend{mux: mux, kitty: true}
	if !inTmux && getenv("KITTY_LISTEN_ON") == addr {
		b.here = getenv("KITTY_WINDOW_ID")
	}
	return b, nil
}

// muxActions builds the supervisor's actions on the multiplexer c chooses
// (backendOf).
func (a *app) muxActions(c *cobra.Command) (*supervisor.Actions, backend, error) {
	b, err := backendOf(c, nil)
	if err != nil {
		return nil, backend{}, err
	}
	return a.actionsOn(c, b.mux), b, nil
}

// besideMux is the multiplexer to watch beside b's in one engine
// (supervisor.Config.Muxes), so that a dashboard shows tmux panes and kitty
// windows side by side: the kitty KITTY_LISTEN_ON names when b is tmux, the
// tmux server of this environment when b is kitty; nil when that one does
// not answer now (a server that is not running is not waited for). A tmux
// client attached in a kitty window then shows as that window hosting its
// session (supervisor.Pane.Hosts). Each pane's Server names the
// multiplexer to act on it with (actionsOn).
func besideMux(ctx context.Context, b backend, getenv func(string) string) supervisor.Multiplexer {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case b.mux == nil:
		return nil
	case !b.kitty:
		addr := getenv("KITTY_LISTEN_ON")
		if addr == "" {
			return nil
		}
		k, err := supervisor.NewKitty(addr)
		if err != nil || k.Start(ctx) != nil {
			return nil
		}
		return k
	}
	t, err := supervisor.NewTmux(tmux.ServerFromEnv(getenv), nil)
	if err != nil {
		return nil
	}
	if _, err := t.Client().Sessions(ctx); err != nil {
		_ = t.Close()
		return nil
	}
	return t
}

// kittyError turns "kitty's remote control is off" into the setup help:
// what to add to kitty.conf. Other errors pass unchanged.
func kittyError(err error) error {
	if help := kitty.SetupHelp(err); help != "" {
		return &ExitError{Code: 1, Msg: strings.TrimRight(help, "\n")}
	}
	return err
}

// printKittyConfig prints the kitty.conf lines that let xcsh reach kitty.
func (a *app) printKittyConfig() {
	fmt.Fprint(a.out, kitty.ConfigSnippet(""))
	fmt.Fprintf(a.out, `# Then, in a kitty window (outside tmux), xcsh launch and jump act on kitty,
# and this keeps breadcrumbs fresh and the snapshot xcsh status reads:
#   %s supervise --kitty &
`, selfCommand())
}
