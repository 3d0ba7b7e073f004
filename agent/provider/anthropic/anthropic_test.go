package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/agent/provider/internal/ssetest"
)

var sonnet = provider.Model{Provider: "anthropic", ID: "claude-sonnet-4-5", API: provider.APIAnthropicMessages,
	APIKeyEnv: "ANTHROPIC_API_KEY", ContextWindow: 200000, MaxTokens: 64000, Reasoning: true,
	Prices: provider.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}

func ev(name, payload string) string { return ssetest.Event(name, payload) }

func messageStart(input int) string {
	return ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+
		itoa(input)+`,"cache_creation_input_tokens":200,"cache_read_input_tokens":1000,"output_tokens":1}}}`)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func blockStart(i int, cb string) string {
	return ev("content_block_start", `{"type":"content_block_start","index":`+itoa(i)+`,"content_block":`+cb+`}`)
}

func blockDelta(i int, d string) string {
	return ev("content_block_delta", `{"type":"content_block_delta","index":`+itoa(i)+`,"delta":`+d+`}`)
}

func blockStop(i int) string {
	return ev("content_block_stop", `{"type":"content_block_stop","index":`+itoa(i)+`}`)
}

func messageDelta(reason string, output int) string {
	return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":`+itoa(output)+`}}`)
}

var (
	ping        = ev("ping", `{"type": "ping"}`)
	messageStop = ev("message_stop", `{"type":"message_stop"}`)
)

func textStream(text string) []string {
	return []string{messageStart(10), blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"`+text+`"}`),
		blockStop(0), messageDelta("end_turn", 5), messageStop}
}

func clock() func() time.Time {
	var mu sync.Mutex
	t := time.UnixMilli(1767225733000)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := t
		t = t.Add(10 * time.Millisecond)
		return now
	}
}

type result struct {
	msg     *provider.AssistantMessage
	err     error
	events  []provider.Event
	srv     *ssetest.Server
	sleeper *ssetest.Sleeper
}

func (r result) eventTypes() string {
	var s []string
	for _, e := range r.events {
		s = append(s, e.Type)
	}
	return strings.Join(s, ",")
}

func run(t *testing.T, m provider.Model, req provider.Request, onEvent func(provider.Event, context.CancelFunc), responses ...ssetest.Response) result {
	t.Helper()
	srv := ssetest.New(t, responses...)
	m.BaseURL = srv.URL
	req.Model = m
	if req.APIKey == "" {
		req.APIKey = "sk-ant-test"
	}
	if req.Messages == nil {
		req.Messages = []provider.Message{{Role: "user", Content: []provider.Block{{Type: "text", Text: "hi"}}}}
	}
	sl := &ssetest.Sleeper{}
	p, err := provider.New(m, provider.Options{Sleep: sl.Sleep, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := result{srv: srv, sleeper: sl}
	res.msg, res.err = p.Stream(ctx, req, func(e provider.Event) {
		res.events = append(res.events, e)
		if onEvent != nil {
			onEvent(e, cancel)
		}
	})
	if res.msg == nil {
		t.Fatal("nil message")
	}
	return res
}

func TestTextUsageAndCost(t *testing.T) {
	r := run(t, sonnet, provider.Request{}, nil, ssetest.Response{Events: []string{
		messageStart(25), blockStart(0, `{"type":"text","text":""}`), ping,
		blockDelta(0, `{"type":"text_delta","text":"Hello"}`), blockDelta(0, `{"type":"text_delta","text":" there"}`),
		blockStop(0), messageDelta("end_turn", 15), messageStop}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got, _ := json.Marshal(r.msg)
	want := `{"role":"assistant","content":[{"type":"text","text":"Hello there"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",` +
		`"usage":{"input":25,"output":15,"cacheRead":1000,"cacheWrite":200,"totalTokens":1240,"cost":{"input":0.00007500000000000001,"output":0.000225,"cacheRead":0.0003,"cacheWrite":0.00075,"total":0.00135}},` +
		`"stopReason":"stop","timestamp":1767225733000,"responseId":"msg_01","duration":20,"ttft":10}`
	if string(got) != want {
		t.Errorf("message\n got %s\nwant %s", got, want)
	}
	if ts := r.eventTypes(); ts != "start,text_delta,text_delta,block_end,done" {
		t.Errorf("events %s", ts)
	}
	req := r.srv.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != "sk-ant-test" || req.Header.Get("Anthropic-Version") != "2023-06-01" ||
		req.Header.Get("Authorization") != "" {
		t.Errorf("request %s %v", req.Path, req.Header)
	}
}

func TestThinkingAndToolUse(t *testing.T) {
	r := run(t, sonnet, provider.Request{Thinking: "medium", Tools: []provider.Tool{{Name: "read"}}}, nil, ssetest.Response{Events: []string{
		messageStart(10),
		blockStart(0, `{"type":"thinking","thinking":""}`),
		blockDelta(0, `{"type":"thinking_delta","thinking":"I should "}`),
		blockDelta(0, `{"type":"thinking_delta","thinking":"read it."}`),
		blockDelta(0, `{"type":"signature_delta","signature":"EqQB"}`),
		blockDelta(0, `{"type":"signature_delta","signature":"xyz"}`),
		blockStop(0),
		blockStart(1, `{"type":"redacted_thinking","data":"opaque"}`), blockStop(1),
		blockStart(2, `{"type":"text","text":""}`), blockDelta(2, `{"type":"text_delta","text":"Reading."}`), blockStop(2),
		blockStart(3, `{"type":"tool_use","id":"toolu_01","name":"read","input":{}}`),
		blockDelta(3, `{"type":"input_json_delta","partial_json":""}`),
		blockDelta(3, `{"type":"input_json_delta","partial_json":"{\"path\": \"a."}`),
		blockDelta(3, `{"type":"input_json_delta","partial_json":"go\"}"}`),
		blockStop(3),
		blockStart(4, `{"type":"tool_use","id":"toolu_02","name":"bash","input":{"command":"ls"}}`), blockStop(4),
		blockStart(5, `{"type":"server_tool_use","id":"srv","name":"web_search","input":{}}`), blockStop(5),
		messageDelta("tool_use", 80), messageStop}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got, _ := json.Marshal(r.msg.Content)
	want := `[{"type":"thinking","thinking":"I should read it.","thinkingSignature":"EqQBxyz"},{"type":"redactedThinking","data":"opaque"},` +
		`{"type":"text","text":"Reading."},{"type":"toolCall","id":"toolu_01","name":"read","arguments":{"path":"a.go"}},` +
		`{"type":"toolCall","id":"toolu_02","name":"bash","arguments":{"command":"ls"}}]`
	if string(got) != want {
		t.Errorf("content\n got %s\nwant %s", got, want)
	}
	if r.msg.StopReason != provider.StopToolUse || r.msg.Usage.Output != 80 {
		t.Errorf("stop %s usage %+v", r.msg.StopReason, r.msg.Usage)
	}
	if ts := r.eventTypes(); ts != "start,thinking_delta,thinking_delta,block_end,block_end,text_delta,block_end,toolcall_delta,toolcall_delta,toolcall_delta,block_end,block_end,done" {
		t.Errorf("events %s", ts)
	}
	req := r.srv.Requests()[0]
	if req.Header.Get("Anthropic-Beta") != "interleaved-thinking-2025-05-14" {
		t.Errorf("beta header %q", req.Header.Get("Anthropic-Beta"))
	}
	var body map[string]any
	_ = json.Unmarshal(req.Body, &body)
	th, _ := body["thinking"].(map[string]any)
	if th["type"] != "enabled" || th["budget_tokens"] != float64(8192) || body["max_tokens"] != float64(32000) {
		t.Errorf("body %v", body)
	}
}

func TestThinkingBudgets(t *testing.T) {
	opus := sonnet
	opus.ID, opus.MaxTokens = "claude-opus-4-1", 32000
	small := sonnet
	small.MaxTokens = 1500
	plain := sonnet
	plain.Reasoning = false
	for _, tc := range []struct {
		name      string
		m         provider.Model
		level     string
		maxTokens int
		budget    int // 0: thinking off
		sent      int
	}{
		{"minimal", sonnet, "minimal", 0, 1024, 32000},
		{"xhigh raises max_tokens", sonnet, "xhigh", 0, 32768, 36768},
		{"raised within model max", opus, "high", 2000, 16384, 20384},
		{"budget below max_tokens", opus, "xhigh", 0, 30976, 32000},
		{"too small for thinking", small, "low", 0, 0, 1500},
		{"off", sonnet, "off", 1000, 0, 1000},
		{"cannot reason", plain, "high", 0, 0, 32000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, on := buildRequest(tc.m, provider.Request{Thinking: tc.level, MaxTokens: tc.maxTokens})
			budget := 0
			if body.Thinking != nil {
				budget = body.Thinking.BudgetTokens
			}
			if budget != tc.budget || body.MaxTokens != tc.sent || on != (tc.budget > 0) {
				t.Errorf("budget %d max_tokens %d on %v; want %d %d", budget, body.MaxTokens, on, tc.budget, tc.sent)
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	history := provider.Convert([]json.RawMessage{
		json.RawMessage(`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"QUJD","mimeType":"image/png"}],"timestamp":1}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig1"},{"type":"redactedThinking","data":"opaque"},{"type":"text","text":"Reading."},{"type":"toolCall","id":"toolu_1","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"call|2","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{},"stopReason":"toolUse","timestamp":2}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":"package a"}],"isError":false,"timestamp":3}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"call|2","toolName":"bash","content":[{"type":"text","text":"exit 1"}],"isError":true,"timestamp":4}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"foreign thought","thinkingSignature":"reasoning_content"},{"type":"text","text":"Done."}],"api":"openai-completions","provider":"openai","model":"gpt-5","usage":{},"stopReason":"stop","timestamp":5}`),
		json.RawMessage(`{"role":"user","content":"thanks","timestamp":6}`),
	})
	req := provider.Request{System: "You are xcsh.", Messages: history, Thinking: "low",
		Tools: []provider.Tool{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	r := run(t, sonnet, req, nil, ssetest.Response{Events: textStream("ok")})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := string(r.srv.Requests()[0].Body)
	want := `{"model":"claude-sonnet-4-5","max_tokens":32000,` +
		`"system":[{"type":"text","text":"You are xcsh.","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"QUJD"}}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig1"},{"type":"redacted_thinking","data":"opaque"},{"type":"text","text":"Reading."},` +
		`{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a.go"}},{"type":"tool_use","id":"call_2","name":"bash","input":{"command":"ls"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"package a"}]},{"type":"tool_result","tool_use_id":"call_2","content":[{"type":"text","text":"exit 1"}],"is_error":true}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"foreign thought"},{"type":"text","text":"Done."}]},` +
		`{"role":"user","content":[{"type":"text","text":"thanks","cache_control":{"type":"ephemeral"}}]}],` +
		`"tools":[{"name":"read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}],` +
		`"thinking":{"type":"enabled","budget_tokens":4096},"stream":true}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestNoThinkingMidToolTurnWithoutThinking(t *testing.T) {
	history := provider.Convert([]json.RawMessage{
		json.RawMessage(`{"role":"user","content":"go","timestamp":1}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{},"stopReason":"toolUse","timestamp":2}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":3}`),
	})
	body, on := buildRequest(sonnet, provider.Request{Messages: history, Thinking: "high"})
	if on || body.Thinking != nil {
		t.Errorf("thinking on in a tool turn that began without it")
	}
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.anthropic.com":     "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/":    "https://api.anthropic.com/v1/messages",
		"https://proxy.example/v1":      "https://proxy.example/v1/messages",
		"https://proxy.example/api/v1/": "https://proxy.example/api/v1/messages",
	} {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	sse := func(events ...string) ssetest.Response { return ssetest.Response{Events: events} }
	okStream := sse(textStream("ok")...)
	overloaded := ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	for _, tc := range []struct {
		name      string
		responses []ssetest.Response
		stop      string
		errMsg    string
		text      string
		requests  int
		waits     []time.Duration
	}{
		{name: "401", responses: []ssetest.Response{{Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}},
			stop: "error", errMsg: "authentication failed for anthropic (HTTP 401): check ANTHROPIC_API_KEY: invalid x-api-key", requests: 1},
		{name: "429 with retry-after", responses: []ssetest.Response{{Status: 429, Header: map[string]string{"Retry-After": "12"}, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}, okStream},
			stop: "stop", text: "ok", requests: 2, waits: []time.Duration{12 * time.Second}},
		{name: "529 overloaded then success", responses: []ssetest.Response{{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, okStream},
			stop: "stop", text: "ok", requests: 2, waits: []time.Duration{time.Second}},
		{name: "500 exhausted", responses: []ssetest.Response{{Status: 500, Body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`}},
			stop: "error", errMsg: "anthropic: HTTP 500 Internal Server Error: Internal server error (gave up after 3 retries)", requests: 4,
			waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "overloaded event before content is retried", responses: []ssetest.Response{sse(messageStart(5), ping, overloaded), okStream},
			stop: "stop", text: "ok", requests: 2, waits: []time.Duration{time.Second}},
		{name: "overloaded event after content", responses: []ssetest.Response{sse(messageStart(5), blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"par"}`), overloaded)},
			stop: "error", errMsg: "anthropic: overloaded_error: Overloaded", text: "par", requests: 1},
		{name: "invalid request event", responses: []ssetest.Response{sse(ev("error", `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`))},
			stop: "error", errMsg: "anthropic: invalid_request_error: bad", requests: 1},
		{name: "malformed event", responses: []ssetest.Response{sse(messageStart(5), blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"par"}`), "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\n\n")},
			stop: "error", errMsg: `anthropic: malformed stream: invalid JSON in a "content_block_delta" event`, text: "par", requests: 1},
		{name: "connection cut", responses: []ssetest.Response{{Cut: true, Events: []string{messageStart(5), blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"half"}`)}}},
			stop: "error", errMsg: "anthropic: connection lost mid-stream", text: "half", requests: 1},
		{name: "ends without message_stop", responses: []ssetest.Response{sse(messageStart(5), blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"half"}`))},
			stop: "error", errMsg: "the stream ended before the response was complete", text: "half", requests: 1},
		{name: "max_tokens", responses: []ssetest.Response{sse(messageStart(5), blockStart(0, `{"type":"text","text":"lo"}`), blockDelta(0, `{"type":"text_delta","text":"ng"}`), blockStop(0), messageDelta("max_tokens", 9), messageStop)},
			stop: "length", text: "long", requests: 1},
		{name: "refusal", responses: []ssetest.Response{sse(messageStart(5), messageDelta("refusal", 1), messageStop)},
			stop: "error", errMsg: `anthropic: the response stopped with stop_reason "refusal"`, requests: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, sonnet, provider.Request{}, nil, tc.responses...)
			if r.msg.StopReason != tc.stop {
				t.Errorf("stopReason %q (%s), want %q", r.msg.StopReason, r.msg.ErrorMessage, tc.stop)
			}
			if (tc.stop == "error") != (r.err != nil) {
				t.Errorf("err = %v", r.err)
			}
			if tc.errMsg != "" && !strings.Contains(r.msg.ErrorMessage, tc.errMsg) {
				t.Errorf("errorMessage %q, want it to contain %q", r.msg.ErrorMessage, tc.errMsg)
			}
			if tc.errMsg == "" && r.msg.ErrorMessage != "" {
				t.Errorf("errorMessage %q", r.msg.ErrorMessage)
			}
			if r.msg.Text() != tc.text {
				t.Errorf("text %q, want %q", r.msg.Text(), tc.text)
			}
			if n := len(r.srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			w := r.sleeper.Waits()
			if len(w) != len(tc.waits) {
				t.Fatalf("waits %v, want %v", w, tc.waits)
			}
			for i := range w {
				if w[i] != tc.waits[i] {
					t.Errorf("waits %v, want %v", w, tc.waits)
				}
			}
			var retries []provider.Event
			for _, e := range r.events {
				if e.Type == provider.EventRetry {
					retries = append(retries, e)
				}
			}
			if len(retries) != len(tc.waits) {
				t.Errorf("%d retry events, want %d", len(retries), len(tc.waits))
			}
			if tc.stop == "stop" && (r.msg.ResponseID != "msg_01" || r.msg.Usage.Input != 10) {
				t.Errorf("retried message keeps the failed attempt: %+v", r.msg)
			}
		})
	}
}

func TestAbort(t *testing.T) {
	r := run(t, sonnet, provider.Request{}, func(e provider.Event, cancel context.CancelFunc) {
		if e.Type == provider.EventTextDelta {
			cancel()
		}
	}, ssetest.Response{Events: []string{messageStart(5), blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"partial"}`)}, Hang: true})
	if r.msg.StopReason != provider.StopAborted || r.msg.ErrorMessage != "Request was aborted" || r.msg.Text() != "partial" {
		t.Errorf("message %+v", r.msg)
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("err = %v", r.err)
	}
	if last := r.events[len(r.events)-1]; last.Type != provider.EventError || last.Err != "Request was aborted" {
		t.Errorf("last event %+v", last)
	}
}
