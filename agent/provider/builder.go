package provider

import (
	"context"
	"errors"
	"strings"
	"time"
)

// AbortedMessage is the errorMessage of a response cut short by the caller.
const AbortedMessage = "Request was aborted"

// Builder assembles an AssistantMessage from streamed pieces and reports
// each change to the caller's callback. Providers share it so that every
// implementation fills the message, its timings and its events the same way.
type Builder struct {
	// Msg is the message being built.
	Msg *AssistantMessage

	model   Model
	on      func(Event)
	now     func() time.Time
	start   time.Time
	started bool
	content bool
	// args holds the raw argument text of open tool calls by content index.
	args  map[int]*strings.Builder
	ended map[int]bool
}

// NewBuilder starts a message for model m at the current time; on may be nil.
func NewBuilder(m Model, now func() time.Time, on func(Event)) *Builder {
	if now == nil {
		now = time.Now
	}
	if on == nil {
		on = func(Event) {}
	}
	t := now()
	return &Builder{
		Msg: &AssistantMessage{Content: []Block{}, API: m.API, Provider: m.Provider, Model: m.ID,
			StopReason: StopStop, Timestamp: t.UnixMilli()},
		model: m, on: on, now: now, start: t,
		args: map[int]*strings.Builder{}, ended: map[int]bool{},
	}
}

func (b *Builder) emit(e Event) {
	e.Partial = b.Msg
	b.on(e)
}

// Start emits EventStart once.
func (b *Builder) Start() {
	if !b.started {
		b.started = true
		b.emit(Event{Type: EventStart})
	}
}

// HasContent reports whether any content delta arrived (retries stop then).
func (b *Builder) HasContent() bool { return b.content }

// Reset forgets everything received, before a retry.
func (b *Builder) Reset() {
	b.Msg.Content = []Block{}
	b.Msg.Usage = Usage{}
	b.Msg.ResponseID = ""
	b.Msg.StopReason = StopStop
	b.content = false
	clear(b.args)
	clear(b.ended)
}

// Retry reports a retry about to happen.
func (b *Builder) Retry(attempt int, delay time.Duration, err error) {
	b.emit(Event{Type: EventRetry, Attempt: attempt, DelayMs: delay.Milliseconds(), Err: err.Error()})
}

func (b *Builder) touch() {
	if !b.content {
		b.content = true
		b.Start()
		ms := b.now().Sub(b.start).Milliseconds()
		b.Msg.TTFT = &ms
	}
}

// Add appends a block and returns its content index.
func (b *Builder) Add(blk Block) int {
	b.Msg.Content = append(b.Msg.Content, blk)
	return len(b.Msg.Content) - 1
}

// Last returns the index of the last block, or -1.
func (b *Builder) Last() int { return len(b.Msg.Content) - 1 }

// Block returns the block at index i (nil when out of range).
func (b *Builder) Block(i int) *Block {
	if i < 0 || i >= len(b.Msg.Content) {
		return nil
	}
	return &b.Msg.Content[i]
}

// Text appends text to block i.
func (b *Builder) Text(i int, delta string) {
	if blk := b.Block(i); blk != nil && delta != "" {
		b.touch()
		blk.Text += delta
		b.emit(Event{Type: EventTextDelta, Index: i, Delta: delta})
	}
}

// Thinking appends thinking text to block i.
func (b *Builder) Thinking(i int, delta string) {
	if blk := b.Block(i); blk != nil && delta != "" {
		b.touch()
		blk.Thinking += delta
		b.emit(Event{Type: EventThinkingDelta, Index: i, Delta: delta})
	}
}

// ToolArgs appends a fragment of tool-call argument text to block i and
// re-parses the arguments so far.
func (b *Builder) ToolArgs(i int, frag string) {
	blk := b.Block(i)
	if blk == nil {
		return
	}
	b.touch()
	sb := b.args[i]
	if sb == nil {
		sb = &strings.Builder{}
		b.args[i] = sb
	}
	sb.WriteString(frag)
	blk.Arguments = ParseArguments(sb.String())
	b.emit(Event{Type: EventToolCallDelta, Index: i, Delta: frag})
}

// Touch counts as content a block that arrives without any delta (a tool
// call without argument text, redacted thinking): TTFT is set and retries stop.
func (b *Builder) Touch() { b.touch() }

// End closes block i: tool arguments get their final parse and block_end is
// emitted. Ending a block twice does nothing.
func (b *Builder) End(i int) {
	blk := b.Block(i)
	if blk == nil || b.ended[i] {
		return
	}
	b.ended[i] = true
	if blk.Type == BlockToolCall {
		if sb := b.args[i]; sb != nil {
			blk.Arguments = ParseArguments(sb.String())
		} else if len(blk.Arguments) == 0 {
			blk.Arguments = emptyObject
		}
		delete(b.args, i)
	}
	b.emit(Event{Type: EventBlockEnd, Index: i})
}

// EndAll closes every open block.
func (b *Builder) EndAll() {
	for i := range b.Msg.Content {
		b.End(i)
	}
}

// SetUsage replaces the usage and prices it with the model's prices.
func (b *Builder) SetUsage(u Usage) {
	u.ComputeCost(b.model.Prices)
	b.Msg.Usage = u
}

func (b *Builder) finishTimes() {
	d := b.now().Sub(b.start).Milliseconds()
	b.Msg.Duration = &d
}

// Done finishes a successful response: open blocks are closed, duration set
// and EventDone emitted. A stop reason of "error" (a provider finish reason
// that means failure) goes through Fail instead.
func (b *Builder) Done() (*AssistantMessage, error) {
	if b.Msg.StopReason == StopError || b.Msg.StopReason == StopAborted {
		msg := b.Msg.ErrorMessage
		if msg == "" {
			msg = "the provider reported an error"
		}
		return b.Fail(context.Background(), errors.New(msg))
	}
	b.EndAll()
	b.finishTimes()
	b.Start()
	b.emit(Event{Type: EventDone})
	return b.Msg, nil
}

// Fail finishes a failed response, keeping what arrived: stopReason
// "aborted" with "Request was aborted" when ctx was cancelled, else "error"
// with err's message. It emits EventError and returns the message and an error.
func (b *Builder) Fail(ctx context.Context, err error) (*AssistantMessage, error) {
	b.EndAll()
	if ctx.Err() != nil {
		b.Msg.StopReason = StopAborted
		b.Msg.ErrorMessage = AbortedMessage
		err = ctx.Err()
	} else {
		b.Msg.StopReason = StopError
		b.Msg.ErrorMessage = err.Error()
	}
	b.finishTimes()
	b.Start()
	b.emit(Event{Type: EventError, Err: b.Msg.ErrorMessage})
	return b.Msg, err
}
