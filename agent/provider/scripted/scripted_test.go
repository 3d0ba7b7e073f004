package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/agent/provider/internal/ssetest"
)

func user(text string) provider.Message {
	return provider.Message{Role: "user", Content: []provider.Block{{Type: provider.BlockText, Text: text}}}
}

func assistant(m *provider.AssistantMessage) provider.Message {
	return provider.Message{Role: "assistant", Content: m.Content, Assistant: m}
}

func stream(t *testing.T, p provider.Provider, msgs []provider.Message) (*provider.AssistantMessage, []provider.Event, error) {
	t.Helper()
	var evs []provider.Event
	msg, err := p.Stream(context.Background(), provider.Request{Messages: msgs}, func(e provider.Event) { evs = append(evs, e) })
	if msg == nil {
		t.Fatal("nil message")
	}
	return msg, evs, err
}

// TestDemo plays the built-in demo through its tool calls to the final answer.
func TestDemo(t *testing.T) {
	m, err := provider.Builtin().Resolve("scripted/demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	sl := &ssetest.Sleeper{}
	p, err := provider.New(m, provider.Options{Sleep: sl.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []provider.Message{user("Show me what you can do")}
	var tools []string
	for turn := 0; ; turn++ {
		if turn > 10 {
			t.Fatal("the demo does not end")
		}
		msg, evs, err := stream(t, p, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Provider != "scripted" || msg.Model != "demo" || msg.API != "scripted" || msg.Usage.Cost.Total != 0 || msg.Usage.Output == 0 {
			t.Errorf("message %+v", msg)
		}
		if evs[0].Type != provider.EventStart || evs[len(evs)-1].Type != provider.EventDone {
			t.Errorf("events start with %s, end with %s", evs[0].Type, evs[len(evs)-1].Type)
		}
		msgs = append(msgs, assistant(msg))
		calls := msg.ToolCalls()
		if len(calls) == 0 {
			if msg.StopReason != provider.StopStop || !strings.Contains(msg.Text(), "Hello, xcsh!") {
				t.Errorf("final answer %q (%s)", msg.Text(), msg.StopReason)
			}
			break
		}
		if msg.StopReason != provider.StopToolUse {
			t.Errorf("stop %s with tool calls", msg.StopReason)
		}
		for _, c := range calls {
			tools = append(tools, c.Name+string(c.Arguments))
			msgs = append(msgs, provider.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name,
				Content: []provider.Block{{Type: provider.BlockText, Text: "ok"}}})
		}
	}
	want := []string{
		`write{"path":"greet.sh","content":"#!/bin/sh\n# greet.sh: print a greeting for the name given, or for the world.\nname=\"${1:-world}\"\necho \"Helo, $name!\"\n"}`,
		`read{"path":"greet.sh"}`,
		`edit{"path":"greet.sh","old_text":"echo \"Helo, $name!\"","new_text":"echo \"Hello, $name!\""}`,
		`bash{"command":"sh greet.sh xcsh"}`,
	}
	if strings.Join(tools, "\n") != strings.Join(want, "\n") {
		t.Errorf("tool calls\n%s\nwant\n%s", strings.Join(tools, "\n"), strings.Join(want, "\n"))
	}
	// Streaming is visible: many chunks, each after the script's delay, the first after its latency.
	w := sl.Waits()
	if len(w) < 50 || w[0] != 250*time.Millisecond || w[1] != 18*time.Millisecond {
		t.Errorf("%d waits, first %v", len(w), w[:2])
	}
	// Past the end of the turn.
	msg, _, err := stream(t, p, msgs)
	if err != nil || msg.Text() != EndOfScript {
		t.Errorf("after the end: %q %v", msg.Text(), err)
	}
}

func TestDemoMatchedTurns(t *testing.T) {
	p := WithScript(provider.Model{}, Demo(), provider.Options{Sleep: (&ssetest.Sleeper{}).Sleep})
	msg, _, err := stream(t, p, []provider.Message{user("Hello there")})
	if err != nil || !strings.HasPrefix(msg.Text(), "Hello! I'm the scripted demo model") || msg.StopReason != provider.StopStop {
		t.Errorf("hello: %q %v", msg.Text(), err)
	}
	msg, _, err = stream(t, p, []provider.Message{user("Can you THINK about it?")})
	if err != nil || len(msg.Content) != 2 || msg.Content[0].Type != provider.BlockThinking || msg.Content[0].Thinking == "" {
		t.Errorf("think: %+v %v", msg.Content, err)
	}
	msg, evs, err := stream(t, p, []provider.Message{user("please fail on purpose")})
	if err == nil || msg.StopReason != provider.StopError || !strings.Contains(msg.ErrorMessage, "simulated provider error") ||
		msg.Text() != "Starting on that" || evs[len(evs)-1].Type != provider.EventError {
		t.Errorf("fail: %+v %v", msg, err)
	}
}

func TestOrderAndReplies(t *testing.T) {
	s, err := Parse([]byte(`{"delayMs":0,"turns":[
		{"replies":[{"text":"first"}]},
		{"match":"special","replies":[{"text":"matched"}]},
		{"replies":[{"text":"second","toolCalls":[{"id":"c1","name":"bash","arguments":{"command":"ls"}}]},{"text":"second done","stopReason":"length"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := WithScript(provider.Model{ID: "mine"}, s, provider.Options{})
	var msgs []provider.Message
	say := func(prompt string) string {
		if prompt != "" {
			msgs = append(msgs, user(prompt))
		}
		msg, _, err := stream(t, p, msgs)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, assistant(msg))
		for _, c := range msg.ToolCalls() {
			msgs = append(msgs, provider.Message{Role: "toolResult", ToolCallID: c.ID, ToolName: c.Name})
		}
		return msg.Text() + "|" + msg.StopReason + "|" + msg.Model
	}
	for i, want := range []struct{ prompt, reply string }{
		{"a", "first|stop|mine"},
		{"something special", "matched|stop|mine"},
		{"b", "second|toolUse|mine"},
		{"", "second done|length|mine"},
		{"c", "second|toolUse|mine"}, // the last in-order turn repeats
	} {
		if got := say(want.prompt); got != want.reply {
			t.Errorf("step %d (%q): %q, want %q", i, want.prompt, got, want.reply)
		}
	}
}

func TestAbortKeepsPartial(t *testing.T) {
	s, _ := Parse([]byte(`{"chunkSize":2,"delayMs":5,"turns":[{"replies":[{"text":"abcdefgh"}]}]}`))
	p := WithScript(provider.Model{}, s, provider.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msg, err := p.Stream(ctx, provider.Request{Messages: []provider.Message{user("x")}}, func(e provider.Event) {
		if e.Type == provider.EventTextDelta && e.Partial.Text() == "abcd" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || msg.StopReason != provider.StopAborted || msg.ErrorMessage != "Request was aborted" || msg.Text() != "abcd" {
		t.Errorf("%+v %v", msg, err)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                           "no turns",
		`{"turns":[{"replies":[]}]}`:   "turns[0]: no replies",
		`{"turns":[{"replies":[{}]}]}`: "turns[0].replies[0]: empty",
		`{"turns":[{"replies":[{"text":"x","toolCalls":[{"arguments":{}}]}]}]}`:  "toolCalls[0]: no name",
		`{"turns":[{"replies":[{"toolCalls":[{"name":"a","arguments":[1]}]}]}]}`: "arguments must be an object",
		`{"turns":[{"replies":[{"text":"x","stopReason":"error"}]}]}`:            `stopReason "error"`,
		`{"chunkSize":0,"turns":[{"replies":[{"text":"x"}]}]}`:                   "chunkSize must be at least 1",
		`{"turns":[{"replies":[{"txt":"x"}]}]}`:                                  `unknown field "txt"`,
		`[`:                                                                      "invalid script",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", in, err, want)
		}
	}
}

func TestNewWithScriptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	if err := os.WriteFile(path, []byte(`{"delayMs":0,"turns":[{"replies":[{"text":"from file"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := provider.Builtin().Resolve("scripted/mine", nil)
	if _, err := provider.New(m, provider.Options{}); err == nil || !strings.Contains(err.Error(), "no script for scripted/mine") {
		t.Errorf("err = %v", err)
	}
	m.Script = path
	p, err := provider.New(m, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msg, _, err := stream(t, p, []provider.Message{user("hi")})
	if err != nil || msg.Text() != "from file" || msg.Model != "mine" || msg.Provider != "scripted" {
		t.Errorf("%+v %v", msg, err)
	}
	m.Script = filepath.Join(dir, "missing.json")
	if _, err := provider.New(m, provider.Options{}); err == nil || !strings.Contains(err.Error(), "read script") {
		t.Errorf("err = %v", err)
	}
}

func TestDemoJSONIsTheDemo(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(DemoJSON(), &v); err != nil || v["turns"] == nil {
		t.Errorf("DemoJSON: %v", err)
	}
}

func TestChunks(t *testing.T) {
	got := chunks("héllo wörld", 4)
	if strings.Join(got, "|") != "héll|o wö|rld" {
		t.Errorf("chunks %q", got)
	}
}
