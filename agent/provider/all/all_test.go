package all_test

import (
	"testing"

	"github.com/xcsh-dev/xcsh/agent/provider"
	_ "github.com/xcsh-dev/xcsh/agent/provider/all"
)

// TestNewPicksByAPI checks that every built-in model gets an implementation.
func TestNewPicksByAPI(t *testing.T) {
	r := provider.Builtin()
	for _, m := range r.Models() {
		p, err := provider.New(m, provider.Options{})
		if err != nil || p == nil {
			t.Errorf("%s: %v", m.Ref(), err)
		}
	}
	for _, ref := range []string{"ollama/qwen3", "openrouter/x/y", "anthropic/claude-next"} {
		m, err := r.Resolve(ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := provider.New(m, provider.Options{}); err != nil {
			t.Errorf("%s: %v", ref, err)
		}
	}
}
