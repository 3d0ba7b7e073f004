package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
	"github.com/xcsh-dev/xcsh/ui"
)

// Attention modes: how the dashboard tells the user that an agent started
// waiting where no client shows it.
var attentionModes = []string{"message", "bell", "both", "off"}

// closeTimeout bounds how long x waits for an agent to exit.
const closeTimeout = 10 * time.Second

func (a *app) dashCommand() *cobra.Command {
	var popup bool
	c := &cobra.Command{
		Use:   "dash",
		Short: "Dashboard of every pane, agent and session: jump, resume or fork into a pane, launch and close agents",
		Long: `A full-screen dashboard on the supervisor's snapshots: every tmux pane with
its agent's state and age, title or first prompt, model, directory and last
activity; a preview of the selected session that follows it as the agent
writes; every session (tab) so any past one can be resumed into a pane.

Enter jumps to the pane; r resumes and f forks the selected session into a
new split, a new window or an idle shell pane; n launches an agent; x closes
one; w jumps to the agent waiting longest; / filters; ? lists every key.

When an agent starts waiting where no client shows its pane, the dashboard
says so (--attention: a tmux message, the terminal bell, both, or off).

It runs in a pane of its own, outside tmux (a jump then moves the most
recently active client; in a kitty with remote control, outside tmux, it acts
on kitty's windows), or in a popup; --popup closes it after a jump:
  ` + dashTmuxBinding("xcsh"),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDash(cmd, popup) },
	}
	c.Flags().BoolVar(&popup, "popup", false, "running in a tmux popup: close after a jump")
	c.Flags().String("attention", "", "how a newly waiting agent out of sight is announced: message, bell, both or off (config dash.attention; default message)")
	c.Flags().String("agent-cmd", "", "agent command line for r, f and n (default: config agent_command, else xcsh)")
	addTmuxFlag(c)
	addKittyFlags(c)
	return c
}

// dashTmuxBinding is the tmux.conf line that opens the dashboard in a popup
// on prefix + a (for `xcsh supervise --print-tmux-config`).
func dashTmuxBinding(self string) string {
	return fmt.Sprintf(`bind-key a display-popup -E -w 90%% -h 85%% "%s dash --popup"`, self)
}

// dashAttention is the attention mode from the flag, else the config.
func (a *app) dashAttention(c *cobra.Command) (string, error) {
	mode, _ := c.Flags().GetString("attention")
	if mode == "" {
		mode = a.v.GetString("dash.attention")
	}
	if mode == "" {
		mode = "message"
	}
	for _, m := range attentionModes {
		if m == mode {
			return mode, nil
		}
	}
	return "", &UsageError{Msg: fmt.Sprintf("--attention %q: use %s", mode, strings.Join(attentionModes, ", "))}
}

func (a *app) runDash(c *cobra.Command, popup bool) error {
	attention, err := a.dashAttention(c)
	if err != nil {
		return err
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return &ExitError{Code: 1, Msg: "xcsh dash needs a terminal (try `xcsh status` for the counts)"}
	}
	// tmux, or kitty outside tmux (backendOf). Without either the dashboard
	// still shows the agents (files only) and the actions say there is no
	// multiplexer; kitty's setup help and usage errors are said at once.
	var mux supervisor.Multiplexer
	act, b, err := a.muxActions(c)
	var ee *ExitError
	var ue *UsageError
	switch {
	case errors.As(err, &ee), errors.As(err, &ue):
		return err
	case err != nil:
		act = &supervisor.Actions{Paths: a.paths, Session: a.sessionOptions()}
	default:
		mux = b.mux
	}
	tm, _ := mux.(*supervisor.Tmux)
	ctx, cancel := signalContext()
	defer cancel()

	// the other multiplexer of this environment, watched in the same engine:
	// tmux panes and kitty windows side by side
	ecfg := supervisor.Config{Paths: a.paths, Mux: mux}
	var others []*supervisor.Actions
	if mux != nil {
		if beside := besideMux(ctx, b, nil); beside != nil {
			defer beside.Close()
			ecfg.Muxes = []supervisor.Multiplexer{beside}
			o := &supervisor.Actions{Paths: act.Paths, Mux: beside, Session: act.Session, AgentCommand: act.AgentCommand, Env: act.Env}
			others = append(others, o)
		}
	}
	engine := supervisor.New(ecfg)
	snaps, unsubscribe := engine.Subscribe()
	defer unsubscribe()
	ran := make(chan error, 1)
	go func() { ran <- engine.Run(ctx) }()

	srv := tmuxServerOf(c)
	self := ""
	if !popup {
		self = b.here
	}
	ix := session.OpenIndex(nil, a.paths.Sessions)
	dd := &dashDoer{act: act, others: others, tm: tm, engine: engine, srv: srv, self: self, attention: attention, out: os.Stdout}
	d := ui.NewDash(ui.DashOptions{
		Snapshots: snaps,
		Infos: func(paths []string) []session.SessionInfo {
			out := make([]session.SessionInfo, 0, len(paths))
			for _, p := range paths {
				if info, ok := ix.Info(p); ok {
					out = append(out, info)
				}
			}
			return out
		},
		AllSessions: func() []session.SessionInfo { return ix.ListAllSessions(a.paths.Sessions) },
		Do:          dd.do,
		Follow:      followFile,
		SelfPane:    self,
		Popup:       popup,
		Notify:      attention != "off",
		Home:        os.Getenv("HOME"),
	})
	defer d.Close()
	_, err = tea.NewProgram(d, tea.WithAltScreen(), tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil // SIGINT or SIGTERM
	}
	cancel()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
	}
	_ = ix.Save()
	return err
}

// dashDoer carries out the dashboard's intents through the supervisor's
// actions.
type dashDoer struct {
	act       *supervisor.Actions
	others    []*supervisor.Actions // for the panes of the other multiplexer
	tm        *supervisor.Tmux      // nil without tmux
	engine    *supervisor.Engine
	srv       tmux.Server
	self      string // the dashboard's pane
	attention string
	out       *os.File // the terminal, for the bell

	bellMu sync.Mutex
}

func (dd *dashDoer) do(ctx context.Context, in ui.DashIntent) (ui.DashResult, error) {
	switch in.Kind {
	case ui.IntentJump:
		p, client, err := dd.actFor(in.Pane).Jump(ctx, in.Pane, "", dd.ownSession())
		if err != nil {
			return ui.DashResult{}, err
		}
		if dd.tm == nil {
			return ui.DashResult{Pane: p.ID, Text: fmt.Sprintf("focused window %s (%s)", p.ID, client)}, nil
		}
		return ui.DashResult{Pane: p.ID, Text: fmt.Sprintf("jumped to %s (%s:%d) on client %s", p.ID, p.MuxSessionName, p.WindowIndex, client)}, nil
	case ui.IntentLaunch:
		spec := in.Launch
		act := dd.actFor(spec.Target)
		res, err := act.Launch(ctx, spec)
		if errors.Is(err, tmux.ErrNoServer) && !spec.Into {
			// No server yet: start one, in a session of its own.
			spec.Kind, spec.Name, spec.Target = "session", "xcsh", ""
			res, err = act.Launch(ctx, spec)
		}
		if err != nil {
			return ui.DashResult{}, kittyError(launchError(err))
		}
		// The engine would hear of the pane from tmux; a pass now shows it
		// at once, also on a server that was not there when it started.
		_, _ = dd.engine.Sync(ctx)
		what := "launched an agent"
		switch {
		case in.Launch.Resume != "":
			what = "resumed " + sessionLabel(in.Launch.Resume)
		case in.Launch.Fork != "":
			what = "forked " + sessionLabel(in.Launch.Fork) + " as " + sessionLabel(res.SessionFile)
		}
		where := "into " + res.Pane.ID
		if res.Typed {
			where = "in " + res.Pane.ID
		}
		return ui.DashResult{Pane: res.Pane.ID, Text: what + " " + where}, nil
	case ui.IntentClose:
		p, err := dd.actFor(in.Pane).Close(ctx, in.Pane, closeTimeout)
		if err != nil {
			return ui.DashResult{}, err
		}
		return ui.DashResult{Pane: p.ID, Text: "closed the agent in " + p.ID}, nil
	case ui.IntentNotify:
		return ui.DashResult{}, dd.notify(ctx, in.Text)
	}
	return ui.DashResult{}, fmt.Errorf("dash: unknown intent %d", in.Kind)
}

// actFor returns the actions of the multiplexer a pane belongs to (the
// snapshot's Pane.Server); the dashboard's own multiplexer otherwise.
func (dd *dashDoer) actFor(pane string) *supervisor.Actions {
	if pane == "" || len(dd.others) == 0 {
		return dd.act
	}
	if p, ok := dd.engine.Current().PaneByID(pane); ok {
		for _, o := range dd.others {
			if o.Mux != nil && o.Mux.Name() == p.Server {
				return o
			}
		}
	}
	return dd.act
}

// ownSession is the tmux session the dashboard shows in (its pane's, or in
// a popup the one $TMUX names), so a jump moves the client it is on; kitty
// has one focus, so "" there.
func (dd *dashDoer) ownSession() string {
	if dd.tm == nil {
		return ""
	}
	if dd.self != "" {
		if p, ok := dd.engine.Current().PaneByID(dd.self); ok {
			return p.MuxSession
		}
	}
	// In a popup of this server: $TMUX is "<socket>,<server pid>,<session
	// number>". A dashboard in another server's pane has no session here.
	if tmux.ServerFromEnv(nil).SocketPath(nil) != dd.srv.SocketPath(nil) {
		return ""
	}
	if v := os.Getenv("TMUX"); v != "" {
		if f := strings.Split(v, ","); len(f) == 3 && f[2] != "" {
			return "$" + f[2]
		}
	}
	return ""
}

// notify tells the user, as the attention mode says: a message on the
// status line of every tmux client, the terminal bell, or both.
func (dd *dashDoer) notify(ctx context.Context, text string) error {
	var errs []error
	if dd.attention == "bell" || dd.attention == "both" {
		dd.bellMu.Lock()
		// One byte in one write: it cannot split a frame's escape sequence.
		_, err := dd.out.Write([]byte{'\a'})
		dd.bellMu.Unlock()
		errs = append(errs, err)
	}
	if (dd.attention == "message" || dd.attention == "both") && dd.tm != nil {
		errs = append(errs, tmuxMessage(ctx, dd.tm, text))
	}
	return errors.Join(errs...)
}

// tmuxMessage shows text on the status line of every client but control
// clients. The text is a tmux format: '#' is doubled so data never expands.
func tmuxMessage(ctx context.Context, tm *supervisor.Tmux, text string) error {
	c := tm.Client()
	clients, err := c.Clients(ctx)
	if err != nil {
		return err
	}
	text = strings.ReplaceAll(text, "#", "##")
	var errs []error
	for _, cl := range clients {
		if cl.Control {
			continue
		}
		_, err := c.Run(ctx, "display-message", "-c", cl.Name, "-d", "5000", text)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// sessionLabel names a session file by its id part.
func sessionLabel(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if _, id, ok := strings.Cut(base, "_"); ok && len(id) >= 8 {
		return id[:8]
	}
	return base
}

// followFile watches path through its directory (an atomic rewrite replaces
// the file, which a watch on the file itself would lose): the channel gets a
// value, coalesced, after every change; stop ends the watch and closes it.
func followFile(path string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		close(ch)
		return ch, func() {}
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		_ = w.Close()
		close(ch)
		return ch, func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) != filepath.Clean(path) || ev.Op == fsnotify.Chmod {
					continue
				}
				select {
				case ch <- struct{}{}:
				default:
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			_ = w.Close()
			<-done
		})
	}
}
