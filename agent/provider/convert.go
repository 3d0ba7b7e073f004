package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// Summary templates: how branch and compaction summaries reach the model.
const (
	compactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSuffix = "\n</summary>"
	branchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSuffix     = "\n</summary>"
)

// InterruptedToolResult is the text of the result supplied for a tool call
// that has none in the context (an interrupted or damaged session).
const InterruptedToolResult = "No result: the tool call was interrupted before it finished."

// rawMessage holds every field Convert reads from any role.
type rawMessage struct {
	Role               string          `json:"role"`
	Content            json.RawMessage `json:"content"`
	ToolCallID         string          `json:"toolCallId"`
	ToolName           string          `json:"toolName"`
	IsError            bool            `json:"isError"`
	PrunedAt           json.RawMessage `json:"prunedAt"`
	Summary            string          `json:"summary"`
	Command            string          `json:"command"`
	Code               string          `json:"code"`
	Output             string          `json:"output"`
	ExitCode           *float64        `json:"exitCode"`
	Cancelled          bool            `json:"cancelled"`
	Truncated          bool            `json:"truncated"`
	FullOutputPath     string          `json:"fullOutputPath"`
	Meta               *outputMeta     `json:"meta"`
	ExcludeFromContext bool            `json:"excludeFromContext"`
	Files              []mentionedFile `json:"files"`
}

type outputMeta struct {
	Truncation *struct {
		Direction   string `json:"direction"`
		TruncatedBy string `json:"truncatedBy"`
		TotalLines  int    `json:"totalLines"`
		OutputLines int    `json:"outputLines"`
		MaxBytes    int    `json:"maxBytes"`
		ShownRange  *struct {
			Start int `json:"start"`
			End   int `json:"end"`
		} `json:"shownRange"`
		ArtifactID string `json:"artifactId"`
		NextOffset int    `json:"nextOffset"`
	} `json:"truncation"`
}

type mentionedFile struct {
	Path          string `json:"path"`
	Content       string `json:"content"`
	ByteSize      int64  `json:"byteSize"`
	SkippedReason string `json:"skippedReason"`
	Image         *Block `json:"image"`
}

// Convert turns session context messages (the raw JSON of every role a
// session holds) into provider messages of roles user, assistant and
// toolResult. user and developer stay user messages; custom and hookMessage
// become user messages with their content; branch and compaction summaries,
// shell and Python executions and file mentions become user messages whose
// text describes them; executions marked excludeFromContext and unknown or
// unreadable messages are skipped. Finally every assistant tool call is given
// its result right after it (a result found later is moved up, a missing one
// is supplied as an error) and results that answer no call are dropped, as
// both APIs reject such histories.
func Convert(raw []json.RawMessage) []Message {
	return (&Converter{}).Convert(raw)
}

// Converter is Convert with a memory: a message converted once (the same
// bytes at the same address, as session entries never change) is not
// decoded again, so each turn of a long session converts only what is new.
// Large first conversions are spread over the cores. The zero value is ready.
type Converter struct {
	mu    sync.Mutex
	cache map[convKey]convVal
}

type convKey struct {
	p *byte
	n int
}

type convVal struct {
	m  Message
	ok bool
}

// Convert is the package-level Convert through the cache.
func (c *Converter) Convert(raw []json.RawMessage) []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cache == nil {
		c.cache = map[convKey]convVal{}
	}
	vals := make([]convVal, len(raw))
	var todo []int
	for i, r := range raw {
		if len(r) == 0 {
			continue
		}
		if v, ok := c.cache[convKey{&r[0], len(r)}]; ok {
			vals[i] = v
		} else {
			todo = append(todo, i)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(todo) < 256 || workers < 2 {
		workers = 1
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := w; j < len(todo); j += workers {
				i := todo[j]
				m, ok := convertOne(raw[i])
				vals[i] = convVal{m, ok}
			}
		}(w)
	}
	wg.Wait()
	out := make([]Message, 0, len(raw))
	for _, i := range todo {
		c.cache[convKey{&raw[i][0], len(raw[i])}] = vals[i]
	}
	for _, v := range vals {
		if v.ok {
			out = append(out, v.m)
		}
	}
	return pairToolResults(out)
}

func convertOne(r json.RawMessage) (Message, bool) {
	if bytes.HasPrefix(r, userStringPrefix) {
		// a prompt with string content, the commonest message: only the
		// content matters, decoded in one pass
		start := len(userStringPrefix) - 1
		if end := stringEnd(r, start); end > 0 {
			blocks := contentBlocks(r[start:end])
			if len(blocks) == 0 {
				return Message{}, false
			}
			return Message{Role: "user", Content: blocks}, true
		}
	}
	var m rawMessage
	if bytes.HasPrefix(r, assistantPrefix) {
		// the role is known (session messages are canonical JSON, role
		// first): decode the message once, as an assistant message
		m.Role = "assistant"
	} else if err := json.Unmarshal(r, &m); err != nil {
		return Message{}, false
	}
	user := func(text string) (Message, bool) {
		return Message{Role: "user", Content: []Block{{Type: BlockText, Text: text}}}, true
	}
	switch m.Role {
	case "user", "developer", "custom", "hookMessage":
		blocks := contentBlocks(m.Content)
		if len(blocks) == 0 {
			return Message{}, false
		}
		return Message{Role: "user", Content: blocks}, true
	case "assistant":
		var a AssistantMessage
		if err := json.Unmarshal(r, &a); err != nil {
			return Message{}, false
		}
		content := a.Content
		if a.StopReason == StopError || a.StopReason == StopAborted {
			// A cut-short response: its signatures cannot be replayed.
			content = nil
			for _, b := range a.Content {
				switch b.Type {
				case BlockRedactedThinking:
					continue
				case BlockThinking:
					b.ThinkingSignature = ""
				case BlockText:
					b.TextSignature = ""
				case BlockToolCall:
					b.ThoughtSignature = ""
				}
				content = append(content, b)
			}
		}
		if len(content) == 0 {
			return Message{}, false
		}
		return Message{Role: "assistant", Content: content, Assistant: &a}, true
	case "toolResult":
		blocks := contentBlocks(m.Content)
		if len(m.PrunedAt) > 0 && string(m.PrunedAt) != "null" {
			text := joinText(blocks)
			if text == "" {
				text = "[output pruned]"
			}
			blocks = []Block{{Type: BlockText, Text: text}}
		}
		return Message{Role: "toolResult", Content: blocks, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError}, true
	case "branchSummary":
		return user(branchPrefix + m.Summary + branchSuffix)
	case "compactionSummary":
		return user(compactionPrefix + m.Summary + compactionSuffix)
	case "bashExecution":
		if m.ExcludeFromContext {
			return Message{}, false
		}
		return user(bashText(m))
	case "pythonExecution":
		if m.ExcludeFromContext {
			return Message{}, false
		}
		return user(pythonText(m))
	case "fileMention":
		return fileMention(m.Files)
	}
	return Message{}, false
}

// contentBlocks reads user-like content: a string (one text block) or an
// array of text and image blocks; empty text blocks are dropped.
// userStringPrefix starts a user message whose content is a string.
var userStringPrefix = []byte(`{"role":"user","content":"`)

// stringEnd returns the index after the JSON string token that starts at
// b[i] == '"', or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// assistantPrefix starts every assistant message a session holds.
var assistantPrefix = []byte(`{"role":"assistant",`)

func contentBlocks(raw json.RawMessage) []Block {
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		// a string content: one pass of the codec's decoder
		var err error
		if s, err = jsjson.DecodeString(raw); err != nil {
			return nil
		}
		if s == "" {
			return nil
		}
		return []Block{{Type: BlockText, Text: strings.ToValidUTF8(s, "\uFFFD")}}
	}
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		return []Block{{Type: BlockText, Text: s}}
	}
	var blocks []Block
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	out := blocks[:0]
	for _, b := range blocks {
		switch {
		case b.Type == BlockText && b.Text != "":
			out = append(out, Block{Type: BlockText, Text: b.Text})
		case b.Type == BlockImage && b.Data != "":
			out = append(out, Block{Type: BlockImage, Data: b.Data, MimeType: b.MimeType})
		}
	}
	return out
}

func joinText(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func exitCode(f *float64) (int, bool) {
	if f == nil || *f == 0 {
		return 0, false
	}
	return int(*f), true
}

func bashText(m rawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ran `%s`\n", m.Command)
	if m.Output != "" {
		b.WriteString("```\n" + m.Output + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if c, ok := exitCode(m.ExitCode); ok {
		fmt.Fprintf(&b, "\n\nCommand exited with code %d", c)
	}
	b.WriteString(outputNotice(m))
	return b.String()
}

func pythonText(m rawMessage) string {
	var b strings.Builder
	b.WriteString("Ran Python:\n```python\n" + m.Code + "\n```\n")
	if m.Output != "" {
		b.WriteString("Output:\n```\n" + m.Output + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(execution cancelled)")
	} else if c, ok := exitCode(m.ExitCode); ok {
		fmt.Fprintf(&b, "\n\nExecution failed with code %d", c)
	}
	b.WriteString(outputNotice(m))
	return b.String()
}

// outputNotice says how an execution's output was cut, when it was.
func outputNotice(m rawMessage) string {
	if m.Meta == nil || m.Meta.Truncation == nil {
		if m.Truncated && m.FullOutputPath != "" {
			return "\n\n[Output truncated. Full output: " + m.FullOutputPath + "]"
		}
		return ""
	}
	t := m.Meta.Truncation
	start, end := 1, t.OutputLines
	if t.Direction == "tail" {
		start, end = t.TotalLines-t.OutputLines+1, t.TotalLines
	}
	if t.ShownRange != nil {
		start, end = t.ShownRange.Start, t.ShownRange.End
	}
	part := fmt.Sprintf("Showing lines %d-%d of %d", start, end, t.TotalLines)
	if t.TruncatedBy == "bytes" && t.MaxBytes > 0 {
		part += " (" + formatSize(t.MaxBytes) + " limit)"
	}
	parts := []string{part}
	if t.NextOffset > 0 {
		parts = append(parts, "Use offset="+strconv.Itoa(t.NextOffset)+" to continue")
	}
	if t.ArtifactID != "" {
		parts = append(parts, "Read artifact://"+t.ArtifactID+" for full output")
	}
	return "\n\n[" + strings.Join(parts, ". ") + "]"
}

func formatSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + "B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + "KB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + "MB"
}

func fileMention(files []mentionedFile) (Message, bool) {
	if len(files) == 0 {
		return Message{}, false
	}
	parts := make([]string, 0, len(files))
	var images []Block
	for _, f := range files {
		inner := "\n"
		switch {
		case f.SkippedReason != "":
			inner = fmt.Sprintf("\n(skipped: %s, %d bytes)\n", f.SkippedReason, f.ByteSize)
		case f.Content != "":
			inner = "\n" + f.Content + "\n"
		}
		parts = append(parts, `<file path="`+f.Path+`">`+inner+"</file>")
		if f.Image != nil && f.Image.Data != "" {
			images = append(images, Block{Type: BlockImage, Data: f.Image.Data, MimeType: f.Image.MimeType})
		}
	}
	content := []Block{{Type: BlockText, Text: "<system-reminder>\n" + strings.Join(parts, "\n\n") + "\n</system-reminder>"}}
	return Message{Role: "user", Content: append(content, images...)}, true
}

// pairToolResults puts each assistant message's tool results right after it,
// in call order, supplying missing ones and dropping results of no call.
func pairToolResults(msgs []Message) []Message {
	used := make([]bool, len(msgs))
	var out []Message
	for i, m := range msgs {
		if used[i] {
			continue
		}
		if m.Role == "toolResult" {
			// A result not claimed by an earlier call answers nothing.
			continue
		}
		out = append(out, m)
		if m.Role != "assistant" {
			continue
		}
		for _, call := range m.Content {
			if call.Type != BlockToolCall {
				continue
			}
			// Results are searched up to the next response: a later
			// response means this turn is over.
			found := -1
			for j := i + 1; j < len(msgs) && msgs[j].Role != "assistant"; j++ {
				if !used[j] && msgs[j].Role == "toolResult" && msgs[j].ToolCallID == call.ID {
					found = j
					break
				}
			}
			if found >= 0 {
				used[found] = true
				out = append(out, msgs[found])
				continue
			}
			out = append(out, Message{Role: "toolResult", ToolCallID: call.ID, ToolName: call.Name, IsError: true,
				Content: []Block{{Type: BlockText, Text: InterruptedToolResult}}})
		}
	}
	return out
}
