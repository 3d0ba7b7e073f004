package provider

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
)

// ProviderInfo describes one provider: which API it speaks, where, and
// which environment variable holds its key.
type ProviderInfo struct {
	// Name is the provider name used in model references ("openai").
	Name string
	// API is the wire protocol of its models.
	API string
	// BaseURL is the default endpoint base.
	BaseURL string
	// BaseURLEnv names a variable that overrides BaseURL when set
	// (OPENAI_BASE_URL, ANTHROPIC_BASE_URL).
	BaseURLEnv string
	// APIKeyEnv names the variable holding the key; "" when none is needed.
	APIKeyEnv string
	// ThinkingFormat and MaxTokensField are the Model fields of the same name
	// given to its models.
	ThinkingFormat, MaxTokensField string
	// ContextWindow and MaxTokens are given to models the registry does not
	// know (0: 128000 and 16384).
	ContextWindow, MaxTokens int
}

// ProviderConfig is one entry of the providers: map in config.yaml. Empty
// fields keep the built-in values of a known provider.
type ProviderConfig struct {
	// API is "openai-completions" (default for new providers) or "anthropic-messages".
	API string `mapstructure:"api" yaml:"api" json:"api"`
	// BaseURL is the endpoint base, e.g. https://openrouter.ai/api/v1.
	BaseURL string `mapstructure:"base_url" yaml:"base_url" json:"base_url"`
	// APIKeyEnv names the environment variable that holds the key.
	APIKeyEnv string `mapstructure:"api_key_env" yaml:"api_key_env" json:"api_key_env"`
	// ThinkingFormat is "openai", "openrouter" or "none" (openai-completions only).
	ThinkingFormat string `mapstructure:"thinking_format" yaml:"thinking_format" json:"thinking_format"`
	// MaxTokensField is "max_completion_tokens" or "max_tokens" (openai-completions only).
	MaxTokensField string `mapstructure:"max_tokens_field" yaml:"max_tokens_field" json:"max_tokens_field"`
}

// ModelConfig is one entry of the models: list in config.yaml. Unset fields
// keep the values of a known model (or the provider's defaults).
type ModelConfig struct {
	// ID is the model reference "provider/id" (the id may contain '/').
	ID string `mapstructure:"id" yaml:"id" json:"id"`
	// ContextWindow and MaxTokens are in tokens.
	ContextWindow int `mapstructure:"context_window" yaml:"context_window" json:"context_window"`
	MaxTokens     int `mapstructure:"max_tokens" yaml:"max_tokens" json:"max_tokens"`
	// Reasoning says whether the model can think.
	Reasoning *bool `mapstructure:"reasoning" yaml:"reasoning" json:"reasoning"`
	// MinThinking and MaxThinking bound its efforts (minimal..xhigh).
	MinThinking string `mapstructure:"min_thinking" yaml:"min_thinking" json:"min_thinking"`
	MaxThinking string `mapstructure:"max_thinking" yaml:"max_thinking" json:"max_thinking"`
	// Prices are dollars per million tokens.
	Prices *Prices `mapstructure:"prices" yaml:"prices" json:"prices"`
	// BaseURL overrides the provider's endpoint for this model.
	BaseURL string `mapstructure:"base_url" yaml:"base_url" json:"base_url"`
	// Script is the script file of a scripted model.
	Script string `mapstructure:"script" yaml:"script" json:"script"`
}

// Registry holds the known providers and models.
type Registry struct {
	providers map[string]ProviderInfo
	provOrder []string
	aliases   map[string]string
	models    map[string]Model
	order     []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{providers: map[string]ProviderInfo{}, aliases: map[string]string{}, models: map[string]Model{}}
}

// AddProvider adds or replaces a provider.
func (r *Registry) AddProvider(p ProviderInfo) {
	if _, ok := r.providers[p.Name]; !ok {
		r.provOrder = append(r.provOrder, p.Name)
	}
	r.providers[p.Name] = p
}

// Provider returns a provider by name or alias.
func (r *Registry) Provider(name string) (ProviderInfo, bool) {
	if a, ok := r.aliases[name]; ok {
		name = a
	}
	p, ok := r.providers[name]
	return p, ok
}

// Providers returns the providers in the order they were added.
func (r *Registry) Providers() []ProviderInfo {
	out := make([]ProviderInfo, 0, len(r.provOrder))
	for _, n := range r.provOrder {
		out = append(out, r.providers[n])
	}
	return out
}

// ProviderNames returns the provider names, sorted.
func (r *Registry) ProviderNames() []string {
	names := slices.Clone(r.provOrder)
	slices.Sort(names)
	return names
}

// Add adds or replaces a model. Fields left empty (API, BaseURL, APIKeyEnv,
// ThinkingFormat, MaxTokensField) are taken from its provider when looked up.
func (r *Registry) Add(m Model) {
	ref := m.Ref()
	if _, ok := r.models[ref]; !ok {
		r.order = append(r.order, ref)
	}
	r.models[ref] = m
}

// Models returns every known model, provider defaults filled in, in the order added.
func (r *Registry) Models() []Model {
	out := make([]Model, 0, len(r.order))
	for _, ref := range r.order {
		out = append(out, r.fill(r.models[ref]))
	}
	return out
}

// SplitRef splits "provider/id" at the first '/'.
func SplitRef(ref string) (provider, id string, ok bool) {
	provider, id, ok = strings.Cut(ref, "/")
	if !ok || provider == "" || id == "" {
		return "", "", false
	}
	return provider, id, true
}

// Lookup returns a known model by "provider/id".
func (r *Registry) Lookup(ref string) (Model, bool) {
	p, id, ok := SplitRef(ref)
	if !ok {
		return Model{}, false
	}
	if a, ok := r.aliases[p]; ok {
		p = a
	}
	m, ok := r.models[p+"/"+id]
	if !ok {
		return Model{}, false
	}
	return r.fill(m), true
}

func (r *Registry) fill(m Model) Model {
	p, ok := r.providers[m.Provider]
	if !ok {
		return m
	}
	if m.API == "" {
		m.API = p.API
	}
	if m.BaseURL == "" {
		m.BaseURL = p.BaseURL
	}
	if m.APIKeyEnv == "" {
		m.APIKeyEnv = p.APIKeyEnv
	}
	if m.ThinkingFormat == "" {
		m.ThinkingFormat = p.ThinkingFormat
	}
	if m.MaxTokensField == "" {
		m.MaxTokensField = p.MaxTokensField
	}
	return m
}

// Resolve returns the model a reference names: a known model, or for an
// unknown id of a known provider a generic model of that provider (so
// "openai/anything" works). A bare id is accepted when exactly one known
// model has it. The provider's base-URL variable (OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL), when set in env, overrides the base URL. A nil env
// means os.Getenv.
func (r *Registry) Resolve(ref string, env func(string) string) (Model, error) {
	if env == nil {
		env = os.Getenv
	}
	pname, id, ok := SplitRef(ref)
	if !ok {
		var found []Model
		for _, m := range r.Models() {
			if m.ID == ref {
				found = append(found, m)
			}
		}
		if len(found) != 1 || ref == "" {
			return Model{}, fmt.Errorf("model %q: expected provider/id, e.g. openai/gpt-5 (providers: %s)",
				ref, strings.Join(r.ProviderNames(), ", "))
		}
		pname, id = found[0].Provider, found[0].ID
	}
	if a, ok := r.aliases[pname]; ok {
		pname = a
	}
	p, ok := r.providers[pname]
	if !ok {
		return Model{}, fmt.Errorf("unknown provider %q in model %q (known providers: %s)",
			pname, ref, strings.Join(r.ProviderNames(), ", "))
	}
	m, ok := r.models[pname+"/"+id]
	if !ok {
		m = genericModel(p, id)
	}
	m = r.fill(m)
	if p.BaseURLEnv != "" {
		if v := strings.TrimSpace(env(p.BaseURLEnv)); v != "" {
			m.BaseURL = v
		}
	}
	return m, nil
}

// CheckKey reports the error APIKey gives when a request carries no key
// although m needs one (providers call it before sending).
func CheckKey(m Model, key string) error {
	if key != "" {
		return nil
	}
	_, err := APIKey(m, func(string) string { return "" })
	return err
}

// genericModel describes an id the registry does not know, from its
// provider's defaults and the id's family.
func genericModel(p ProviderInfo, id string) Model {
	m := Model{Provider: p.Name, ID: id, ContextWindow: p.ContextWindow, MaxTokens: p.MaxTokens}
	if m.ContextWindow == 0 {
		m.ContextWindow = 128000
	}
	if m.MaxTokens == 0 {
		m.MaxTokens = 16384
	}
	lid := strings.ToLower(id)
	switch p.API {
	case APIAnthropicMessages:
		m.Reasoning = !strings.Contains(lid, "claude-3-5") && !strings.Contains(lid, "claude-3-opus") &&
			!strings.Contains(lid, "claude-3-sonnet") && !strings.Contains(lid, "claude-3-haiku")
	case APIOpenAICompletions:
		if p.Name == "openai" {
			for _, pre := range []string{"gpt-5", "o1", "o3", "o4"} {
				if strings.HasPrefix(lid, pre) {
					m.Reasoning, m.MaxLevel = true, LevelHigh
				}
			}
		}
	case APIScripted:
		m.Reasoning, m.MaxLevel = true, LevelHigh
	}
	return m
}

// Configure applies the providers: and models: sections of config.yaml:
// providers are added or changed (a new one speaks openai-completions unless
// it says otherwise), models added or changed field by field.
func (r *Registry) Configure(providers map[string]ProviderConfig, models []ModelConfig) error {
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	slices.Sort(names)
	var errs []error
	for _, n := range names {
		c := providers[n]
		p, ok := r.Provider(n)
		if !ok {
			p = ProviderInfo{Name: n, API: APIOpenAICompletions}
		}
		if c.API != "" {
			if c.API != APIOpenAICompletions && c.API != APIAnthropicMessages && c.API != APIScripted {
				errs = append(errs, fmt.Errorf("providers.%s.api: unknown API %q (use %s or %s)",
					n, c.API, APIOpenAICompletions, APIAnthropicMessages))
				continue
			}
			p.API = c.API
		}
		if c.BaseURL != "" {
			p.BaseURL = c.BaseURL
		}
		if c.APIKeyEnv != "" {
			p.APIKeyEnv = c.APIKeyEnv
		}
		if c.ThinkingFormat != "" {
			p.ThinkingFormat = c.ThinkingFormat
		}
		if c.MaxTokensField != "" {
			p.MaxTokensField = c.MaxTokensField
		}
		if p.BaseURL == "" && p.API != APIScripted {
			errs = append(errs, fmt.Errorf("providers.%s: base_url is required", n))
			continue
		}
		r.AddProvider(p)
	}
	for i, c := range models {
		pname, id, ok := SplitRef(c.ID)
		if !ok {
			errs = append(errs, fmt.Errorf("models[%d].id %q: expected provider/id", i, c.ID))
			continue
		}
		if a, ok := r.aliases[pname]; ok {
			pname = a
		}
		p, ok := r.providers[pname]
		if !ok {
			errs = append(errs, fmt.Errorf("models[%d].id %q: unknown provider %q (known: %s)",
				i, c.ID, pname, strings.Join(r.ProviderNames(), ", ")))
			continue
		}
		m, ok := r.models[pname+"/"+id]
		if !ok {
			m = genericModel(p, id)
		}
		if c.ContextWindow > 0 {
			m.ContextWindow = c.ContextWindow
		}
		if c.MaxTokens > 0 {
			m.MaxTokens = c.MaxTokens
		}
		if c.Reasoning != nil {
			m.Reasoning = *c.Reasoning
		}
		for _, lv := range []struct {
			v   string
			dst *string
			key string
		}{{c.MinThinking, &m.MinLevel, "min_thinking"}, {c.MaxThinking, &m.MaxLevel, "max_thinking"}} {
			if lv.v == "" {
				continue
			}
			if effortRank(lv.v) < 0 {
				errs = append(errs, fmt.Errorf("models[%d].%s %q: use one of %s", i, lv.key, lv.v, strings.Join(efforts, ", ")))
				continue
			}
			*lv.dst = lv.v
		}
		if c.Prices != nil {
			m.Prices = *c.Prices
		}
		if c.BaseURL != "" {
			m.BaseURL = c.BaseURL
		}
		if c.Script != "" {
			m.Script = c.Script
		}
		r.Add(m)
	}
	return errors.Join(errs...)
}

// APIKey returns the key for m from env (nil means os.Getenv). A model that
// needs none gets ""; so does one whose base URL is on this machine (a local
// server) when the variable is unset. Otherwise a missing key is an error
// naming the variable to set.
func APIKey(m Model, env func(string) string) (string, error) {
	if m.APIKeyEnv == "" {
		return "", nil
	}
	if env == nil {
		env = os.Getenv
	}
	if v := strings.TrimSpace(env(m.APIKeyEnv)); v != "" {
		return v, nil
	}
	if isLocal(m.BaseURL) {
		return "", nil
	}
	return "", fmt.Errorf("no API key for %s: set %s, or configure providers.%s.api_key_env",
		m.Provider, m.APIKeyEnv, m.Provider)
}

func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Builtin returns a registry of the built-in providers and models. Prices
// are list prices in dollars per million tokens.
func Builtin() *Registry {
	r := NewRegistry()
	for _, p := range []ProviderInfo{
		{Name: "openai", API: APIOpenAICompletions, BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL",
			APIKeyEnv: "OPENAI_API_KEY", ContextWindow: 128000, MaxTokens: 16384},
		{Name: "anthropic", API: APIAnthropicMessages, BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL",
			APIKeyEnv: "ANTHROPIC_API_KEY", ContextWindow: 200000, MaxTokens: 32000},
		{Name: "openrouter", API: APIOpenAICompletions, BaseURL: "https://openrouter.ai/api/v1", BaseURLEnv: "OPENROUTER_BASE_URL",
			APIKeyEnv: "OPENROUTER_API_KEY", ThinkingFormat: "openrouter"},
		{Name: "ollama", API: APIOpenAICompletions, BaseURL: "http://localhost:11434/v1", BaseURLEnv: "OLLAMA_BASE_URL",
			MaxTokensField: "max_tokens"},
		{Name: "lmstudio", API: APIOpenAICompletions, BaseURL: "http://localhost:1234/v1", BaseURLEnv: "LMSTUDIO_BASE_URL",
			MaxTokensField: "max_tokens"},
		{Name: "vllm", API: APIOpenAICompletions, BaseURL: "http://localhost:8000/v1", BaseURLEnv: "VLLM_BASE_URL"},
		{Name: "llamacpp", API: APIOpenAICompletions, BaseURL: "http://localhost:8080/v1", BaseURLEnv: "LLAMACPP_BASE_URL",
			MaxTokensField: "max_tokens"},
		{Name: "scripted", API: APIScripted, ContextWindow: 200000, MaxTokens: 8192},
	} {
		r.AddProvider(p)
	}
	r.aliases["lm-studio"] = "lmstudio"
	r.aliases["llama.cpp"] = "llamacpp"
	r.aliases["llama-cpp"] = "llamacpp"

	for _, m := range []Model{
		{Provider: "openai", ID: "gpt-5", ContextWindow: 400000, MaxTokens: 128000, Reasoning: true,
			MinLevel: LevelMinimal, MaxLevel: LevelHigh, Prices: Prices{Input: 1.25, Output: 10, CacheRead: 0.125}},
		{Provider: "openai", ID: "gpt-5-mini", ContextWindow: 400000, MaxTokens: 128000, Reasoning: true,
			MinLevel: LevelMinimal, MaxLevel: LevelHigh, Prices: Prices{Input: 0.25, Output: 2, CacheRead: 0.025}},
		{Provider: "openai", ID: "gpt-4.1", ContextWindow: 1047576, MaxTokens: 32768,
			Prices: Prices{Input: 2, Output: 8, CacheRead: 0.5}},
		{Provider: "openai", ID: "gpt-4o-mini", ContextWindow: 128000, MaxTokens: 16384,
			Prices: Prices{Input: 0.15, Output: 0.6, CacheRead: 0.075}},
		{Provider: "anthropic", ID: "claude-sonnet-4-5", ContextWindow: 200000, MaxTokens: 64000, Reasoning: true,
			MinLevel: LevelMinimal, MaxLevel: LevelXHigh, Prices: Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
		{Provider: "anthropic", ID: "claude-opus-4-1", ContextWindow: 200000, MaxTokens: 32000, Reasoning: true,
			MinLevel: LevelMinimal, MaxLevel: LevelHigh, Prices: Prices{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}},
		{Provider: "anthropic", ID: "claude-haiku-4-5", ContextWindow: 200000, MaxTokens: 64000, Reasoning: true,
			MinLevel: LevelMinimal, MaxLevel: LevelXHigh, Prices: Prices{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}},
		{Provider: "scripted", ID: "demo", ContextWindow: 200000, MaxTokens: 8192, Reasoning: true,
			MinLevel: LevelMinimal, MaxLevel: LevelHigh},
	} {
		r.Add(m)
	}
	return r
}

// HowToConfigure is shown when no model provider is configured.
const HowToConfigure = `No model provider is configured. You can still browse, export and resume sessions.

Quick start, with the variables the official SDKs read:
  OPENAI_API_KEY=sk-...          xcsh --model openai/gpt-5
  ANTHROPIC_API_KEY=sk-ant-...   xcsh --model anthropic/claude-sonnet-4-5
  OPENAI_BASE_URL / ANTHROPIC_BASE_URL point those at another endpoint
  (e.g. OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama).
Local servers need no key:  --model ollama/<id>, lmstudio/<id>, vllm/<id>, llamacpp/<id>
OpenRouter:                 OPENROUTER_API_KEY=... xcsh --model openrouter/<vendor>/<id>
No model at all:            xcsh --model scripted/demo   (a built-in scripted demo;
                            --script <file> plays your own script)

Or configure providers and models in <agent dir>/config.yaml (~/.xcsh/agent/config.yaml):

  model: openrouter/qwen/qwen3-coder
  providers:
    openrouter:                      # built in; listed here only to change it
      api_key_env: OPENROUTER_API_KEY
    work:                            # any OpenAI-compatible endpoint
      api: openai-completions        # or anthropic-messages
      base_url: https://llm.example.com/v1
      api_key_env: WORK_LLM_KEY
  models:
    - id: openrouter/qwen/qwen3-coder
      context_window: 262144
      max_tokens: 65536
      reasoning: false
      prices: {input: 0.4, output: 1.6}    # dollars per million tokens
    - id: work/llama-3.3-70b
      context_window: 131072
`
