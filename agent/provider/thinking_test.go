package provider

import "testing"

func TestClampThinking(t *testing.T) {
	reasoning := Model{API: APIAnthropicMessages, Reasoning: true}
	gpt5 := Model{API: APIOpenAICompletions, Reasoning: true, MinLevel: LevelMinimal, MaxLevel: LevelHigh}
	mid := Model{Reasoning: true, MinLevel: LevelLow, MaxLevel: LevelMedium}
	scripted := Model{API: APIScripted, Reasoning: true}
	plain := Model{API: APIOpenAICompletions}
	for _, tc := range []struct {
		name  string
		model Model
		level string
		want  string
	}{
		{"off stays off", reasoning, "off", "off"},
		{"off stays off without reasoning", plain, "off", "off"},
		{"effort without reasoning is null", plain, "high", ""},
		{"empty is null", reasoning, "", ""},
		{"inherit is null", reasoning, "inherit", ""},
		{"unknown is null", reasoning, "max", ""},
		{"in range kept", reasoning, "medium", "medium"},
		{"xhigh allowed by default for anthropic", reasoning, "xhigh", "xhigh"},
		{"xhigh clamped to max", gpt5, "xhigh", "high"},
		{"minimal kept", gpt5, "minimal", "minimal"},
		{"below min goes to lowest", mid, "minimal", "low"},
		{"above max goes to highest", mid, "high", "medium"},
		{"default max high for other APIs", scripted, "xhigh", "high"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClampThinking(tc.model, tc.level); got != tc.want {
				t.Errorf("ClampThinking(%q) = %q, want %q", tc.level, got, tc.want)
			}
		})
	}
}

func TestEffort(t *testing.T) {
	for level, want := range map[string]string{"off": "", "": "", "minimal": "minimal", "xhigh": "xhigh", "bogus": ""} {
		if got := Effort(level); got != want {
			t.Errorf("Effort(%q) = %q, want %q", level, got, want)
		}
	}
}

func TestSplitThinkingSuffix(t *testing.T) {
	for _, tc := range []struct{ in, ref, level string }{
		{"anthropic/claude-sonnet-4-5:high", "anthropic/claude-sonnet-4-5", "high"},
		{"ollama/qwen3:8b", "ollama/qwen3:8b", ""},
		{"openai/gpt-5:off", "openai/gpt-5", "off"},
		{"openai/gpt-5", "openai/gpt-5", ""},
	} {
		ref, level := SplitThinkingSuffix(tc.in)
		if ref != tc.ref || level != tc.level {
			t.Errorf("SplitThinkingSuffix(%q) = %q, %q; want %q, %q", tc.in, ref, level, tc.ref, tc.level)
		}
	}
}
