package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chatScript is the scripted provider's script of the chat tests: no delays.
const chatScript = `{
  "delayMs": 0, "latencyMs": 0,
  "turns": [
    {"match": "hello", "replies": [{"text": "Hi from the **script**: the answer streams in."}]},
    {"match": "again", "replies": [{"text": "Continued where the fork left off."}]},
    {"replies": [{"text": "scripted answer"}]}
  ]
}`

// TestTmuxChat drives the chat screen in a real tmux pane: a prompt typed
// with send-keys and its answer read with capture-pane, /fork, /resume of
// another session and back, /quit; then `xcsh -c` in the same pane
// continues the fork.
func TestTmuxChat(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	proj := e.dir("proj")
	script := filepath.Join(e.home, "chat.json")
	if err := os.WriteFile(script, []byte(chatScript), 0o600); err != nil {
		t.Fatal(err)
	}
	other := e.writeSession(fixture{id: idL1, cwd: proj, title: "Other work", users: []string{"the other session's prompt"}, age: hour})
	s, p := startTmux(t, e, proj)

	rc := s.start(p, "chat", shellQuote(xcshBin)+" --script "+shellQuote(script))
	s.waitScreen(p, "/help lists the commands")

	s.typeLine(p, "hello there")
	sc := s.waitScreen(p, "Hi from the script: the answer streams in.")
	if !strings.Contains(sc, "› hello there") {
		t.Errorf("the prompt is not in the transcript:\n%s", sc)
	}
	s.waitScreen(p, "· hello there · "+ptsKey(p)+" · idle")

	files := sessionFiles(t, e.sessionDir(proj))
	if len(files) != 2 {
		t.Fatalf("after the first answer %s holds %v, want the fixture and the new session", e.sessionDir(proj), files)
	}
	first := files[0]
	if first == other {
		first = files[1]
	}

	s.typeLine(p, "/fork")
	sc = s.waitScreen(p, "Session forked to ")
	m := regexp.MustCompile(`Session forked to (\S+\.jsonl)`).FindStringSubmatch(sc)
	if m == nil {
		t.Fatalf("no fork file named:\n%s", sc)
	}
	fork := filepath.Join(e.sessionDir(proj), m[1])
	if fork == first {
		t.Fatalf("the fork is the first session %s", fork)
	}
	if h := header(t, fork); h["parentSession"] == nil {
		t.Errorf("the fork's header has no parentSession: %v", h)
	}

	// /resume the other session: the picker lists this directory's sessions.
	s.typeLine(p, "/resume")
	s.waitScreen(p, "Resume session")
	s.tmux("send-keys", "-t", p.id, "-l", "other work")
	s.waitScreen(p, "> other work")
	s.keys(p, "Enter")
	s.waitScreen(p, "Resumed session")
	s.waitScreen(p, "› the other session's prompt")

	// and back to the fork, which -c is to continue
	s.typeLine(p, "/resume")
	s.waitScreen(p, "Resume session")
	s.tmux("send-keys", "-t", p.id, "-l", filepath.Base(strings.TrimSuffix(fork, ".jsonl"))[25:])
	time.Sleep(100 * time.Millisecond)
	s.keys(p, "Enter")
	s.waitScreen(p, "Resumed session")
	sc = s.waitScreen(p, "› hello there")
	if strings.Contains(sc, "the other session's prompt") {
		t.Errorf("back on the fork the other session still shows:\n%s", sc)
	}

	// /export with a quoted path, /dump, /share through <agent dir>/share
	s.typeLine(p, `/export "the fork.html"`)
	s.waitScreen(p, "Session exported to: ")
	if page, err := os.ReadFile(filepath.Join(proj, "the fork.html")); err != nil || !strings.Contains(string(page), "session-data") {
		t.Errorf("/export wrote no page at %q (%v)", filepath.Join(proj, "the fork.html"), err)
	}
	s.typeLine(p, "/dump")
	s.waitScreen(p, "Session copied to clipboard")
	share := "#!/bin/sh\necho \"https://share.example/$(basename \"$1\")\"\n"
	if err := os.WriteFile(filepath.Join(e.agentDir(), "share"), []byte(share), 0o755); err != nil {
		t.Fatal(err)
	}
	s.typeLine(p, "/share")
	s.waitScreen(p, "Share URL: https://share.example/")

	s.typeLine(p, "/quit")
	if code := s.wait(p, rc); code != 0 {
		t.Fatalf("xcsh exited %d:\n%s", code, s.screen(p))
	}
	if sc := s.screen(p); !strings.Contains(sc, "Session: "+fork) {
		t.Errorf("on exit the pane does not name the fork %s:\n%s", fork, sc)
	}

	out, code := s.xcsh(p, "continue", "-c", "-p", "--script", script, "again")
	if code != 0 || !strings.Contains(out, "Continued where the fork left off.") {
		t.Fatalf("xcsh -c -p exited %d:\n%s\n%s", code, out, s.screen(p))
	}
	data, err := os.ReadFile(fork)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "hello there") || !strings.Contains(string(data), "Continued where the fork left off.") {
		t.Errorf("-c did not continue the fork %s:\n%s", fork, data)
	}
	if data, _ := os.ReadFile(first); strings.Contains(string(data), "again") {
		t.Errorf("-c continued the session before the fork")
	}
	if _, err := os.Stat(filepath.Join(e.agentDir(), "history.db")); err != nil {
		t.Errorf("no prompt history: %v", err)
	}
}
