package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/agent/tools"
	"github.com/xcsh-dev/xcsh/session"
)

// Config is everything an agent needs besides its session.
type Config struct {
	// Model is the model in use; Provider streams from it; APIKey authenticates.
	Model    provider.Model
	Provider provider.Provider
	APIKey   string
	// Registry resolves models restored from a session (nil: keep Model).
	Registry *provider.Registry
	// Thinking is the configured default thinking level ("off", "minimal".."xhigh").
	Thinking string
	// System is the system prompt.
	System string
	// Tools are the tools the model may call.
	Tools []tools.Tool
	// Approve asks the user before a tool that needs approval runs.
	Approve func(ctx context.Context, tool string, args json.RawMessage) (bool, error)
	// AgentsDir holds live state files and session locks ("" disables both).
	AgentsDir string
	// Live is the base of the live state (terminal, tty, overlay).
	Live Live
	// Hooks are user commands run on events; HookDir is their working directory.
	Hooks   []Hook
	HookDir string
	// OnHookError receives hook failures.
	OnHookError func(error)
	// OnEvent, when set, receives every event from the first (session_start) on.
	OnEvent Handler
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// MaxTurns bounds the model calls of one prompt (default 50).
	MaxTurns int
	// AutoCompact compacts when the context passes this share of the model's
	// window (0: 0.85; negative: never).
	AutoCompact float64
}

// Agent is one coding agent bound to one session at a time.
type Agent struct {
	cfg Config
	bus Bus

	mu       sync.Mutex
	sm       *session.Manager
	lock     *session.Manager // the manager the lock was taken for
	lk       *SessionLock
	live     *LiveFile
	thinking string // effective level of the current session
	busy     bool
	cancel   context.CancelFunc
	queue    []string
	closed   bool
	conv     provider.Converter // remembers converted messages between turns
	done     chan struct{}      // closed when the running Prompt returns
}

// New starts an agent on sm: it takes the session's lock (a second agent on
// the same session gets a LockedError), writes its live state and emits
// session_start.
func New(cfg Config, sm *session.Manager) (*Agent, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 50
	}
	a := &Agent{cfg: cfg}
	if cfg.OnEvent != nil {
		a.bus.Subscribe(cfg.OnEvent)
	}
	if len(cfg.Hooks) > 0 {
		a.bus.Subscribe(HookHandler(cfg.Hooks, cfg.HookDir, cfg.OnHookError))
	}
	if err := a.bind(sm); err != nil {
		return nil, err
	}
	if cfg.AgentsDir != "" {
		a.live = NewLiveFile(cfg.AgentsDir, cfg.Live)
		_ = a.live.Update(StateStarting, a.fillLive)
	}
	a.restoreSettings()
	a.setState(StateIdle)
	_ = a.bus.Emit(ev(EvSessionStart, "sessionFile", a.sm.SessionFile(), "sessionId", a.sm.SessionID()))
	return a, nil
}

// bind makes sm the agent's session, moving the lock to it.
func (a *Agent) bind(sm *session.Manager) error {
	if a.cfg.AgentsDir != "" && sm.IsPersisted() && sm.SessionFile() != "" {
		lk, err := LockSession(a.cfg.AgentsDir, sm.SessionFile())
		if err != nil {
			return err
		}
		_ = a.lk.Unlock()
		a.lk = lk
	}
	a.sm = sm
	return nil
}

// Subscribe adds an event handler.
func (a *Agent) Subscribe(h Handler) func() { return a.bus.Subscribe(h) }

// Session returns the current session manager.
func (a *Agent) Session() *session.Manager {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sm
}

// Model returns the model in use.
func (a *Agent) Model() provider.Model { return a.cfg.Model }

// ThinkingLevel returns the effective thinking level.
func (a *Agent) ThinkingLevel() string { return a.thinking }

// State returns the live state ("idle", "busy", ...).
func (a *Agent) State() string {
	if a.live != nil {
		return a.live.Current().State
	}
	if a.busy {
		return StateBusy
	}
	return StateIdle
}

func (a *Agent) fillLive(l *Live) {
	l.Cwd = a.sm.Cwd()
	l.SessionFile = a.sm.SessionFile()
	l.SessionID = a.sm.SessionID()
	l.Title = a.sm.SessionName()
	l.Model = a.cfg.Model.Ref()
	l.ThinkingLevel = a.thinking
}

func (a *Agent) setState(s string) {
	if a.live != nil {
		_ = a.live.Update(s, a.fillLive)
	}
	_ = a.bus.Emit(ev(EvStateChange, "state", s))
}

// restoreSettings takes model and thinking level from the session: the
// model of the context if the registry knows it, the thinking level of the
// branch if it has one, else the configured default; clamped to the model.
func (a *Agent) restoreSettings() {
	ctx := a.sm.BuildContext()
	if ref := ctx.Model("default"); ref != "" && a.cfg.Registry != nil && ref != a.cfg.Model.Ref() {
		if m, err := a.cfg.Registry.Resolve(ref, nil); err == nil {
			if p, err := provider.New(m, provider.Options{}); err == nil {
				if key, kerr := provider.APIKey(m, nil); kerr == nil {
					a.cfg.Model, a.cfg.Provider, a.cfg.APIKey = m, p, key
				}
			}
		}
	}
	level := a.cfg.Thinking
	if branchHasThinking(a.sm) {
		var v *string
		_ = json.Unmarshal(ctx.ThinkingLevel, &v)
		if v != nil {
			level = *v
		}
	}
	a.thinking = provider.ClampThinking(a.cfg.Model, level)
}

func branchHasThinking(sm *session.Manager) bool {
	for _, e := range sm.BranchPath("") {
		if e.Type == session.TypeThinkingLevelChange {
			return true
		}
	}
	return false
}

// SetThinkingLevel changes the thinking level (clamped) and records it.
func (a *Agent) SetThinkingLevel(level string) error {
	a.thinking = provider.ClampThinking(a.cfg.Model, level)
	raw := json.RawMessage("null")
	if a.thinking != "" {
		raw, _ = json.Marshal(a.thinking)
	}
	_, err := a.sm.AppendThinkingLevelChange(raw)
	a.setState("")
	return err
}

// SetModel switches to another model and records it.
func (a *Agent) SetModel(m provider.Model, p provider.Provider, apiKey string) error {
	a.cfg.Model, a.cfg.Provider, a.cfg.APIKey = m, p, apiKey
	a.thinking = provider.ClampThinking(m, a.thinking)
	_, err := a.sm.AppendModelChange(m.Ref(), nil)
	a.setState("")
	return err
}

// ErrBusy is returned for operations refused while a turn runs.
var ErrBusy = errors.New("a turn is running")

// Abort stops the running turn; what was received is kept, marked aborted.
func (a *Agent) Abort() {
	a.mu.Lock()
	c := a.cancel
	a.queue = nil
	a.mu.Unlock()
	if c != nil {
		c()
	}
}

// Busy reports whether a turn runs.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.busy
}

// Prompt sends text to the model and runs turns until the model stops. A
// prompt sent while a turn runs is queued and sent after it (Prompt then
// returns at once with queued true).
func (a *Agent) Prompt(ctx context.Context, text string) (queued bool, err error) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return false, errors.New("agent is closed")
	}
	if a.busy {
		a.queue = append(a.queue, text)
		a.mu.Unlock()
		return true, nil
	}
	a.busy = true
	ctx, cancel := context.WithCancel(ctx)
	a.cancel = cancel
	done := make(chan struct{})
	a.done = done
	a.mu.Unlock()
	defer func() {
		cancel()
		a.mu.Lock()
		a.busy, a.cancel = false, nil
		a.mu.Unlock()
		a.setState(StateIdle)
		close(done)
	}()
	a.setState(StateBusy)
	for {
		if err := a.run(ctx, text); err != nil {
			return false, err
		}
		a.mu.Lock()
		if len(a.queue) == 0 || ctx.Err() != nil {
			a.mu.Unlock()
			return false, nil
		}
		text, a.queue = a.queue[0], a.queue[1:]
		a.mu.Unlock()
	}
}

func (a *Agent) nowMs() int64 { return a.cfg.Now().UnixMilli() }

// appendMessage persists a message and emits message_start/end.
func (a *Agent) appendMessage(m any) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	_ = a.bus.Emit(ev(EvMessageStart, "message", json.RawMessage(raw)))
	_, perr := a.sm.AppendMessage(raw)
	_ = a.bus.Emit(ev(EvMessageEnd, "message", json.RawMessage(raw)))
	return perr
}

// run handles one prompt: the user message, then turns until the model stops.
func (a *Agent) run(ctx context.Context, text string) error {
	_ = a.bus.Emit(ev(EvAgentStart))
	if a.sm.SessionName() == "" {
		if t := autoTitle(text); t != "" {
			_, _ = a.sm.SetSessionName(t, session.TitleAuto)
		}
	}
	user := provider.UserMessage{Content: []provider.Block{{Type: provider.BlockText, Text: text}}, Attribution: "user", Timestamp: a.nowMs()}
	if err := a.appendMessage(user); err != nil {
		return err
	}
	for turn := 0; turn < a.cfg.MaxTurns; turn++ {
		_ = a.bus.Emit(ev(EvTurnStart, "turnIndex", turn))
		msg, results, err := a.turn(ctx)
		_ = a.bus.Emit(ev(EvTurnEnd, "turnIndex", turn, "message", msg, "toolResults", results))
		if err != nil {
			_ = a.bus.Emit(ev(EvAgentEnd, "error", err.Error()))
			return err
		}
		if msg.StopReason == provider.StopError || msg.StopReason == provider.StopAborted || len(msg.ToolCalls()) == 0 {
			_ = a.bus.Emit(ev(EvAgentEnd))
			a.maybeCompact(ctx)
			return nil
		}
	}
	_ = a.bus.Emit(ev(EvAgentEnd, "error", "turn limit reached"))
	return nil
}

// turn makes one model call and runs the tools it asks for.
func (a *Agent) turn(ctx context.Context) (*provider.AssistantMessage, []provider.ToolResultMessage, error) {
	req := provider.Request{
		Model:    a.cfg.Model,
		System:   a.cfg.System,
		Messages: a.conv.Convert(a.sm.BuildContext().Messages),
		Tools:    tools.Specs(a.cfg.Tools),
		Thinking: provider.Effort(a.thinking),
		APIKey:   a.cfg.APIKey,
	}
	started := false
	msg, err := a.cfg.Provider.Stream(ctx, req, func(e provider.Event) {
		switch e.Type {
		case provider.EventStart:
			started = true
			_ = a.bus.Emit(ev(EvMessageStart, "role", "assistant"))
		case provider.EventRetry:
			_ = a.bus.Emit(ev(EvRetry, "attempt", e.Attempt, "delayMs", e.DelayMs, "errorMessage", e.Err))
		case provider.EventTextDelta, provider.EventThinkingDelta, provider.EventToolCallDelta:
			_ = a.bus.Emit(ev(EvMessageUpdate, "event", e.Type, "contentIndex", e.Index, "delta", e.Delta))
		}
	})
	if msg == nil {
		if err == nil {
			err = errors.New("provider returned no message")
		}
		msg = &provider.AssistantMessage{API: a.cfg.Model.API, Provider: a.cfg.Model.Provider, Model: a.cfg.Model.ID,
			StopReason: provider.StopError, ErrorMessage: err.Error(), Timestamp: a.nowMs()}
	}
	if ctx.Err() != nil && msg.StopReason != provider.StopAborted {
		msg.StopReason = provider.StopAborted
		if msg.ErrorMessage == "" {
			msg.ErrorMessage = provider.AbortedMessage
		}
	}
	_ = started
	raw, _ := json.Marshal(msg)
	if _, perr := a.sm.AppendMessage(raw); perr != nil {
		return msg, nil, perr
	}
	_ = a.bus.Emit(ev(EvMessageEnd, "message", json.RawMessage(raw)))

	var results []provider.ToolResultMessage
	failed := msg.StopReason == provider.StopError || msg.StopReason == provider.StopAborted
	for _, call := range msg.ToolCalls() {
		var r provider.ToolResultMessage
		if failed || ctx.Err() != nil {
			text := provider.InterruptedToolResult
			if msg.ErrorMessage != "" {
				text += ": " + msg.ErrorMessage
			}
			r = provider.ToolResultMessage{ToolCallID: call.ID, ToolName: call.Name, IsError: true, Details: json.RawMessage("{}"),
				Content: []provider.Block{{Type: provider.BlockText, Text: text}}, Timestamp: a.nowMs()}
		} else {
			r = a.runTool(ctx, call)
		}
		if err := a.appendMessage(r); err != nil {
			return msg, results, err
		}
		results = append(results, r)
	}
	return msg, results, nil
}

func (a *Agent) runTool(ctx context.Context, call provider.Block) provider.ToolResultMessage {
	args := call.Arguments
	_ = a.bus.Emit(ev(EvToolStart, "toolCallId", call.ID, "toolName", call.Name, "args", json.RawMessage(nonEmpty(args))))
	t := tools.ByName(a.cfg.Tools, call.Name)
	var res tools.Result
	if t == nil {
		res = tools.Result{IsError: true, Content: []provider.Block{{Type: provider.BlockText, Text: fmt.Sprintf("Tool %q not found. Available tools: %s", call.Name, toolNames(a.cfg.Tools))}}}
	} else {
		env := tools.Env{Cwd: a.sm.Cwd(), ArtifactsDir: artifactsDir(a.sm)}
		if a.cfg.Approve != nil {
			env.Approve = func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
				a.setState(StateWaiting)
				defer a.setState(StateBusy)
				return a.cfg.Approve(ctx, tool, args)
			}
		}
		res = t.Run(ctx, env, args, func(partial string) {
			_ = a.bus.Emit(ev(EvToolUpdate, "toolCallId", call.ID, "toolName", call.Name, "partialResult", partial))
		})
	}
	r := provider.ToolResultMessage{ToolCallID: call.ID, ToolName: call.Name, Content: res.Content, Details: res.Details, IsError: res.IsError, Timestamp: a.nowMs()}
	_ = a.bus.Emit(ev(EvToolEnd, "toolCallId", call.ID, "toolName", call.Name, "isError", res.IsError, "result", r))
	return r
}

func nonEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

func toolNames(ts []tools.Tool) string {
	var n []string
	for _, t := range ts {
		n = append(n, t.Spec().Name)
	}
	return strings.Join(n, ", ")
}

// artifactsDir is the session file without .jsonl ("" in memory).
func artifactsDir(sm *session.Manager) string {
	f := sm.SessionFile()
	if f == "" || !sm.IsPersisted() {
		return ""
	}
	return strings.TrimSuffix(f, ".jsonl")
}

// autoTitle makes a session title from the first prompt: its first line, at
// most 60 characters.
func autoTitle(prompt string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(prompt), "\n", 2)[0])
	r := []rune(line)
	if len(r) > 60 {
		line = strings.TrimSpace(string(r[:59])) + "…"
	}
	return line
}

// Close ends the agent: session_shutdown, flush, live file removed, lock released.
func (a *Agent) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	_ = a.stop() // abort a running turn and wait for it
	_ = a.bus.Emit(ev(EvSessionShutdown))
	err := a.sm.Close()
	if a.live != nil {
		_ = a.live.Remove()
	}
	_ = a.lk.Unlock()
	return err
}
