package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/agent/history"
	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/agent/provider/scripted"
	"github.com/xcsh-dev/xcsh/agent/tools"
	"github.com/xcsh-dev/xcsh/session"
)

// The chat screen's tests run a real agent on the scripted provider with
// testdata/chat_script.json (no delays), with two tools of their own that
// run no process, at a fixed size and a fixed clock.

var chatNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return chatNow }

// testTool prints its "text" argument, or fails; a guarded one asks for
// approval first.
type testTool struct {
	name    string
	fail    bool
	guarded bool
}

func (tt testTool) Spec() provider.Tool {
	return provider.Tool{Name: tt.name, Description: "test tool", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (tt testTool) NeedsApproval() bool { return tt.guarded }
func (tt testTool) Run(ctx context.Context, env tools.Env, args json.RawMessage, _ func(string)) tools.Result {
	if tt.guarded {
		if ok, err := env.Approve(ctx, tt.name, args); !ok || err != nil {
			return tools.Result{IsError: true, Content: []provider.Block{{Type: provider.BlockText, Text: "refused by the user"}}}
		}
		return tools.Result{Content: []provider.Block{{Type: provider.BlockText, Text: "approved and run"}}}
	}
	if tt.fail {
		return tools.Result{IsError: true, Content: []provider.Block{{Type: provider.BlockText, Text: "boom: it failed"}}}
	}
	var a struct{ Text string }
	_ = json.Unmarshal(args, &a)
	return tools.Result{Content: []provider.Block{{Type: provider.BlockText, Text: a.Text}}}
}

// sessionOptions are deterministic session options under a temporary HOME.
func sessionOptions(t testing.TB) (session.Options, string) {
	t.Helper()
	home := t.TempDir()
	var n byte
	ids := session.NewIDSource(func(b []byte) {
		for i := range b {
			n++
			b[i] = n
		}
	})
	return session.Options{SessionsRoot: filepath.Join(home, ".xcsh", "agent", "sessions"), Home: home, TmpDir: "/nonexistent",
		Clock: fixedNow, IDs: ids}, home
}

func newTestAgent(t testing.TB, sm *session.Manager) *agent.Agent {
	t.Helper()
	return newTestAgentApproving(t, sm, nil)
}

func newTestAgentApproving(t testing.TB, sm *session.Manager, approve func(context.Context, string, json.RawMessage) (bool, error)) *agent.Agent {
	t.Helper()
	s, err := scripted.Load("testdata/chat_script.json")
	if err != nil {
		t.Fatal(err)
	}
	m := provider.Model{Provider: "scripted", ID: "test", API: provider.APIScripted, ContextWindow: 100000}
	ag, err := agent.New(agent.Config{
		Model: m, Provider: scripted.WithScript(m, s, provider.Options{Now: fixedNow}), Thinking: "off",
		Tools:   []tools.Tool{testTool{name: "echo"}, testTool{name: "boom", fail: true}, testTool{name: "guarded", guarded: true}},
		Approve: approve,
		Now:     fixedNow, AutoCompact: -1,
	}, sm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ag.Close() })
	return ag
}

// chatEnv is an agent on an in-memory session (persisted with persist).
type chatEnv struct {
	ag   *agent.Agent
	sm   *session.Manager
	home string
	opt  ChatOptions
}

func newChatEnv(t *testing.T, persist bool) *chatEnv {
	t.Helper()
	so, home := sessionOptions(t)
	cwd := filepath.Join(home, "proj")
	sm := session.InMemory(so, cwd)
	if persist {
		sm = session.Create(so, cwd, "")
	}
	ag := newTestAgent(t, sm)
	return &chatEnv{ag: ag, sm: sm, home: home, opt: ChatOptions{Agent: ag, Now: fixedNow, Home: home, TerminalKey: "pts-7", Cwd: cwd}}
}

// start runs the chat in a teatest program.
func start(t *testing.T, opt ChatOptions, w, h int) (*teatest.TestModel, *Chat) {
	t.Helper()
	c := NewChat(opt)
	tm := teatest.NewTestModel(t, c, teatest.WithInitialTermSize(w, h))
	c.Attach(tm.Send)
	return tm, c
}

// waitFor waits until the program has written every one of want.
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}

// typeLine types text and presses Enter.
func typeLine(tm *teatest.TestModel, text string) {
	tm.Type(text)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
}

// finalView ends the program and returns the last screen.
func finalView(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Chat).View()
}

// waitIdle waits for the agent's turn to end, and a moment for the chat to
// hear of it.
func waitIdle(t *testing.T, e *chatEnv) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.ag.Busy() {
		if time.Now().After(deadline) {
			t.Fatal("the turn never ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
}

func keyOf(k tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: k} }

// idleWith is the end of the status line once a turn titled title is over.
func idleWith(title string) string { return "· " + title + " · pts-7 · idle" }

// TestChatGolden renders the chat screen at 80x24 through a real bubbletea
// program and compares the screen with testdata/TestChatGolden/*.
// Regenerate with `go test ./ui -run TestChatGolden -update`.
func TestChatGolden(t *testing.T) {
	tests := []struct {
		name    string
		persist bool
		opt     func(*chatEnv)
		run     func(*testing.T, *teatest.TestModel, *chatEnv)
	}{
		{"welcome", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			waitFor(t, tm, "/help lists the commands")
		}},
		{"markdown", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			typeLine(tm, "show markdown")
			waitFor(t, tm, "the docs", idleWith("show markdown"))
		}},
		{"tools folded", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			typeLine(tm, "use the tool")
			waitFor(t, tm, "Both ran", idleWith("use the tool"))
		}},
		{"tools expanded", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			typeLine(tm, "use the tool")
			waitFor(t, tm, "Both ran", idleWith("use the tool"))
			tm.Send(keyOf(tea.KeyCtrlT))
			tm.Send(keyOf(tea.KeyCtrlO))
			waitFor(t, tm, "It prints six lines.")
		}},
		{"narrow", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			typeLine(tm, "show markdown")
			waitFor(t, tm, "the docs", idleWith("show markdown"))
			tm.Send(tea.WindowSizeMsg{Width: 40, Height: 14})
		}},
		{"editor", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			tm.Type("first line")
			tm.Send(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
			tm.Type("second line, long enough to wrap at the edge of an eighty column screen")
			waitFor(t, tm, "screen")
		}},
		{"help", false, nil, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			typeLine(tm, "/help")
			waitFor(t, tm, "sends the rest with one /")
		}},
		{"tree", false, nil, func(t *testing.T, tm *teatest.TestModel, e *chatEnv) {
			typeLine(tm, "first prompt")
			waitFor(t, tm, idleWith("first prompt"))
			typeLine(tm, "second prompt")
			waitFor(t, tm, "second prompt")
			waitIdle(t, e)
			typeLine(tm, "/tree")
			waitFor(t, tm, "Session tree")
		}},
		{"resume picker", false, func(e *chatEnv) {
			e.opt.Sessions = func(string) []session.SessionInfo { return local }
		}, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			typeLine(tm, "/resume")
			waitFor(t, tm, "Refactor the lexer")
		}},
		{"history search", false, func(e *chatEnv) {
			e.opt.History = &memHistory{prompts: []string{"fix the parser", "refactor the lexer", "fix the lexer too"}}
		}, func(t *testing.T, tm *teatest.TestModel, _ *chatEnv) {
			tm.Send(keyOf(tea.KeyCtrlR))
			tm.Type("lex")
			waitFor(t, tm, "(search) lex")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newChatEnv(t, tt.persist)
			if tt.opt != nil {
				tt.opt(e)
			}
			tm, _ := start(t, e.opt, 80, 24)
			tt.run(t, tm, e)
			golden.RequireEqual(t, []byte(finalView(t, tm)+"\n"))
		})
	}
}

// TestChatGoldenRoles: every role a session holds is shown, read-only
// without a model.
func TestChatGoldenRoles(t *testing.T) {
	so, home := sessionOptions(t)
	sm := session.InMemory(so, filepath.Join(home, "proj"))
	add := func(v any) {
		raw, _ := json.Marshal(v)
		if _, err := sm.AppendMessage(raw); err != nil {
			t.Fatal(err)
		}
	}
	add(map[string]any{"role": "user", "content": "fix the parser", "timestamp": 1})
	add(map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "thinking", "thinking": "Look at the lexer first."},
		map[string]any{"type": "text", "text": "Reading it."},
		map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": "parser.go"}},
	}, "api": "x", "provider": "p", "model": "m", "usage": map[string]any{"input": 1200, "output": 300, "cost": map[string]any{"total": 0.0123}}, "stopReason": "toolUse", "timestamp": 2})
	add(map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": []any{map[string]any{"type": "text", "text": "package parser"}}, "isError": false, "timestamp": 3})
	add(map[string]any{"role": "bashExecution", "command": "go test ./...", "output": "FAIL parser\n", "exitCode": 1, "cancelled": false, "truncated": false, "timestamp": 4})
	add(map[string]any{"role": "fileMention", "files": []any{map[string]any{"path": "go.mod", "content": "module x"}}, "timestamp": 5})
	add(map[string]any{"role": "assistant", "content": []any{}, "api": "x", "provider": "p", "model": "m", "usage": map[string]any{}, "stopReason": "error", "errorMessage": "connection reset", "timestamp": 6})
	if _, err := sm.AppendCustomMessageEntry("handoff", json.RawMessage(`"Handed over to the **next** agent."`), true, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sm.AppendCustomMessageEntry("todo-reminder", json.RawMessage(`"hidden reminder"`), false, nil, nil); err != nil {
		t.Fatal(err)
	}
	leaf, _ := sm.LeafID()
	if _, err := sm.BranchWithSummary(leaf, "Tried a regexp lexer; it was slower.", nil, nil); err != nil {
		t.Fatal(err)
	}
	add(map[string]any{"role": "developer", "content": []any{map[string]any{"type": "text", "text": "Stay in the parser package."}}, "timestamp": 7})
	opt := ChatOptions{Session: sm, NoAgent: provider.HowToConfigure, Now: fixedNow, Home: home, TerminalKey: "pts-7"}
	tm, _ := start(t, opt, 80, 40)
	waitFor(t, tm, "read-only")
	golden.RequireEqual(t, []byte(finalView(t, tm)+"\n"))

	// A prompt is refused with the text that says how to configure a model;
	// commands that need one say so.
	tm, _ = start(t, opt, 80, 40)
	typeLine(tm, "hello?")
	waitFor(t, tm, "Cannot send a prompt: No model provider is configured")
	typeLine(tm, "/fork")
	waitFor(t, tm, "/fork needs a model: No model provider is configured")
	_ = finalView(t, tm)
}

// TestChatCompactionShown: a compaction's summary replaces the messages it
// summarised.
func TestChatCompactionShown(t *testing.T) {
	e := newChatEnv(t, false)
	tm, _ := start(t, e.opt, 80, 30)
	for i := range 3 {
		p := fmt.Sprintf("prompt %d", i)
		typeLine(tm, p)
		waitFor(t, tm, "› "+p)
		waitIdle(t, e)
	}
	typeLine(tm, "/compact")
	waitFor(t, tm, "Context compacted")
	v := finalView(t, tm)
	if !strings.Contains(v, "⊟ Compaction summary (") || strings.Contains(v, "› prompt 0") {
		t.Errorf("after /compact the screen shows:\n%s", v)
	}
}

// memHistory is an in-memory History.
type memHistory struct {
	mu      sync.Mutex
	prompts []string // oldest first
}

func (h *memHistory) Add(p, _ string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prompts = append(h.prompts, p)
}

func (h *memHistory) list(match func(string) bool, n int) []history.Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []history.Entry
	for i := len(h.prompts) - 1; i >= 0 && len(out) < n; i-- {
		if match(h.prompts[i]) {
			out = append(out, history.Entry{ID: int64(i + 1), Prompt: h.prompts[i]})
		}
	}
	return out
}

func (h *memHistory) Recent(n int) ([]history.Entry, error) {
	return h.list(func(string) bool { return true }, n), nil
}

func (h *memHistory) Search(q string, n int) ([]history.Entry, error) {
	return h.list(func(p string) bool { return strings.Contains(p, q) }, n), nil
}
