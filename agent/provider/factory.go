package provider

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// API names.
const (
	APIOpenAICompletions = "openai-completions"
	APIAnthropicMessages = "anthropic-messages"
	APIScripted          = "scripted"
)

// Factory builds the provider for a model.
type Factory func(m Model, o Options) (Provider, error)

var (
	factoriesMu sync.RWMutex
	factories   = map[string]Factory{}
)

// Register makes an implementation available to New for one API. The
// implementations register themselves when their package is imported;
// import agent/provider/all to get every built-in one.
func Register(api string, f Factory) {
	factoriesMu.Lock()
	defer factoriesMu.Unlock()
	factories[api] = f
}

// New returns the provider for m, chosen by m.API.
func New(m Model, o Options) (Provider, error) {
	factoriesMu.RLock()
	f := factories[m.API]
	var known []string
	for k := range factories {
		known = append(known, k)
	}
	factoriesMu.RUnlock()
	if f == nil {
		sort.Strings(known)
		return nil, fmt.Errorf("no implementation of API %q for %s (registered: %s; import agent/provider/all)",
			m.API, m.Ref(), strings.Join(known, ", "))
	}
	return f(m, o)
}

// ModelFor returns the request's model, or fallback when the request names none.
func ModelFor(req Request, fallback Model) Model {
	if req.Model.Provider != "" || req.Model.ID != "" {
		return req.Model
	}
	return fallback
}
