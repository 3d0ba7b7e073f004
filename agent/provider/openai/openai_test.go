package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/agent/provider/internal/ssetest"
)

// chunk frames one chat.completion.chunk.
func chunkFrame(choices string) string {
	return ssetest.Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[` + choices + `]}`)
}

func deltaChunk(delta string) string {
	return chunkFrame(`{"index":0,"delta":` + delta + `,"finish_reason":null}`)
}

func finishChunk(reason string) string {
	return chunkFrame(`{"index":0,"delta":{},"finish_reason":"` + reason + `"}`)
}

const usageChunk = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":40},"completion_tokens_details":{"reasoning_tokens":5}}}` + "\n\n"

const done = "data: [DONE]\n\n"

var testModel = provider.Model{Provider: "openai", ID: "gpt-4.1", API: provider.APIOpenAICompletions,
	APIKeyEnv: "OPENAI_API_KEY", MaxTokens: 32768, Prices: provider.Prices{Input: 2, Output: 8, CacheRead: 0.5}}

var reasoningModel = provider.Model{Provider: "openai", ID: "gpt-5", API: provider.APIOpenAICompletions,
	APIKeyEnv: "OPENAI_API_KEY", MaxTokens: 128000, Reasoning: true, MinLevel: "minimal", MaxLevel: "high"}

// clock advances 10 ms per reading.
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

func (r result) body(t *testing.T, i int) map[string]any {
	t.Helper()
	reqs := r.srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("only %d requests", len(reqs))
	}
	var v map[string]any
	if err := json.Unmarshal(reqs[i].Body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func run(t *testing.T, m provider.Model, req provider.Request, onEvent func(provider.Event, context.CancelFunc), responses ...ssetest.Response) result {
	t.Helper()
	srv := ssetest.New(t, responses...)
	m.BaseURL = srv.URL + "/v1"
	req.Model = m
	if req.APIKey == "" {
		req.APIKey = "sk-test"
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

func TestTextStreamingUsageAndCost(t *testing.T) {
	r := run(t, testModel, provider.Request{}, nil, ssetest.Response{Events: []string{
		deltaChunk(`{"role":"assistant","content":""}`), deltaChunk(`{"content":"Hel"}`), deltaChunk(`{"content":"lo"}`),
		finishChunk("stop"), usageChunk, done}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got, _ := json.Marshal(r.msg)
	// Costs are price/1e6*tokens in float64, digit for digit what the reference writes.
	want := `{"role":"assistant","content":[{"type":"text","text":"Hello"}],"api":"openai-completions","provider":"openai","model":"gpt-4.1",` +
		`"usage":{"input":60,"output":25,"cacheRead":40,"cacheWrite":0,"totalTokens":125,"cost":{"input":0.00011999999999999999,"output":0.00019999999999999998,"cacheRead":0.000019999999999999998,"cacheWrite":0,"total":0.00033999999999999997}},` +
		`"stopReason":"stop","timestamp":1767225733000,"responseId":"chatcmpl-1","duration":20,"ttft":10}`
	if string(got) != want {
		t.Errorf("message\n got %s\nwant %s", got, want)
	}
	if ts := r.eventTypes(); ts != "start,text_delta,text_delta,block_end,done" {
		t.Errorf("events %s", ts)
	}
	if r.events[1].Delta != "Hel" || r.events[1].Index != 0 || r.events[1].Partial == nil {
		t.Errorf("first delta %+v", r.events[1])
	}
	req := r.srv.Requests()[0]
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %s %v", req.Path, req.Header)
	}
}

func TestThinkingAndToolCalls(t *testing.T) {
	r := run(t, reasoningModel, provider.Request{Thinking: "high"}, nil, ssetest.Response{Events: []string{
		deltaChunk(`{"role":"assistant","reasoning_content":"Let me "}`),
		deltaChunk(`{"reasoning_content":"look."}`),
		deltaChunk(`{"content":"Reading."}`),
		deltaChunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]}`),
		deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}`),
		deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"a.go\"}"}}]}`),
		deltaChunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"bash","arguments":"{\"command\":"}}]}`),
		deltaChunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"ls\"}"}}]}`),
		finishChunk("tool_calls"), done}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got, _ := json.Marshal(r.msg.Content)
	want := `[{"type":"thinking","thinking":"Let me look.","thinkingSignature":"reasoning_content"},{"type":"text","text":"Reading."},` +
		`{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"call_2","name":"bash","arguments":{"command":"ls"}}]`
	if string(got) != want {
		t.Errorf("content\n got %s\nwant %s", got, want)
	}
	if r.msg.StopReason != provider.StopToolUse {
		t.Errorf("stop %s", r.msg.StopReason)
	}
	if ts := r.eventTypes(); ts != "start,thinking_delta,thinking_delta,block_end,text_delta,block_end,toolcall_delta,toolcall_delta,toolcall_delta,block_end,toolcall_delta,toolcall_delta,block_end,done" {
		t.Errorf("events %s", ts)
	}
	body := r.body(t, 0)
	if body["reasoning_effort"] != "high" || body["max_completion_tokens"] != float64(32000) {
		t.Errorf("body %v", body)
	}
}

func TestReasoningFieldsAndFormats(t *testing.T) {
	events := []string{deltaChunk(`{"reasoning":"a"}`), deltaChunk(`{"reasoning_text":"b"}`), deltaChunk(`{"reasoning":{"weird":1}}`), finishChunk("stop"), done}
	or := reasoningModel
	or.Provider, or.ThinkingFormat, or.MaxTokensField = "openrouter", "openrouter", "max_tokens"
	r := run(t, or, provider.Request{Thinking: "xhigh", MaxTokens: 500}, nil, ssetest.Response{Events: events})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got, _ := json.Marshal(r.msg.Content)
	if string(got) != `[{"type":"thinking","thinking":"a","thinkingSignature":"reasoning"},{"type":"thinking","thinking":"b","thinkingSignature":"reasoning_text"}]` {
		t.Errorf("content %s", got)
	}
	body := r.body(t, 0)
	if _, ok := body["reasoning_effort"]; ok {
		t.Errorf("reasoning_effort sent for openrouter: %v", body)
	}
	if eff := body["reasoning"].(map[string]any)["effort"]; eff != "high" || body["max_tokens"] != float64(500) {
		t.Errorf("body %v", body)
	}
	if _, ok := body["max_completion_tokens"]; ok {
		t.Errorf("max_completion_tokens sent: %v", body)
	}

	// No effort for off, nor for a model that cannot reason.
	for _, tc := range []struct {
		m     provider.Model
		level string
	}{{reasoningModel, "off"}, {testModel, "high"}} {
		r := run(t, tc.m, provider.Request{Thinking: tc.level}, nil, ssetest.Response{Events: []string{finishChunk("stop"), done}})
		body := r.body(t, 0)
		if _, ok := body["reasoning_effort"]; ok {
			t.Errorf("%s %s: reasoning_effort sent", tc.m.ID, tc.level)
		}
	}
}

func TestRequestBody(t *testing.T) {
	history := provider.Convert([]json.RawMessage{
		json.RawMessage(`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"QUJD","mimeType":"image/png"}],"timestamp":1}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"reasoning_content"},{"type":"text","text":"Reading."},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.go"}}],"api":"openai-completions","provider":"openai","model":"gpt-5","usage":{},"stopReason":"toolUse","timestamp":2}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"package a"},{"type":"image","data":"WFla","mimeType":"image/jpeg"}],"isError":false,"timestamp":3}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"other model","thinkingSignature":"reasoning_content"},{"type":"text","text":"Done."}],"api":"openai-completions","provider":"ollama","model":"qwen","usage":{},"stopReason":"stop","timestamp":4}`),
		json.RawMessage(`{"role":"user","content":"thanks","timestamp":5}`),
	})
	req := provider.Request{System: "You are xcsh.", Messages: history, Thinking: "low",
		Tools: []provider.Tool{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	r := run(t, reasoningModel, req, nil, ssetest.Response{Events: []string{finishChunk("stop"), done}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := string(r.srv.Requests()[0].Body)
	want := `{"model":"gpt-5","messages":[` +
		`{"role":"system","content":"You are xcsh."},` +
		`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,QUJD"}}]},` +
		`{"role":"assistant","content":"Reading.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.go\"}"}}],"reasoning_content":"hmm"},` +
		`{"role":"tool","content":"package a","tool_call_id":"call_1"},` +
		`{"role":"user","content":[{"type":"text","text":"Attached images from the tool results above:"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,WFla"}}]},` +
		`{"role":"assistant","content":"Done."},` +
		`{"role":"user","content":"thanks"}],` +
		`"tools":[{"type":"function","function":{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],` +
		`"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":32000,"reasoning_effort":"low"}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestErrors(t *testing.T) {
	sse := func(events ...string) ssetest.Response { return ssetest.Response{Events: events} }
	okStream := sse(deltaChunk(`{"content":"ok"}`), finishChunk("stop"), done)
	for _, tc := range []struct {
		name      string
		responses []ssetest.Response
		stop      string
		errMsg    string // errorMessage must contain this
		text      string // partial text kept
		requests  int
		waits     []time.Duration
		retries   int
	}{
		{name: "401", responses: []ssetest.Response{{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","code":"invalid_api_key"}}`}},
			stop: "error", errMsg: "authentication failed for openai (HTTP 401): check OPENAI_API_KEY: Incorrect API key provided: sk-test.", requests: 1},
		{name: "403", responses: []ssetest.Response{{Status: 403, Body: `{"error":{"message":"denied"}}`}},
			stop: "error", errMsg: "authentication failed for openai (HTTP 403): check OPENAI_API_KEY: denied", requests: 1},
		{name: "429 with retry-after", responses: []ssetest.Response{{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: `{"error":{"message":"Rate limit reached"}}`}, okStream},
			stop: "stop", text: "ok", requests: 2, waits: []time.Duration{7 * time.Second}, retries: 1},
		{name: "429 with retry-after date", responses: []ssetest.Response{{Status: 429, Header: map[string]string{"Retry-After": time.UnixMilli(1767225733000).Add(30 * time.Second).UTC().Format(http.TimeFormat)}}, okStream},
			stop: "stop", text: "ok", requests: 2, retries: 1},
		{name: "429 retry-after too long", responses: []ssetest.Response{{Status: 429, Header: map[string]string{"Retry-After": "3600"}, Body: `{"error":{"message":"quota"}}`}},
			stop: "error", errMsg: "openai: rate limited (HTTP 429): quota (retry after 1h0m0s)", requests: 1},
		{name: "500 then success", responses: []ssetest.Response{{Status: 500, Body: "boom"}, okStream},
			stop: "stop", text: "ok", requests: 2, waits: []time.Duration{time.Second}, retries: 1},
		{name: "500 exhausted", responses: []ssetest.Response{{Status: 502, Body: `{"error":{"message":"upstream"}}`}},
			stop: "error", errMsg: "openai: HTTP 502 Bad Gateway: upstream (gave up after 3 retries)", requests: 4,
			waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, retries: 3},
		{name: "400 not retried", responses: []ssetest.Response{{Status: 400, Body: `{"error":{"message":"bad model"}}`}},
			stop: "error", errMsg: "openai: HTTP 400 Bad Request: bad model", requests: 1},
		{name: "malformed chunk", responses: []ssetest.Response{sse(deltaChunk(`{"content":"part"}`), "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}\n\n")},
			stop: "error", errMsg: "openai: malformed stream: invalid JSON in a chunk", text: "part", requests: 1},
		{name: "connection cut", responses: []ssetest.Response{{Cut: true, Events: []string{deltaChunk(`{"content":"half"}`)}}},
			stop: "error", errMsg: "openai: connection lost mid-stream", text: "half", requests: 1},
		{name: "stream ends without finish", responses: []ssetest.Response{sse(deltaChunk(`{"content":"half"}`))},
			stop: "error", errMsg: "openai: connection lost mid-stream: the stream ended before the response was complete", text: "half", requests: 1},
		{name: "finish without DONE is fine", responses: []ssetest.Response{sse(deltaChunk(`{"content":"ok"}`), finishChunk("length"))},
			stop: "length", text: "ok", requests: 1},
		{name: "content filter", responses: []ssetest.Response{sse(deltaChunk(`{"content":"so"}`), finishChunk("content_filter"), done)},
			stop: "error", errMsg: `openai: the response stopped with finish_reason "content_filter"`, text: "so", requests: 1},
		{name: "error in stream before content is retried", responses: []ssetest.Response{sse(ssetest.Data(`{"error":{"message":"Overloaded","code":503}}`)), okStream},
			stop: "stop", text: "ok", requests: 2, waits: []time.Duration{time.Second}, retries: 1},
		{name: "error in stream after content", responses: []ssetest.Response{sse(deltaChunk(`{"content":"so"}`), ssetest.Data(`{"error":{"message":"Overloaded","code":503}}`))},
			stop: "error", errMsg: "openai: error in stream: Overloaded", text: "so", requests: 1},
		{name: "JSON instead of a stream", responses: []ssetest.Response{{Header: map[string]string{"Content-Type": "application/json"}, Body: `{"error":{"message":"stream unsupported"}}`}},
			stop: "error", errMsg: "openai: expected an event stream, got JSON: stream unsupported", requests: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, testModel, provider.Request{}, nil, tc.responses...)
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
			if tc.waits != nil && !equalDurations(r.sleeper.Waits(), tc.waits) {
				t.Errorf("waits %v, want %v", r.sleeper.Waits(), tc.waits)
			}
			retries := 0
			for _, e := range r.events {
				if e.Type == provider.EventRetry {
					retries++
					if e.Attempt != retries || e.Err == "" {
						t.Errorf("retry event %+v", e)
					}
					if tc.waits != nil && e.DelayMs != tc.waits[retries-1].Milliseconds() {
						t.Errorf("retry delay %d ms, want %v", e.DelayMs, tc.waits[retries-1])
					}
				}
			}
			if retries != tc.retries {
				t.Errorf("%d retry events, want %d", retries, tc.retries)
			}
			last := r.events[len(r.events)-1]
			if tc.stop == "error" && (last.Type != provider.EventError || last.Err != r.msg.ErrorMessage) {
				t.Errorf("last event %+v", last)
			}
			if r.msg.Duration == nil {
				t.Error("no duration")
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRetryAfterDateHonoured(t *testing.T) {
	// The clock starts at 1767225733000 ms; the date says 30 s later (whole
	// seconds, so the wait is 30 s minus the clock's few readings).
	at := time.UnixMilli(1767225733000).Add(30 * time.Second).UTC()
	r := run(t, testModel, provider.Request{}, nil,
		ssetest.Response{Status: 429, Header: map[string]string{"Retry-After": at.Format(http.TimeFormat)}},
		ssetest.Response{Events: []string{finishChunk("stop"), done}})
	w := r.sleeper.Waits()
	if len(w) != 1 || w[0] < 29*time.Second || w[0] > 30*time.Second {
		t.Errorf("waits %v", w)
	}
}

func TestAbort(t *testing.T) {
	r := run(t, testModel, provider.Request{}, func(e provider.Event, cancel context.CancelFunc) {
		if e.Type == provider.EventTextDelta {
			cancel()
		}
	}, ssetest.Response{Events: []string{deltaChunk(`{"content":"partial"}`)}, Hang: true})
	if r.msg.StopReason != provider.StopAborted || r.msg.ErrorMessage != "Request was aborted" || r.msg.Text() != "partial" {
		t.Errorf("message %+v", r.msg)
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("err = %v", r.err)
	}
}

func TestAbortDuringRetryWait(t *testing.T) {
	r := run(t, testModel, provider.Request{}, func(e provider.Event, cancel context.CancelFunc) {
		if e.Type == provider.EventRetry {
			cancel()
		}
	}, ssetest.Response{Status: 503})
	if r.msg.StopReason != provider.StopAborted || len(r.srv.Requests()) != 1 {
		t.Errorf("message %+v after %d requests", r.msg, len(r.srv.Requests()))
	}
}

func TestMissingKey(t *testing.T) {
	p := New(testModel, provider.Options{})
	m := testModel
	m.BaseURL = "https://api.openai.com/v1"
	msg, err := p.Stream(context.Background(), provider.Request{Model: m}, nil)
	if err == nil || msg.StopReason != provider.StopError ||
		msg.ErrorMessage != "no API key for openai: set OPENAI_API_KEY, or configure providers.openai.api_key_env" {
		t.Errorf("%v %+v", err, msg)
	}
}

func TestConnectionRefusedNotRetried(t *testing.T) {
	srv := ssetest.New(t, ssetest.Response{})
	m := testModel
	m.BaseURL = srv.URL + "/v1"
	srv.Close()
	sl := &ssetest.Sleeper{}
	msg, err := New(m, provider.Options{Sleep: sl.Sleep}).Stream(context.Background(), provider.Request{Model: m, APIKey: "k"}, nil)
	if err == nil || msg.StopReason != provider.StopError || !strings.Contains(msg.ErrorMessage, "openai: request to "+m.BaseURL+"/chat/completions failed") ||
		len(sl.Waits()) != 0 {
		t.Errorf("%v %q waits %v", err, msg.ErrorMessage, sl.Waits())
	}
}
