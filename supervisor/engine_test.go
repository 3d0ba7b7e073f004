package supervisor_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/supervisor"
)

// TestLaunchThreeAndKill: three agents launched in a split, a window and a
// session each get a crumb and a live file, and the engine's terminal for
// each pane is the one the agent detected itself; a killed pane's crumb and
// live file go (BenchmarkPaneExit measures how soon: about 100 ms;
// the wait here is generous so that a loaded machine does not fail it).
func TestLaunchThreeAndKill(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := testCtx(t)
	e, _ := w.engine(ctx)
	var ids []string
	for _, spec := range []supervisor.LaunchSpec{
		{Kind: "split", Target: "main", Cwd: w.proj},
		{Kind: "window", Target: "main", Cwd: w.proj, Name: "agent2"},
		{Kind: "session", Name: "third", Cwd: w.proj},
	} {
		res, err := w.act.Launch(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Pane.ID)
	}
	snap := waitSnap(t, e, "three agents", 20*time.Second, func(s supervisor.Snapshot) bool {
		for _, id := range ids {
			if !paneHasAgent(s, id) {
				return false
			}
		}
		return s.Counts["idle"] == 3
	})
	for _, a := range snap.Agents {
		p, ok := snap.PaneByID(a.Pane)
		if !ok {
			t.Fatalf("agent %d is in no pane", a.PID)
		}
		if p.Key != a.TerminalKey {
			t.Errorf("pane %s: engine key %q, agent detected %q", p.ID, p.Key, a.TerminalKey)
		}
		c, err := breadcrumb.Read(w.paths.TerminalSessions, p.Key)
		if err != nil {
			t.Fatal(err)
		}
		if c.Token != p.Token || c.SessionPath() != a.SessionFile {
			t.Errorf("pane %s: crumb %+v, engine token %q, agent session %s", p.ID, c, p.Token, a.SessionFile)
		}
		if _, err := os.Stat(filepath.Join(w.paths.Agents, strconv.Itoa(a.PID)+".json")); err != nil {
			t.Errorf("live file of %d: %v", a.PID, err)
		}
	}
	if got := snap.CountLine(); got != "3 idle" {
		t.Errorf("count line %q", got)
	}

	// Kill the split: its agent dies of SIGHUP and leaves its live file.
	victim, _ := snap.PaneByID(ids[0])
	crumb, _ := breadcrumb.Path(w.paths.TerminalSessions, victim.Key)
	live := filepath.Join(w.paths.Agents, strconv.Itoa(victim.Agent)+".json")
	start := time.Now()
	w.tmux("kill-pane", "-t", victim.ID)
	waitFor(t, "the killed pane's crumb and live file to go", 5*time.Second, func() bool {
		_, err1 := os.Stat(crumb)
		_, err2 := os.Stat(live)
		return errors.Is(err1, os.ErrNotExist) && errors.Is(err2, os.ErrNotExist)
	})
	t.Logf("pane kill to crumb and live file removed: %s", time.Since(start))
	waitSnap(t, e, "two agents", 5*time.Second, func(s supervisor.Snapshot) bool {
		_, ok := s.PaneByID(victim.ID)
		return !ok && len(s.Agents) == 2
	})
	// The snapshot file for `xcsh status` says the same.
	waitFor(t, "the snapshot file", 5*time.Second, func() bool {
		s, err := supervisor.ReadSnapshot(supervisor.SnapshotDir(w.paths.Agent), "")
		return err == nil && s.CountLine() == "2 idle"
	})
}

// TestCrumbFollowsAgent: an agent that opened another session without
// writing its crumb gets it updated.
func TestCrumbFollowsAgent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := testCtx(t)
	e, _ := w.engine(ctx)
	res, err := w.act.Launch(ctx, supervisor.LaunchSpec{Kind: "window", Target: "main", Cwd: w.proj})
	if err != nil {
		t.Fatal(err)
	}
	snap := waitSnap(t, e, "the agent", 20*time.Second, func(s supervisor.Snapshot) bool { return paneHasAgent(s, res.Pane.ID) })
	p, _ := snap.PaneByID(res.Pane.ID)
	first := p.Session.Path
	if err := syscall.Kill(p.Agent, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the crumb to follow the agent", 5*time.Second, func() bool {
		c, err := breadcrumb.Read(w.paths.TerminalSessions, p.Key)
		return err == nil && c.SessionPath() != first && strings.HasSuffix(c.SessionFile, ".jsonl") && c.Token == p.Token
	})
	// A state change is seen too.
	if err := syscall.Kill(p.Agent, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, e, "a busy agent", 5*time.Second, func(s supervisor.Snapshot) bool { return s.CountLine() == "1 busy" })
}

// TestUserHooksUnchanged: running an engine leaves the user's hooks as they
// were.
func TestUserHooksUnchanged(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.tmux("set-hook", "-g", "after-new-window", "display-message mine")
	w.tmux("set-hook", "-g", "pane-exited[1]", "display-message mine-too")
	before := w.tmux("show-hooks", "-g") + w.tmux("show-hooks", "-gw")
	ctx := testCtx(t)
	e, m := w.engine(ctx)
	during := w.tmux("show-hooks", "-g") + w.tmux("show-hooks", "-gw")
	if !strings.Contains(during, "wait-for -S xcsh-") {
		t.Fatalf("no doorbell hooks while running:\n%s", during)
	}
	w.tmux("new-window", "-d", "sleep 60")
	waitSnap(t, e, "the new window", 5*time.Second, func(s supervisor.Snapshot) bool { return len(s.Panes) == 2 })
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	after := w.tmux("show-hooks", "-g") + w.tmux("show-hooks", "-gw")
	if after != before {
		t.Errorf("hooks before:\n%s\nafter:\n%s", before, after)
	}
}

// TestCrumbsOfMovedAndDeletedSessions: a crumb follows a moved session and
// goes with a deleted one; a crumb naming a new session that has no file
// yet stays.
func TestCrumbsOfMovedAndDeletedSessions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := testCtx(t)
	e, _ := w.engine(ctx)
	dir := w.paths.TerminalSessions
	moved, _ := w.seedSession(w.proj, "to be moved")
	gone, _ := w.seedSession(w.proj, "to be deleted")
	fresh := filepath.Join(filepath.Dir(moved), "2026-01-01T00-00-00-000Z_0123456789abcdef.jsonl")
	for key, file := range map[string]string{"test-moved": moved, "test-gone": gone, "test-fresh": fresh} {
		if err := breadcrumb.Write(dir, key, breadcrumb.Crumb{Cwd: w.proj, SessionFile: file}); err != nil {
			t.Fatal(err)
		}
	}
	// Let the engine see both files exist.
	waitFor(t, "a pass over the crumbs", 5*time.Second, func() bool { return e.Stats().Passes >= 2 })
	time.Sleep(100 * time.Millisecond)
	otherDir := filepath.Join(w.paths.Sessions, "--elsewhere--")
	if err := os.MkdirAll(otherDir, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(otherDir, filepath.Base(moved))
	if err := os.Rename(moved, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the moved crumb to follow and the deleted one to go", 5*time.Second, func() bool {
		c, err := breadcrumb.Read(dir, "test-moved")
		_, gerr := breadcrumb.Read(dir, "test-gone")
		return err == nil && c.SessionPath() == target && errors.Is(gerr, os.ErrNotExist)
	})
	if _, err := breadcrumb.Read(dir, "test-fresh"); err != nil {
		t.Errorf("the crumb of a session without a file yet: %v", err)
	}
}
