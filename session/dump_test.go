package session

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// everyRole is a context holding every message role /dump knows, with the
// optional parts each one has, plus roles it skips.
func everyRole() []json.RawMessage {
	msgs := []string{
		`{"role":"user","content":"Fix the parser","attribution":"user","timestamp":1}`,
		`{"role":"user","content":[{"type":"text","text":"Look at this"},{"type":"image","data":"` + png1x1 + `","mimeType":"image/png"},{"type":"text","text":"and this"}],"timestamp":2}`,
		`{"role":"developer","content":[{"type":"text","text":"Be brief."}],"attribution":"agent","timestamp":3}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Read it first.","thinkingSignature":"s"},{"type":"redactedThinking","data":"opaque"},{"type":"text","text":"Reading."},` +
			`{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"_i":"read parser","path":"parser.go","limit":20,"opts":{"raw":true,"tags":["a","b"]},"2":"second","1":"first"},"intent":"read parser"},` +
			`{"type":"toolCall","id":"toolu_2","name":"noargs","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{},"stopReason":"toolUse","timestamp":4}`,
		`{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"package main"},{"type":"image","data":"` + png1x1 + `","mimeType":"image/png"}],"isError":false,"timestamp":5}`,
		`{"role":"toolResult","toolCallId":"toolu_2","toolName":"noargs","content":[{"type":"text","text":"boom"}],"details":{},"isError":true,"timestamp":6}`,
		`{"role":"assistant","content":[],"api":"openai-completions","provider":"openai","model":"gpt-5","usage":{},"stopReason":"error","errorMessage":"rate limited","timestamp":7}`,
		`{"role":"bashExecution","command":"go test ./...","output":"FAIL\n","exitCode":1,"cancelled":false,"truncated":true,"meta":{"truncation":{"direction":"tail","truncatedBy":"bytes","totalLines":900,"totalBytes":90000,"outputLines":500,"outputBytes":1280,"shownRange":{"start":401,"end":900},"artifactId":"7"},"limits":{"matchLimit":{"reached":100,"suggestion":200},"columnTruncated":{"maxColumn":1024}},"diagnostics":{"summary":"1 error","messages":["a.go:1: bad","b.go:2: worse"]}},"timestamp":8}`,
		`{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false,"timestamp":9}`,
		`{"role":"bashExecution","command":"cat secret","output":"hidden","exitCode":0,"cancelled":false,"truncated":false,"timestamp":10,"excludeFromContext":true}`,
		`{"role":"pythonExecution","code":"print(1)","output":"1\n","exitCode":0,"cancelled":false,"truncated":false,"meta":{"truncation":{"direction":"head","truncatedBy":"lines","totalLines":50,"totalBytes":100,"outputLines":10,"outputBytes":20,"nextOffset":11}},"timestamp":11}`,
		`{"role":"pythonExecution","code":"raise","output":"Traceback","exitCode":1,"cancelled":false,"truncated":false,"timestamp":12}`,
		`{"role":"custom","customType":"handoff","content":"Carry on.","display":true,"attribution":"agent","timestamp":13}`,
		`{"role":"hookMessage","customType":"legacy","content":[{"type":"text","text":"From a hook"},{"type":"image","data":"x","mimeType":"image/png"}],"display":false,"timestamp":14}`,
		`{"role":"branchSummary","summary":"Tried another way.","fromId":"abcd1234","timestamp":15}`,
		`{"role":"compactionSummary","summary":"Earlier work.","tokensBefore":12345,"timestamp":16}`,
		`{"role":"fileMention","files":[{"path":"README.md","content":"# Title","lineCount":1},{"path":"pic.png","content":"","image":{"type":"image","data":"x","mimeType":"image/png"}},{"path":"big.bin","content":"","byteSize":9000000,"skippedReason":"tooLarge"}],"timestamp":17}`,
		`{"role":"media","media":{},"timestamp":18}`,
		`{"role":"assistant","content":[{"type":"text","text":"Done.  "}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{},"stopReason":"stop","timestamp":19}`,
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		if !json.Valid([]byte(m)) {
			panic("invalid message " + m)
		}
		out[i] = json.RawMessage(m)
	}
	return out
}

func dumpTools() []DumpTool {
	return []DumpTool{
		{
			Name:        "read",
			Description: "Read a file.",
			Parameters:  json.RawMessage(`{"TypeBox.Kind":"Object","type":"object","properties":{"_i":{"type":"string"},"path":{"type":"string","TypeBox.Kind":"String"}},"required":["_i","path"],"_i":"dropped"}`),
		},
		{Name: "nothing", Description: "Takes nothing.", Parameters: json.RawMessage(`{}`)},
	}
}

// golden compares got with testdata/export/<name>; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "export", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestDumpTextGolden(t *testing.T) {
	got := DumpText(DumpInput{
		SystemPrompt:  "You are xcsh.\nWork carefully.",
		Model:         "anthropic/claude-sonnet-4-5",
		ThinkingLevel: "high",
		Tools:         dumpTools(),
		Messages:      everyRole(),
	})
	golden(t, "dump-every-role.golden", got)
	// The parts whose form the reference fixes, checked without the golden.
	for _, want := range []string{
		"## System Prompt\n\nYou are xcsh.\nWork carefully.\n\n\n## Configuration\n\nModel: anthropic/claude-sonnet-4-5\nThinking Level: high\n\n\n## Available Tools\n\n<tool name=\"read\">\nRead a file.\n\nParameters:\n\t<parameter name=\"type\">object</parameter>\n\t<parameter name=\"properties\">{\"_i\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"}}</parameter>\n\t<parameter name=\"required\">[\"_i\",\"path\"]</parameter>\n</tool>\n\n",
		"<tool name=\"nothing\">\nTakes nothing.\n\nParameters:\n\n</tool>\n\n\n\n## User\n\nFix the parser\n\n\n## User\n\nLook at this\n[Image]\nand this\n\n\n## Developer\n\nBe brief.\n\n\n## Assistant\n\n<thinking>\nRead it first.\n</thinking>\n\nReading.\n<invoke name=\"read\">\n",
		"\t<parameter name=\"1\">first</parameter>\n\t<parameter name=\"2\">second</parameter>\n\t<parameter name=\"path\">parser.go</parameter>\n\t<parameter name=\"limit\">20</parameter>\n\t<parameter name=\"opts\">{\"raw\":true,\"tags\":[\"a\",\"b\"]}</parameter>\n</invoke>\n\n<invoke name=\"noargs\">\n\n</invoke>\n\n\n### Tool Result: read\n```\npackage main\n```\n[Image output]\n\n### Tool Result: noargs\n(error)\n```\nboom\n```\n\n## Assistant\n\n\n## Bash Execution\n\nRan `go test ./...`\n```\nFAIL\n\n```\n\nCommand exited with code 1\n\n[Showing lines 401-900 of 900 (1.3KB limit). Full: artifact://7. 100 matches limit reached. Use limit=200 for more. Some lines truncated to 1024 chars]\n\nLSP Diagnostics (1 error):\n  a.go:1: bad\n  b.go:2: worse\n\n\n## Bash Execution\n\nRan `sleep 9`\n(no output)\n\n(command cancelled)\n\n\n## Python Execution\n\nRan Python:\n```python\nprint(1)\n```\nOutput:\n```\n1\n\n```\n\n[Showing 10 of 50 lines. Use offset=11 to continue]\n\n\n## Python Execution\n",
		"Execution failed with code 1\n\n\n## handoff\n\nCarry on.\n\n\n## legacy\n\nFrom a hook\n[Image]\n\n\n## Branch Summary\n\n(from branch: abcd1234)\n\nTried another way.\n\n\n## Compaction Summary\n\n(12345 tokens before compaction)\n\nEarlier work.\n\n\n## File Mention\n\n<file path=\"README.md\">\n# Title\n</file>\n\n<file path=\"pic.png\">\n[Image attached]\n</file>\n\n<file path=\"big.bin\">\n</file>\n\n\n\n## Assistant\n\nDone.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dump lacks %q", want)
		}
	}
	if strings.Contains(got, "hidden") || strings.Contains(got, "opaque") || strings.Contains(got, "media") {
		t.Error("dump shows a part it must skip")
	}
	if !strings.HasSuffix(got, "Done.") {
		t.Errorf("dump is not trimmed: %q", got[len(got)-10:])
	}
}

// TestDumpTextSession dumps the context of the export fixture at both of its
// leaves: compaction and branch summaries synthesised by BuildContext, custom
// messages, executions and every message role from a real session file.
func TestDumpTextSession(t *testing.T) {
	m := loadFixture(t)
	var parts []string
	for _, leaf := range []string{"a4", "a5"} {
		ctx := BuildContext(m.Entries(), nil, LeafAt(leaf))
		parts = append(parts, "==== leaf "+leaf+"\n"+DumpText(DumpInput{Model: ctx.Model("default"), ThinkingLevel: rawString(ctx.ThinkingLevel), Messages: ctx.Messages}))
	}
	golden(t, "dump-session.golden", strings.Join(parts, "\n"))
}

func TestDumpTextMinimal(t *testing.T) {
	tests := []struct {
		name string
		in   DumpInput
		want string
	}{
		{"nothing", DumpInput{}, "## Configuration\n\nModel: (not selected)\nThinking Level:"},
		{"model", DumpInput{Model: "openai/gpt-5", ThinkingLevel: "off"}, "## Configuration\n\nModel: openai/gpt-5\nThinking Level: off"},
		{"unknown role only", DumpInput{Messages: []json.RawMessage{json.RawMessage(`{"role":"media"}`)}}, "## Configuration\n\nModel: (not selected)\nThinking Level:"},
		{
			"missing fields read as JavaScript does",
			DumpInput{Messages: []json.RawMessage{
				json.RawMessage(`{"role":"toolResult","content":[{"type":"text"}]}`),
				json.RawMessage(`{"role":"compactionSummary","summary":"s"}`),
			}},
			"## Configuration\n\nModel: (not selected)\nThinking Level: \n\n\n### Tool Result: undefined\n```\n\n```\n\n## Compaction Summary\n\n(undefined tokens before compaction)\n\ns",
		},
		{
			"trim is JavaScript's",
			DumpInput{Messages: []json.RawMessage{json.RawMessage(`{"role":"user","content":"x\u0085\ufeff\u3000"}`)}},
			"## Configuration\n\nModel: (not selected)\nThinking Level: \n\n\n## User\n\nx\u0085",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DumpText(tt.in); got != tt.want {
				t.Errorf("DumpText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0B"}, {"1023", "1023B"}, {"1024", "1.0KB"}, {"1280", "1.3KB"}, {"1331", "1.3KB"},
		{"1536", "1.5KB"}, {"1048575", "1024.0KB"}, {"1048576", "1.0MB"}, {"1101004", "1.0MB"}, {"1101005", "1.1MB"}, {"1.5", "1.5B"},
	}
	for _, tt := range tests {
		if got := formatSize([]byte(tt.in)); got != tt.want {
			t.Errorf("formatSize(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOSC52(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("héllo\n"))
	tests := []struct {
		name string
		tmux bool
		want string
	}{
		{"plain", false, "\x1b]52;c;" + b64 + "\x07"},
		{"tmux", true, "\x1bPtmux;\x1b\x1b]52;c;" + b64 + "\x07\x1b\\"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OSC52("héllo\n", tt.tmux); got != tt.want {
				t.Errorf("OSC52 = %q, want %q", got, tt.want)
			}
		})
	}
	if !OSC52Fits(strings.Repeat("x", OSC52Limit)) || OSC52Fits(strings.Repeat("x", OSC52Limit+1)) {
		t.Error("OSC52Fits limit wrong")
	}
}

func TestSaveDump(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 4, 5, 6, 7, 890e6, time.UTC)
	p, err := SaveDump(dir, "## Configuration", now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "xcsh-dump-20260304-050607-890.md"); p != want {
		t.Errorf("path = %q, want %q", p, want)
	}
	if b, _ := os.ReadFile(p); string(b) != "## Configuration" {
		t.Errorf("file holds %q", b)
	}
}
