// Package openai streams responses from OpenAI-compatible Chat Completions
// endpoints (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp, LM Studio, ...).
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

func init() {
	provider.Register(provider.APIOpenAICompletions, func(m provider.Model, o provider.Options) (provider.Provider, error) {
		return New(m, o), nil
	})
}

// Provider streams Chat Completions responses.
type Provider struct {
	model provider.Model
	opts  provider.Options
}

var _ provider.Provider = (*Provider)(nil)

// New returns a provider for model m (used when a request names no model).
func New(m provider.Model, o provider.Options) *Provider {
	return &Provider{model: m, opts: o}
}

// Stream sends req and assembles the streamed response.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.AssistantMessage, error) {
	m := provider.ModelFor(req, p.model)
	m.API = provider.APIOpenAICompletions
	b := provider.NewBuilder(m, p.opts.Clock(), on)
	if err := provider.CheckKey(m, req.APIKey); err != nil {
		return b.Fail(ctx, err)
	}
	body, err := encodeRequest(buildRequest(m, req))
	if err != nil {
		return b.Fail(ctx, fmt.Errorf("%s: encode request: %w", m.Provider, err))
	}
	header := http.Header{}
	if req.APIKey != "" {
		header.Set("Authorization", "Bearer "+req.APIKey)
	}
	if m.Provider == "openrouter" {
		header.Set("X-Title", "xcsh")
	}
	url := strings.TrimRight(m.BaseURL, "/") + "/chat/completions"
	err = provider.Retry(ctx, p.opts, b, func(ctx context.Context) error {
		resp, err := provider.Post(ctx, p.opts, m, url, header, body)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if err := checkEventStream(m, resp); err != nil {
			return err
		}
		b.Start()
		return (&reader{m: m, b: b}).read(resp.Body)
	})
	if err != nil {
		return b.Fail(ctx, err)
	}
	return b.Done()
}

// checkEventStream rejects a 2xx answer that is not an event stream (a
// server ignoring stream:true, or a JSON error with a 200 status).
func checkEventStream(m provider.Model, resp *http.Response) error {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "application/json" {
		return nil
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return fmt.Errorf("%s: expected an event stream, got JSON: %s", m.Provider, provider.ErrorMessage(raw))
}

type chunk struct {
	ID      string          `json:"id"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	Usage        *usage  `json:"usage"`
}

type delta struct {
	Content          *string         `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ReasoningText    json.RawMessage `json:"reasoning_text"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	CachedTokens        int `json:"cached_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// reader turns chunks into the message.
type reader struct {
	m        provider.Model
	b        *provider.Builder
	done     bool // [DONE] seen
	finished bool // a finish_reason seen
}

var errDone = errors.New("done")

func (r *reader) read(body io.Reader) error {
	err := provider.ReadSSE(body, func(ev provider.SSEEvent) error {
		data := strings.TrimSpace(ev.Data)
		if data == "[DONE]" {
			r.done = true
			return errDone
		}
		if data == "" {
			return nil
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return fmt.Errorf("%s: malformed stream: invalid JSON in a chunk (%v): %s", r.m.Provider, err, snippet(data))
		}
		return r.chunk(&c)
	})
	switch {
	case errors.Is(err, errDone):
		return nil
	case errors.Is(err, provider.ErrStreamCut):
		return fmt.Errorf("%s: %w", r.m.Provider, err)
	case err != nil:
		return err
	case !r.finished:
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

func (r *reader) chunk(c *chunk) error {
	b := r.b
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return r.streamError(c.Error)
	}
	if b.Msg.ResponseID == "" && c.ID != "" {
		b.Msg.ResponseID = c.ID
	}
	if c.Usage != nil {
		r.usage(c.Usage)
	}
	for _, ch := range c.Choices {
		if ch.Usage != nil {
			r.usage(ch.Usage)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			r.finish(*ch.FinishReason)
		}
		d := ch.Delta
		if d.Content != nil && *d.Content != "" {
			i := b.Last()
			if blk := b.Block(i); blk == nil || blk.Type != provider.BlockText {
				b.End(i)
				i = b.Add(provider.Block{Type: provider.BlockText})
			}
			b.Text(i, *d.Content)
		}
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"reasoning_content", d.ReasoningContent}, {"reasoning", d.Reasoning}, {"reasoning_text", d.ReasoningText}} {
			var text string
			if json.Unmarshal(f.raw, &text) != nil || text == "" {
				continue
			}
			i := b.Last()
			if blk := b.Block(i); blk == nil || blk.Type != provider.BlockThinking || blk.ThinkingSignature != f.name {
				b.End(i)
				i = b.Add(provider.Block{Type: provider.BlockThinking, ThinkingSignature: f.name})
			}
			b.Thinking(i, text)
			break
		}
		for _, tc := range d.ToolCalls {
			i := b.Last()
			blk := b.Block(i)
			if blk == nil || blk.Type != provider.BlockToolCall || (tc.ID != "" && tc.ID != blk.ID) {
				b.End(i)
				i = b.Add(provider.Block{Type: provider.BlockToolCall, Arguments: json.RawMessage("{}")})
				blk = b.Block(i)
			}
			if tc.ID != "" {
				blk.ID = tc.ID
			}
			if tc.Function.Name != "" {
				blk.Name = tc.Function.Name
			}
			b.Touch()
			b.ToolArgs(i, tc.Function.Arguments)
		}
	}
	return nil
}

// usage replaces the usage: cached prompt tokens are cache reads, reasoning
// tokens count as output.
func (r *reader) usage(u *usage) {
	cached := u.CachedTokens
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		cached = u.PromptTokensDetails.CachedTokens
	}
	out := u.CompletionTokens
	if u.CompletionTokensDetails != nil {
		out += u.CompletionTokensDetails.ReasoningTokens
	}
	r.b.SetUsage(provider.Usage{Input: max(u.PromptTokens-cached, 0), Output: out, CacheRead: cached})
}

func (r *reader) finish(reason string) {
	r.finished = true
	msg := r.b.Msg
	switch reason {
	case "stop", "end":
		msg.StopReason = provider.StopStop
	case "length":
		msg.StopReason = provider.StopLength
	case "tool_calls", "function_call":
		msg.StopReason = provider.StopToolUse
	default:
		msg.StopReason = provider.StopError
		msg.ErrorMessage = fmt.Sprintf("%s: the response stopped with finish_reason %q", r.m.Provider, reason)
	}
}

// streamError turns an error object sent inside the stream into an error;
// rate limits and server errors are worth a retry when nothing arrived yet.
func (r *reader) streamError(raw json.RawMessage) error {
	var e struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	msg := provider.ErrorMessage([]byte(`{"error":` + string(raw) + `}`))
	_ = json.Unmarshal(raw, &e)
	err := fmt.Errorf("%s: error in stream: %s", r.m.Provider, msg)
	code := strings.Trim(string(e.Code), `"`)
	kind := strings.ToLower(e.Type + " " + code)
	if code == "429" || strings.HasPrefix(code, "5") || strings.Contains(kind, "rate") ||
		strings.Contains(kind, "overload") || strings.Contains(kind, "server") {
		return &provider.RetryableError{Err: err}
	}
	return err
}
