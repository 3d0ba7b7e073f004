package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

type messagesRequest struct {
	Model     string      `json:"model"`
	MaxTokens int         `json:"max_tokens"`
	System    []block     `json:"system,omitempty"`
	Messages  []message   `json:"messages"`
	Tools     []tool      `json:"tools,omitempty"`
	Thinking  *thinkingOn `json:"thinking,omitempty"`
	Stream    bool        `json:"stream"`
}

type thinkingOn struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is any request content block; unused fields stay empty.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

const (
	// maxDefaultTokens caps the output limit when the request sets none.
	maxDefaultTokens = 32000
	// thinkingHeadroom is the output room kept beside a thinking budget.
	thinkingHeadroom = 4000
	// minBudget is the smallest budget the API accepts.
	minBudget = 1024
)

// buildRequest makes the Messages body for req; it reports whether
// thinking is on.
func buildRequest(m provider.Model, req provider.Request) (messagesRequest, bool) {
	limit := req.MaxTokens
	if limit <= 0 {
		limit = min(m.MaxTokens, maxDefaultTokens)
		if limit <= 0 {
			limit = 8192
		}
	}
	body := messagesRequest{Model: m.ID, MaxTokens: limit, Messages: messages(m, req.Messages), Stream: true}
	if req.System != "" {
		body.System = []block{{Type: "text", Text: req.System}}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		body.Tools = append(body.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	thinking := false
	if budget := provider.ThinkingBudget(provider.Effort(provider.ClampThinking(m, req.Thinking))); budget > 0 {
		// Room to answer beside the budget, within the model's limit.
		body.MaxTokens = max(body.MaxTokens, budget+thinkingHeadroom)
		if m.MaxTokens > 0 {
			body.MaxTokens = min(body.MaxTokens, m.MaxTokens)
		}
		budget = min(budget, body.MaxTokens-minBudget)
		if budget >= minBudget && !unthoughtToolTurn(body.Messages) {
			body.Thinking = &thinkingOn{Type: "enabled", BudgetTokens: budget}
			thinking = true
		}
	}
	markCache(&body)
	return body, thinking
}

// unthoughtToolTurn reports a tool loop whose response does not start with
// thinking (it was made with thinking off, or by another model): the API
// refuses thinking for the rest of such a turn.
func unthoughtToolTurn(msgs []message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch {
		case msgs[i].Role == "assistant":
			c := msgs[i].Content
			return len(c) > 0 && c[0].Type != "thinking" && c[0].Type != "redacted_thinking"
		case !isToolResults(msgs[i].Content):
			return false
		}
	}
	return false
}

// markCache asks the API to cache the prompt up to the system prompt and up
// to the last message, so the next turn reads it from the cache.
func markCache(body *messagesRequest) {
	eph := &cacheControl{Type: "ephemeral"}
	if n := len(body.System); n > 0 {
		body.System[n-1].CacheControl = eph
	}
	if n := len(body.Messages); n > 0 {
		last := &body.Messages[n-1]
		if k := len(last.Content); k > 0 && last.Role == "user" {
			last.Content[k-1].CacheControl = eph
		}
	}
}

// messages converts the context. Consecutive tool results travel together
// in one user message of tool_result blocks.
func messages(m provider.Model, msgs []provider.Message) []message {
	var out []message
	for _, msg := range msgs {
		switch msg.Role {
		case "user":
			if c := userBlocks(msg.Content); len(c) > 0 {
				out = append(out, message{Role: "user", Content: c})
			}
		case "assistant":
			if c := assistantBlocks(m, msg); len(c) > 0 {
				out = append(out, message{Role: "assistant", Content: c})
			}
		case "toolResult":
			res := block{Type: "tool_result", ToolUseID: toolID(msg.ToolCallID), Content: userBlocks(msg.Content), IsError: msg.IsError}
			if n := len(out); n > 0 && out[n-1].Role == "user" && isToolResults(out[n-1].Content) {
				out[n-1].Content = append(out[n-1].Content, res)
			} else {
				out = append(out, message{Role: "user", Content: []block{res}})
			}
		}
	}
	return out
}

func isToolResults(bs []block) bool {
	for _, b := range bs {
		if b.Type != "tool_result" {
			return false
		}
	}
	return len(bs) > 0
}

func userBlocks(bs []provider.Block) []block {
	var out []block
	for _, b := range bs {
		switch {
		case b.Type == provider.BlockText && b.Text != "":
			out = append(out, block{Type: "text", Text: b.Text})
		case b.Type == provider.BlockImage && b.Data != "":
			out = append(out, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
		}
	}
	return out
}

// assistantBlocks replays a response. Signed thinking goes back as it came
// only to the Anthropic API; unsigned or foreign thinking is sent as text so
// its content is not lost, and redacted thinking only to Anthropic.
func assistantBlocks(m provider.Model, msg provider.Message) []block {
	native := msg.Assistant != nil && msg.Assistant.API == provider.APIAnthropicMessages
	var out []block
	for _, b := range msg.Content {
		switch b.Type {
		case provider.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				out = append(out, block{Type: "text", Text: b.Text})
			}
		case provider.BlockThinking:
			switch {
			case native && b.ThinkingSignature != "" && b.Thinking != "":
				out = append(out, block{Type: "thinking", Thinking: b.Thinking, Signature: b.ThinkingSignature})
			case strings.TrimSpace(b.Thinking) != "":
				out = append(out, block{Type: "text", Text: b.Thinking})
			}
		case provider.BlockRedactedThinking:
			if native && b.Data != "" {
				out = append(out, block{Type: "redacted_thinking", Data: b.Data})
			}
		case provider.BlockToolCall:
			input := b.Arguments
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			out = append(out, block{Type: "tool_use", ID: toolID(b.ID), Name: b.Name, Input: input})
		}
	}
	return out
}

// toolID makes a tool call id acceptable to the API (letters, digits, _ and
// -, at most 64), the same way for a call and its result.
func toolID(id string) string {
	if id == "" {
		return "toolu_none"
	}
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}
