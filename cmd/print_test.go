package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeOpenAI is a local server speaking the Chat Completions streaming wire
// format. Each request gets the next reply; a reply that names a tool makes
// the model call it.
type fakeOpenAI struct {
	mu      sync.Mutex
	replies []fakeReply
	bodies  []map[string]any
	status  int
}

type fakeReply struct {
	text     string
	toolName string
	toolArgs string
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	f.mu.Lock()
	f.bodies = append(f.bodies, m)
	status := f.status
	var rep fakeReply
	if len(f.replies) > 0 {
		rep, f.replies = f.replies[0], f.replies[1:]
	} else {
		rep = fakeReply{text: "nothing more"}
	}
	f.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprint(w, `{"error":{"message":"invalid api key","type":"invalid_request_error"}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	chunk := func(v string) { fmt.Fprintf(bw, "data: %s\n\n", v) }
	if rep.toolName != "" {
		args, _ := json.Marshal(rep.toolArgs)
		chunk(`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_9","type":"function","function":{"name":"` + rep.toolName + `","arguments":""}}]}}]}`)
		chunk(`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + string(args) + `}}]}}]}`)
		chunk(`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	} else {
		for _, part := range strings.SplitAfter(rep.text, " ") {
			p, _ := json.Marshal(part)
			chunk(`{"id":"c1","choices":[{"index":0,"delta":{"content":` + string(p) + `}}]}`)
		}
		chunk(`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	}
	chunk(`{"id":"c1","choices":[],"usage":{"prompt_tokens":42,"completion_tokens":7,"total_tokens":49}}`)
	fmt.Fprint(bw, "data: [DONE]\n\n")
	_ = bw.Flush()
}

func startFakeOpenAI(t *testing.T, replies ...fakeReply) (*fakeOpenAI, *httptest.Server) {
	t.Helper()
	f := &fakeOpenAI{replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestPrintMode(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	fake, srv := startFakeOpenAI(t,
		fakeReply{toolName: "bash", toolArgs: `{"command":"echo from-the-tool"}`},
		fakeReply{text: "The command printed from-the-tool."},
		fakeReply{text: "Second answer."},
	)
	e.extra = []string{"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=test-key"}

	r := e.run(proj, "", "-p", "--model", "openai/gpt-test", "run", "the", "tool")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "The command printed from-the-tool." {
		t.Fatalf("print mode: %s", r)
	}
	// the tool result went back to the model
	fake.mu.Lock()
	bodies := append([]map[string]any(nil), fake.bodies...)
	fake.mu.Unlock()
	if len(bodies) != 2 || !strings.Contains(fmt.Sprint(bodies[1]["messages"]), "from-the-tool") {
		t.Fatalf("second request did not carry the tool result: %v", bodies)
	}
	files := sessionFiles(t, e.sessionDir(proj))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	// the session the agent wrote passes `xcsh sessions context`
	ctx := e.mustRun(proj, "sessions", "context", files[0], "--json")
	var c struct {
		Messages []map[string]any `json:"messages"`
		Models   map[string]string
	}
	if err := json.Unmarshal([]byte(ctx), &c); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range c.Messages {
		roles = append(roles, fmt.Sprint(m["role"]))
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,assistant" || c.Models["default"] != "openai/gpt-test" {
		t.Fatalf("context: roles %v models %v", roles, c.Models)
	}
	usage := c.Messages[3]["usage"].(map[string]any)
	if usage["input"].(float64) != 42 || usage["output"].(float64) != 7 {
		t.Errorf("usage %v", usage)
	}

	// -c continues this terminal's... (no terminal here: the newest session of the directory), prompt on stdin, --json events
	r = e.run(proj, "and again", "-p", "-c", "--json", "--model", "openai/gpt-test")
	if r.code != 0 {
		t.Fatalf("-p -c: %s", r)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		types = append(types, fmt.Sprint(ev["type"]))
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"session_start", "agent_start", "message_end", "turn_end", "agent_end", "session_shutdown"} {
		if !strings.Contains(joined, want) {
			t.Errorf("event %s missing: %s", want, joined)
		}
	}
	if files := sessionFiles(t, e.sessionDir(proj)); len(files) != 1 {
		t.Errorf("-c made a new session: %v", files)
	}
	fake.mu.Lock()
	third := fake.bodies[2]
	fake.mu.Unlock()
	if n := len(third["messages"].([]any)); n < 6 {
		t.Errorf("-c request carried %d messages, want the whole conversation", n)
	}
}

func TestPrintModeErrors(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	fake, srv := startFakeOpenAI(t)
	fake.mu.Lock()
	fake.status = http.StatusUnauthorized
	fake.mu.Unlock()
	tests := []struct {
		name  string
		extra []string
		args  []string
		code  int
		want  string
	}{
		{"401", []string{"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=bad"}, []string{"-p", "--model", "openai/gpt-test", "hi"}, 1, "authentication failed for openai (HTTP 401)"},
		{"missing key", nil, []string{"-p", "--model", "openai/gpt-5", "hi"}, 1, "OPENAI_API_KEY"},
		{"no model", nil, []string{"-p", "hi"}, 1, "No model provider is configured"},
		{"no prompt", nil, []string{"-p", "--model", "scripted/demo"}, 2, "-p needs a prompt"},
		{"bad thinking", nil, []string{"-p", "--model", "scripted/demo", "--thinking", "turbo", "hi"}, 2, `--thinking "turbo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.extra = tt.extra
			r := e.run(proj, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("want exit %d with %q: %s", tt.code, tt.want, r)
			}
		})
	}
}

func TestPrintModeScriptedDemo(t *testing.T) {
	e := newTestEnv(t)
	proj := e.dir("proj")
	r := e.run(proj, "", "-p", "--model", "scripted/demo", "fix the greeting")
	if r.code != 0 || !strings.Contains(r.stdout, "Hello, xcsh!") {
		t.Fatalf("scripted demo: %s", r)
	}
	// its tools really ran in the project
	out := e.mustRun(proj, "sessions", "show", "--transcript", sessionFiles(t, e.sessionDir(proj))[0])
	if !strings.Contains(out, "scripted") && !strings.Contains(out, "Model:") {
		t.Errorf("show: %s", out)
	}
}
