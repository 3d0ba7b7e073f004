package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// kittyWait bounds what the engine sees by polling: a listing every
// DefaultPoll, plus the time an agent takes to start.
const kittyWait = 20 * time.Second

// TestKitty runs the supervisor against a real kitty: agents launched into
// a window and a tab each get their crumb; a closed window's crumb goes; a
// fork launched into a tab continues there with `xcsh -c`; a resume is
// typed into an idle shell window; jump makes a window of another tab the
// active, focused one. The steps share one kitty: it takes seconds to start.
func TestKitty(t *testing.T) {
	w := newKittyWorld(t)
	ctx := testCtx(t)
	e := w.engine(ctx)
	c, _ := kitty.New(w.k.addr)

	var agents []string
	t.Run("two agents get their crumbs", func(t *testing.T) {
		for _, spec := range []supervisor.LaunchSpec{
			{Kind: "split", Cwd: w.proj, Args: []string{"--model", "scripted/demo"}},
			{Kind: "window", Name: "second", Cwd: w.proj, Args: []string{"--model", "scripted/demo"}},
		} {
			res, err := w.act.Launch(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := strconv.Atoi(res.Pane.ID); err != nil || res.Pane.TTY == "" || res.Pane.PID == 0 {
				t.Fatalf("launched pane %+v", res.Pane)
			}
			agents = append(agents, res.Pane.ID)
		}
		snap := waitSnap(t, e, "two agents in their windows", kittyWait, func(s supervisor.Snapshot) bool {
			for _, id := range agents {
				if p, ok := s.PaneByID(id); !ok || p.Agent == 0 || p.Session == nil {
					return false
				}
			}
			return true
		})
		if a, b := mustPane(t, snap, agents[0]), mustPane(t, snap, agents[1]); a.Window == b.Window || a.MuxSession != b.MuxSession {
			t.Errorf("a split and a tab: %+v and %+v", a.MuxPane, b.MuxPane)
		}
		for _, id := range agents {
			p := mustPane(t, snap, id)
			if !strings.HasPrefix(p.Server, "kitty unix:") || !strings.HasPrefix(p.Key, "pts-") || p.Token == "" {
				t.Errorf("pane %s: server %q key %q token %q", id, p.Server, p.Key, p.Token)
			}
			var ag supervisor.Agent
			for _, a := range snap.Agents {
				if a.PID == p.Agent {
					ag = a
				}
			}
			if ag.Pane != id || ag.TerminalKey != p.Key {
				t.Errorf("pane %s (%s): agent %+v detected another terminal", id, p.Key, ag)
			}
			waitFor(t, "the crumb of "+p.Key, kittyWait, func() bool {
				cr, err := breadcrumb.Read(w.paths.TerminalSessions, p.Key)
				return err == nil && cr.Token == p.Token && cr.SessionPath() == p.Session.Path
			})
		}
	})
	if len(agents) < 2 {
		t.FailNow()
	}

	t.Run("a closed window's crumb goes", func(t *testing.T) {
		p := mustPane(t, e.Current(), agents[0])
		crumb, _ := breadcrumb.Path(w.paths.TerminalSessions, p.Key)
		start := time.Now()
		if err := c.Close(ctx, mustAtoi(t, p.ID)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the closed window's crumb to go", kittyWait, func() bool {
			_, err := os.Stat(crumb)
			return errors.Is(err, os.ErrNotExist)
		})
		t.Logf("window close to crumb removed: %s (poll every %s)", time.Since(start), supervisor.DefaultPoll)
		waitSnap(t, e, "the window gone", kittyWait, func(s supervisor.Snapshot) bool {
			_, ok := s.PaneByID(p.ID)
			return !ok && len(s.Agents) == 1
		})
	})

	t.Run("fork into a tab, xcsh -c continues it", func(t *testing.T) {
		src, id := w.seedSession(w.proj, "fork me")
		res, err := w.act.Launch(ctx, supervisor.LaunchSpec{
			Kind: "window", Fork: id[:8], Cwd: w.proj, KeepShell: true,
			Args: []string{"-p", "--model", "scripted/demo", "hello"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.SessionFile == "" || res.SessionFile == src {
			t.Fatalf("fork file %q (source %s)", res.SessionFile, src)
		}
		waitFor(t, "the scripted reply in the fork", kittyWait, func() bool {
			b, _ := os.ReadFile(res.SessionFile)
			return strings.Contains(string(b), "scripted demo model")
		})
		// The agent exits; its window keeps a shell, where -c continues the
		// fork from the window's crumb.
		waitSnap(t, e, "the shell back in the fork's window", kittyWait, func(s supervisor.Snapshot) bool {
			p, ok := s.PaneByID(res.Pane.ID)
			return ok && p.Foreground == supervisor.FgShell
		})
		out := filepath.Join(t.TempDir(), "continue")
		line := fmt.Sprintf("%s -c -p --model scripted/demo again > %s.tmp 2>&1; mv %s.tmp %s", xcshBin, out, out, out)
		if err := w.mux.SendText(ctx, res.Pane.ID, line, true); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "xcsh -c in the fork's window", kittyWait, func() bool {
			_, err := os.Stat(out)
			return err == nil
		})
		b, _ := os.ReadFile(res.SessionFile)
		if !strings.Contains(string(b), `"again"`) {
			out, _ := os.ReadFile(out)
			t.Errorf("xcsh -c in the fork's window did not continue the fork %s:\n%s", res.SessionFile, out)
		}
		if srcData, _ := os.ReadFile(src); strings.Contains(string(srcData), `"again"`) {
			t.Error("xcsh -c continued the source session, not the fork")
		}
	})

	t.Run("resume into an idle shell window", func(t *testing.T) {
		path, id := w.seedSession(w.proj, "resume me")
		shellID, err := c.Launch(ctx, kitty.LaunchSpec{Type: kitty.TypeTab, Cwd: w.proj})
		if err != nil {
			t.Fatal(err)
		}
		shell := strconv.Itoa(shellID)
		waitSnap(t, e, "the idle shell", kittyWait, func(s supervisor.Snapshot) bool {
			p, ok := s.PaneByID(shell)
			return ok && p.Foreground == supervisor.FgShell
		})
		res, err := w.act.Launch(ctx, supervisor.LaunchSpec{Into: true, Target: shell, Resume: id[:8], Args: []string{"--model", "scripted/demo"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Typed || res.SessionFile != path {
			t.Errorf("launch result %+v", res)
		}
		snap := waitSnap(t, e, "the resumed agent", kittyWait, func(s supervisor.Snapshot) bool {
			p, ok := s.PaneByID(shell)
			return ok && p.Agent != 0 && p.Session != nil && p.Session.Path == path
		})
		p := mustPane(t, snap, shell)
		if cr, err := breadcrumb.Read(w.paths.TerminalSessions, p.Key); err != nil || cr.SessionPath() != path || cr.Token != p.Token {
			t.Errorf("crumb %+v (%v), want %s with token %s", cr, err, path, p.Token)
		}
		if _, err := w.act.Launch(ctx, supervisor.LaunchSpec{Into: true, Target: shell, Resume: id[:8]}); !errors.Is(err, supervisor.ErrBusyPane) {
			t.Errorf("resume into a window with an agent: %v, want ErrBusyPane", err)
		}
		if _, err := w.act.Close(ctx, shell, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("jump focuses the window", func(t *testing.T) {
		target := agents[1] // in a tab of its own, not the active one
		ws, err := c.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if win, ok := findWindow(ws, mustAtoi(t, target)); !ok || win.Active {
			t.Fatalf("window %s before the jump: %+v", target, win)
		}
		p, moved, err := w.act.Jump(ctx, target, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != target || !strings.HasPrefix(moved, "kitty-") {
			t.Errorf("jump returned pane %s, moved %q", p.ID, moved)
		}
		// kitty switches tab and window before it answers; the keyboard
		// focus comes with X's focus event.
		waitFor(t, "the window focused", 5*time.Second, func() bool {
			ws, err := c.List(ctx)
			win, ok := findWindow(ws, mustAtoi(t, target))
			return err == nil && ok && win.Active && win.Focused
		})
		waitSnap(t, e, "the jumped-to pane active", kittyWait, func(s supervisor.Snapshot) bool {
			p, ok := s.PaneByID(target)
			return ok && p.Active && p.Visible
		})
		// A session id names the pane whose agent runs it (the whole id:
		// session ids begin with their creation time, and the sessions of
		// this test were all made within a minute).
		sess := mustPane(t, e.Current(), target).Session
		if sess == nil || sess.ID == "" {
			t.Fatalf("the agent in %s has no session id", target)
		}
		if p, _, err := w.act.Jump(ctx, sess.ID, "", ""); err != nil || p.ID != target {
			t.Errorf("jump by session id: %v, pane %q", err, p.ID)
		}
	})
}

// TestKittyHostsTmux: a tmux client attached in a kitty window makes that
// window the host of its session: one engine on both servers lists the
// session's panes once, under tmux, and marks the kitty window as hosting
// it.
func TestKittyHostsTmux(t *testing.T) {
	tw := newWorld(t) // a private tmux server with session "main"
	w := newKittyWorld(t)
	ctx := testCtx(t)
	e := w.engine(ctx, tw.newMux())
	c, _ := kitty.New(w.k.addr)
	// The client finds the private server through TMUX_TMPDIR.
	var env []string
	for _, kv := range tw.env {
		if strings.HasPrefix(kv, "TMUX_TMPDIR=") {
			env = append(env, kv)
		}
	}
	host, err := c.Launch(ctx, kitty.LaunchSpec{Env: env, Args: []string{"tmux", "-L", tw.name, "attach", "-t", "main"}})
	if err != nil {
		t.Fatal(err)
	}
	hostID := strconv.Itoa(host)
	snap := waitSnap(t, e, "the kitty window hosting tmux session main", kittyWait, func(s supervisor.Snapshot) bool {
		p, ok := s.PaneByID(hostID)
		return ok && p.Hosts != nil
	})
	p := mustPane(t, snap, hostID)
	if p.Hosts.Server != tw.mux.Name() || p.Hosts.MuxSessionName != "main" || p.Hosts.Client != p.TTY {
		t.Errorf("hosts %+v, want session main of %s on %s", p.Hosts, tw.mux.Name(), p.TTY)
	}
	var tmuxPanes []supervisor.Pane
	for _, q := range snap.Panes {
		if q.Server == tw.mux.Name() {
			tmuxPanes = append(tmuxPanes, q)
		}
		if q.TTY == p.TTY && q.ID != p.ID {
			t.Errorf("the host's terminal %s is listed twice: %+v", p.TTY, q.MuxPane)
		}
	}
	if len(tmuxPanes) != 1 || tmuxPanes[0].ID != p.Hosts.Pane || !tmuxPanes[0].Visible {
		t.Errorf("tmux panes %+v, want the one pane %s, visible through the kitty window", tmuxPanes, p.Hosts.Pane)
	}
	if !strings.Contains(snap.Server, "kitty ") || !strings.Contains(snap.Server, "tmux ") {
		t.Errorf("snapshot server %q names not both", snap.Server)
	}
}

// TestKittyRemoteControlOff: a kitty without remote control makes no
// socket; the back end says so, and the setup help names the kitty.conf
// lines that turn it on.
func TestKittyRemoteControlOff(t *testing.T) {
	k := startKittyFor(t, kittyOptions{env: os.Environ(), noRemoteControl: true})
	m, err := supervisor.NewKitty(k.addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = m.Start(ctx)
	if !errors.Is(err, kitty.ErrRemoteControlDisabled) {
		t.Fatalf("Start with remote control off: %v, want ErrRemoteControlDisabled", err)
	}
	help := kitty.SetupHelp(err)
	for _, want := range []string{"allow_remote_control socket-only", "listen_on unix:", "xcsh supervise --print-kitty-config"} {
		if !strings.Contains(help, want) {
			t.Errorf("setup help lacks %q:\n%s", want, help)
		}
	}
}

func mustPane(t *testing.T, s supervisor.Snapshot, id string) supervisor.Pane {
	t.Helper()
	p, ok := s.PaneByID(id)
	if !ok {
		t.Fatalf("no pane %s in the snapshot", id)
	}
	return p
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func findWindow(ws []kitty.Window, id int) (kitty.Window, bool) {
	for _, w := range ws {
		if w.ID == id {
			return w, true
		}
	}
	return kitty.Window{}, false
}
