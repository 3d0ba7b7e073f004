package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/supervisor"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
	"github.com/xcsh-dev/xcsh/terminal/tmux"
)

// fakeMux is a multiplexer of panes set by the test: with a doorbell (as
// tmux) when evented, without one (as kitty) otherwise.
type fakeMux struct {
	name    string
	changes chan struct{} // nil without a doorbell

	mu    sync.Mutex
	panes []supervisor.MuxPane
	err   error

	listings atomic.Int64
}

var _ supervisor.Multiplexer = (*fakeMux)(nil)

func newFakeMux(name string, evented bool) *fakeMux {
	m := &fakeMux{name: name}
	if evented {
		m.changes = make(chan struct{}, 1)
	}
	return m
}

func (m *fakeMux) set(err error, ids ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err, m.panes = err, nil
	for _, id := range ids {
		m.panes = append(m.panes, supervisor.MuxPane{Server: m.name, ID: id})
	}
}

func (m *fakeMux) ring() { m.changes <- struct{}{} }

func (m *fakeMux) Name() string                          { return m.name }
func (m *fakeMux) Start(context.Context) error           { return nil }
func (m *fakeMux) Changes() <-chan struct{}              { return m.changes }
func (m *fakeMux) Cheap() bool                           { return true }
func (m *fakeMux) Close() error                          { return nil }
func (m *fakeMux) Hold(string) string                    { return "true" }
func (m *fakeMux) Release(context.Context, string) error { return nil }
func (m *fakeMux) Panes(context.Context) ([]supervisor.MuxPane, error) {
	m.listings.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]supervisor.MuxPane(nil), m.panes...), m.err
}

func (m *fakeMux) Spawn(context.Context, supervisor.SpawnSpec) (supervisor.MuxPane, error) {
	return supervisor.MuxPane{}, errors.ErrUnsupported
}

func (m *fakeMux) Focus(context.Context, string, string, string) (string, error) {
	return "", errors.ErrUnsupported
}
func (m *fakeMux) Alive(context.Context, string) (bool, error) { return false, nil }
func (m *fakeMux) Capture(context.Context, string, int) (string, error) {
	return "", errors.ErrUnsupported
}
func (m *fakeMux) SendText(context.Context, string, string, bool) error { return errors.ErrUnsupported }
func (m *fakeMux) Kill(context.Context, string) error                   { return errors.ErrUnsupported }

// runEngine runs an engine on cfg until the test ends and returns it with
// the channel Run's result arrives on.
func runEngine(t *testing.T, cfg supervisor.Config) (*supervisor.Engine, <-chan error) {
	t.Helper()
	cfg.Paths = config.Config{AgentDir: t.TempDir()}.Resolve()
	e := supervisor.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done, stopped := make(chan error, 1), make(chan struct{})
	go func() {
		done <- e.Run(ctx)
		close(stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Error("engine did not stop")
		}
	})
	return e, done
}

func paneIDs(s supervisor.Snapshot) string {
	var ids []string
	for _, p := range s.Panes {
		ids = append(ids, p.Server+"/"+p.ID)
	}
	return fmt.Sprint(ids)
}

// TestPollOnlyWithoutDoorbell: the engine lists a multiplexer without a
// doorbell every Poll, and the one with a doorbell only when it rings; a
// poll that finds nothing new makes no pass. Panes of both are in one
// snapshot, tagged with their server and grouped by it.
func TestPollOnlyWithoutDoorbell(t *testing.T) {
	t.Parallel()
	tm, km := newFakeMux("tmux -L fake", true), newFakeMux("kitty unix:/fake", false)
	tm.set(nil, "%0")
	km.set(nil, "1")
	e, _ := runEngine(t, supervisor.Config{Mux: tm, Muxes: []supervisor.Multiplexer{km}, Poll: 10 * time.Millisecond})
	waitSnap(t, e, "both servers' panes", 5*time.Second, func(s supervisor.Snapshot) bool {
		return paneIDs(s) == "[kitty unix:/fake/1 tmux -L fake/%0]" && s.Server == "tmux -L fake, kitty unix:/fake"
	})
	passes, tmuxListings := e.Stats().Passes, tm.listings.Load()
	start := km.listings.Load()
	waitFor(t, "ten polls of kitty", 5*time.Second, func() bool { return km.listings.Load() >= start+10 })
	if n := tm.listings.Load() - tmuxListings; n > 1 {
		t.Errorf("tmux (with a doorbell) was listed %d times while kitty was polled", n)
	}
	if n := e.Stats().Passes - passes; n > 1 {
		t.Errorf("%d passes for polls that found nothing new", n)
	}

	km.set(nil, "1", "2")
	waitSnap(t, e, "kitty's new window", 5*time.Second, func(s supervisor.Snapshot) bool {
		return paneIDs(s) == "[kitty unix:/fake/1 kitty unix:/fake/2 tmux -L fake/%0]"
	})
	tm.set(nil, "%0", "%1")
	tm.ring()
	waitSnap(t, e, "tmux's new pane", 5*time.Second, func(s supervisor.Snapshot) bool {
		return paneIDs(s) == "[kitty unix:/fake/1 kitty unix:/fake/2 tmux -L fake/%0 tmux -L fake/%1]"
	})
}

// TestNoPollWithDoorbellsOnly: with only a doorbell multiplexer, nothing
// is listed until it rings: an engine beside it that polls, with the same
// Poll, is the clock.
func TestNoPollWithDoorbellsOnly(t *testing.T) {
	t.Parallel()
	tm, clock := newFakeMux("tmux -L fake", true), newFakeMux("kitty unix:/clock", false)
	tm.set(nil, "%0")
	e, _ := runEngine(t, supervisor.Config{Mux: tm, Poll: 10 * time.Millisecond})
	ce, _ := runEngine(t, supervisor.Config{Mux: clock, Poll: 10 * time.Millisecond})
	waitSnap(t, e, "the pane", 5*time.Second, func(s supervisor.Snapshot) bool { return len(s.Panes) == 1 })
	waitSnap(t, ce, "the clock's first pass", 5*time.Second, func(s supervisor.Snapshot) bool { return s.Seq > 0 })
	n, start := tm.listings.Load(), clock.listings.Load()
	tm.set(nil, "%0", "%1")
	waitFor(t, "ten polls of the clock", 5*time.Second, func() bool { return clock.listings.Load() >= start+10 })
	if got := tm.listings.Load(); got > n+1 { // +1: the start-up ring's confirmation
		t.Errorf("listed %d times without a ring", got-n)
	}
	tm.ring()
	waitSnap(t, e, "the rung change", 5*time.Second, func(s supervisor.Snapshot) bool { return len(s.Panes) == 2 })
}

// TestExitWhenEveryServerGone: with ExitWithServer, Run ends once every
// multiplexer it has seen is gone, not when one of them is.
func TestExitWhenEveryServerGone(t *testing.T) {
	t.Parallel()
	tm, km := newFakeMux("tmux -L fake", true), newFakeMux("kitty unix:/fake", false)
	tm.set(nil, "%0")
	km.set(nil, "1")
	e, done := runEngine(t, supervisor.Config{Mux: tm, Muxes: []supervisor.Multiplexer{km}, Poll: 10 * time.Millisecond, ExitWithServer: true})
	waitSnap(t, e, "both servers' panes", 5*time.Second, func(s supervisor.Snapshot) bool { return len(s.Panes) == 2 })
	km.set(fmt.Errorf("kitty: %w", kitty.ErrRemoteControlDisabled))
	waitSnap(t, e, "kitty's windows gone", 5*time.Second, func(s supervisor.Snapshot) bool {
		return paneIDs(s) == "[tmux -L fake/%0]" && s.Err != ""
	})
	select {
	case err := <-done:
		t.Fatalf("Run ended with one server left: %v", err)
	default:
	}
	tm.set(fmt.Errorf("tmux: %w", tmux.ErrNoServer))
	tm.ring()
	select {
	case err := <-done:
		if !errors.Is(err, supervisor.ErrServerGone) {
			t.Errorf("Run ended with %v, want ErrServerGone", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("Run still runs with both servers gone")
	}
}
