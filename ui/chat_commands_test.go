package ui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/session"
)

func TestSplitArgs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"out.html", []string{"out.html"}, false},
		{`"my file.html"`, []string{"my file.html"}, false},
		{`'my file.html' extra`, []string{"my file.html", "extra"}, false},
		{`my\ file.html`, []string{"my file.html"}, false},
		{`"a \"q\" b"`, []string{`a "q" b`}, false},
		{`'it''s'`, []string{"its"}, false},
		{`""`, []string{""}, false},
		{`"open`, nil, true},
	} {
		got, err := splitArgs(tt.in)
		if (err != nil) != tt.err || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestChatExport: quoted paths with spaces reach Export whole; --copy, copy
// and clipboard point at /dump; an in-memory session cannot be exported.
func TestChatExport(t *testing.T) {
	e := newChatEnv(t, true)
	var mu sync.Mutex
	var got []string
	e.opt.Export = func(path string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, path)
		if path == "fail.html" {
			return "", errors.New("disk full")
		}
		return "/out/" + path, nil
	}
	tm, _ := start(t, e.opt, 100, 30)
	typeLine(tm, `/export "my session.html"`)
	waitFor(t, tm, "Session exported to: /out/my session.html")
	typeLine(tm, `/export`)
	waitFor(t, tm, "Session exported to: /out/")
	for _, arg := range []string{"--copy", "copy", "clipboard"} {
		typeLine(tm, "/export "+arg)
		waitFor(t, tm, "Use /dump to copy the session to clipboard.")
	}
	typeLine(tm, "/export fail.html")
	waitFor(t, tm, "Failed to export session: disk full")
	typeLine(tm, "/export ~/x.html")
	waitFor(t, tm, "Session exported to: /out/"+e.home+"/x.html")
	_ = finalView(t, tm)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"my session.html", "", "fail.html", e.home + "/x.html"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Export got %q, want %q", got, want)
	}

	mem := newChatEnv(t, false)
	mem.opt.Export = e.opt.Export
	mem.opt.Share = func(_ context.Context) (string, error) { t.Error("share of an in-memory session"); return "", nil }
	mem.opt.Dump = func() (string, string, error) { return "\x1b]52;c;eA==\a", "", nil }
	tm, _ = start(t, mem.opt, 100, 30)
	typeLine(tm, "/export out.html")
	waitFor(t, tm, "Cannot export in-memory session to HTML")
	typeLine(tm, "/share")
	waitFor(t, tm, "Cannot export in-memory session to HTML")
	typeLine(tm, "/dump")
	waitFor(t, tm, "Session copied to clipboard", "\x1b]52;c;eA==\a")
	_ = finalView(t, tm)
}

// TestChatFork: /fork continues in a new file and says so; in memory it
// fails with the reference's text; during a turn it is refused.
func TestChatFork(t *testing.T) {
	e := newChatEnv(t, true)
	tm, _ := start(t, e.opt, 120, 30)
	typeLine(tm, "first prompt")
	waitFor(t, tm, "› first prompt")
	waitIdle(t, e)
	before := e.ag.Session().SessionFile()
	typeLine(tm, "/fork")
	waitFor(t, tm, "Session forked to ")
	waitIdle(t, e)
	after := e.ag.Session().SessionFile()
	if after == before || filepath.Dir(after) != filepath.Dir(before) {
		t.Fatalf("after /fork the session is %s (was %s)", after, before)
	}
	if _, err := os.Stat(after); err != nil {
		t.Fatal(err)
	}
	typeLine(tm, "slow reply please")
	waitFor(t, tm, "› slow reply please")
	typeLine(tm, "/fork")
	waitFor(t, tm, agent.ErrForkWhileBusy.Error())
	tm.Send(keyOf(tea.KeyEsc))
	waitFor(t, tm, "⊘ Aborted")
	v := finalView(t, tm)
	if !strings.Contains(v, "Session forked to "+filepath.Base(after)) {
		t.Errorf("the fork's notice does not name %s:\n%s", filepath.Base(after), v)
	}

	mem := newChatEnv(t, false)
	tm, _ = start(t, mem.opt, 120, 30)
	typeLine(tm, "/fork")
	waitFor(t, tm, "Fork failed (session not persisted or cancelled)")
	_ = finalView(t, tm)
}

// TestChatResume: /resume switches to the picked session; a switch a hook
// cancels says it was cancelled, and the session stays.
func TestChatResume(t *testing.T) {
	e := newChatEnv(t, true)
	so, _ := sessionOptions(t)
	so.SessionsRoot = filepath.Join(e.home, ".xcsh", "agent", "sessions")
	so.Home = e.home
	other := session.Create(so, filepath.Join(e.home, "proj"), "")
	if _, err := other.AppendMessage([]byte(`{"role":"user","content":"the other session's prompt","timestamp":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := other.EnsureOnDisk(); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	info, ok := session.ReadSessionInfo(session.FileStorage{}, other.SessionFile())
	if !ok {
		t.Fatal("no info for", other.SessionFile())
	}
	e.opt.Sessions = func(string) []session.SessionInfo { return []session.SessionInfo{info} }
	var cancel sync.Mutex
	cancelSwitch := true
	e.ag.Subscribe(func(ev agent.Event) error {
		cancel.Lock()
		defer cancel.Unlock()
		if ev.Type == agent.EvSessionBeforeSwitch && cancelSwitch {
			return agent.ErrCancel
		}
		return nil
	})
	tm, _ := start(t, e.opt, 120, 30)
	typeLine(tm, "/resume")
	waitFor(t, tm, "Resume session")
	tm.Send(keyOf(tea.KeyEnter))
	waitFor(t, tm, msgResumeHookNo)
	cancel.Lock()
	cancelSwitch = false
	cancel.Unlock()
	typeLine(tm, "/resume")
	waitFor(t, tm, "Resume session")
	tm.Send(keyOf(tea.KeyEnter))
	waitFor(t, tm, "Resumed session", "› the other session's prompt")
	_ = finalView(t, tm)
	if got := e.ag.Session().SessionFile(); got != other.SessionFile() {
		t.Errorf("after /resume the session is %s, want %s", got, other.SessionFile())
	}
}

// TestChatHistoryRecall: ↑ and ↓ on the editor's first and last line walk
// the prompt history and come back to the draft; typed prompts join it.
func TestChatHistoryRecall(t *testing.T) {
	c := NewChat(ChatOptions{Now: fixedNow, NoAgent: "no model"})
	c.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	c.Update(historyLoadedMsg{[]string{"newest", "older\ntwo lines", "oldest"}})
	send := func(keys ...tea.KeyMsg) {
		for _, k := range keys {
			c.Update(k)
		}
	}
	send(runes("draft"))
	for _, tt := range []struct {
		k    tea.KeyMsg
		want string
	}{
		{keyUp, "newest"},
		{keyUp, "older\ntwo lines"},
		{keyUp, "older\ntwo lines"}, // on the second line ↑ moves the cursor
		{keyUp, "oldest"},
		{keyUp, "oldest"},             // the end of the history
		{keyDown, "older\ntwo lines"}, // the cursor is at the end: ↓ goes on
		{keyDown, "newest"},
		{keyDown, "draft"},
	} {
		send(tt.k)
		if got := c.ed.Value(); got != tt.want {
			t.Fatalf("after %s the editor holds %q, want %q", tt.k, got, tt.want)
		}
	}
	// a slash command is remembered too (a prompt is refused without a model)
	c.ed.SetValue("/help")
	send(keyEnter)
	send(keyUp)
	if got := c.ed.Value(); got != "/help" {
		t.Errorf("after sending /help, ↑ gives %q", got)
	}
}

// TestChatKeys: Ctrl+C clears, then quits; Ctrl+D quits on an empty line.
func TestChatKeys(t *testing.T) {
	c := NewChat(ChatOptions{Now: fixedNow, NoAgent: "no model"})
	c.Update(runes("text"))
	if _, cmd := c.Update(keyCtrlC); isQuit(cmd) || c.ed.Value() != "" {
		t.Fatalf("Ctrl+C with text: quit %v, editor %q", isQuit(cmd), c.ed.Value())
	}
	if _, cmd := c.Update(keyCtrlC); !isQuit(cmd) {
		t.Fatal("Ctrl+C on an empty editor does not quit")
	}
	c = NewChat(ChatOptions{Now: fixedNow})
	if _, cmd := c.Update(tea.KeyMsg{Type: tea.KeyCtrlD}); !isQuit(cmd) {
		t.Fatal("Ctrl+D on an empty editor does not quit")
	}
	c = NewChat(ChatOptions{Now: fixedNow})
	if _, cmd := c.Update(runes("/quit")); cmd != nil {
		t.Fatal("typing returned a command")
	}
	if _, cmd := c.Update(keyEnter); !isQuit(cmd) {
		t.Fatal("/quit does not quit")
	}
}

// TestEditor: editing keys and wrapping.
func TestEditor(t *testing.T) {
	var e editor
	e.Update(runes("hello world"))
	e.Update(tea.KeyMsg{Type: tea.KeyCtrlW})
	if e.Value() != "hello " {
		t.Fatalf("Ctrl+W: %q", e.Value())
	}
	e.Update(tea.KeyMsg{Type: tea.KeyCtrlJ})
	e.Update(runes("there"))
	e.Update(tea.KeyMsg{Type: tea.KeyHome})
	e.Update(runes(">"))
	if e.Value() != "hello \n>there" {
		t.Fatalf("value %q", e.Value())
	}
	e.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted\r\ntext"), Paste: true})
	if e.Value() != "hello \n>pasted\ntextthere" {
		t.Fatalf("paste: %q", e.Value())
	}
	e.SetValue(strings.Repeat("x", 25))
	rows, crow, ccol := e.rows(10)
	if len(rows) != 3 || crow != 2 || ccol != 5 {
		t.Errorf("rows %q cursor %d,%d", rows, crow, ccol)
	}
	e.SetValue(strings.Repeat("x", 20))
	if rows, crow, ccol := e.rows(10); len(rows) != 3 || crow != 2 || ccol != 0 {
		t.Errorf("full rows %q cursor %d,%d", rows, crow, ccol)
	}
}

// TestChatApproval: a tool that needs approval asks in the chat; y runs it,
// n refuses it, and the state reads waiting meanwhile.
func TestChatApproval(t *testing.T) {
	so, home := sessionOptions(t)
	var chat *Chat
	ag := newTestAgentApproving(t, session.InMemory(so, home), func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
		return chat.Approve(ctx, tool, args)
	})
	chat = NewChat(ChatOptions{Agent: ag, Now: fixedNow, TerminalKey: "pts-7"})
	tm := teatest.NewTestModel(t, chat, teatest.WithInitialTermSize(100, 30))
	chat.Attach(tm.Send)
	typeLine(tm, "guarded step")
	waitFor(t, tm, `Allow guarded? {"command":"rm -rf build"}`, "waiting")
	tm.Type("y")
	waitFor(t, tm, "Allowed guarded", "approved and run", "Guarded step over.")
	deadline := time.Now().Add(10 * time.Second)
	for ag.Busy() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	typeLine(tm, "guarded step")
	waitFor(t, tm, `Allow guarded? {"command":"rm -rf build"}`)
	tm.Type("n")
	waitFor(t, tm, "Refused guarded", "refused by the user")
	_ = finalView(t, tm)
}

// TestChatTreeNavigate: /tree, Enter on the first prompt moves the leaf to
// before it and puts its text in the editor; the transcript follows.
func TestChatTreeNavigate(t *testing.T) {
	e := newChatEnv(t, false)
	tm, _ := start(t, e.opt, 100, 30)
	typeLine(tm, "first prompt")
	waitFor(t, tm, "› first prompt")
	waitIdle(t, e)
	typeLine(tm, "second prompt")
	waitFor(t, tm, "› second prompt")
	waitIdle(t, e)
	typeLine(tm, "/tree")
	waitFor(t, tm, "Session tree")
	tm.Send(keyOf(tea.KeyUp)) // from the leaf (the last answer) to the second prompt
	tm.Send(keyOf(tea.KeyEnter))
	waitFor(t, tm, "Moved to ")
	v := finalView(t, tm)
	if !strings.Contains(v, "> second prompt") || strings.Contains(v, "› second prompt") {
		t.Errorf("after moving to the second prompt's parent:\n%s", v)
	}
}

// TestChatSmallCommands: /name, /label, /thinking, /model and /new.
func TestChatSmallCommands(t *testing.T) {
	e := newChatEnv(t, false)
	var mu sync.Mutex
	var setTo string
	e.opt.Models = func() []string { return []string{"scripted/test", "scripted/other"} }
	e.opt.SetModel = func(ref string) error {
		mu.Lock()
		defer mu.Unlock()
		setTo = ref
		if ref == "bad/model" {
			return errors.New("unknown model")
		}
		return nil
	}
	tm, _ := start(t, e.opt, 120, 40)
	typeLine(tm, "first prompt")
	waitFor(t, tm, "› first prompt")
	waitIdle(t, e)
	typeLine(tm, `/name "Parser work"`)
	waitFor(t, tm, "Session name: Parser work", "· Parser work · pts-7 · idle")
	typeLine(tm, "/label checkpoint")
	waitFor(t, tm, `"checkpoint"`)
	typeLine(tm, "/thinking extreme")
	waitFor(t, tm, `Unknown thinking level "extreme"`)
	typeLine(tm, "/thinking high")
	waitFor(t, tm, "Thinking level: off (the model cannot think)")
	typeLine(tm, "/model")
	waitFor(t, tm, "* scripted/test", "  scripted/other")
	typeLine(tm, "/model bad/model")
	waitFor(t, tm, "Model not changed: unknown model")
	typeLine(tm, "/nonsense")
	waitFor(t, tm, "Unknown command /nonsense.")
	typeLine(tm, "/new")
	waitFor(t, tm, "New session started")
	v := finalView(t, tm)
	if strings.Contains(v, "› first prompt") {
		t.Errorf("after /new the old transcript shows:\n%s", v)
	}
	mu.Lock()
	defer mu.Unlock()
	if setTo != "bad/model" {
		t.Errorf("SetModel got %q", setTo)
	}
}

// TestChatTreeSummary: s in the tree moves the leaf with a branch summary,
// which the transcript then shows.
func TestChatTreeSummary(t *testing.T) {
	e := newChatEnv(t, false)
	tm, _ := start(t, e.opt, 100, 30)
	for _, p := range []string{"first prompt", "second prompt"} {
		typeLine(tm, p)
		waitFor(t, tm, "› "+p)
		waitIdle(t, e)
	}
	typeLine(tm, "/tree")
	waitFor(t, tm, "Session tree")
	tm.Send(keyOf(tea.KeyUp))
	tm.Send(keyOf(tea.KeyUp)) // the first answer
	tm.Type("s")
	waitFor(t, tm, "Summary of the branch you leave")
	typeLine(tm, "Asked a second time; nothing new.")
	waitFor(t, tm, "with a branch summary")
	v := finalView(t, tm)
	if !strings.Contains(v, "⎇ Branch summary") || !strings.Contains(v, "Asked a second time; nothing new.") || strings.Contains(v, "› second prompt") {
		t.Errorf("after moving with a summary:\n%s", v)
	}
}
