package supervisor_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/supervisor"
)

// manyPanes adds n windows running sleep to the world's server, with one
// tmux process.
func (w *world) manyPanes(n int) {
	w.t.Helper()
	var args []string
	for i := range n {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, "new-window", "-d", "-t", "main", "sleep 600")
	}
	w.tmux(args...)
}

// changes makes n pane changes (a window opened, then its program exits)
// and waits for the engine to show each. It returns the total time from
// each pane's exit (the program writes the time just before it exits) to
// the snapshot without the pane.
func changes(t testing.TB, w *world, e *supervisor.Engine, n int) time.Duration {
	t.Helper()
	var exitLatency time.Duration
	stamp := filepath.Join(w.home, "exit-stamp")
	for i := 0; i < n; i += 2 {
		_ = os.Remove(stamp)
		id := strings.TrimSpace(w.tmux("new-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}",
			"read line; date +%s%N > "+stamp+".tmp; mv "+stamp+".tmp "+stamp))
		waitSnap(t, e, "the new pane", 10*time.Second, func(s supervisor.Snapshot) bool { _, ok := s.PaneByID(id); return ok })
		w.tmux("send-keys", "-t", id, "Enter")
		waitSnap(t, e, "the pane gone", 10*time.Second, func(s supervisor.Snapshot) bool { _, ok := s.PaneByID(id); return !ok })
		seen := time.Now()
		b, err := os.ReadFile(stamp)
		if err != nil {
			t.Fatal(err)
		}
		ns, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		exitLatency += seen.Sub(time.Unix(0, ns))
	}
	return exitLatency
}

// Test50Panes: with 51 panes the snapshot converges, and each change costs
// a bounded number of tmux processes (the doorbell's waiter restarting; the
// listings go over the control connection).
func Test50Panes(t *testing.T) {
	if testing.Short() {
		t.Skip("50 panes: skipped with -short")
	}
	t.Parallel()
	w := newWorld(t)
	w.manyPanes(50)
	ctx := testCtx(t)
	e, m := w.engine(ctx)
	waitSnap(t, e, "51 panes", 10*time.Second, func(s supervisor.Snapshot) bool { return len(s.Panes) == 51 })
	time.Sleep(500 * time.Millisecond) // let the start-up rings settle
	before, queries := m.Client().Execs(), e.Stats().PaneQueries
	const n = 10
	changes(t, w, e, n)
	per := float64(m.Client().Execs()-before) / n
	t.Logf("%.2f tmux processes and %.2f pane listings per change with 51 panes", per, float64(e.Stats().PaneQueries-queries)/n)
	if per > 2 {
		t.Errorf("%.2f tmux processes per change, want at most 2", per)
	}
}

// BenchmarkPaneExit: from a pane's program exiting to a snapshot without
// the pane.
func BenchmarkPaneExit(b *testing.B) {
	w := newWorld(b)
	ctx := testCtx(b)
	e, _ := w.engine(ctx)
	b.ResetTimer()
	lat := changes(b, w, e, 2*b.N)
	b.ReportMetric(float64(lat.Microseconds())/1000/float64(b.N), "ms/exit")
}

// BenchmarkExecsPerChange50: tmux processes started per pane change with
// 51 panes on the server.
func BenchmarkExecsPerChange50(b *testing.B) {
	w := newWorld(b)
	w.manyPanes(50)
	ctx := testCtx(b)
	e, m := w.engine(ctx)
	waitSnap(b, e, "51 panes", 10*time.Second, func(s supervisor.Snapshot) bool { return len(s.Panes) == 51 })
	time.Sleep(500 * time.Millisecond)
	before, queries := m.Client().Execs(), e.Stats().PaneQueries
	b.ResetTimer()
	changes(b, w, e, 2*b.N)
	b.ReportMetric(float64(m.Client().Execs()-before)/float64(2*b.N), "execs/change")
	b.ReportMetric(float64(e.Stats().PaneQueries-queries)/float64(2*b.N), "listings/change")
}

// BenchmarkIdleCPU20: CPU used by the engine (this process) and the tmux
// server over a minute (XCSH_BENCH_IDLE overrides) with 20 idle agents.
func BenchmarkIdleCPU20(b *testing.B) {
	d := time.Minute
	if v := os.Getenv("XCSH_BENCH_IDLE"); v != "" {
		if p, err := time.ParseDuration(v); err == nil {
			d = p
		}
	}
	w := newWorld(b)
	ctx := testCtx(b)
	e, _ := w.engine(ctx)
	for range 20 {
		if _, err := w.act.Launch(ctx, supervisor.LaunchSpec{Kind: "window", Target: "main", Cwd: w.proj}); err != nil {
			b.Fatal(err)
		}
	}
	waitSnap(b, e, "20 idle agents", 60*time.Second, func(s supervisor.Snapshot) bool { return s.Counts["idle"] == 20 })
	time.Sleep(time.Second)
	serverPID, _ := strconv.Atoi(strings.TrimSpace(w.tmux("display-message", "-p", "#{pid}")))
	b.ResetTimer()
	for range b.N {
		self0, srv0, passes0 := selfCPU(), procCPU(serverPID), e.Stats().Passes
		time.Sleep(d)
		self1, srv1, passes1 := selfCPU(), procCPU(serverPID), e.Stats().Passes
		per := float64(time.Minute) / float64(d)
		b.ReportMetric(float64((self1-self0).Microseconds())/1000*per, "engine-cpu-ms/min")
		b.ReportMetric(float64((srv1-srv0).Microseconds())/1000*per, "tmux-cpu-ms/min")
		b.ReportMetric(float64(passes1-passes0)*per, "passes/min")
	}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the user+system time of pid from /proc (clock ticks of 10 ms).
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond
}
