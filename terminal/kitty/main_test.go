package kitty_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/terminal"
	"github.com/xcsh-dev/xcsh/terminal/kitty"
	"github.com/xcsh-dev/xcsh/terminal/kitty/kittytest"
)

// Environment of the helper process: the test binary re-executed in a kitty
// window (or a tmux pane inside one), standing in for xcsh.
const (
	envHelper = "XCSH_KITTY_TEST_HELPER" // "detect"
	envOut    = "XCSH_KITTY_TEST_OUT"    // result file (JSON helperResult)
)

// helperResult is what a helper process reports.
type helperResult struct {
	Identity  terminal.Identity `json:"identity"`
	DetectErr string            `json:"detectErr,omitempty"`
}

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "detect" {
		os.Exit(helperMain())
	}
	code := m.Run()
	stopShared()
	stopXvfb()
	os.Exit(code)
}

// helperMain reports this terminal's identity, then stays, so the window
// stays listed, until the test closes the window.
func helperMain() int {
	id, err := terminal.Detect(nil)
	r := helperResult{Identity: id}
	if err != nil {
		r.DetectErr = err.Error()
	}
	data, _ := json.Marshal(r)
	out := os.Getenv(envOut)
	if err := os.WriteFile(out+".tmp", data, 0o600); err != nil {
		return 1
	}
	if err := os.Rename(out+".tmp", out); err != nil {
		return 1
	}
	time.Sleep(time.Minute)
	return 0
}

// sharedX is the X server of the shared kitty and of the tests that do not
// look at focus; TestMain stops it.
var sharedX struct {
	once sync.Once
	x    *kittytest.Xvfb
	err  error
}

func sharedDisplay() (string, error) {
	sharedX.once.Do(func() { sharedX.x, sharedX.err = kittytest.StartXvfb() })
	if sharedX.err != nil {
		return "", sharedX.err
	}
	return sharedX.x.Display, nil
}

func stopXvfb() {
	if sharedX.x != nil {
		sharedX.x.Stop()
	}
}

// instance is a private kitty for one test: its own socket, an environment
// without the caller's kitty or tmux, stopped in Cleanup.
type instance struct {
	*kittytest.Kitty
	c    *kitty.Client
	addr string
	env  []string
	cmd  *exec.Cmd
}

// kittyOpts configure a private kitty.
type kittyOpts struct {
	// ownDisplay runs kitty on an X server of its own: without a window
	// manager, any kitty OS window that opens on a display takes the
	// keyboard focus from the others.
	ownDisplay bool
	// noRemoteControl starts kitty with --listen-on but without
	// allow_remote_control.
	noRemoteControl bool
	// conf, when set, is the kitty.conf kitty reads instead of the command
	// line's --config NONE, --listen-on and allow_remote_control, with
	// XDG_RUNTIME_DIR set to <scratch>/run; addr says where it makes kitty
	// listen.
	conf string
	addr func(runtimeDir string, kittyPID int) string
	// extra holds more command line options.
	extra []string
}

// options are o's for kittytest on display disp ("": one of its own):
// kitty gets HOME (its scratch dir), SHELL and XDG_RUNTIME_DIR of its own.
func (o kittyOpts) options(disp string) kittytest.Options {
	return kittytest.Options{
		Display:         disp,
		Env:             append(kittytest.Environ(os.Environ(), "HOME", "SHELL", "XDG_RUNTIME_DIR"), "SHELL=/bin/sh"),
		ScratchHome:     true,
		RuntimeDir:      true,
		NoRemoteControl: o.noRemoteControl,
		Conf:            o.conf,
		Addr:            o.addr,
		Args:            o.extra,
	}
}

func wrap(k *kittytest.Kitty) *instance {
	return &instance{Kitty: k, c: k.Client, addr: k.Addr, env: k.Env, cmd: k.Cmd}
}

// startKitty starts a private kitty for t, stopped in Cleanup.
func startKitty(t testing.TB, o kittyOpts) *instance {
	t.Helper()
	if o.ownDisplay {
		return wrap(kittytest.Start(t, o.options("")))
	}
	if err := kittytest.NeedKitty(); err != nil {
		kittytest.SkipOrFail(t, err)
	}
	disp, err := sharedDisplay()
	if err != nil {
		kittytest.SkipOrFail(t, err)
	}
	return wrap(kittytest.Start(t, o.options(disp)))
}

// shared is one kitty for the tests that neither need the focus to stay put
// nor disturb it (their windows are launched without Focus): kitty takes
// about 3 s to start on a loaded 2-CPU machine. TestMain stops it.
var shared struct {
	once sync.Once
	in   *instance
	err  error
}

func sharedKitty(t testing.TB) *instance {
	t.Helper()
	shared.once.Do(func() {
		if shared.err = kittytest.NeedKitty(); shared.err != nil {
			return
		}
		var disp string
		if disp, shared.err = sharedDisplay(); shared.err == nil {
			var k *kittytest.Kitty
			if k, shared.err = kittytest.Launch(kittyOpts{}.options(disp)); shared.err == nil {
				shared.in = wrap(k)
			}
		}
	})
	if shared.err != nil {
		kittytest.SkipOrFail(t, shared.err)
	}
	return shared.in
}

func stopShared() {
	if shared.in != nil {
		shared.in.Stop()
	}
}
