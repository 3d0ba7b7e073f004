package session

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The tests in this file open exported pages in headless Chromium (Debian's
// chromium package, which .ci/run installs) and look at the DOM the page's
// script built.

// chromium returns the browser to test with; without one the test is skipped.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed and could not be: install Debian's chromium package (.ci/run does) to run the HTML export browser tests")
	return ""
}

// browse loads file (with the URL query q) in headless Chromium and returns
// the DOM after the page's script ran, and the browser's log, which holds
// console messages: uncaught errors and policy violations.
func browse(t *testing.T, file, q string) (dom, log string) {
	t.Helper()
	bin := chromium(t)
	profile, err := os.MkdirTemp("", "xcsh-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Chromium's helpers may still be writing the profile when it exits.
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u := url.URL{Scheme: "file", Path: file, RawQuery: q}
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
		"--user-data-dir="+profile, "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=5000", "--dump-dom", u.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", u.String(), err, stderr.String())
	}
	return string(out), stderr.String()
}

// section returns the part of dom from the element that opens with start to
// the first end after it.
func section(t *testing.T, dom, start, end string) string {
	t.Helper()
	i := strings.Index(dom, start)
	if i < 0 {
		t.Fatalf("DOM lacks %s", start)
	}
	j := strings.Index(dom[i:], end)
	if j < 0 {
		t.Fatalf("DOM lacks %s after %s", end, start)
	}
	return dom[i : i+j]
}

// badLinkRE matches an element whose link is not http, https, mailto or the
// page's own query.
var badLinkRE = regexp.MustCompile(`<[a-z]+ [^>]*(href|src)="(javascript|data:text|vbscript)[^"]*"`)

var tagRE = regexp.MustCompile(`<[^>]*>`)

// text is the text of a piece of DOM: tags removed, entities decoded.
func text(dom string) string { return html.UnescapeString(tagRE.ReplaceAllString(dom, "")) }

// consoleProblems lists uncaught errors and refused content in a browser log.
func consoleProblems(log string) []string {
	var bad []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, "Uncaught") || strings.Contains(line, "Refused") || strings.Contains(line, "Content Security Policy")) {
			bad = append(bad, line)
		}
	}
	return bad
}

// writePage exports the fixture to a file; edit, when given, changes the page.
func writePage(t *testing.T, o ExportOptions, edit func(string) string) string {
	t.Helper()
	page := string(exportPage(t, loadFixture(t), o))
	if edit != nil {
		page = edit(page)
	}
	p := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(p, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var cspRE = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)

// withoutCSP removes the page's policy, so that only the page's own escaping
// stands between session text and the DOM.
func withoutCSP(page string) string { return cspRE.ReplaceAllString(page, "") }

// shared is text of the entries both branches of the fixture hold.
var shared = []string{
	"MSG-USER-1", "THINK-1", "MSG-ASSIST-1", "CODE-COMMENT-1", "RESULT-READ-1", "line 19", "RESULT-BASH-1",
	"read the parser", "MSG-ASSIST-2", "DIFF-OLD-1", "DIFF-NEW-1", "RESULT-EDIT-1", "TOOL-ARG-1",
	"RESULT-ODD-1", "MSG-ASSIST-3", "anthropic/claude-sonnet-4-5", "high",
}

// branchA is the text of the first branch, up to leaf a4.
var branchA = []string{
	"BASH-CMD-1", "BASH-EXEC-1", "exit code 1", "BASH-HIDDEN-CMD", "BASH-EXEC-HIDDEN", "PY-CODE-1", "PY-EXEC-1",
	"FILE-MENTION-1", "DEV-MSG-1", "CUSTOM-SHOWN-1", "COMPACTION-SUMMARY-1", "12k tokens before", "MSG-USER-2",
	"ERR-1 rate limited",
}

// branchB is the text of the second branch, up to leaf a5 (the session's leaf).
var branchB = []string{"BRANCH-SUMMARY-1", "BRANCH-B-USER", "CUSTOM-ROLE-1", "HOOK-MSG-1", "THINK-B", "BRANCH-B-ANSWER"}

// xssTitle is a page title that tries to end the title element.
const xssTitle = "T </title><script>document.title='pwned-opt'</script>"

func TestExportBrowserBranches(t *testing.T) {
	t.Parallel()
	page := writePage(t, ExportOptions{Title: xssTitle, SystemPrompt: "SYSTEM-PROMPT-1", Tools: []ExportTool{{Name: "read", Description: "TOOL-DESC-1"}}}, nil)
	tests := []struct {
		name, query, leaf string
		want, absent      []string
	}{
		{"session leaf", "", "a5", append(append([]string{}, shared...), branchB...), append(append([]string{}, branchA...), "CUSTOM-HIDDEN-1")},
		{"leafId", "leafId=a4", "a4", append(append([]string{}, shared...), branchA...), append(append([]string{}, branchB...), "CUSTOM-HIDDEN-1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dom, log := browse(t, page, tt.query)
			if bad := consoleProblems(log); len(bad) > 0 {
				t.Errorf("console: %s", strings.Join(bad, "\n"))
			}
			main := text(section(t, dom, `<main id="messages"`, "</main>"))
			for _, w := range tt.want {
				if !strings.Contains(main, w) {
					t.Errorf("messages lack %q", w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(main, a) {
					t.Errorf("messages show %q, which is not on the path to %s", a, tt.leaf)
				}
			}
			tree := section(t, dom, `<nav id="tree"`, "</nav>")
			for _, w := range []string{"ERR-1 rate limited", "BRANCH-B-USER", "├─ ", "└─ ", "│  ", `class="tree-node active-path selected" data-id="` + tt.leaf + `"`} {
				if !strings.Contains(tree, w) {
					t.Errorf("tree lacks %q", w)
				}
			}
			if !strings.Contains(dom, `<div id="tree-status">23 / 26 entries</div>`) {
				t.Errorf("tree status wrong: %s", section(t, dom, `<div id="tree-status"`, "</div>"))
			}
			head := text(section(t, dom, `<header id="session-header"`, "</header>"))
			for _, w := range []string{
				"Session0a1b2c3d4e5f6071", "Directory/home/u/proj", "Modelsanthropic/claude-sonnet-4-5",
				"Messages3 user, 5 assistant, 4 tool results, 7 other", "Tool calls4", "Tokens↑500 ↓100 R50 W25",
				"Cost$0.06", "Entries26", "SYSTEM-PROMPT-1", "1 tools", "TOOL-DESC-1",
			} {
				if !strings.Contains(head, w) {
					t.Errorf("header lacks %q", w)
				}
			}
			if tt.leaf == "a4" {
				checkRendering(t, section(t, dom, `<main id="messages"`, "</main>"))
				checkNoScript(t, dom)
			}
		})
	}
}

// checkRendering looks at markdown, highlighting, folding and images.
func checkRendering(t *testing.T, main string) {
	t.Helper()
	for _, w := range []string{
		"<strong>bold</strong>", "<code>code</code>", "<li>item one</li>", "<li>item <em>two</em></li>", "<ol><li>first</li>",
		`<a href="https://example.com/docs?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">the docs</a>`,
		`<span class="hl-com">// CODE-COMMENT-1</span>`, `<span class="hl-kw">func</span>`, `<span class="hl-str">"hi"</span>`,
		`<span class="diff-del">-old DIFF-OLD-1`, `<span class="diff-add">+new DIFF-NEW-1</span>`,
		`<details class="thinking" open="">`, `<details class="tool error" open=""><summary>$ ls -la</summary>`,
		"… 14 more lines", `<em>emphasis</em>`,
	} {
		if !strings.Contains(main, w) {
			t.Errorf("messages lack %s", w)
		}
	}
	if n := strings.Count(main, `<img class="attached" alt="image" src="data:image/png;base64,iVBOR`); n != 2 {
		t.Errorf("%d images shown, want 2", n)
	}
}

// checkNoScript checks that session text which looks like markup or a script
// link is in the page as text, and that none of it became an element: the
// title is as exported (no script changed it) and no element links to a
// script.
func checkNoScript(t *testing.T, dom string) {
	t.Helper()
	title := section(t, dom, "<title>", "</title>")
	if want := "<title>T &lt;/title&gt;&lt;script&gt;document.title='pwned-opt'&lt;/script&gt;"; title != want {
		t.Errorf("title = %q, want %q (a script changed it?)", title, want)
	}
	body := section(t, dom, "<body>", `<script id="session-data"`)
	// Text nodes are written with <, > and & escaped: any of these is an element.
	for _, bad := range []string{"<img src=", "<iframe", "<script>", `onerror="`} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds live markup %s", bad)
		}
	}
	if m := badLinkRE.FindString(body); m != "" {
		t.Errorf("page holds a link to %s", m)
	}
	for _, w := range []string{
		"XSS &lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;",
		"&lt;img src=x onerror=document.title='pwned-img'&gt;",
		`&lt;a href="javascript:document.title='pwned-a'"&gt;raw link&lt;/a&gt;`,
		"[click me](javascript:document.title='pwned-md')",
		"[data](data:text/html,hi)",
		"start &lt;img src=x onerror=document.title='pwned-label'&gt;",
		"&lt;img src=x onerror=document.title='pwned-tool'&gt;",
		"Export &lt;b&gt;test&lt;/b&gt; &lt;/title&gt;&lt;script&gt;document.title='pwned-title'&lt;/script&gt;",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("page does not show %q as text", w)
		}
	}
}

// TestExportBrowserNoScript opens the page without its Content-Security-
// Policy, so that only the page's own escaping keeps session text from
// running (TestExportBrowserBranches checks the page as exported).
func TestExportBrowserNoScript(t *testing.T) {
	t.Parallel()
	dom, log := browse(t, writePage(t, ExportOptions{Title: xssTitle}, withoutCSP), "leafId=a4")
	if bad := consoleProblems(log); len(bad) > 0 {
		t.Errorf("console: %s", strings.Join(bad, "\n"))
	}
	checkNoScript(t, dom)
}

// interactions drives the page as a reader would and writes what it saw
// into <pre id="test-results">.
const interactions = `<script>
(function () {
  const r = {};
  const main = () => document.getElementById('messages').textContent;
  const rows = () => Array.from(document.querySelectorAll('#tree .tree-node')).map((n) => n.getAttribute('data-id'));
  const selected = () => document.querySelector('#tree .tree-node.selected').getAttribute('data-id');
  const key = (k, ctrl) => document.dispatchEvent(new KeyboardEvent('keydown', { key: k, ctrlKey: !!ctrl, bubbles: true }));
  r.initialA = main().includes('MSG-USER-2') && !main().includes('BRANCH-B-ANSWER');
  const hl = document.querySelector('#messages .msg.highlight');
  r.highlight = hl ? hl.getAttribute('data-id') : '';
  document.querySelector('#tree .tree-node[data-id="u3"] .prefix').click();
  r.clickLeaf = selected();
  r.clickShowsB = main().includes('BRANCH-B-USER') && !main().includes('MSG-USER-2') && !main().includes('BRANCH-B-ANSWER');
  document.querySelector('#filters button[data-filter="user-only"]').click();
  r.userRows = rows();
  document.querySelector('#filters button[data-filter="no-tools"]').click();
  r.noToolsRows = rows();
  document.querySelector('#filters button[data-filter="labeled-only"]').click();
  r.labeledRows = rows();
  document.querySelector('#filters button[data-filter="all"]').click();
  r.allRows = rows().length;
  document.querySelector('#filters button[data-filter="default"]').click();
  const s = document.getElementById('search');
  s.value = 'branch-b user';
  s.dispatchEvent(new Event('input'));
  r.searchRows = rows();
  key('Escape');
  r.escSearch = s.value;
  r.escLeaf = selected();
  r.escRows = rows().length;
  r.escShowsLeaf = main().includes('BRANCH-B-ANSWER');
  const thinking = () => Array.from(document.querySelectorAll('details.thinking')).map((d) => d.open);
  r.thinkingBefore = thinking();
  key('t', true);
  r.thinkingAfter = thinking();
  key('t', true);
  r.thinkingAgain = thinking();
  const outputs = () => Array.from(document.querySelectorAll('.output')).map((o) => o.classList.contains('expanded'));
  r.outputsBefore = outputs();
  key('o', true);
  r.outputsAfter = outputs();
  const pre = document.createElement('pre');
  pre.id = 'test-results';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
})();
</script>`

func TestExportBrowserInteraction(t *testing.T) {
	t.Parallel()
	page := writePage(t, ExportOptions{}, func(p string) string {
		return strings.Replace(withoutCSP(p), "</body>", interactions+"</body>", 1)
	})
	dom, log := browse(t, page, "leafId=a4&targetId=a2")
	if bad := consoleProblems(log); len(bad) > 0 {
		t.Errorf("console: %s", strings.Join(bad, "\n"))
	}
	raw := html.UnescapeString(section(t, dom, `<pre id="test-results">`, "</pre>")[len(`<pre id="test-results">`):])
	var r struct {
		InitialA, ClickShowsB, EscShowsLeaf            bool
		Highlight, ClickLeaf, EscSearch, EscLeaf       string
		UserRows, NoToolsRows, LabeledRows, SearchRows []string
		AllRows, EscRows                               int
		ThinkingBefore, ThinkingAfter, ThinkingAgain   []bool
		OutputsBefore, OutputsAfter                    []bool
	}
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("results %q: %v", raw, err)
	}
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("%s: results %s", what, raw)
		}
	}
	check("?leafId shows its branch", r.InitialA)
	check("?targetId highlights its entry", r.Highlight == "a2")
	check("a click selects the leaf", r.ClickLeaf == "u3" && r.ClickShowsB)
	check("user filter", strings.Join(r.UserRows, ",") == "u1,u3,u2")
	check("no-tools filter hides tool results and settings", !contains(r.NoToolsRows, "r1") && !contains(r.NoToolsRows, "mc") && contains(r.NoToolsRows, "bx") && contains(r.NoToolsRows, "u3"))
	check("labeled filter keeps the labeled entry and the leaf", strings.Join(r.LabeledRows, ",") == "u1,u3")
	check("all filter", r.AllRows == 26)
	check("search", strings.Join(r.SearchRows, ",") == "u3")
	check("Esc clears the search and returns to the session leaf", r.EscSearch == "" && r.EscLeaf == "a5" && r.EscShowsLeaf && r.EscRows == 23)
	check("Ctrl+T folds and unfolds thinking", allAre(r.ThinkingBefore, true) && allAre(r.ThinkingAfter, false) && allAre(r.ThinkingAgain, true))
	check("Ctrl+O expands tool output", allAre(r.OutputsBefore, false) && allAre(r.OutputsAfter, true))
}

// TestExportBrowserOddShapes opens a session whose entries have every field
// of an unexpected type, ids such as "__proto__", a parent cycle, an orphan
// and a self-parent: the page draws every entry without a script error.
func TestExportBrowserOddShapes(t *testing.T) {
	t.Parallel()
	m, err := Load(Options{}, "testdata/export/odd-shapes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "odd.html")
	if _, err := ExportFile(m, p, "", ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	dom, log := browse(t, p, "")
	if bad := consoleProblems(log); len(bad) > 0 {
		t.Errorf("console: %s", strings.Join(bad, "\n"))
	}
	main := text(section(t, dom, `<main id="messages"`, "</main>"))
	for _, w := range []string{"ODD-STRING-CONTENT", "ODD-FENCES", "ODD-PROTO", "ODD-CTOR", "ODD-RESULT-STRING", "ODD-PROTO-ROLE", "ODD-LAST", "ODD-TIP", "[a](javascript:alert(1))", "c1", "c2"} {
		if !strings.Contains(main, w) {
			t.Errorf("messages lack %q", w)
		}
	}
	if strings.Contains(main, "cannot be shown") {
		t.Errorf("an entry failed to render: %s", main)
	}
	tree := text(section(t, dom, `<nav id="tree"`, "</nav>"))
	for _, w := range []string{"ODD-ORPHAN", "ODD-SELF", "ODD-TIP"} {
		if !strings.Contains(tree, w) {
			t.Errorf("tree lacks %q", w)
		}
	}
	if badLinkRE.MatchString(dom) || strings.Contains(dom, "<img src=") {
		t.Error("odd shapes produced a script link or an unchecked image")
	}
}

// TestExportBrowserEmpty opens the page of a session without entries.
func TestExportBrowserEmpty(t *testing.T) {
	t.Parallel()
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	p := filepath.Join(t.TempDir(), "empty.html")
	if _, err := ExportFile(m, p, "", ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	dom, log := browse(t, p, "")
	if bad := consoleProblems(log); len(bad) > 0 {
		t.Errorf("console: %s", strings.Join(bad, "\n"))
	}
	if !strings.Contains(dom, "No messages.") || !strings.Contains(dom, "0 / 0 entries") {
		t.Errorf("empty session page: %s", section(t, dom, "<body>", "</main>"))
	}
}

// TestExportBrowserLong opens a 1,200-entry path: the page draws its end
// (here from just before the ?targetId entry) and earlier entries on demand.
func TestExportBrowserLong(t *testing.T) {
	t.Parallel()
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	var ids []string
	for i := 0; i < 600; i++ {
		ids = append(ids, mustAppend(t)(m.AppendMessage(userMsg(fmt.Sprintf("LONG-USER-%04d", i)))))
		ids = append(ids, mustAppend(t)(m.AppendMessage(assistantMsg(fmt.Sprintf("LONG-ASSISTANT-%04d", i)))))
	}
	script := `<script>
(function () {
  const r = {};
  const main = () => document.getElementById('messages').textContent;
  const button = document.querySelector('#messages button.earlier');
  r.button = button ? button.textContent : '';
  r.first = main().includes('LONG-USER-0000');
  r.before = main().includes('LONG-ASSISTANT-0139');
  r.target = main().includes('LONG-USER-0150');
  r.last = main().includes('LONG-ASSISTANT-0599');
  const hl = document.querySelector('#messages .msg.highlight');
  r.highlight = hl ? hl.getAttribute('data-id') : '';
  r.rows = document.querySelectorAll('#tree .tree-node').length;
  button.click();
  r.firstAfter = main().includes('LONG-USER-0000');
  r.buttonAfter = !!document.querySelector('#messages button.earlier');
  r.shown = document.querySelectorAll('#messages .msg').length;
  const pre = document.createElement('pre');
  pre.id = 'test-results';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
})();
</script>`
	page := string(exportPage(t, m, ExportOptions{}))
	p := filepath.Join(t.TempDir(), "long.html")
	if err := os.WriteFile(p, []byte(strings.Replace(withoutCSP(page), "</body>", script+"</body>", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	dom, log := browse(t, p, "targetId="+ids[300])
	if bad := consoleProblems(log); len(bad) > 0 {
		t.Errorf("console: %s", strings.Join(bad, "\n"))
	}
	raw := html.UnescapeString(section(t, dom, `<pre id="test-results">`, "</pre>")[len(`<pre id="test-results">`):])
	var r struct {
		Button, Highlight                                    string
		First, Before, Target, Last, FirstAfter, ButtonAfter bool
		Rows, Shown                                          int
	}
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("results %q: %v", raw, err)
	}
	want := struct {
		Button, Highlight                                    string
		First, Before, Target, Last, FirstAfter, ButtonAfter bool
		Rows, Shown                                          int
	}{"Show 280 earlier entries", ids[300], false, false, true, true, true, false, 1200, 1200}
	if r != want {
		t.Errorf("long session page:\n got %+v\nwant %+v", r, want)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func allAre(list []bool, v bool) bool {
	for _, b := range list {
		if b != v {
			return false
		}
	}
	return len(list) > 0
}
