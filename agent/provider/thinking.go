package provider

// Thinking levels. "off" is a level of the selector; the other five are
// efforts a provider can be asked for.
const (
	LevelOff     = "off"
	LevelMinimal = "minimal"
	LevelLow     = "low"
	LevelMedium  = "medium"
	LevelHigh    = "high"
	LevelXHigh   = "xhigh"
)

// efforts are the provider-facing levels, weakest first.
var efforts = []string{LevelMinimal, LevelLow, LevelMedium, LevelHigh, LevelXHigh}

func effortRank(level string) int {
	for i, e := range efforts {
		if e == level {
			return i
		}
	}
	return -1
}

// IsLevel reports whether s is "off" or one of the five efforts.
func IsLevel(s string) bool { return s == LevelOff || effortRank(s) >= 0 }

// Levels returns the efforts the model supports, weakest first (none when it
// cannot reason). Unset bounds default to minimal and, for the Anthropic and
// OpenAI-compatible APIs, xhigh (high for any other API).
func Levels(m Model) []string {
	if !m.Reasoning {
		return nil
	}
	lo, hi := effortRank(m.MinLevel), effortRank(m.MaxLevel)
	if lo < 0 {
		lo = 0
	}
	if hi < 0 {
		hi = effortRank(LevelHigh)
		if m.API == "anthropic-messages" || m.API == "openai-completions" {
			hi = effortRank(LevelXHigh)
		}
	}
	if hi < lo {
		hi = lo
	}
	return efforts[lo : hi+1]
}

// ClampThinking returns the effective level for a requested one: "off" stays
// "off"; an unknown or empty request, or any effort on a model that cannot
// reason, gives "" (no level, stored as null); otherwise the request is
// clamped into the model's supported range (the highest supported level not
// above the request, else the lowest supported).
func ClampThinking(m Model, level string) string {
	if level == LevelOff {
		return LevelOff
	}
	r := effortRank(level)
	levels := Levels(m)
	if r < 0 || len(levels) == 0 {
		return ""
	}
	best := ""
	for _, l := range levels {
		if effortRank(l) <= r {
			best = l
		}
	}
	if best == "" {
		best = levels[0]
	}
	return best
}

// Effort is the level to send to a provider: "" for "off" or no level.
func Effort(level string) string {
	if effortRank(level) < 0 {
		return ""
	}
	return level
}

// ThinkingBudget is the Anthropic budget_tokens default for an effort (0 for none).
func ThinkingBudget(effort string) int {
	switch effort {
	case LevelMinimal:
		return 1024
	case LevelLow:
		return 4096
	case LevelMedium:
		return 8192
	case LevelHigh:
		return 16384
	case LevelXHigh:
		return 32768
	}
	return 0
}

// SplitThinkingSuffix splits a trailing ":<level>" off a model reference when
// it names a thinking level ("anthropic/claude-sonnet-4-5:high").
func SplitThinkingSuffix(ref string) (string, string) {
	for i := len(ref) - 1; i >= 0; i-- {
		if ref[i] == ':' {
			if IsLevel(ref[i+1:]) {
				return ref[:i], ref[i+1:]
			}
			break
		}
	}
	return ref, ""
}
