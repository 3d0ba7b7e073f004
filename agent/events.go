// Package agent is xcsh's coding agent runtime: a session-backed turn loop
// that streams from a provider, runs tools, and reports its own state.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// Event names.
const (
	EvSessionStart        = "session_start"
	EvSessionBeforeSwitch = "session_before_switch"
	EvSessionSwitch       = "session_switch"
	EvSessionBranch       = "session_branch"
	EvSessionTree         = "session_tree"
	EvSessionCompact      = "session_compact"
	EvSessionShutdown     = "session_shutdown"
	EvAgentStart          = "agent_start"
	EvAgentEnd            = "agent_end"
	EvTurnStart           = "turn_start"
	EvTurnEnd             = "turn_end"
	EvMessageStart        = "message_start"
	EvMessageUpdate       = "message_update"
	EvMessageEnd          = "message_end"
	EvToolStart           = "tool_execution_start"
	EvToolUpdate          = "tool_execution_update"
	EvToolEnd             = "tool_execution_end"
	EvStateChange         = "state_change"
	EvRetry               = "auto_retry_start"
)

// Event is one thing that happened in the agent. Fields holds the payload,
// marshalled after "type" in the order given.
type Event struct {
	Type   string
	Fields []Field
}

// Field is one payload member of an event.
type Field struct {
	Key   string
	Value any
}

// MarshalJSON writes {"type":..., fields...}.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	t, _ := json.Marshal(e.Type)
	b.Write(t)
	for _, f := range e.Fields {
		if f.Value == nil {
			continue
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, fmt.Errorf("event %s field %s: %w", e.Type, f.Key, err)
		}
		b.WriteByte(',')
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns a field's value, or nil.
func (e Event) Get(key string) any {
	for _, f := range e.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

func ev(typ string, kv ...any) Event {
	e := Event{Type: typ}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Fields = append(e.Fields, Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return e
}

// Handler receives events. A handler of a before-event may return
// ErrCancel to cancel what the event announces.
type Handler func(Event) error

// ErrCancel cancels the action a before-event announces.
var ErrCancel = errors.New("cancelled by a hook")

// Bus delivers events to subscribers in the order they subscribed.
type Bus struct {
	mu       sync.Mutex
	handlers []Handler
}

// Subscribe adds a handler; the returned function removes it.
func (b *Bus) Subscribe(h Handler) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handlers = append(b.handlers, h)
	idx := len(b.handlers) - 1
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.handlers[idx] = nil
	}
}

// Emit delivers e to every handler and returns the first cancellation.
func (b *Bus) Emit(e Event) error {
	b.mu.Lock()
	hs := append([]Handler(nil), b.handlers...)
	b.mu.Unlock()
	var cancel error
	for _, h := range hs {
		if h == nil {
			continue
		}
		if err := h(e); err != nil && cancel == nil && errors.Is(err, ErrCancel) {
			cancel = err
		}
	}
	return cancel
}

// Hook is a user command run on an event: it gets the event as JSON on
// stdin; for a before-event, exit status 2 cancels it.
type Hook struct {
	// Event is the event name, or "*" for all.
	Event string `mapstructure:"event"`
	// Command is the program and its arguments.
	Command []string `mapstructure:"command"`
	// Timeout bounds one run (default 10 s).
	Timeout time.Duration `mapstructure:"timeout"`
}

// HookError reports a hook that failed (not a cancellation).
type HookError struct {
	Hook   Hook
	Err    error
	Stderr string
}

func (e *HookError) Error() string {
	return fmt.Sprintf("hook %v on %s: %v %s", e.Hook.Command, e.Hook.Event, e.Err, e.Stderr)
}

// HookHandler turns hooks into a bus handler. onErr receives hook failures
// (they never stop the agent).
func HookHandler(hooks []Hook, dir string, onErr func(error)) Handler {
	return func(e Event) error {
		var cancel error
		for _, h := range hooks {
			if h.Event != "*" && h.Event != e.Type || len(h.Command) == 0 {
				continue
			}
			payload, err := json.Marshal(e)
			if err != nil {
				continue
			}
			to := h.Timeout
			if to <= 0 {
				to = 10 * time.Second
			}
			ctx, stop := context.WithTimeout(context.Background(), to)
			cmd := exec.CommandContext(ctx, h.Command[0], h.Command[1:]...)
			cmd.Dir = dir
			cmd.Stdin = bytes.NewReader(payload)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err = cmd.Run()
			stop()
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee) && ee.ExitCode() == 2 && isBefore(e.Type):
				if cancel == nil {
					cancel = fmt.Errorf("%w: %v", ErrCancel, h.Command)
				}
			default:
				if onErr != nil {
					onErr(&HookError{Hook: h, Err: err, Stderr: stderr.String()})
				}
			}
		}
		return cancel
	}
}

func isBefore(t string) bool { return len(t) > 15 && t[:15] == "session_before_" }
