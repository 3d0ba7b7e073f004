package supervisor

import (
	"context"
	"sync/atomic"
)

// muxWatch follows the engine's multiplexers for Run: which are started,
// which ring a doorbell (tmux) and which are polled (kitty, whose Changes is
// nil), merging the doorbells into one channel.
type muxWatch struct {
	muxes   []Multiplexer
	started muxSet // Start succeeded
	evented muxSet // started, with a doorbell
	polled  muxSet // started, without one: listed every Config.Poll

	rung   []atomic.Bool // set by a doorbell, cleared by rang
	notify chan struct{} // a doorbell rang (buffer 1: rings coalesce)
	stop   chan struct{} // ends the forwarders
}

// watchMuxes starts every multiplexer; the ones that fail are reported and
// started again by retry.
func (e *Engine) watchMuxes(ctx context.Context) *muxWatch {
	mw := &muxWatch{
		muxes: e.muxes, rung: make([]atomic.Bool, len(e.muxes)),
		notify: make(chan struct{}, 1), stop: make(chan struct{}),
	}
	for i := range mw.muxes {
		if err := mw.start(ctx, i); err != nil {
			e.report(err)
		}
	}
	return mw
}

// start starts muxes[i] and forwards its doorbell, if it has one.
func (mw *muxWatch) start(ctx context.Context, i int) error {
	m := mw.muxes[i]
	if err := m.Start(ctx); err != nil {
		return err
	}
	bit := muxSet(1) << i
	mw.started |= bit
	ch := m.Changes()
	if ch == nil {
		mw.polled |= bit
		return nil
	}
	mw.evented |= bit
	go func() {
		for {
			select {
			case <-mw.stop:
				return
			case _, ok := <-ch:
				if !ok {
					return
				}
				mw.rung[i].Store(true)
				select {
				case mw.notify <- struct{}{}:
				default:
				}
			}
		}
	}()
	return nil
}

// unstarted is the set of multiplexers not started yet.
func (mw *muxWatch) unstarted() muxSet {
	return (muxSet(1)<<len(mw.muxes) - 1) &^ mw.started
}

// retry starts the multiplexers not started yet and returns those that
// started now.
func (mw *muxWatch) retry(ctx context.Context) muxSet {
	var now muxSet
	for i := range mw.muxes {
		if bit := muxSet(1) << i; mw.started&bit == 0 && mw.start(ctx, i) == nil {
			now |= bit
		}
	}
	return now
}

// rang returns the multiplexers whose doorbell rang since the last call.
func (mw *muxWatch) rang() muxSet {
	var s muxSet
	for i := range mw.rung {
		if mw.rung[i].Swap(false) {
			s |= muxSet(1) << i
		}
	}
	return s
}

// cheap returns the multiplexers whose listing costs no process now.
func (mw *muxWatch) cheap() muxSet {
	var s muxSet
	for i, m := range mw.muxes {
		if m.Cheap() {
			s |= muxSet(1) << i
		}
	}
	return s
}

// close ends the forwarders and closes every multiplexer.
func (mw *muxWatch) close() {
	close(mw.stop)
	for _, m := range mw.muxes {
		_ = m.Close()
	}
}

// pollChanged lists the multiplexers in which, as a poll does, and
// reports whether anything differs from the last listing; only then does a
// pass follow. A kitty listing carries each window's foreground processes,
// so a program starting in a window shows as a change too. With nothing
// changing, a poll costs one listing and no pass.
func (e *Engine) pollChanged(ctx context.Context, which muxSet) bool {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	return e.listMuxes(ctx, which)
}

// serversGone reports whether every multiplexer's server is gone and at
// least one of them was seen: Run's end with Config.ExitWithServer.
func (e *Engine) serversGone() bool {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	seen := false
	for i, err := range e.muxErrs {
		if !isGone(err) {
			return false
		}
		seen = seen || e.seen[i]
	}
	return seen
}

// splitErrors undoes errors.Join.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}
