package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/session"
)

// compactPrompt asks the model for the summary that replaces older messages.
const compactPrompt = `You are compacting a coding session so it fits the model's context window.
Summarise the conversation below for the agent that continues it: the user's goals and constraints,
decisions made, files read and changed (with paths), commands run and their outcomes, what is done,
what is open, and anything the next step depends on. Be specific and complete; omit pleasantries.
Start with one line of at most 80 characters that names the work, then a blank line, then the summary.`

// keepRecent is how many of the most recent user turns a compaction keeps verbatim.
const keepRecent = 2

// ErrNothingToCompact is returned when the context is too short to compact.
var ErrNothingToCompact = errors.New("nothing to compact: the context holds fewer than three user turns")

// Compact summarises the older part of the context with the model into a
// compaction entry whose firstKeptEntryId is the first of the last two user
// turns. instructions, when set, are added to the prompt.
func (a *Agent) Compact(ctx context.Context, instructions string) (string, error) {
	if a.Busy() {
		return "", ErrBusy
	}
	path := a.sm.BranchPath("")
	// find the user messages on the path after the last compaction's kept start
	var users []int
	for i, e := range path {
		if e.Type == session.TypeMessage && jsonRole(e.Get("message")) == "user" {
			users = append(users, i)
		}
	}
	if len(users) <= keepRecent {
		return "", ErrNothingToCompact
	}
	firstKept := path[users[len(users)-keepRecent]]
	before := a.sm.BuildContext()
	tokensBefore := a.contextTokens(before)

	// the messages to summarise: the context up to the first kept entry
	var older []json.RawMessage
	cut := session.BuildContext(a.sm.Entries(), nil, session.LeafAt(firstKept.ParentID))
	older = cut.Messages
	var transcript strings.Builder
	for _, m := range older {
		role, text := session.MessageSummary(m)
		fmt.Fprintf(&transcript, "## %s\n%s\n\n", role, text)
	}
	prompt := compactPrompt
	if instructions != "" {
		prompt += "\n\nAdditional instructions: " + instructions
	}
	req := provider.Request{
		Model:  a.cfg.Model,
		System: prompt,
		Messages: []provider.Message{{Role: "user", Content: []provider.Block{{Type: provider.BlockText,
			Text: "<conversation>\n" + transcript.String() + "</conversation>"}}}},
		APIKey: a.cfg.APIKey,
	}
	a.setState(StateBusy)
	defer a.setState(StateIdle)
	msg, err := a.cfg.Provider.Stream(ctx, req, func(provider.Event) {})
	if err != nil {
		return "", fmt.Errorf("compaction: %w", err)
	}
	summary := strings.TrimSpace(msg.Text())
	if summary == "" {
		return "", errors.New("compaction: the model returned an empty summary")
	}
	short := strings.TrimSpace(strings.SplitN(summary, "\n", 2)[0])
	if len([]rune(short)) > 80 {
		short = string([]rune(short)[:79]) + "…"
	}
	sRaw, _ := json.Marshal(short)
	kRaw, _ := json.Marshal(firstKept.ID)
	tRaw, _ := json.Marshal(tokensBefore)
	id, err := a.sm.AppendCompaction(session.Compaction{Summary: summary, ShortSummary: sRaw, FirstKeptEntryID: kRaw, TokensBefore: tRaw})
	if err != nil {
		return id, err
	}
	_ = a.bus.Emit(ev(EvSessionCompact, "compactionEntryId", id, "tokensBefore", tokensBefore))
	return id, nil
}

// contextTokens estimates the tokens of a context: the last assistant
// message's reported usage when there is one, else a quarter of the text.
func (a *Agent) contextTokens(c *session.Context) int {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		var m struct {
			Role  string          `json:"role"`
			Usage *provider.Usage `json:"usage"`
		}
		if json.Unmarshal(c.Messages[i], &m) == nil && m.Role == "assistant" && m.Usage != nil && m.Usage.TotalTokens > 0 {
			// the messages after it are estimated
			rest := make([][]byte, 0, len(c.Messages)-i-1)
			for _, x := range c.Messages[i+1:] {
				rest = append(rest, x)
			}
			return m.Usage.Input + m.Usage.CacheRead + m.Usage.Output + session.EstimateTokens(rest)
		}
	}
	all := make([][]byte, len(c.Messages))
	for i, x := range c.Messages {
		all[i] = x
	}
	return session.EstimateTokens(all)
}

// maybeCompact compacts when the context nears the model's window.
func (a *Agent) maybeCompact(ctx context.Context) {
	share := a.cfg.AutoCompact
	if share < 0 || a.cfg.Model.ContextWindow <= 0 || ctx.Err() != nil {
		return
	}
	if share == 0 {
		share = 0.85
	}
	if float64(a.contextTokens(a.sm.BuildContext())) < share*float64(a.cfg.Model.ContextWindow) {
		return
	}
	a.mu.Lock()
	a.busy = false // Compact refuses to run during a turn; the turn is over
	a.mu.Unlock()
	_, _ = a.Compact(ctx, "")
	a.mu.Lock()
	a.busy = true
	a.mu.Unlock()
}
