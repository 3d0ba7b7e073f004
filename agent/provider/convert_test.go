package provider

import (
	"encoding/json"
	"strings"
	"testing"
)

func raws(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

// render prints messages compactly: role, then each block as type:text.
func render(msgs []Message) string {
	var lines []string
	for _, m := range msgs {
		parts := []string{m.Role}
		if m.Role == "toolResult" {
			parts = append(parts, "id="+m.ToolCallID, "name="+m.ToolName)
			if m.IsError {
				parts = append(parts, "error")
			}
		}
		for _, b := range m.Content {
			switch b.Type {
			case BlockText:
				parts = append(parts, "text:"+b.Text)
			case BlockThinking:
				parts = append(parts, "thinking:"+b.Thinking+"|sig="+b.ThinkingSignature)
			case BlockImage:
				parts = append(parts, "image:"+b.MimeType)
			case BlockToolCall:
				parts = append(parts, "call:"+b.ID+":"+b.Name+string(b.Arguments))
			default:
				parts = append(parts, b.Type)
			}
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	return strings.Join(lines, "\n")
}

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"user string", []string{`{"role":"user","content":"run ls","timestamp":1}`}, "user text:run ls"},
		{"user blocks with image", []string{`{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","data":"AAA","mimeType":"image/png"}],"attribution":"user","timestamp":1}`},
			"user text:see image:image/png"},
		{"user empty skipped", []string{`{"role":"user","content":[],"timestamp":1}`}, ""},
		{"developer is user", []string{`{"role":"developer","content":[{"type":"text","text":"be brief"}],"attribution":"agent","timestamp":1}`}, "user text:be brief"},
		{"custom string content", []string{`{"role":"custom","customType":"handoff","content":"carry on","display":true,"timestamp":1}`}, "user text:carry on"},
		{"hookMessage like custom", []string{`{"role":"hookMessage","customType":"x","content":[{"type":"text","text":"hi"}],"display":false,"timestamp":1}`}, "user text:hi"},
		{"branch summary", []string{`{"role":"branchSummary","summary":"tried X","fromId":"a1","timestamp":1}`},
			"user text:The following is a summary of a branch that this conversation came back from:\n\n<summary>\ntried X\n</summary>"},
		{"compaction summary", []string{`{"role":"compactionSummary","summary":"did Y","tokensBefore":1000,"timestamp":1}`},
			"user text:The conversation history before this point was compacted into the following summary:\n\n<summary>\ndid Y\n</summary>"},
		{"bash ok", []string{`{"role":"bashExecution","command":"git status","output":"clean\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}`},
			"user text:Ran `git status`\n```\nclean\n\n```"},
		{"bash failed no output", []string{`{"role":"bashExecution","command":"false","output":"","exitCode":1,"cancelled":false,"truncated":false,"timestamp":1}`},
			"user text:Ran `false`\n(no output)\n\nCommand exited with code 1"},
		{"bash cancelled", []string{`{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false,"timestamp":1}`},
			"user text:Ran `sleep 9`\n(no output)\n\n(command cancelled)"},
		{"bash truncated meta", []string{`{"role":"bashExecution","command":"seq 9","output":"8\n9","exitCode":0,"cancelled":false,"truncated":true,"meta":{"truncation":{"direction":"tail","truncatedBy":"lines","totalLines":9,"totalBytes":18,"outputLines":2,"outputBytes":3,"artifactId":"7"}},"timestamp":1}`},
			"user text:Ran `seq 9`\n```\n8\n9\n```\n\n[Showing lines 8-9 of 9. Read artifact://7 for full output]"},
		{"bash excluded", []string{`{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1,"excludeFromContext":true}`}, ""},
		{"python", []string{`{"role":"pythonExecution","code":"print(1)","output":"1","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}`},
			"user text:Ran Python:\n```python\nprint(1)\n```\nOutput:\n```\n1\n```"},
		{"python failed", []string{`{"role":"pythonExecution","code":"x","output":"","exitCode":2,"cancelled":false,"truncated":false,"timestamp":1}`},
			"user text:Ran Python:\n```python\nx\n```\n(no output)\n\nExecution failed with code 2"},
		{"file mention", []string{`{"role":"fileMention","files":[{"path":"a.go","content":"package a","lineCount":1},{"path":"big.bin","content":"","byteSize":9999999,"skippedReason":"tooLarge"},{"path":"p.png","content":"(100x100)","image":{"type":"image","data":"QQ","mimeType":"image/png"}}],"timestamp":1}`},
			"user text:<system-reminder>\n<file path=\"a.go\">\npackage a\n</file>\n\n<file path=\"big.bin\">\n(skipped: tooLarge, 9999999 bytes)\n</file>\n\n<file path=\"p.png\">\n(100x100)\n</file>\n</system-reminder> image:image/png"},
		{"assistant and result", []string{
			`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"text","text":"Listing."},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}`,
			`{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":2}`},
			"assistant thinking:hm|sig=sig text:Listing. call:t1:bash{\"command\":\"ls\"}\ntoolResult id=t1 name=bash text:a.txt"},
		{"aborted assistant loses signatures, missing result supplied", []string{
			`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"redactedThinking","data":"x"},{"type":"toolCall","id":"t1","name":"read","arguments":{}}],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"aborted","timestamp":1.5,"errorMessage":"Request was aborted","duration":3.0}`,
			`{"role":"user","content":"go on","timestamp":2}`},
			"assistant thinking:hm|sig= call:t1:read{}\ntoolResult id=t1 name=read error text:" + InterruptedToolResult + "\nuser text:go on"},
		{"empty errored assistant skipped", []string{
			`{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"error","timestamp":1,"errorMessage":"boom"}`}, ""},
		{"result moved up past a user message", []string{
			`{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{}},{"type":"toolCall","id":"t2","name":"read","arguments":{}}],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"toolUse","timestamp":1}`,
			`{"role":"toolResult","toolCallId":"t2","toolName":"read","content":[{"type":"text","text":"two"}],"isError":false,"timestamp":2}`,
			`{"role":"user","content":"steer","timestamp":3}`,
			`{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"one"}],"isError":false,"timestamp":4}`},
			"assistant call:t1:bash{} call:t2:read{}\ntoolResult id=t1 name=bash text:one\ntoolResult id=t2 name=read text:two\nuser text:steer"},
		{"orphan result dropped", []string{
			`{"role":"toolResult","toolCallId":"zz","toolName":"bash","content":[],"isError":false,"timestamp":4}`,
			`{"role":"user","content":"hi","timestamp":5}`}, "user text:hi"},
		{"pruned result", []string{
			`{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}],"api":"a","provider":"p","model":"m","usage":{},"stopReason":"toolUse","timestamp":1}`,
			`{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"image","data":"AA","mimeType":"image/png"}],"isError":false,"prunedAt":5,"timestamp":2}`},
			"assistant call:t1:read{}\ntoolResult id=t1 name=read text:[output pruned]"},
		{"unknown roles and junk skipped", []string{`{"role":"weird","x":1}`, `not json`, `{"role":"user","content":"ok","timestamp":1}`}, "user text:ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(Convert(raws(tc.in...)))
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestConvertKeepsAssistant(t *testing.T) {
	msgs := Convert(raws(`{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"openai-completions","provider":"openai","model":"gpt-5","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225733000,"responseId":"r1","duration":840,"ttft":310}`))
	if len(msgs) != 1 || msgs[0].Assistant == nil {
		t.Fatalf("got %+v", msgs)
	}
	a := msgs[0].Assistant
	if a.Provider != "openai" || a.Model != "gpt-5" || a.API != "openai-completions" || a.ResponseID != "r1" ||
		a.Usage.Output != 2 || a.Timestamp != 1767225733000 || a.Duration == nil || *a.Duration != 840 || *a.TTFT != 310 {
		t.Errorf("assistant = %+v", a)
	}
}

// TestConvertStringContentDecoding: the one-pass string decoding gives what
// encoding/json gives, escapes and a lone surrogate included.
func TestConvertStringContentDecoding(t *testing.T) {
	raw := json.RawMessage(`{"role":"user","content":"tab\tquote\" \u00e9 \ud83d\ude00 lone\ud800 end","timestamp":1}`)
	var want struct{ Content string }
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got := Convert([]json.RawMessage{raw})
	if len(got) != 1 || len(got[0].Content) != 1 || got[0].Content[0].Text != want.Content {
		t.Fatalf("got %+v, want text %q", got, want.Content)
	}
	asst := json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}`)
	got = Convert([]json.RawMessage{asst})
	if len(got) != 1 || got[0].Role != "assistant" || got[0].Assistant == nil || got[0].Content[0].Text != "hi" {
		t.Fatalf("assistant: %+v", got)
	}
}
