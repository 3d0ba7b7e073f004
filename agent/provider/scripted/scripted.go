// Package scripted is a model provider whose replies come from a script
// file instead of a model: it serves the demo (a built-in script) and tests.
//
// A script is a JSON object:
//
//	{
//	  "description": "what the script shows",
//	  "delayMs": 20,      // wait before each streamed chunk (default 15)
//	  "chunkSize": 6,     // characters per chunk (default 8)
//	  "latencyMs": 300,   // wait before the first chunk (default 0)
//	  "turns": [
//	    {"match": "hello", "replies": [{"text": "Hello!"}]},
//	    {"replies": [
//	      {"thinking": "…", "text": "Reading it.", "toolCalls": [{"name": "read", "arguments": {"path": "a.go"}}]},
//	      {"text": "Done."}
//	    ]}
//	  ]
//	}
//
// A turn answers one user prompt. The first turn whose match is a
// case-insensitive substring of the prompt is used; prompts that match no
// turn take the turns without a match in order (the last one repeats). The
// reply within a turn is chosen by the number of responses already given
// since the prompt, so a reply with tool calls is followed, once the tool
// results are in, by the next reply. The choice depends only on the
// conversation, so a resumed session continues where it stopped. A reply may
// override delayMs, chunkSize and latencyMs, set "stopReason" ("stop" or
// "length"; "toolUse" is implied by tool calls) or "error" (the reply
// streams, then fails with that message).
package scripted

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

//go:embed demo.json
var demoScript []byte

// EndOfScript is the reply given when a turn has no replies left.
const EndOfScript = "(The script has no more replies for this prompt.)"

// Script is a parsed script.
type Script struct {
	Description string `json:"description"`
	Timing
	Turns []Turn `json:"turns"`
}

// Timing paces the streaming of a reply.
type Timing struct {
	// DelayMs is the wait before each chunk.
	DelayMs *int `json:"delayMs,omitempty"`
	// ChunkSize is the number of characters per chunk.
	ChunkSize *int `json:"chunkSize,omitempty"`
	// LatencyMs is the wait before the first chunk.
	LatencyMs *int `json:"latencyMs,omitempty"`
}

// Turn is the answer to one prompt: one reply per response.
type Turn struct {
	// Match selects the turn for prompts containing it ("" for in-order turns).
	Match   string  `json:"match,omitempty"`
	Replies []Reply `json:"replies"`
}

// Reply is one response.
type Reply struct {
	Thinking   string     `json:"thinking,omitempty"`
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	StopReason string     `json:"stopReason,omitempty"`
	Error      string     `json:"error,omitempty"`
	Timing
}

// ToolCall is a tool call of a reply.
type ToolCall struct {
	// ID defaults to call_<turn>_<reply>_<n>.
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Parse reads and checks a script.
func Parse(data []byte) (*Script, error) {
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("invalid script: %w", err)
	}
	if len(s.Turns) == 0 {
		return nil, errors.New("invalid script: no turns")
	}
	var errs []error
	if err := s.Timing.check("script"); err != nil {
		errs = append(errs, err)
	}
	for i, t := range s.Turns {
		if len(t.Replies) == 0 {
			errs = append(errs, fmt.Errorf("turns[%d]: no replies", i))
		}
		for j, r := range t.Replies {
			where := fmt.Sprintf("turns[%d].replies[%d]", i, j)
			if r.Text == "" && r.Thinking == "" && len(r.ToolCalls) == 0 && r.Error == "" {
				errs = append(errs, fmt.Errorf("%s: empty (give text, thinking, toolCalls or error)", where))
			}
			switch r.StopReason {
			case "", provider.StopStop, provider.StopLength, provider.StopToolUse:
			default:
				errs = append(errs, fmt.Errorf("%s: stopReason %q (use stop or length)", where, r.StopReason))
			}
			if err := r.Timing.check(where); err != nil {
				errs = append(errs, err)
			}
			for k, c := range r.ToolCalls {
				if c.Name == "" {
					errs = append(errs, fmt.Errorf("%s.toolCalls[%d]: no name", where, k))
				}
				if len(c.Arguments) > 0 && !isObject(c.Arguments) {
					errs = append(errs, fmt.Errorf("%s.toolCalls[%d]: arguments must be an object", where, k))
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid script: %w", err)
	}
	return &s, nil
}

func (t Timing) check(where string) error {
	for _, v := range []struct {
		name string
		p    *int
		min  int
	}{{"delayMs", t.DelayMs, 0}, {"chunkSize", t.ChunkSize, 1}, {"latencyMs", t.LatencyMs, 0}} {
		if v.p != nil && *v.p < v.min {
			return fmt.Errorf("%s: %s must be at least %d", where, v.name, v.min)
		}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// Load reads a script file.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Demo returns the built-in demo script.
func Demo() *Script {
	s, err := Parse(demoScript)
	if err != nil {
		panic("scripted: built-in demo script: " + err.Error())
	}
	return s
}

// DemoJSON returns the text of the built-in demo script (a starting point
// for your own).
func DemoJSON() []byte { return bytes.Clone(demoScript) }

func init() {
	provider.Register(provider.APIScripted, func(m provider.Model, o provider.Options) (provider.Provider, error) {
		return New(m, o)
	})
}

// Provider plays a script.
type Provider struct {
	model  provider.Model
	script *Script
	opts   provider.Options
}

var _ provider.Provider = (*Provider)(nil)

// New returns the provider for a scripted model: its Script file, or the
// built-in demo for scripted/demo.
func New(m provider.Model, o provider.Options) (*Provider, error) {
	var s *Script
	switch {
	case m.Script != "":
		var err error
		if s, err = Load(m.Script); err != nil {
			return nil, err
		}
	case m.ID == "demo" || m.ID == "":
		s = Demo()
	default:
		return nil, fmt.Errorf("no script for %s: use scripted/demo, or give a script file (--script <file>)", m.Ref())
	}
	return WithScript(m, s, o), nil
}

// WithScript returns a provider playing s.
func WithScript(m provider.Model, s *Script, o provider.Options) *Provider {
	m.Provider, m.API = "scripted", provider.APIScripted
	if m.ID == "" {
		m.ID = "demo"
	}
	return &Provider{model: m, script: s, opts: o}
}

// Stream plays the reply the conversation has reached.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.AssistantMessage, error) {
	m := p.model
	if req.Model.ID != "" {
		m.ID = req.Model.ID
	}
	b := provider.NewBuilder(m, p.opts.Clock(), on)
	turn, step := p.script.pick(req.Messages)
	var reply Reply
	if turn < 0 || step >= len(p.script.Turns[turn].Replies) {
		reply = Reply{Text: EndOfScript}
	} else {
		reply = p.script.Turns[turn].Replies[step]
	}
	timing := p.script.timing(reply.Timing)
	b.Start()
	if err := p.play(ctx, b, reply, timing, turn, step); err != nil {
		return b.Fail(ctx, err)
	}
	b.SetUsage(provider.Usage{Input: tokens(contextChars(req)), Output: tokens(replyChars(reply))})
	switch {
	case len(reply.ToolCalls) > 0:
		b.Msg.StopReason = provider.StopToolUse
	case reply.StopReason != "":
		b.Msg.StopReason = reply.StopReason
	}
	if reply.Error != "" {
		return b.Fail(ctx, errors.New(reply.Error))
	}
	return b.Done()
}

type timing struct{ delay, chunk, latency int }

func (s *Script) timing(r Timing) timing {
	t := timing{delay: 15, chunk: 8}
	for _, src := range []Timing{s.Timing, r} {
		if src.DelayMs != nil {
			t.delay = *src.DelayMs
		}
		if src.ChunkSize != nil {
			t.chunk = *src.ChunkSize
		}
		if src.LatencyMs != nil {
			t.latency = *src.LatencyMs
		}
	}
	return t
}

func (p *Provider) wait(ctx context.Context, ms int) error {
	if ms <= 0 {
		return ctx.Err()
	}
	return p.opts.Wait(ctx, msDuration(ms))
}

func (p *Provider) play(ctx context.Context, b *provider.Builder, r Reply, t timing, turn, step int) error {
	if err := p.wait(ctx, t.latency); err != nil {
		return err
	}
	stream := func(text string, emit func(string)) error {
		for _, c := range chunks(text, t.chunk) {
			if err := p.wait(ctx, t.delay); err != nil {
				return err
			}
			emit(c)
		}
		return nil
	}
	if r.Thinking != "" {
		i := b.Add(provider.Block{Type: provider.BlockThinking})
		if err := stream(r.Thinking, func(c string) { b.Thinking(i, c) }); err != nil {
			return err
		}
		b.End(i)
	}
	if r.Text != "" {
		i := b.Add(provider.Block{Type: provider.BlockText})
		if err := stream(r.Text, func(c string) { b.Text(i, c) }); err != nil {
			return err
		}
		b.End(i)
	}
	for n, c := range r.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d_%d", turn, step, n)
		}
		args := "{}"
		if len(c.Arguments) > 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, c.Arguments); err == nil {
				args = buf.String()
			}
		}
		i := b.Add(provider.Block{Type: provider.BlockToolCall, ID: id, Name: c.Name, Arguments: json.RawMessage("{}")})
		b.Touch()
		if err := stream(args, func(c string) { b.ToolArgs(i, c) }); err != nil {
			return err
		}
		b.End(i)
	}
	return nil
}

// pick finds the turn and reply for a conversation: the turn of the last
// user prompt and the number of responses since it. turn is -1 when no
// turn applies.
func (s *Script) pick(msgs []provider.Message) (turn, step int) {
	var ordered []int
	for i, t := range s.Turns {
		if t.Match == "" {
			ordered = append(ordered, i)
		}
	}
	turn, unmatched := -1, 0
	for _, m := range msgs {
		switch m.Role {
		case "user":
			step = 0
			if t := s.matching(promptText(m)); t >= 0 {
				turn = t
				continue
			}
			turn = -1
			if len(ordered) > 0 {
				turn = ordered[min(unmatched, len(ordered)-1)]
			}
			unmatched++
		case "assistant":
			step++
		}
	}
	return turn, step
}

func (s *Script) matching(prompt string) int {
	p := strings.ToLower(prompt)
	for i, t := range s.Turns {
		if t.Match != "" && strings.Contains(p, strings.ToLower(t.Match)) {
			return i
		}
	}
	return -1
}

func promptText(m provider.Message) string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type == provider.BlockText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// chunks splits s into pieces of n characters.
func chunks(s string, n int) []string {
	var out []string
	for s != "" {
		i, k := 0, 0
		for i < len(s) && k < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// tokens estimates a token count from characters (four per token).
func tokens(chars int) int { return (chars + 3) / 4 }

func contextChars(req provider.Request) int {
	n := utf8.RuneCountInString(req.System)
	for _, m := range req.Messages {
		for _, b := range m.Content {
			n += utf8.RuneCountInString(b.Text) + utf8.RuneCountInString(b.Thinking) + len(b.Arguments)
		}
	}
	return n
}

func replyChars(r Reply) int {
	n := utf8.RuneCountInString(r.Thinking) + utf8.RuneCountInString(r.Text)
	for _, c := range r.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n
}
