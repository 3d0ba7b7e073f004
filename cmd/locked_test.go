package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLockedSessionOffer: a second agent opening a session that a live agent
// writes is offered jump, fork or read-only; f forks it here.
func TestLockedSessionOffer(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	s, first := startTmux(t, e, proj)
	xcsh := "'" + xcshBin + "'"
	s.typeLine(first, xcsh+" --model scripted/demo hello")
	waitUntil(t, "the first agent's answer", func() bool { return strings.Contains(s.screen(first), "scripted demo model") })
	var files []string
	waitUntil(t, "the first session file", func() bool {
		files, _ = filepath.Glob(filepath.Join(e.sessionDir(proj), "*.jsonl"))
		return len(files) == 1
	})
	src := files[0]

	second := s.split(first, proj)
	s.typeLine(second, xcsh+" --resume "+src+" --model scripted/demo")
	waitUntil(t, "the offer", func() bool { return strings.Contains(s.screen(second), "[f] fork it here") })
	screen := s.screen(second)
	if !strings.Contains(screen, "is being written by agent pid") || !strings.Contains(screen, "[j] jump to it") {
		t.Errorf("offer text:\n%s", screen)
	}
	s.typeLine(second, "f")
	waitUntil(t, "the fork", func() bool {
		fs, _ := filepath.Glob(filepath.Join(e.sessionDir(proj), "*.jsonl"))
		return len(fs) == 2
	})
	fs, _ := filepath.Glob(filepath.Join(e.sessionDir(proj), "*.jsonl"))
	var fork string
	for _, f := range fs {
		if f != src {
			fork = f
		}
	}
	h := header(t, fork)
	if h["parentSession"] != header(t, src)["id"] {
		t.Errorf("fork parent %v, want %v", h["parentSession"], header(t, src)["id"])
	}
	waitUntil(t, "the chat on the fork", func() bool { return strings.Contains(s.screen(second), "Type a prompt") })
}
