package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/session"
)

func (a *app) sessionsCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "sessions",
		Short: "Inspect and manage session files",
	}
	c.AddCommand(a.sessionsEntries(), a.sessionsContext(), a.sessionsTree(), a.sessionsShow(), a.sessionsList(), a.sessionsRecent(), a.sessionsFork(), a.sessionsRm(), a.sessionsDump())
	return c
}

// load opens a session read-only for inspection.
func (a *app) load(path string) (*session.Manager, error) {
	return session.Load(a.sessionOptions(), path)
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func (a *app) sessionsEntries() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "entries <file>",
		Short: "Print the header and every entry after load, migration and blob resolution (writes nothing)",
		Args:  exactArgs(1, "a session file"),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := a.load(args[0])
			if err != nil {
				return err
			}
			all := append([]*session.Entry{m.Header()}, m.Entries()...)
			if asJSON {
				return writeJSON(a.out, all)
			}
			for _, e := range all {
				fmt.Fprintf(a.out, "%s\n", e.JSON())
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	return c
}

func (a *app) sessionsContext() *cobra.Command {
	var asJSON bool
	var leaf string
	c := &cobra.Command{
		Use:   "context <file>",
		Short: "Print the model context at the leaf (or --leaf ID, --leaf none)",
		Args:  exactArgs(1, "a session file"),
		RunE: func(cc *cobra.Command, args []string) error {
			m, err := a.load(args[0])
			if err != nil {
				return err
			}
			var ctx *session.Context
			switch {
			case !cc.Flags().Changed("leaf"):
				ctx = m.BuildContext()
			case leaf == "none" || leaf == "null":
				ctx = session.BuildContext(m.Entries(), nil, session.Leaf{None: true})
			default:
				if m.Entry(leaf) == nil {
					return fmt.Errorf("entry %q is not in %s (see `xcsh sessions tree %s` for ids)", leaf, args[0], args[0])
				}
				ctx = session.BuildContext(m.Entries(), nil, session.LeafAt(leaf))
			}
			if asJSON {
				return writeJSON(a.out, ctx)
			}
			printTranscript(a.out, ctx.Messages)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON with the reference's field names")
	c.Flags().StringVar(&leaf, "leaf", "", "leaf entry id, or none for the empty context")
	return c
}

func (a *app) sessionsTree() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "tree <file>",
		Short: "Draw the entry tree with the leaf marked and labels shown",
		Args:  exactArgs(1, "a session file"),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := a.load(args[0])
			if err != nil {
				return err
			}
			leaf, _ := m.LeafID()
			if asJSON {
				return writeJSON(a.out, treeJSON(m.Tree()))
			}
			drawTree(a.out, m.Tree(), leaf)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the tree as JSON")
	return c
}

type treeNodeJSON struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Label    string          `json:"label,omitempty"`
	Children []*treeNodeJSON `json:"children"`
}

func treeJSON(ns []*session.TreeNode) []*treeNodeJSON {
	out := make([]*treeNodeJSON, 0, len(ns))
	for _, n := range ns {
		out = append(out, &treeNodeJSON{ID: n.Entry.ID, Type: n.Entry.Type, Label: n.Label, Children: treeJSON(n.Children)})
	}
	return out
}

// drawTree prints the forest. A node with one child continues the line of
// descent at the same indent, so a linear conversation stays flat; forks get
// branch glyphs.
func drawTree(w io.Writer, roots []*session.TreeNode, leaf string) {
	type item struct {
		n          *session.TreeNode
		lead, cont string
	}
	stack := make([]item, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], "", ""})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		line := it.lead + describeEntry(it.n.Entry)
		if it.n.Label != "" {
			line += " [" + it.n.Label + "]"
		}
		if leaf != "" && it.n.Entry.ID == leaf {
			line += "  <- leaf"
		}
		fmt.Fprintln(w, line)
		kids := it.n.Children
		if len(kids) == 1 {
			stack = append(stack, item{kids[0], it.cont, it.cont})
			continue
		}
		for i := len(kids) - 1; i >= 0; i-- {
			if i == len(kids)-1 {
				stack = append(stack, item{kids[i], it.cont + "└─ ", it.cont + "   "})
			} else {
				stack = append(stack, item{kids[i], it.cont + "├─ ", it.cont + "│  "})
			}
		}
	}
}

// describeEntry is a one-line summary of an entry for the tree.
func describeEntry(e *session.Entry) string {
	s := e.ID + " " + e.Type
	switch e.Type {
	case session.TypeMessage:
		role, text := session.MessageSummary(e.Get("message"))
		s += " " + role
		if text != "" {
			s += ": " + oneLine(text, 60)
		}
	case session.TypeCompaction, session.TypeBranchSummary:
		s += ": " + oneLine(e.GetString("summary"), 60)
	case session.TypeModelChange:
		s += ": " + e.GetString("model")
	case session.TypeThinkingLevelChange:
		s += ": " + string(e.Get("thinkingLevel"))
	case session.TypeLabel:
		s += " → " + e.GetString("targetId")
	}
	return s
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return &UsageError{Msg: fmt.Sprintf("expected %s, got %d arguments", what, len(args))}
		}
		return nil
	}
}
