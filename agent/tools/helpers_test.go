package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

// call runs the named built-in tool with args (a JSON object) in env.
func call(t *testing.T, env Env, name, args string) Result {
	t.Helper()
	return callOpts(t, Options{}, env, name, args)
}

func callOpts(t *testing.T, o Options, env Env, name, args string) Result {
	t.Helper()
	tool := ByName(Builtin(o), name)
	if tool == nil {
		t.Fatalf("no tool %q", name)
	}
	return tool.Run(context.Background(), env, json.RawMessage(args), nil)
}

// jsonArgs marshals an argument object.
func jsonArgs(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeFile creates dir/name with content and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantOK fails unless r is a success, and returns its text.
func wantOK(t *testing.T, r Result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", r.Text())
	}
	return r.Text()
}

// wantErr fails unless r is an error whose text contains every part.
func wantErr(t *testing.T, r Result, parts ...string) string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error result, got success: %s", r.Text())
	}
	if len(r.Content) == 0 || r.Content[0].Type != provider.BlockText {
		t.Fatalf("error result has no text block: %+v", r.Content)
	}
	for _, p := range parts {
		if !strings.Contains(r.Text(), p) {
			t.Errorf("error text lacks %q:\n%s", p, r.Text())
		}
	}
	return r.Text()
}

// details decodes r.Details into a generic value.
func details(t *testing.T, r Result) map[string]any {
	t.Helper()
	if r.Details == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(r.Details, &m); err != nil {
		t.Fatalf("details are not a JSON object: %v: %s", err, r.Details)
	}
	return m
}

// dig walks nested objects by keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// numberedLines is "line 1\nline 2\n..." with n lines and a final newline.
func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}
