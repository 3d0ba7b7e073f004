package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/agent/tools"
	"github.com/xcsh-dev/xcsh/session"
)

// fakeProvider answers from a list of replies, one per call.
type fakeProvider struct {
	mu      sync.Mutex
	replies []func(ctx context.Context, req provider.Request, on func(provider.Event)) *provider.AssistantMessage
	reqs    []provider.Request
}

func (f *fakeProvider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.AssistantMessage, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	if len(f.replies) == 0 {
		f.mu.Unlock()
		return textReply("done")(ctx, req, on), nil
	}
	r := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	m := r(ctx, req, on)
	if m.StopReason == provider.StopError || m.StopReason == provider.StopAborted {
		return m, errors.New(m.ErrorMessage)
	}
	return m, nil
}

var testModel = provider.Model{Provider: "fake", ID: "m1", API: "fake-api", ContextWindow: 100000, Reasoning: true, MinLevel: "minimal", MaxLevel: "high"}

func base() *provider.AssistantMessage {
	return &provider.AssistantMessage{API: testModel.API, Provider: testModel.Provider, Model: testModel.ID, StopReason: provider.StopStop, Timestamp: 1767225600000}
}

func textReply(text string) func(context.Context, provider.Request, func(provider.Event)) *provider.AssistantMessage {
	return func(_ context.Context, _ provider.Request, on func(provider.Event)) *provider.AssistantMessage {
		m := base()
		on(provider.Event{Type: provider.EventStart})
		on(provider.Event{Type: provider.EventTextDelta, Delta: text})
		m.Content = []provider.Block{{Type: provider.BlockText, Text: text}}
		m.Usage = provider.Usage{Input: 10, Output: 5, TotalTokens: 15}
		return m
	}
}

func toolReply(name, args string) func(context.Context, provider.Request, func(provider.Event)) *provider.AssistantMessage {
	return func(_ context.Context, _ provider.Request, on func(provider.Event)) *provider.AssistantMessage {
		m := base()
		m.StopReason = provider.StopToolUse
		m.Content = []provider.Block{{Type: provider.BlockText, Text: "Let me look."}, {Type: provider.BlockToolCall, ID: "call_1", Name: name, Arguments: json.RawMessage(args)}}
		return m
	}
}

type env struct {
	opt   session.Options
	home  string
	proj  string
	agent string
}

func newEnv(t *testing.T) env {
	t.Helper()
	home := t.TempDir()
	agentDir := filepath.Join(home, ".xcsh", "agent")
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return env{
		opt:   session.Options{SessionsRoot: filepath.Join(agentDir, "sessions"), BlobDir: filepath.Join(agentDir, "blobs"), Home: home, TmpDir: "/nonexistent"},
		home:  home,
		proj:  proj,
		agent: agentDir,
	}
}

func (e env) config(p provider.Provider) Config {
	return Config{Model: testModel, Provider: p, Thinking: "medium", Tools: tools.Builtin(tools.Options{}), AgentsDir: filepath.Join(e.agent, "agents"), HookDir: e.proj}
}

func TestTurnLoopWithTools(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.proj, "notes.txt"), []byte("hello from the file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &fakeProvider{}
	p.replies = append(p.replies, toolReply("read", `{"path":"notes.txt"}`), textReply("The file greets you."))
	sm := session.Create(e.opt, e.proj, "")
	a, err := New(e.config(p), sm)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	a.Subscribe(func(ev Event) error { events = append(events, ev.Type); return nil })
	if _, err := a.Prompt(context.Background(), "What does notes.txt say?"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// the session on disk: user, assistant(toolUse), toolResult, assistant(stop)
	m, err := session.Load(e.opt, sm.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	ctx := m.BuildContext()
	var roles []string
	for _, raw := range ctx.Messages {
		roles = append(roles, jsonRole(raw))
	}
	if got := strings.Join(roles, ","); got != "user,assistant,toolResult,assistant" {
		t.Fatalf("roles %s", got)
	}
	if !strings.HasPrefix(string(ctx.Messages[0]), `{"role":"user","content":[{"type":"text","text":"What does notes.txt say?"}],"attribution":"user","timestamp":`) {
		t.Errorf("user message shape: %s", ctx.Messages[0])
	}
	if !strings.Contains(string(ctx.Messages[2]), "hello from the file") || !strings.HasPrefix(string(ctx.Messages[2]), `{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[`) {
		t.Errorf("tool result: %s", ctx.Messages[2])
	}
	if got := m.SessionName(); got != "What does notes.txt say?" {
		t.Errorf("auto title %q", got)
	}
	// the second request carried the tool result
	if n := len(p.reqs[1].Messages); n != 3 {
		t.Errorf("second request has %d messages, want 3", n)
	}
	if p.reqs[0].Thinking != "medium" {
		t.Errorf("thinking sent %q", p.reqs[0].Thinking)
	}
	want := []string{EvToolStart, EvToolEnd, EvTurnEnd, EvAgentEnd}
	joined := strings.Join(events, " ")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("event %s missing from %s", w, joined)
		}
	}
	// the live file is gone after Close
	if lives, _ := ReadLive(filepath.Join(e.agent, "agents")); len(lives) != 0 {
		t.Errorf("live files left: %+v", lives)
	}
}

func TestAbortKeepsPartial(t *testing.T) {
	e := newEnv(t)
	started := make(chan struct{})
	p := &fakeProvider{}
	p.replies = append(p.replies, func(ctx context.Context, _ provider.Request, on func(provider.Event)) *provider.AssistantMessage {
		m := base()
		on(provider.Event{Type: provider.EventStart})
		m.Content = []provider.Block{{Type: provider.BlockText, Text: "half an ans"}}
		close(started)
		<-ctx.Done()
		m.StopReason = provider.StopAborted
		m.ErrorMessage = provider.AbortedMessage
		return m
	})
	sm := session.Create(e.opt, e.proj, "")
	a, err := New(e.config(p), sm)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { _, err := a.Prompt(context.Background(), "write a poem"); done <- err }()
	<-started
	if q, _ := a.Prompt(context.Background(), "queued while busy"); !q {
		t.Error("a prompt during a turn was not queued")
	}
	if a.State() != StateBusy {
		t.Errorf("state during a turn: %s", a.State())
	}
	a.Abort()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	msgs := sm.BuildContext().Messages
	last := string(msgs[len(msgs)-1])
	if !strings.Contains(last, `"stopReason":"aborted"`) || !strings.Contains(last, "half an ans") {
		t.Errorf("aborted message: %s", last)
	}
	if len(msgs) != 2 {
		t.Errorf("the queued prompt ran after an abort: %d messages", len(msgs))
	}
	if a.State() != StateIdle {
		t.Errorf("state after abort: %s", a.State())
	}
	_ = a.Close()
}

func TestQueuedPromptRunsAfterTurn(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	started := make(chan struct{})
	p := &fakeProvider{}
	p.replies = append(p.replies, func(ctx context.Context, req provider.Request, on func(provider.Event)) *provider.AssistantMessage {
		close(started)
		<-release
		return textReply("first")(ctx, req, on)
	}, textReply("second"))
	a, err := New(e.config(p), session.Create(e.opt, e.proj, ""))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { _, err := a.Prompt(context.Background(), "one"); done <- err }()
	<-started
	if q, _ := a.Prompt(context.Background(), "two"); !q {
		t.Fatal("not queued")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range a.Session().BuildContext().Messages {
		texts = append(texts, session.MessageText(m))
	}
	if got := strings.Join(texts, "|"); got != "one|first|two|second" {
		t.Errorf("messages %s", got)
	}
	_ = a.Close()
}

func TestSecondAgentRefused(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{}
	sm := session.Create(e.opt, e.proj, "")
	a, err := New(e.config(p), sm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	sm2, err := session.Open(e.opt, sm.SessionFile(), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(e.config(p), sm2)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder == nil || le.Holder.PID != os.Getpid() {
		t.Fatalf("second agent: %v", err)
	}
	if !strings.Contains(err.Error(), "is being written by agent pid") {
		t.Errorf("message: %v", err)
	}
	_ = a.Close()
	a2, err := New(e.config(p), sm2)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	_ = a2.Close()
}

func TestSwitchCancelledByHook(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{}
	other := session.Create(e.opt, e.proj, "")
	oa, err := New(e.config(p), other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oa.Prompt(context.Background(), "other session"); err != nil {
		t.Fatal(err)
	}
	_ = oa.Close()

	cfg := e.config(p)
	cfg.Hooks = []Hook{{Event: EvSessionBeforeSwitch, Command: []string{"sh", "-c", "cat > before.json; exit 2"}}}
	sm := session.Create(e.opt, e.proj, "")
	a, err := New(cfg, sm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(context.Background(), "mine"); err != nil {
		t.Fatal(err)
	}
	beforeFile, beforeLeaf := sm.SessionFile(), sm.Entries()[len(sm.Entries())-1].ID
	ok, err := a.SwitchSession(other.SessionFile())
	if err != nil || ok {
		t.Fatalf("switch = %v, %v; want cancelled", ok, err)
	}
	if a.Session().SessionFile() != beforeFile || len(a.Session().Entries()) != 2 || a.Session().Entries()[1].ID != beforeLeaf {
		t.Error("a cancelled switch changed the session")
	}
	payload, err := os.ReadFile(filepath.Join(e.proj, "before.json"))
	if err != nil || !strings.Contains(string(payload), `"type":"session_before_switch"`) || !strings.Contains(string(payload), other.SessionFile()) {
		t.Errorf("hook payload %s (%v)", payload, err)
	}
	// without the hook, the switch happens and the thinking level is restored
	a.cfg.Hooks = nil
	a.bus = Bus{}
	ok, err = a.SwitchSession(other.SessionFile())
	if err != nil || !ok || a.Session().SessionFile() != other.SessionFile() {
		t.Fatalf("switch: %v %v %s", ok, err, a.Session().SessionFile())
	}
	_ = a.Close()
}

func TestForkRefusedWhileBusy(t *testing.T) {
	e := newEnv(t)
	started, release := make(chan struct{}), make(chan struct{})
	p := &fakeProvider{}
	p.replies = append(p.replies, func(ctx context.Context, req provider.Request, on func(provider.Event)) *provider.AssistantMessage {
		close(started)
		<-release
		return textReply("ok")(ctx, req, on)
	})
	a, err := New(e.config(p), session.Create(e.opt, e.proj, ""))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _, _ = a.Prompt(context.Background(), "x"); close(done) }()
	<-started
	if _, _, err := a.Fork(); !errors.Is(err, ErrForkWhileBusy) {
		t.Errorf("fork during a turn: %v", err)
	}
	close(release)
	<-done
	old := a.Session().SessionFile()
	if err := os.MkdirAll(strings.TrimSuffix(old, ".jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(strings.TrimSuffix(old, ".jsonl"), "1.bash.log"), []byte("log"), 0o600); err != nil {
		t.Fatal(err)
	}
	nf, ok, err := a.Fork()
	if err != nil || !ok || nf == old {
		t.Fatalf("fork: %s %v %v", nf, ok, err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSuffix(nf, ".jsonl"), "1.bash.log")); err != nil {
		t.Errorf("artifacts not copied: %v", err)
	}
	_ = a.Close()
}

// helperAgentEnv makes the test binary a long-running agent for the SIGKILL test.
const helperAgentEnv = "XCSH_AGENT_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperAgentEnv); dir != "" {
		e := env{opt: session.Options{SessionsRoot: filepath.Join(dir, "sessions")}, agent: dir, proj: dir}
		sm := session.Create(e.opt, dir, "")
		a, err := New(e.config(&fakeProvider{}), sm)
		if err != nil {
			os.Exit(3)
		}
		_, _ = a.Prompt(context.Background(), "hello")
		_ = sm.Flush()
		_ = os.WriteFile(filepath.Join(dir, "ready"), []byte(sm.SessionFile()), 0o600)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKilledAgent: SIGKILL loses nothing flushed, leaves a live file that
// readers treat as stale, and frees the session for the next agent.
func TestKilledAgent(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperAgentEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var file []byte
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "ready")); err == nil && len(b) > 0 {
			file = b
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if file == nil {
		_ = cmd.Process.Kill()
		t.Fatal("child agent never became ready")
	}
	lives, _ := ReadLive(filepath.Join(dir, "agents"))
	if len(lives) != 1 || lives[0].Stale || lives[0].State != StateIdle {
		t.Fatalf("live state of the running agent: %+v", lives)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	lives, _ = ReadLive(filepath.Join(dir, "agents"))
	if len(lives) != 1 || !lives[0].Stale || lives[0].State != StateExited {
		t.Fatalf("live state after SIGKILL: %+v", lives)
	}
	m, err := session.Load(session.Options{}, string(file))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.BuildContext().Messages); n != 2 {
		t.Errorf("flushed messages after SIGKILL: %d, want 2", n)
	}
	lk, err := LockSession(filepath.Join(dir, "agents"), string(file))
	if err != nil {
		t.Fatalf("the lock of a killed agent was not released: %v", err)
	}
	_ = lk.Unlock()
}

// BenchmarkIdleAgentMemory: the heap an idle agent holds for a 10,000-message session.
func BenchmarkIdleAgentMemory(b *testing.B) {
	p := filepath.Join(os.TempDir(), "xcsh-bench-10000.jsonl")
	if _, err := os.Stat(p); err != nil {
		b.Skip("run the session benchmarks first: they write " + p)
	}
	dir := b.TempDir()
	data, _ := os.ReadFile(p)
	f := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(f, data, 0o600); err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		sm, err := session.Open(session.Options{SessionsRoot: dir}, f, "")
		if err != nil {
			b.Fatal(err)
		}
		a, err := New(Config{Model: testModel, Provider: &fakeProvider{}, AgentsDir: filepath.Join(dir, "agents")}, sm)
		if err != nil {
			b.Fatal(err)
		}
		a.conv.Convert(sm.BuildContext().Messages) // as after a first turn
		runtime.GC()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc-before)/(1<<20), "MiB-heap")
		runtime.KeepAlive(a)
		_ = a.Close()
	}
}

func TestCompactionAndTree(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{}
	a, err := New(e.config(p), session.Create(e.opt, e.proj, ""))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{"one", "two", "three", "four"} {
		p.replies = append(p.replies, textReply("answer "+q))
		if _, err := a.Prompt(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	p.replies = append(p.replies, textReply("Work on numbers\n\nThe user asked one and two; both answered."))
	id, err := a.Compact(ctx, "keep it short")
	if err != nil {
		t.Fatal(err)
	}
	sm := a.Session()
	ce := sm.Entry(id)
	if ce == nil || ce.Type != session.TypeCompaction || ce.GetString("shortSummary") != "Work on numbers" {
		t.Fatalf("compaction entry: %v", ce)
	}
	msgs := sm.BuildContext().Messages
	var texts []string
	for _, m := range msgs {
		texts = append(texts, jsonRole(m)+":"+session.MessageText(m))
	}
	got := strings.Join(texts, "|")
	if !strings.HasPrefix(got, "compactionSummary:Work on numbers") || strings.Contains(got, "user:one") || !strings.Contains(got, "user:three|assistant:answer three|user:four|assistant:answer four") {
		t.Fatalf("context after compaction: %s", got)
	}
	if !strings.Contains(fmt.Sprint(p.reqs[len(p.reqs)-1].Messages), "answer two") || !strings.Contains(p.reqs[len(p.reqs)-1].System, "keep it short") {
		t.Error("the summary request did not carry the older messages and the instructions")
	}

	// /tree to the user message "three": the leaf moves to its parent and its text comes back for the editor
	var three string
	for _, e := range sm.Entries() {
		if e.Type == session.TypeMessage && session.MessageText(e.Get("message")) == "three" {
			three = e.ID
		}
	}
	text, err := a.NavigateTree(three, "left the branch after three")
	if err != nil || text != "three" {
		t.Fatalf("navigate: %q %v", text, err)
	}
	leaf, _ := sm.LeafID()
	if le := sm.Entry(leaf); le.Type != session.TypeBranchSummary {
		t.Fatalf("leaf after navigate with summary: %s", le.Type)
	}
	// /branch from "three": a new session with the path up to its parent
	prev := sm.SessionFile()
	text, err = a.Branch(three)
	if err != nil || text != "three" || a.Session().SessionFile() == prev {
		t.Fatalf("branch: %q %v", text, err)
	}
	h := a.Session().Header()
	if h.GetString("parentSession") != prev {
		t.Errorf("branched session parent %q", h.GetString("parentSession"))
	}
	_ = a.Close()
}

func TestAutoCompactNearWindow(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{}
	cfg := e.config(p)
	cfg.Model.ContextWindow = 200 // tiny: the usage of the answers passes 85% at once
	a, err := New(cfg, session.Create(e.opt, e.proj, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"a", "b", "c"} {
		p.replies = append(p.replies, func(ctx context.Context, req provider.Request, on func(provider.Event)) *provider.AssistantMessage {
			m := textReply("ok")(ctx, req, on)
			m.Usage = provider.Usage{Input: 180, Output: 10, TotalTokens: 190}
			return m
		})
		if _, err := a.Prompt(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	found := false
	for _, en := range a.Session().Entries() {
		if en.Type == session.TypeCompaction {
			found = true
		}
	}
	if !found {
		t.Error("no automatic compaction near the context window")
	}
	_ = a.Close()
}

func TestThinkingRestoredFromBranch(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{}
	sm := session.Create(e.opt, e.proj, "")
	a, err := New(e.config(p), sm)
	if err != nil {
		t.Fatal(err)
	}
	if a.ThinkingLevel() != "medium" {
		t.Fatalf("default level %q", a.ThinkingLevel())
	}
	if err := a.SetThinkingLevel("xhigh"); err != nil {
		t.Fatal(err)
	}
	if a.ThinkingLevel() != "high" {
		t.Errorf("xhigh not clamped to the model's max: %q", a.ThinkingLevel())
	}
	if _, err := a.Prompt(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	file := sm.SessionFile()
	_ = a.Close()
	sm2, err := session.Open(e.opt, file, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := e.config(p)
	cfg.Thinking = "low"
	a2, err := New(cfg, sm2)
	if err != nil {
		t.Fatal(err)
	}
	if a2.ThinkingLevel() != "high" {
		t.Errorf("the branch's level was not restored: %q", a2.ThinkingLevel())
	}
	_ = a2.Close()
}

// TestSwitchDuringTurnWaitsForIt: a switch aborts the running turn and waits
// for it, so the aborted answer lands in the old session, not the new one.
func TestSwitchDuringTurnWaitsForIt(t *testing.T) {
	e := newEnv(t)
	p := &fakeProvider{}
	other := session.Create(e.opt, e.proj, "")
	oa, err := New(e.config(p), other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oa.Prompt(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	_ = oa.Close()
	started := make(chan struct{})
	p.replies = append(p.replies, func(ctx context.Context, _ provider.Request, on func(provider.Event)) *provider.AssistantMessage {
		m := base()
		m.Content = []provider.Block{{Type: provider.BlockText, Text: "partial"}}
		close(started)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // a slow provider winding down
		m.StopReason, m.ErrorMessage = provider.StopAborted, provider.AbortedMessage
		return m
	})
	sm := session.Create(e.opt, e.proj, "")
	a, err := New(e.config(p), sm)
	if err != nil {
		t.Fatal(err)
	}
	first := sm.SessionFile()
	go func() { _, _ = a.Prompt(context.Background(), "long task") }()
	<-started
	ok, err := a.SwitchSession(other.SessionFile())
	if err != nil || !ok {
		t.Fatalf("switch: %v %v", ok, err)
	}
	if n := len(a.Session().BuildContext().Messages); n != 2 {
		t.Errorf("the new session got the old turn's messages: %d", n)
	}
	if a.Busy() {
		t.Error("still busy after the switch")
	}
	_ = a.Close()
	if first == other.SessionFile() {
		t.Fatal("same file")
	}
}
