package ui

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/config"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
)

// bigSnapshot is a server of 100 panes in 20 windows of 4 sessions, each
// with an agent, and their session details.
func bigSnapshot(seq uint64) (supervisor.Snapshot, map[string]session.SessionInfo) {
	s := supervisor.Snapshot{Seq: seq, At: dashNow, Server: "tmux -L big", Counts: map[string]int{}}
	infos := map[string]session.SessionInfo{}
	states := []string{"idle", "busy", "idle", "waiting", "idle"}
	for i := range 100 {
		id := fmt.Sprintf("%%%d", i)
		path := fmt.Sprintf("/home/u/.xcsh/agent/sessions/-proj%d-/2026-01-15T10-00-00-000Z_%016x.jsonl", i%7, i)
		cwd := fmt.Sprintf("/home/u/proj%d", i%7)
		st := states[i%len(states)]
		s.Panes = append(s.Panes, supervisor.Pane{
			MuxPane: supervisor.MuxPane{MuxSession: fmt.Sprintf("$%d", i/25), MuxSessionName: fmt.Sprintf("work%d", i/25),
				WindowIndex: (i / 5) % 5, ID: id, Cwd: cwd},
			Foreground: supervisor.FgAgent, Agent: 1000 + i,
			Session: &supervisor.SessionRef{Path: path, Cwd: cwd, Exists: true},
		})
		s.Agents = append(s.Agents, supervisor.Agent{PID: 1000 + i, State: st, Since: dashNow.Add(-time.Duration(i) * time.Second),
			UpdatedAt: dashNow.Add(-time.Duration(i) * time.Second), Cwd: cwd, SessionFile: path,
			Title: fmt.Sprintf("task %d: make the lexer faster in package %d", i, i%7), Model: "anthropic/claude-sonnet-4-5", Pane: id})
		s.Counts[st]++
		title := fmt.Sprintf("task %d", i)
		infos[path] = session.SessionInfo{Path: path, ID: fmt.Sprintf("%016x", i), Cwd: cwd, Title: &title,
			Modified: dashNow.Add(-time.Duration(i) * time.Minute), MessageCount: 40, FirstMessage: "make the lexer faster",
			AllMessagesText: strings.Repeat("the lexer allocates per token; pool the buffers. ", 40)}
	}
	return s, infos
}

// manySessions are n past sessions of about 2 KB of message text each.
func manySessions(n int) []session.SessionInfo {
	out := make([]session.SessionInfo, n)
	for i := range out {
		title := fmt.Sprintf("session %d about the parser", i)
		out[i] = session.SessionInfo{Path: fmt.Sprintf("/s/-p%d-/2026-01-15T10-00-00-000Z_%016x.jsonl", i%50, i), ID: fmt.Sprintf("%016x", i),
			Cwd: fmt.Sprintf("/home/u/p%d", i%50), Title: &title, Modified: dashNow.Add(-time.Duration(i) * time.Minute),
			MessageCount: 30, FirstMessage: "fix the parser",
			AllMessagesText: strings.Repeat(fmt.Sprintf("message text of session %d with words to search through. ", i), 35)}
	}
	return out
}

func benchDash(b *testing.B, width, height int) *Dash {
	b.Helper()
	s, infos := bigSnapshot(1)
	d := NewDash(DashOptions{Initial: s, Now: func() time.Time { return dashNow }, Home: "/home/u"})
	d.infos = infos
	d.Update(tea.WindowSizeMsg{Width: width, Height: height})
	d.rebuild()
	_ = d.View()
	return d
}

// BenchmarkDashView100 draws the dashboard of 100 panes at 160x50.
func BenchmarkDashView100(b *testing.B) {
	d := benchDash(b, 160, 50)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = d.View()
	}
}

// BenchmarkDashSnapshot100 takes a new snapshot of 100 panes (rows rebuilt,
// sorted and filtered) and draws it: the work between a change and the
// screen.
func BenchmarkDashSnapshot100(b *testing.B) {
	d := benchDash(b, 160, 50)
	snaps := make([]supervisor.Snapshot, 2)
	for i := range snaps {
		snaps[i], _ = bigSnapshot(uint64(i + 2))
	}
	snaps[1].Agents[7].State = "waiting"
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		d.Update(DashSnapshotMsg{Snapshot: snaps[i%2]})
		_ = d.View()
	}
}

// benchAll is the all-sessions view over n sessions.
func benchAll(b *testing.B, n int) *Dash {
	b.Helper()
	d := benchDash(b, 160, 50)
	d.Update(tea.KeyMsg{Type: tea.KeyTab})
	d.Update(dashAllMsg{manySessions(n)})
	_ = d.View()
	return d
}

// BenchmarkDashKeyMove10k moves the cursor in the list of 10,000 sessions.
func BenchmarkDashKeyMove10k(b *testing.B) {
	d := benchAll(b, 10000)
	down, up := tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyUp}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%40 >= 20 {
			k = up
		}
		d.Update(k)
		_ = d.View()
	}
}

// BenchmarkDashFilterKey10k types a query letter and takes it back, over
// 10,000 sessions with about 20 MB of message text.
func BenchmarkDashFilterKey10k(b *testing.B) {
	d := benchAll(b, 10000)
	d.Update(keyRunes("/"))
	d.Update(keyRunes("w"))
	d.Update(keyRunes("o"))
	d.Update(keyRunes("r"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			d.Update(keyRunes("d"))
		} else {
			d.Update(tea.KeyMsg{Type: tea.KeyBackspace})
		}
		_ = d.View()
	}
}

// BenchmarkDashAllSnapshot10k takes a snapshot while the all-sessions view
// shows 10,000 sessions.
func BenchmarkDashAllSnapshot10k(b *testing.B) {
	d := benchAll(b, 10000)
	s, _ := bigSnapshot(3)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.Seq = uint64(i + 4)
		d.Update(DashSnapshotMsg{Snapshot: s})
		_ = d.View()
	}
}

// screenWatch is a program's output that notes when a text first appears
// in what it writes after arm.
type screenWatch struct {
	mu   sync.Mutex
	want string
	seen chan struct{}
}

func (w *screenWatch) arm(want string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.want, w.seen = want, make(chan struct{})
	return w.seen
}

func (w *screenWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.want != "" && strings.Contains(string(p), w.want) {
		close(w.seen)
		w.want = ""
	}
	return len(p), nil
}

// changeToScreen runs an engine (files only) and the dashboard program on
// it, changes this process's live state n times, and returns how long each
// change took to be written to the screen.
func changeToScreen(tb testing.TB, n int) []time.Duration {
	tb.Helper()
	dir := tb.TempDir()
	paths := config.Config{AgentDir: dir}.Resolve()
	e := supervisor.New(supervisor.Config{Paths: paths})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	snaps, stop := e.Subscribe()
	defer stop()

	live := agent.NewLiveFile(paths.Agents, agent.Live{Cwd: dir, Title: "latency probe", Model: "scripted/demo"})
	defer live.Remove()
	if err := live.Update(agent.StateIdle, nil); err != nil {
		tb.Fatal(err)
	}
	out := &screenWatch{}
	ready := out.arm("1 idle")
	d := NewDash(DashOptions{Snapshots: snaps, Now: time.Now})
	p := tea.NewProgram(d, tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.Run()
	}()
	defer func() { p.Quit(); <-done }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 30})
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		tb.Fatal("the dashboard never showed the agent")
	}
	var lat []time.Duration
	for i := range n {
		st, want := agent.StateBusy, "1 busy"
		if i%2 == 1 {
			st, want = agent.StateIdle, "1 idle"
		}
		seen := out.arm(want)
		t0 := time.Now()
		if err := live.Update(st, nil); err != nil {
			tb.Fatal(err)
		}
		select {
		case <-seen:
			lat = append(lat, time.Since(t0))
		case <-time.After(5 * time.Second):
			tb.Fatalf("change %d (%s) never reached the screen", i, st)
		}
	}
	return lat
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// TestDashChangeToScreen: every state change of an agent reaches the
// screen, with no polling by the dashboard. How fast is the benchmark's
// business (BenchmarkDashChangeToScreen); a test asserts no times.
func TestDashChangeToScreen(t *testing.T) {
	if lat := changeToScreen(t, 10); len(lat) != 10 {
		t.Errorf("%d of 10 changes reached the screen", len(lat))
	}
}

// BenchmarkDashChangeToScreen reports the latency from a live-file write to
// the frame that shows it.
func BenchmarkDashChangeToScreen(b *testing.B) {
	lat := changeToScreen(b, max(b.N, 5))
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-p90")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-max")
	b.ReportMetric(0, "ns/op")
}

var _ io.Writer = (*screenWatch)(nil)
