package cmd

import (
	"testing"

	"github.com/xcsh-dev/xcsh/terminal/kitty/kittytest"
)

// The kitty tests run a real kitty under Xvfb (kittytest). Where kitty or
// Xvfb cannot start they skip and say why, unless XCSH_KITTY_REQUIRED is
// set.

// kittyInstance is a private kitty on an X server of its own, stopped in
// Cleanup.
type kittyInstance struct {
	*kittytest.Kitty
	addr string // "unix:<dir>/kitty.sock"
}

// stop ends kitty (Cleanup does too).
func (in *kittyInstance) stop() { in.Stop() }

// startKittyFor starts kitty in environment env (plus DISPLAY,
// XDG_CONFIG_HOME and XDG_RUNTIME_DIR of its own), its first window running
// args (the shell when none). With remote control on it returns once kitty
// answers with that window listed; without, once the window runs.
func startKittyFor(t *testing.T, env []string, remoteControl bool, args ...string) *kittyInstance {
	t.Helper()
	if testing.Short() {
		t.Skip("real-kitty test; skipped with -short")
	}
	k := kittytest.Start(t, kittytest.Options{
		Env:             env,
		RuntimeDir:      true,
		NoRemoteControl: !remoteControl,
		Args:            args,
	})
	return &kittyInstance{Kitty: k, addr: k.Addr}
}
