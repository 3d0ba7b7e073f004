// Package provider defines the messages, models and streaming contract that
// every model provider implements (OpenAI-compatible, Anthropic, scripted).
// Message types marshal to exactly the JSON shapes xcsh and oh-my-pi write into
// session files (key order included).
package provider

import (
	"context"
	"encoding/json"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// Stop reasons of an assistant message.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// Block types.
const (
	BlockText             = "text"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redactedThinking"
	BlockImage            = "image"
	BlockToolCall         = "toolCall"
)

// Block is one content block; which fields are used depends on Type.
type Block struct {
	Type string
	// text
	Text          string
	TextSignature string
	// thinking
	Thinking          string
	ThinkingSignature string
	// image and redactedThinking
	Data     string
	MimeType string
	// toolCall
	ID               string
	Name             string
	Arguments        json.RawMessage // an object; nil means {}
	ThoughtSignature string
	Intent           string
}

type kv struct {
	k string
	v any
}

// marshalOrdered writes an object with members in the given order; nil
// values (and empty optional strings marked by omit) are left out.
func marshalOrdered(members []kv) ([]byte, error) {
	b := []byte{'{'}
	first := true
	for _, m := range members {
		if m.v == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsjson.AppendString(b, m.k)
		b = append(b, ':')
		switch v := m.v.(type) {
		case json.RawMessage:
			c, err := jsjson.Canonical(v)
			if err != nil {
				return nil, err
			}
			b = append(b, c...)
		default:
			c, err := jsjson.Marshal(v)
			if err != nil {
				return nil, err
			}
			b = append(b, c...)
		}
	}
	return append(b, '}'), nil
}

func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// MarshalJSON writes the block in the reference's key order.
func (b Block) MarshalJSON() ([]byte, error) {
	switch b.Type {
	case BlockText:
		return marshalOrdered([]kv{{"type", b.Type}, {"text", b.Text}, {"textSignature", optString(b.TextSignature)}})
	case BlockThinking:
		return marshalOrdered([]kv{{"type", b.Type}, {"thinking", b.Thinking}, {"thinkingSignature", optString(b.ThinkingSignature)}})
	case BlockRedactedThinking:
		return marshalOrdered([]kv{{"type", b.Type}, {"data", b.Data}})
	case BlockImage:
		return marshalOrdered([]kv{{"type", b.Type}, {"data", b.Data}, {"mimeType", b.MimeType}})
	case BlockToolCall:
		args := b.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return marshalOrdered([]kv{{"type", b.Type}, {"id", b.ID}, {"name", b.Name}, {"arguments", args},
			{"thoughtSignature", optString(b.ThoughtSignature)}, {"intent", optString(b.Intent)}})
	}
	return marshalOrdered([]kv{{"type", b.Type}})
}

// UnmarshalJSON reads any block shape.
func (b *Block) UnmarshalJSON(data []byte) error {
	var w struct {
		Type              string          `json:"type"`
		Text              string          `json:"text"`
		TextSignature     string          `json:"textSignature"`
		Thinking          string          `json:"thinking"`
		ThinkingSignature string          `json:"thinkingSignature"`
		Data              string          `json:"data"`
		MimeType          string          `json:"mimeType"`
		ID                string          `json:"id"`
		Name              string          `json:"name"`
		Arguments         json.RawMessage `json:"arguments"`
		ThoughtSignature  string          `json:"thoughtSignature"`
		Intent            string          `json:"intent"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = Block{Type: w.Type, Text: w.Text, TextSignature: w.TextSignature, Thinking: w.Thinking,
		ThinkingSignature: w.ThinkingSignature, Data: w.Data, MimeType: w.MimeType, ID: w.ID, Name: w.Name,
		Arguments: w.Arguments, ThoughtSignature: w.ThoughtSignature, Intent: w.Intent}
	return nil
}

// Cost is money spent, in dollars.
type Cost struct {
	Input, Output, CacheRead, CacheWrite, Total float64
}

// MarshalJSON writes the reference's key order.
func (c Cost) MarshalJSON() ([]byte, error) {
	return marshalOrdered([]kv{{"input", c.Input}, {"output", c.Output}, {"cacheRead", c.CacheRead}, {"cacheWrite", c.CacheWrite}, {"total", c.Total}})
}

// UnmarshalJSON reads the reference's field names.
func (c *Cost) UnmarshalJSON(data []byte) error {
	var w struct{ Input, Output, CacheRead, CacheWrite, Total float64 }
	err := json.Unmarshal(data, &w)
	*c = Cost(w)
	return err
}

// Usage is the token usage of one response.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, TotalTokens int
	Cost                                              Cost
}

// MarshalJSON writes the reference's key order.
func (u Usage) MarshalJSON() ([]byte, error) {
	return marshalOrdered([]kv{{"input", u.Input}, {"output", u.Output}, {"cacheRead", u.CacheRead}, {"cacheWrite", u.CacheWrite}, {"totalTokens", u.TotalTokens}, {"cost", u.Cost}})
}

// UnmarshalJSON reads the reference's field names.
func (u *Usage) UnmarshalJSON(data []byte) error {
	var w struct {
		Input, Output, CacheRead, CacheWrite, TotalTokens int
		Cost                                              Cost
	}
	err := json.Unmarshal(data, &w)
	*u = Usage(w)
	return err
}

// ComputeCost fills TotalTokens and Cost from the model's prices ($ per million tokens).
func (u *Usage) ComputeCost(p Prices) {
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	u.Cost.Input = p.Input / 1e6 * float64(u.Input)
	u.Cost.Output = p.Output / 1e6 * float64(u.Output)
	u.Cost.CacheRead = p.CacheRead / 1e6 * float64(u.CacheRead)
	u.Cost.CacheWrite = p.CacheWrite / 1e6 * float64(u.CacheWrite)
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// AssistantMessage is a model response as stored in a session.
type AssistantMessage struct {
	Content      []Block
	API          string
	Provider     string
	Model        string
	Usage        Usage
	StopReason   string
	Timestamp    int64 // ms, request start
	ResponseID   string
	ErrorMessage string
	Duration     *int64 // ms
	TTFT         *int64 // ms to the first content
}

// MarshalJSON writes role, content, api, provider, model, usage, stopReason,
// timestamp, then responseId, errorMessage, duration, ttft when set.
func (m AssistantMessage) MarshalJSON() ([]byte, error) {
	content := m.Content
	if content == nil {
		content = []Block{}
	}
	var dur, ttft any
	if m.Duration != nil {
		dur = *m.Duration
	}
	if m.TTFT != nil {
		ttft = *m.TTFT
	}
	return marshalOrdered([]kv{{"role", "assistant"}, {"content", content}, {"api", m.API}, {"provider", m.Provider},
		{"model", m.Model}, {"usage", m.Usage}, {"stopReason", m.StopReason}, {"timestamp", m.Timestamp},
		{"responseId", optString(m.ResponseID)}, {"errorMessage", optString(m.ErrorMessage)}, {"duration", dur}, {"ttft", ttft}})
}

// UnmarshalJSON reads an assistant message as sessions store it; numbers
// written as floats (timestamps, durations) are accepted.
func (m *AssistantMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Content      []Block  `json:"content"`
		API          string   `json:"api"`
		Provider     string   `json:"provider"`
		Model        string   `json:"model"`
		Usage        Usage    `json:"usage"`
		StopReason   string   `json:"stopReason"`
		Timestamp    float64  `json:"timestamp"`
		ResponseID   string   `json:"responseId"`
		ErrorMessage string   `json:"errorMessage"`
		Duration     *float64 `json:"duration"`
		TTFT         *float64 `json:"ttft"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	ms := func(f *float64) *int64 {
		if f == nil {
			return nil
		}
		v := int64(*f)
		return &v
	}
	*m = AssistantMessage{Content: w.Content, API: w.API, Provider: w.Provider, Model: w.Model, Usage: w.Usage,
		StopReason: w.StopReason, Timestamp: int64(w.Timestamp), ResponseID: w.ResponseID,
		ErrorMessage: w.ErrorMessage, Duration: ms(w.Duration), TTFT: ms(w.TTFT)}
	return nil
}

// ToolCalls returns the tool call blocks of the message.
func (m *AssistantMessage) ToolCalls() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolCall {
			out = append(out, b)
		}
	}
	return out
}

// Text returns the text blocks joined.
func (m *AssistantMessage) Text() string {
	s := ""
	for _, b := range m.Content {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// UserMessage is a prompt as the interactive and print paths write it.
type UserMessage struct {
	Content     []Block
	Attribution string // "user" or "agent"
	Timestamp   int64
}

// MarshalJSON writes role, content, attribution, timestamp.
func (m UserMessage) MarshalJSON() ([]byte, error) {
	return marshalOrdered([]kv{{"role", "user"}, {"content", m.Content}, {"attribution", optString(m.Attribution)}, {"timestamp", m.Timestamp}})
}

// ToolResultMessage is the result of one tool call.
type ToolResultMessage struct {
	ToolCallID string
	ToolName   string
	Content    []Block
	Details    json.RawMessage // nil: omitted
	IsError    bool
	Timestamp  int64
}

// MarshalJSON writes role, toolCallId, toolName, content, details?, isError, timestamp.
func (m ToolResultMessage) MarshalJSON() ([]byte, error) {
	var details any
	if m.Details != nil {
		details = m.Details
	}
	content := m.Content
	if content == nil {
		content = []Block{}
	}
	return marshalOrdered([]kv{{"role", "toolResult"}, {"toolCallId", m.ToolCallID}, {"toolName", m.ToolName},
		{"content", content}, {"details", details}, {"isError", m.IsError}, {"timestamp", m.Timestamp}})
}

// Prices are dollars per million tokens.
type Prices struct {
	Input      float64 `json:"input" mapstructure:"input"`
	Output     float64 `json:"output" mapstructure:"output"`
	CacheRead  float64 `json:"cacheRead" mapstructure:"cache_read"`
	CacheWrite float64 `json:"cacheWrite" mapstructure:"cache_write"`
}

// Model describes one model of a provider.
type Model struct {
	// Provider is the provider name ("openai", "anthropic", "openrouter", "ollama", "scripted", ...).
	Provider string
	// ID is the provider's model id (may contain '/').
	ID string
	// API is the wire protocol: "openai-completions", "anthropic-messages" or "scripted".
	API string
	// BaseURL is the API endpoint base, e.g. https://api.openai.com/v1.
	BaseURL string
	// APIKeyEnv names the environment variable that holds the key ("" for none needed).
	APIKeyEnv string
	// ContextWindow and MaxTokens are in tokens.
	ContextWindow int
	MaxTokens     int
	// Reasoning reports whether the model can think; MinLevel/MaxLevel bound its efforts.
	Reasoning          bool
	MinLevel, MaxLevel string
	// Prices are per million tokens.
	Prices Prices
	// Script is the script file of a scripted model ("" for the built-in demo).
	Script string
	// ThinkingFormat says how an openai-completions request carries the
	// effort: "openai" (reasoning_effort, the default), "openrouter"
	// (reasoning:{effort}) or "none" (never sent).
	ThinkingFormat string
	// MaxTokensField names the output-limit field of an openai-completions
	// request: "max_completion_tokens" (default) or "max_tokens".
	MaxTokensField string
}

// Ref is "provider/id".
func (m Model) Ref() string { return m.Provider + "/" + m.ID }

// Tool is a tool the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is a JSON schema object.
	Parameters json.RawMessage
}

// Message is one context message normalised for providers: role "user",
// "assistant" or "toolResult".
type Message struct {
	Role       string
	Content    []Block
	ToolCallID string
	ToolName   string
	IsError    bool
	// Assistant is set for role assistant (the original message).
	Assistant *AssistantMessage
}

// Request is one model call.
type Request struct {
	Model    Model
	System   string
	Messages []Message
	Tools    []Tool
	// Thinking is the effort to send ("minimal".."xhigh"), or "" for none.
	Thinking  string
	MaxTokens int
	// APIKey is the resolved key ("" when none is needed).
	APIKey string
}

// Event types streamed while a response arrives.
const (
	EventStart         = "start"
	EventTextDelta     = "text_delta"
	EventThinkingDelta = "thinking_delta"
	EventToolCallDelta = "toolcall_delta"
	EventBlockEnd      = "block_end"
	EventRetry         = "retry"
	EventDone          = "done"
	EventError         = "error"
)

// Event is one streaming update. Partial is the message so far (do not keep it).
type Event struct {
	Type    string
	Index   int // content index
	Delta   string
	Partial *AssistantMessage
	// Attempt and Delay describe a retry (EventRetry).
	Attempt int
	DelayMs int64
	Err     string
}

// Provider streams one response. It always returns the final message: on
// failure its StopReason is "error" (or "aborted" when ctx was cancelled), its
// ErrorMessage says why and the partial content is kept; err is then non-nil too.
type Provider interface {
	Stream(ctx context.Context, req Request, on func(Event)) (*AssistantMessage, error)
}
