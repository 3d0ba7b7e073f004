package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/session"
)

// showInfo is what `xcsh sessions show` reports.
type showInfo struct {
	Path            string         `json:"path"`
	Header          *session.Entry `json:"header"`
	ID              string         `json:"id"`
	Title           string         `json:"title,omitempty"`
	Cwd             string         `json:"cwd"`
	Entries         int            `json:"entries"`
	Messages        int            `json:"messages"`
	Leaf            string         `json:"leaf,omitempty"`
	ContextMessages int            `json:"contextMessages"`
	ContextTokens   int            `json:"contextTokens"`
	Model           string         `json:"model,omitempty"`
	ThinkingLevel   string         `json:"thinkingLevel"`
}

func buildShowInfo(m *session.Manager) (showInfo, *session.Context) {
	ctx := m.BuildContext()
	msgs := 0
	for _, e := range m.Entries() {
		if e.Type == session.TypeMessage {
			msgs++
		}
	}
	leaf, _ := m.LeafID()
	raw := make([][]byte, len(ctx.Messages))
	for i, x := range ctx.Messages {
		raw[i] = x
	}
	var level string
	_ = json.Unmarshal(ctx.ThinkingLevel, &level)
	return showInfo{
		Path:            m.SessionFile(),
		Header:          m.Header(),
		ID:              m.SessionID(),
		Title:           m.SessionName(),
		Cwd:             m.Cwd(),
		Entries:         len(m.Entries()),
		Messages:        msgs,
		Leaf:            leaf,
		ContextMessages: len(ctx.Messages),
		ContextTokens:   session.EstimateTokens(raw),
		Model:           ctx.Model("default"),
		ThinkingLevel:   level,
	}, ctx
}

func printShow(w io.Writer, s showInfo) {
	title := s.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(w, "Session:   %s\n", s.Path)
	fmt.Fprintf(w, "Id:        %s\n", s.ID)
	fmt.Fprintf(w, "Title:     %s\n", title)
	fmt.Fprintf(w, "Cwd:       %s\n", s.Cwd)
	fmt.Fprintf(w, "Entries:   %d (%d messages)\n", s.Entries, s.Messages)
	leaf := s.Leaf
	if leaf == "" {
		leaf = "(none)"
	}
	fmt.Fprintf(w, "Leaf:      %s\n", leaf)
	fmt.Fprintf(w, "Context:   %d messages, ~%d tokens\n", s.ContextMessages, s.ContextTokens)
	if s.Model != "" {
		fmt.Fprintf(w, "Model:     %s\n", s.Model)
	}
	fmt.Fprintf(w, "Thinking:  %s\n", s.ThinkingLevel)
}

// printTranscript writes the messages as a readable transcript.
func printTranscript(w io.Writer, msgs []json.RawMessage) {
	for _, m := range msgs {
		role, text := session.MessageSummary(m)
		fmt.Fprintf(w, "## %s\n", roleTitle(role))
		if text != "" {
			fmt.Fprintln(w, strings.TrimRight(text, "\n"))
		}
		fmt.Fprintln(w)
	}
}

func roleTitle(role string) string {
	switch role {
	case "user":
		return "User"
	case "assistant":
		return "Assistant"
	case "toolResult":
		return "Tool result"
	case "compactionSummary":
		return "Compaction summary"
	case "branchSummary":
		return "Branch summary"
	case "custom":
		return "Custom"
	case "":
		return "(no role)"
	}
	return role
}

func (a *app) sessionsShow() *cobra.Command {
	var asJSON, transcript bool
	c := &cobra.Command{
		Use:   "show <file>",
		Short: "Show a session: header, title, counts, leaf and the size of its context",
		Args:  exactArgs(1, "a session file"),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := a.load(args[0])
			if err != nil {
				return err
			}
			return a.show(m, asJSON, transcript)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&transcript, "transcript", false, "add a readable transcript of the context")
	return c
}

func (a *app) show(m *session.Manager, asJSON, transcript bool) error {
	info, ctx := buildShowInfo(m)
	if asJSON {
		if transcript {
			return writeJSON(a.out, struct {
				showInfo
				Context *session.Context `json:"context"`
			}{info, ctx})
		}
		return writeJSON(a.out, info)
	}
	printShow(a.out, info)
	if transcript {
		fmt.Fprintln(a.out)
		printTranscript(a.out, ctx.Messages)
	}
	return nil
}
