package ui

import (
	"github.com/charmbracelet/x/ansi"
	"strings"
	"testing"
)

// TestMarkdownStreamed: a document rendered while it streams in, a few
// characters at a time, ends as the whole document rendered at once.
func TestMarkdownStreamed(t *testing.T) {
	docs := []string{
		benchReply,
		"# Title\n\nText with `code` and **bold**.\n\n```sh\necho hi\n\n# a comment after a blank line in a fence\n```\n\n- a\n- b\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"no blank lines at all, one long paragraph " + strings.Repeat("word ", 60),
	}
	for _, doc := range docs {
		for _, step := range []int{1, 3, 7, 50} {
			var s mdStream
			var got []string
			for i := step; ; i += step {
				got = s.render(doc[:min(i, len(doc))], 60)
				if i >= len(doc) {
					break
				}
			}
			want := renderMarkdown(doc, 60)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("streamed in steps of %d:\n%s\nwant:\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

func TestMarkdownBlocks(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"# Heading\ntext", "Heading\n\ntext"},
		{"a **b** *c* ~~d~~ `e` snake_case_name", "a b c d e snake_case_name"},
		{"[x](http://u)", "x (http://u)"},
		{"1. one\n2. two", "1. one\n2. two"},
		{"- [ ] todo\n- [x] done", "☐ todo\n☑ done"},
		{"```\nplain\n```", "│ plain"},
		{"para one\npara two\n\n---\n\nafter", "para one para two\n\n────────────────────────────────────────\n\nafter"},
		{"| h1 | h2 |\n|----|----|\n| a | bb |", "h1 │ h2\n───┼───\na  │ bb"},
		{"> q1\n> q2", "▎ q1 q2"},
		{"\\*not emphasis\\*", "*not emphasis*"},
	} {
		if got := strings.Join(renderMarkdown(tt.in, 80), "\n"); got != tt.want {
			t.Errorf("renderMarkdown(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
	// long lines wrap at the width; code is broken, not cut
	for _, l := range renderMarkdown(strings.Repeat("word ", 40)+"\n\n```go\n"+strings.Repeat("x", 100)+"\n```", 30) {
		if w := len([]rune(l)); w > 30 {
			t.Errorf("line of %d cells at width 30: %q", w, l)
		}
	}
}

// FuzzRenderMarkdown: any text renders without a panic, no line wider than
// the width, and streamed equals whole.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{benchReply, "```", "```\n", "~~~x\n\n", "* *a*", "[a](", "|a|\n|-|\n", "1. \n", "#", "`` `a` ``", "__a__ _b_", "\t\x1b[31mred",
		"` `00000000000000000", "> > > > > > > 00000000000000000", "0) 0\n ```\n```\n\n0\n\n"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, doc string, width int) {
		width = 10 + (width%100+100)%100
		whole := renderMarkdown(doc, width)
		for _, l := range whole {
			if w := ansiWidth(l); w > width {
				t.Fatalf("line of %d cells at width %d: %q", w, width, l)
			}
		}
		var s mdStream
		var got []string
		for i := 1; ; i += 5 {
			got = s.render(doc[:min(i, len(doc))], width)
			if i >= len(doc) {
				break
			}
		}
		if strings.Join(got, "\n") != strings.Join(whole, "\n") {
			t.Fatalf("streamed %q differs from whole %q", got, whole)
		}
	})
}

func ansiWidth(s string) int { return ansi.StringWidth(s) }
