package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestEncodeRequestMatchesEncodingJSON: the fast encoder says what
// json.Marshal says, for every kind of message.
func TestEncodeRequestMatchesEncodingJSON(t *testing.T) {
	r := chatRequest{
		Model:  "gpt-x",
		Stream: true, StreamOptions: &streamOptions{IncludeUsage: true}, MaxCompletionTokens: 100, ReasoningEffort: "low",
		Messages: []chatMessage{
			{Role: "system", Content: "be <brief> & kind\u2028 \"quoted\" \x01"},
			{Role: "user", Content: []contentPart{{Type: "text", Text: "look"}, {Type: "image_url", ImageURL: &imageURL{URL: "data:image/png;base64,AA"}}}},
			{Role: "assistant", Content: "calling", ReasoningContent: "thinking…", ToolCalls: []chatToolCall{{ID: "c1", Type: "function", Function: functionCall{Name: "bash", Arguments: `{"command":"ls"}`}}}},
			{Role: "tool", Content: "a.txt\nb.txt", ToolCallID: "c1"},
			{Role: "assistant", Content: nil},
			{Role: "user", Content: "emoji 😀 and tab\t"},
		},
		Tools: []chatTool{{Type: "function", Function: toolFunction{Name: "bash", Parameters: json.RawMessage(`{"type":"object"}`)}}},
	}
	fast, err := encodeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(fast, &a); err != nil {
		t.Fatalf("fast encoding is not JSON: %v\n%s", err, fast)
	}
	if err := json.Unmarshal(slow, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("encodings differ:\n%s\n%s", fast, slow)
	}
}
