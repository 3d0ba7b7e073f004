// Package anthropic streams responses from the Anthropic Messages API.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

// APIVersion is the anthropic-version header sent.
const APIVersion = "2023-06-01"

// interleavedBeta lets a model think between tool calls.
const interleavedBeta = "interleaved-thinking-2025-05-14"

func init() {
	provider.Register(provider.APIAnthropicMessages, func(m provider.Model, o provider.Options) (provider.Provider, error) {
		return New(m, o), nil
	})
}

// Provider streams Messages API responses.
type Provider struct {
	model provider.Model
	opts  provider.Options
}

var _ provider.Provider = (*Provider)(nil)

// New returns a provider for model m (used when a request names no model).
func New(m provider.Model, o provider.Options) *Provider {
	return &Provider{model: m, opts: o}
}

// Endpoint is the messages URL for a base URL given with or without /v1.
func Endpoint(base string) string {
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, "/v1") {
		return base + "/messages"
	}
	return base + "/v1/messages"
}

// Stream sends req and assembles the streamed response.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.AssistantMessage, error) {
	m := provider.ModelFor(req, p.model)
	m.API = provider.APIAnthropicMessages
	b := provider.NewBuilder(m, p.opts.Clock(), on)
	if err := provider.CheckKey(m, req.APIKey); err != nil {
		return b.Fail(ctx, err)
	}
	reqBody, thinking := buildRequest(m, req)
	body, err := json.Marshal(reqBody)
	if err != nil {
		return b.Fail(ctx, fmt.Errorf("%s: encode request: %w", m.Provider, err))
	}
	header := http.Header{}
	if req.APIKey != "" {
		header.Set("X-Api-Key", req.APIKey)
	}
	header.Set("Anthropic-Version", APIVersion)
	if thinking && len(req.Tools) > 0 {
		header.Set("Anthropic-Beta", interleavedBeta)
	}
	url := Endpoint(m.BaseURL)
	err = provider.Retry(ctx, p.opts, b, func(ctx context.Context) error {
		resp, err := provider.Post(ctx, p.opts, m, url, header, body)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b.Start()
		return (&reader{m: m, b: b, blocks: map[int]int{}}).read(resp.Body)
	})
	if err != nil {
		return b.Fail(ctx, err)
	}
	return b.Done()
}

type event struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string    `json:"id"`
		Usage *apiUsage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
		Data  string          `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		Thinking    string  `json:"thinking"`
		PartialJSON string  `json:"partial_json"`
		Signature   string  `json:"signature"`
		StopReason  *string `json:"stop_reason"`
	} `json:"delta"`
	Usage *apiUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type apiUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// reader turns events into the message.
type reader struct {
	m       provider.Model
	b       *provider.Builder
	blocks  map[int]int // stream index -> content index
	stopped bool        // a stop_reason arrived
	done    bool        // message_stop arrived
}

func (r *reader) read(body io.Reader) error {
	err := provider.ReadSSE(body, func(ev provider.SSEEvent) error {
		var e event
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return fmt.Errorf("%s: malformed stream: invalid JSON in a %q event (%v): %s", r.m.Provider, ev.Event, err, snippet(ev.Data))
		}
		if e.Type == "" {
			e.Type = ev.Event
		}
		return r.event(&e)
	})
	switch {
	case errors.Is(err, provider.ErrStreamCut):
		return fmt.Errorf("%s: %w", r.m.Provider, err)
	case err != nil:
		return err
	case !r.done && !r.stopped:
		return fmt.Errorf("%s: %w: the stream ended before the response was complete", r.m.Provider, provider.ErrStreamCut)
	}
	return nil
}

func snippet(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func (r *reader) event(e *event) error {
	b := r.b
	switch e.Type {
	case "message_start":
		if e.Message != nil {
			b.Msg.ResponseID = e.Message.ID
			r.usage(e.Message.Usage)
		}
	case "content_block_start":
		cb := e.ContentBlock
		if cb == nil {
			return nil
		}
		switch cb.Type {
		case "text":
			i := b.Add(provider.Block{Type: provider.BlockText})
			r.blocks[e.Index] = i
			b.Text(i, cb.Text)
		case "thinking":
			r.blocks[e.Index] = b.Add(provider.Block{Type: provider.BlockThinking})
		case "redacted_thinking":
			r.blocks[e.Index] = b.Add(provider.Block{Type: provider.BlockRedactedThinking, Data: cb.Data})
			b.Touch()
		case "tool_use":
			args := cb.Input
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			i := b.Add(provider.Block{Type: provider.BlockToolCall, ID: cb.ID, Name: cb.Name, Arguments: args})
			r.blocks[e.Index] = i
			b.Touch()
		default:
			r.blocks[e.Index] = -1
		}
	case "content_block_delta":
		i, ok := r.blocks[e.Index]
		if !ok || i < 0 || e.Delta == nil {
			return nil
		}
		switch e.Delta.Type {
		case "text_delta":
			b.Text(i, e.Delta.Text)
		case "thinking_delta":
			b.Thinking(i, e.Delta.Thinking)
		case "input_json_delta":
			b.ToolArgs(i, e.Delta.PartialJSON)
		case "signature_delta":
			if blk := b.Block(i); blk != nil {
				blk.ThinkingSignature += e.Delta.Signature
			}
		}
	case "content_block_stop":
		if i, ok := r.blocks[e.Index]; ok && i >= 0 {
			b.End(i)
		}
		delete(r.blocks, e.Index)
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != nil {
			r.stop(*e.Delta.StopReason)
		}
		r.usage(e.Usage)
	case "message_stop":
		r.done = true
	case "error":
		return r.streamError(e)
	}
	return nil
}

// usage overwrites the fields the event carries.
func (r *reader) usage(u *apiUsage) {
	if u == nil {
		return
	}
	cur := r.b.Msg.Usage
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cur.Input, u.InputTokens)
	set(&cur.Output, u.OutputTokens)
	set(&cur.CacheRead, u.CacheReadInputTokens)
	set(&cur.CacheWrite, u.CacheCreationInputTokens)
	r.b.SetUsage(cur)
}

func (r *reader) stop(reason string) {
	r.stopped = true
	msg := r.b.Msg
	switch reason {
	case "end_turn", "pause_turn", "stop_sequence":
		msg.StopReason = provider.StopStop
	case "max_tokens", "model_context_window_exceeded":
		msg.StopReason = provider.StopLength
	case "tool_use":
		msg.StopReason = provider.StopToolUse
	default:
		msg.StopReason = provider.StopError
		msg.ErrorMessage = fmt.Sprintf("%s: the response stopped with stop_reason %q", r.m.Provider, reason)
	}
}

// streamError turns an error event into an error; overload and rate limits
// are worth a retry while nothing arrived yet.
func (r *reader) streamError(e *event) error {
	kind, msg := "error", ""
	if e.Error != nil {
		kind, msg = e.Error.Type, e.Error.Message
	}
	err := fmt.Errorf("%s: %s: %s", r.m.Provider, kind, msg)
	switch kind {
	case "overloaded_error", "rate_limit_error", "api_error":
		return &provider.RetryableError{Err: err}
	}
	return err
}
