package supervisor_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/supervisor"
)

// BenchmarkKittyPollCPU: the cost of polling kitty, per minute, with ten
// idle agents in kitty windows: the CPU of the engine (this process) and
// of kitty while the engine runs, and of kitty alone afterwards (its idle
// baseline). Each period lasts 30 s (XCSH_BENCH_IDLE overrides).
func BenchmarkKittyPollCPU(b *testing.B) {
	d := 30 * time.Second
	if v := os.Getenv("XCSH_BENCH_IDLE"); v != "" {
		if p, err := time.ParseDuration(v); err == nil {
			d = p
		}
	}
	w := newKittyWorld(b)
	self, _ := os.Executable()
	act := *w.act
	act.AgentCommand = []string{"env", envStandIn + "=1", self}
	ctx := testCtx(b)
	for i := range 10 {
		kind := "split"
		if i%2 == 1 {
			kind = "window"
		}
		if _, err := act.Launch(ctx, supervisor.LaunchSpec{Kind: kind, Cwd: w.proj}); err != nil {
			b.Fatal(err)
		}
	}
	kittyPID := w.k.cmd.Process.Pid
	per := float64(time.Minute) / float64(d)
	b.ResetTimer()
	for range b.N {
		ectx, cancel := context.WithCancel(ctx)
		e := supervisor.New(supervisor.Config{Paths: w.paths, Mux: w.newMux(), Resync: time.Hour})
		done := make(chan error, 1)
		go func() { done <- e.Run(ectx) }()
		waitSnap(b, e, "10 idle agents", 30*time.Second, func(s supervisor.Snapshot) bool { return s.Counts["idle"] == 10 })
		time.Sleep(time.Second)
		self0, k0, q0 := selfCPU(), procCPU(kittyPID), e.Stats().PaneQueries
		time.Sleep(d)
		self1, k1, q1 := selfCPU(), procCPU(kittyPID), e.Stats().PaneQueries
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		time.Sleep(time.Second)
		k2 := procCPU(kittyPID)
		time.Sleep(d)
		k3 := procCPU(kittyPID)
		b.ReportMetric(float64((self1-self0).Microseconds())/1000*per, "engine-cpu-ms/min")
		b.ReportMetric(float64((k1-k0).Microseconds())/1000*per, "kitty-cpu-ms/min")
		b.ReportMetric(float64((k3-k2).Microseconds())/1000*per, "kitty-idle-cpu-ms/min")
		b.ReportMetric(float64(q1-q0)*per, "listings/min")
	}
}
