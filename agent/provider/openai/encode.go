package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// encodeRequest is json.Marshal(r) without reflection over the messages:
// a long session's context is tens of megabytes of message text, which
// encoding/json escapes several times slower than the codec's string
// encoder. Messages with plain string content are written directly; the
// others, and everything around them, go through encoding/json.
func encodeRequest(r chatRequest) ([]byte, error) {
	msgs := r.Messages
	r.Messages = nil
	head, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	const hole = `"messages":null`
	i := bytes.Index(head, []byte(hole))
	if i < 0 {
		return nil, fmt.Errorf("encode request: no messages member in %s", head)
	}
	size := len(head) + 2
	for _, m := range msgs {
		if s, ok := m.Content.(string); ok {
			size += len(s) + 64
		} else {
			size += 256
		}
	}
	b := make([]byte, 0, size)
	b = append(b, head[:i]...)
	b = append(b, `"messages":[`...)
	for k, m := range msgs {
		if k > 0 {
			b = append(b, ',')
		}
		if b, err = appendMessage(b, m); err != nil {
			return nil, err
		}
	}
	b = append(b, ']')
	return append(b, head[i+len(hole):]...), nil
}

// appendMessage writes one message as encoding/json would (field order and
// omitempty as chatMessage's tags say).
func appendMessage(b []byte, m chatMessage) ([]byte, error) {
	s, ok := m.Content.(string)
	if !ok || len(m.ToolCalls) > 0 {
		enc, err := json.Marshal(m)
		if err != nil {
			return b, err
		}
		return append(b, enc...), nil
	}
	b = append(b, `{"role":`...)
	b = jsjson.AppendString(b, m.Role)
	b = append(b, `,"content":`...)
	b = jsjson.AppendString(b, s)
	for _, f := range []struct{ k, v string }{
		{"tool_call_id", m.ToolCallID},
		{"reasoning_content", m.ReasoningContent},
		{"reasoning", m.Reasoning},
		{"reasoning_text", m.ReasoningText},
	} {
		if f.v != "" {
			b = append(b, ',')
			b = jsjson.AppendString(b, f.k)
			b = append(b, ':')
			b = jsjson.AppendString(b, f.v)
		}
	}
	return append(b, '}'), nil
}
