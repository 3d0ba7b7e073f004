package openai

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	Tools               []chatTool     `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	Store               *bool          `json:"store,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	Reasoning           *reasoning     `json:"reasoning,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type reasoning struct {
	Effort string `json:"effort"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// Thinking sent back to the model that produced it, on the field it came in.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	Reasoning        string `json:"reasoning,omitempty"`
	ReasoningText    string `json:"reasoning_text,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// maxDefaultTokens caps the output limit sent when the request sets none.
const maxDefaultTokens = 32000

// buildRequest makes the Chat Completions body for req.
func buildRequest(m provider.Model, req provider.Request) chatRequest {
	body := chatRequest{
		Model:         m.ID,
		Messages:      messages(m, req),
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		body.Tools = append(body.Tools, chatTool{Type: "function",
			Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if isOpenAI(m.BaseURL) {
		f := false
		body.Store = &f
	}
	limit := req.MaxTokens
	if limit <= 0 && m.MaxTokens > 0 {
		limit = min(m.MaxTokens, maxDefaultTokens)
	}
	if m.MaxTokensField == "max_tokens" {
		body.MaxTokens = limit
	} else {
		body.MaxCompletionTokens = limit
	}
	if effort := provider.Effort(provider.ClampThinking(m, req.Thinking)); effort != "" {
		switch m.ThinkingFormat {
		case "", "openai":
			body.ReasoningEffort = effort
		case "openrouter":
			body.Reasoning = &reasoning{Effort: effort}
		}
	}
	return body
}

func isOpenAI(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == "api.openai.com"
}

// messages converts the context: system first, then user, assistant and
// tool messages; images of tool results follow them in a user message, as
// tool messages carry text only.
func messages(m provider.Model, req provider.Request) []chatMessage {
	var out []chatMessage
	if req.System != "" {
		out = append(out, chatMessage{Role: "system", Content: req.System})
	}
	var pendingImages []contentPart
	flushImages := func() {
		if len(pendingImages) > 0 {
			parts := append([]contentPart{{Type: "text", Text: "Attached images from the tool results above:"}}, pendingImages...)
			out = append(out, chatMessage{Role: "user", Content: parts})
			pendingImages = nil
		}
	}
	for _, msg := range req.Messages {
		if msg.Role != "toolResult" {
			flushImages()
		}
		switch msg.Role {
		case "user":
			if c := userContent(msg.Content); c != nil {
				out = append(out, chatMessage{Role: "user", Content: c})
			}
		case "assistant":
			if a, ok := assistantMessage(m, msg); ok {
				out = append(out, a)
			}
		case "toolResult":
			var texts []string
			for _, b := range msg.Content {
				switch b.Type {
				case provider.BlockText:
					texts = append(texts, b.Text)
				case provider.BlockImage:
					pendingImages = append(pendingImages, imagePart(b))
				}
			}
			text := strings.Join(texts, "\n")
			if text == "" {
				text = "(no output)"
				if len(pendingImages) > 0 {
					text = "(see the attached image)"
				}
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: msg.ToolCallID, Content: text})
		}
	}
	flushImages()
	return out
}

func imagePart(b provider.Block) contentPart {
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + b.MimeType + ";base64," + b.Data}}
}

// userContent is a plain string for a single text block, else content parts.
func userContent(blocks []provider.Block) any {
	var parts []contentPart
	for _, b := range blocks {
		switch {
		case b.Type == provider.BlockText && b.Text != "":
			parts = append(parts, contentPart{Type: "text", Text: b.Text})
		case b.Type == provider.BlockImage:
			parts = append(parts, imagePart(b))
		}
	}
	switch {
	case len(parts) == 0:
		return nil
	case len(parts) == 1 && parts[0].Type == "text":
		return parts[0].Text
	}
	return parts
}

// reasoningFields are the delta fields thinking arrives in; a thinking
// block's signature names its field.
var reasoningFields = []string{"reasoning_content", "reasoning", "reasoning_text"}

func assistantMessage(m provider.Model, msg provider.Message) (chatMessage, bool) {
	out := chatMessage{Role: "assistant"}
	sameModel := msg.Assistant != nil && msg.Assistant.Provider == m.Provider && msg.Assistant.Model == m.ID
	var texts []string
	for _, b := range msg.Content {
		switch b.Type {
		case provider.BlockText:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case provider.BlockThinking:
			// Thinking goes back only to the model that wrote it, on its field.
			if !sameModel || b.Thinking == "" {
				continue
			}
			switch b.ThinkingSignature {
			case "reasoning_content":
				out.ReasoningContent += b.Thinking
			case "reasoning":
				out.Reasoning += b.Thinking
			case "reasoning_text":
				out.ReasoningText += b.Thinking
			}
		case provider.BlockToolCall:
			args := "{}"
			if len(b.Arguments) > 0 {
				args = string(b.Arguments)
			}
			out.ToolCalls = append(out.ToolCalls, chatToolCall{ID: b.ID, Type: "function",
				Function: functionCall{Name: b.Name, Arguments: args}})
		}
	}
	if len(texts) > 0 {
		out.Content = strings.Join(texts, "\n")
	}
	if out.Content == nil && len(out.ToolCalls) == 0 {
		return chatMessage{}, false
	}
	return out, true
}
