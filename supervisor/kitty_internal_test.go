package supervisor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// Two OS windows: 1 with tabs 10 (windows 1, 2) and 11 (window 3, active),
// 2 with tab 20 (window 4).
var kittyWindows = []kitty.Window{
	{ID: 1, TabID: 10, OSWindowID: 1, TTY: "/dev/pts/1", PID: 101},
	{ID: 2, TabID: 10, OSWindowID: 1, TTY: "/dev/pts/2", PID: 102},
	{ID: 3, TabID: 11, OSWindowID: 1, TTY: "/dev/pts/3", PID: 103, Active: true},
	{ID: 4, TabID: 20, OSWindowID: 2, TTY: "/dev/pts/4", PID: 104, Active: true},
}

func TestKittyPanes(t *testing.T) {
	k := newKitty(nil)
	k.c, _ = kitty.New("unix:/k.sock")
	ps := k.panes(kittyWindows)
	want := []struct {
		id, session, window string
		index               int
		active              bool
	}{
		{"1", "kitty-1", "tab-10", 0, false},
		{"2", "kitty-1", "tab-10", 0, false},
		{"3", "kitty-1", "tab-11", 1, true},
		{"4", "kitty-2", "tab-20", 0, true},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d panes: %+v", len(ps), ps)
	}
	for i, w := range want {
		p := ps[i]
		if p.ID != w.id || p.MuxSession != w.session || p.MuxSessionName != w.session || p.Window != w.window ||
			p.WindowIndex != w.index || p.Active != w.active || p.Visible != w.active || p.Server != "kitty unix:/k.sock" {
			t.Errorf("pane %d: %+v, want %+v", i, p, w)
		}
	}
}

func TestKittyTargetTab(t *testing.T) {
	for _, tt := range []struct {
		target string
		tab    int
		err    bool
	}{
		{"2", 10, false},
		{"3", 11, false},
		{"tab-20", 20, false},
		{"kitty-1", 11, false}, // the OS window's active tab
		{"kitty-2", 20, false},
		{"9", 0, true},
		{"tab-99", 0, true},
		{"kitty-9", 0, true},
		{"%3", 0, true},
	} {
		t.Run(tt.target, func(t *testing.T) {
			tab, err := targetTab(kittyWindows, tt.target)
			if (err != nil) != tt.err || tab != tt.tab {
				t.Errorf("targetTab(%q) = %d, %v; want %d (error %v)", tt.target, tab, err, tt.tab, tt.err)
			}
			if err != nil && !errors.Is(err, ErrNoTarget) {
				t.Errorf("error %v is not ErrNoTarget", err)
			}
		})
	}
}

// TestKittyHoldRelease: the held command waits for Release, which waits
// for the command to open the FIFO when it starts later, and leaves
// nothing behind.
func TestKittyHoldRelease(t *testing.T) {
	k := newKitty(nil)
	hold := k.Hold("a")
	fifo := strings.Trim(strings.TrimPrefix(hold, "read _ < "), "'")
	if _, err := os.Stat(fifo); err != nil {
		t.Fatalf("hold %q: %v", hold, err)
	}
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	released := make(chan error, 1)
	go func() { released <- k.Release(ctx, "a") }()
	select {
	case err := <-released:
		t.Fatalf("Release returned before anyone waited: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", hold+" && echo started > "+out)
	if err := cmd.Run(); err != nil {
		t.Fatalf("held command: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "started\n" {
		t.Errorf("the command after the hold wrote %q", b)
	}
	if _, err := os.Stat(filepath.Dir(fifo)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the hold's directory is still there: %v", err)
	}
	if err := k.Release(ctx, "a"); err == nil {
		t.Error("a second Release of the same key succeeded")
	}

	// A hold never released: Release gives up at ctx's deadline, and Close
	// removes the FIFOs left.
	fifoB := strings.Trim(strings.TrimPrefix(k.Hold("b"), "read _ < "), "'")
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if err := k.Release(short, "b"); err == nil {
		t.Error("Release with nobody waiting succeeded")
	}
	fifoC := strings.Trim(strings.TrimPrefix(k.Hold("c"), "read _ < "), "'")
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{fifoB, fifoC} {
		if _, err := os.Stat(filepath.Dir(f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", filepath.Dir(f), err)
		}
	}
}
