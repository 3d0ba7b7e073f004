package session

import (
	"strings"
)

// MessageSummary returns a message's role and its plain text: a string
// content, or its text blocks joined by newlines; thinking, tool calls and
// images are named in brackets.
func MessageSummary(msg []byte) (role, text string) {
	role = rawString(member(msg, "role"))
	return role, MessageText(msg)
}

// MessageText returns the readable text of a message (see MessageSummary).
func MessageText(msg []byte) string {
	switch role := rawString(member(msg, "role")); role {
	case "compactionSummary", "branchSummary":
		return rawString(member(msg, "summary"))
	}
	content := member(msg, "content")
	if len(content) > 0 && content[0] == '"' {
		return rawString(content)
	}
	var parts []string
	elements(content, func(v []byte) {
		switch rawString(member(v, "type")) {
		case "text":
			parts = append(parts, rawString(member(v, "text")))
		case "thinking":
			parts = append(parts, "[thinking] "+rawString(member(v, "thinking")))
		case "toolCall":
			parts = append(parts, "[tool call "+rawString(member(v, "name"))+"] "+string(member(v, "arguments")))
		case "image":
			parts = append(parts, "[image]")
		}
	})
	return strings.Join(parts, "\n")
}

// EstimateTokens gives a rough token count for messages: a quarter of their
// text length, the usual heuristic for English text and code.
func EstimateTokens(msgs [][]byte) int {
	n := 0
	for _, m := range msgs {
		n += len(MessageText(m))
	}
	return (n + 3) / 4
}
