package provider

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestResolve(t *testing.T) {
	r := Builtin()
	for _, tc := range []struct {
		name, ref string
		env       map[string]string
		check     func(t *testing.T, m Model)
		err       string
	}{
		{name: "known openai", ref: "openai/gpt-5", check: func(t *testing.T, m Model) {
			if m.API != APIOpenAICompletions || m.BaseURL != "https://api.openai.com/v1" || m.APIKeyEnv != "OPENAI_API_KEY" ||
				m.ContextWindow != 400000 || !m.Reasoning || m.Prices.Input != 1.25 {
				t.Errorf("%+v", m)
			}
		}},
		{name: "known anthropic", ref: "anthropic/claude-sonnet-4-5", check: func(t *testing.T, m Model) {
			if m.API != APIAnthropicMessages || m.BaseURL != "https://api.anthropic.com" || m.Prices.CacheWrite != 3.75 {
				t.Errorf("%+v", m)
			}
		}},
		{name: "unknown id of known provider", ref: "openai/o3-pro", check: func(t *testing.T, m Model) {
			if m.ID != "o3-pro" || m.Provider != "openai" || m.API != APIOpenAICompletions || !m.Reasoning || m.ContextWindow == 0 {
				t.Errorf("%+v", m)
			}
		}},
		{name: "generic non-reasoning", ref: "openai/anything", check: func(t *testing.T, m Model) {
			if m.Reasoning || m.MaxTokens == 0 {
				t.Errorf("%+v", m)
			}
		}},
		{name: "base url env", ref: "openai/gpt-4.1", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:9/v1"},
			check: func(t *testing.T, m Model) {
				if m.BaseURL != "http://localhost:9/v1" {
					t.Errorf("base %q", m.BaseURL)
				}
			}},
		{name: "anthropic base url env", ref: "anthropic/claude-x", env: map[string]string{"ANTHROPIC_BASE_URL": "https://proxy"},
			check: func(t *testing.T, m Model) {
				if m.BaseURL != "https://proxy" || !m.Reasoning {
					t.Errorf("%+v", m)
				}
			}},
		{name: "id with slash", ref: "openrouter/anthropic/claude-sonnet-4.5", check: func(t *testing.T, m Model) {
			if m.Provider != "openrouter" || m.ID != "anthropic/claude-sonnet-4.5" || m.ThinkingFormat != "openrouter" || m.APIKeyEnv != "OPENROUTER_API_KEY" {
				t.Errorf("%+v", m)
			}
		}},
		{name: "local needs no key", ref: "ollama/qwen3:8b", check: func(t *testing.T, m Model) {
			if m.APIKeyEnv != "" || m.BaseURL != "http://localhost:11434/v1" || m.MaxTokensField != "max_tokens" {
				t.Errorf("%+v", m)
			}
		}},
		{name: "alias", ref: "lm-studio/x", check: func(t *testing.T, m Model) {
			if m.Provider != "lmstudio" {
				t.Errorf("%+v", m)
			}
		}},
		{name: "scripted demo", ref: "scripted/demo", check: func(t *testing.T, m Model) {
			if m.API != APIScripted || m.Provider != "scripted" || m.Ref() != "scripted/demo" {
				t.Errorf("%+v", m)
			}
		}},
		{name: "bare unique id", ref: "claude-haiku-4-5", check: func(t *testing.T, m Model) {
			if m.Ref() != "anthropic/claude-haiku-4-5" {
				t.Errorf("%+v", m)
			}
		}},
		{name: "unknown provider lists known", ref: "nope/x", err: `unknown provider "nope" in model "nope/x" (known providers: anthropic, llamacpp, lmstudio, ollama, openai, openrouter, scripted, vllm)`},
		{name: "no slash", ref: "gpt-9", err: `model "gpt-9": expected provider/id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := r.Resolve(tc.ref, envOf(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, m)
		})
	}
}

func TestLookupAndAdd(t *testing.T) {
	r := Builtin()
	if _, ok := r.Lookup("openai/unknown"); ok {
		t.Error("unknown model found")
	}
	r.Add(Model{Provider: "openai", ID: "custom", ContextWindow: 5})
	m, ok := r.Lookup("openai/custom")
	if !ok || m.ContextWindow != 5 || m.BaseURL != "https://api.openai.com/v1" {
		t.Errorf("%+v %v", m, ok)
	}
	if _, ok := r.Lookup("bad"); ok {
		t.Error("bad ref found")
	}
}

func TestConfigure(t *testing.T) {
	r := Builtin()
	yes := true
	err := r.Configure(map[string]ProviderConfig{
		"work":   {BaseURL: "https://llm.example/v1", APIKeyEnv: "WORK_KEY"},
		"openai": {BaseURL: "https://gw.example/v1"},
	}, []ModelConfig{
		{ID: "work/llama", ContextWindow: 131072, Reasoning: &yes, MaxThinking: "medium", Prices: &Prices{Input: 1, Output: 2}},
		{ID: "openai/gpt-5", MaxTokens: 1000},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Resolve("work/llama", envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if m.API != APIOpenAICompletions || m.BaseURL != "https://llm.example/v1" || m.APIKeyEnv != "WORK_KEY" ||
		m.ContextWindow != 131072 || !m.Reasoning || m.MaxLevel != "medium" || m.Prices.Output != 2 {
		t.Errorf("%+v", m)
	}
	g, _ := r.Resolve("openai/gpt-5", envOf(nil))
	if g.BaseURL != "https://gw.example/v1" || g.MaxTokens != 1000 || g.ContextWindow != 400000 {
		t.Errorf("%+v", g)
	}
	err = r.Configure(map[string]ProviderConfig{"x": {API: "grpc", BaseURL: "u"}, "y": {}},
		[]ModelConfig{{ID: "zz/m"}, {ID: "bad"}, {ID: "openai/q", MinThinking: "huge"}})
	for _, want := range []string{`providers.x.api: unknown API "grpc"`, "providers.y: base_url is required",
		`models[0].id "zz/m": unknown provider "zz"`, `models[1].id "bad": expected provider/id`, `models[2].min_thinking "huge"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
}

func TestAPIKey(t *testing.T) {
	r := Builtin()
	openai, _ := r.Resolve("openai/gpt-5", envOf(nil))
	if _, err := APIKey(openai, envOf(nil)); err == nil ||
		err.Error() != "no API key for openai: set OPENAI_API_KEY, or configure providers.openai.api_key_env" {
		t.Errorf("err = %v", err)
	}
	if k, err := APIKey(openai, envOf(map[string]string{"OPENAI_API_KEY": " sk-1 "})); err != nil || k != "sk-1" {
		t.Errorf("key %q err %v", k, err)
	}
	ollama, _ := r.Resolve("ollama/x", envOf(nil))
	if k, err := APIKey(ollama, envOf(nil)); err != nil || k != "" {
		t.Errorf("key %q err %v", k, err)
	}
	local, _ := r.Resolve("openai/x", envOf(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}))
	if k, err := APIKey(local, envOf(nil)); err != nil || k != "" {
		t.Errorf("local server: key %q err %v", k, err)
	}
}

func TestHowToConfigure(t *testing.T) {
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"--model openai/", "--model anthropic/", "scripted/demo", "--script", "providers:", "models:", "api_key_env"} {
		if !strings.Contains(HowToConfigure, want) {
			t.Errorf("HowToConfigure lacks %q", want)
		}
	}
}

func TestNewUnknownAPI(t *testing.T) {
	_, err := New(Model{Provider: "x", ID: "y", API: "carrier-pigeon"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `no implementation of API "carrier-pigeon" for x/y`) {
		t.Errorf("err = %v", err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    map[string]string
		want time.Duration
		ok   bool
	}{
		{map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{nil, 0, false},
	} {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		got, ok := RetryAfter(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	for in, want := range map[string]string{
		`{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`:               "Incorrect API key",
		`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`: "invalid x-api-key",
		`{"error":"model not found"}`: "model not found",
		`{"message":"nope"}`:          "nope",
		"  Bad Gateway \n":            "Bad Gateway",
	} {
		if got := ErrorMessage([]byte(in)); got != want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestHTTPErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    HTTPError
		want string
	}{
		{HTTPError{Provider: "openai", KeyEnv: "OPENAI_API_KEY", Status: 401, Message: "bad key"},
			"authentication failed for openai (HTTP 401): check OPENAI_API_KEY: bad key"},
		{HTTPError{Provider: "work", Status: 403},
			"authentication failed for work (HTTP 403): check the API key configured for work"},
		{HTTPError{Provider: "openai", Status: 429, Message: "slow down", RetryAfter: time.Hour, HasRetryAfter: true},
			"openai: rate limited (HTTP 429): slow down (retry after 1h0m0s)"},
		{HTTPError{Provider: "anthropic", Status: 529, Message: "Overloaded"}, "anthropic: HTTP 529: Overloaded"},
		{HTTPError{Provider: "openai", Status: 500, Message: "oops"}, "openai: HTTP 500 Internal Server Error: oops"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestReadSSE(t *testing.T) {
	collect := func(s string) ([]SSEEvent, error) {
		var evs []SSEEvent
		err := ReadSSE(strings.NewReader(s), func(e SSEEvent) error {
			evs = append(evs, e)
			return nil
		})
		return evs, err
	}
	evs, err := collect(": keep-alive\n\nevent: ping\ndata: {}\n\ndata: a\ndata: b\r\n\r\ndata:[DONE]\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0] != (SSEEvent{"ping", "{}"}) || evs[1] != (SSEEvent{"", "a\nb"}) || evs[2].Data != "[DONE]" {
		t.Errorf("events %+v", evs)
	}
	if _, err := collect("data: {\"a\":"); !errors.Is(err, ErrStreamCut) {
		t.Errorf("unterminated event: err = %v", err)
	}
	_, err = collect2(io.MultiReader(strings.NewReader("data: x\n\n"), errReader{io.ErrUnexpectedEOF}))
	if !errors.Is(err, ErrStreamCut) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("broken connection: err = %v", err)
	}
	stop := errors.New("stop")
	if err := ReadSSE(strings.NewReader("data: 1\n\n"), func(SSEEvent) error { return stop }); err != stop {
		t.Errorf("callback error: %v", err)
	}
}

func collect2(r io.Reader) (int, error) {
	n := 0
	err := ReadSSE(r, func(SSEEvent) error { n++; return nil })
	return n, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
