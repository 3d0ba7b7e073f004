package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/xcsh-dev/xcsh/session"
)

func init() {
	// Goldens are plain text whatever terminal runs the tests.
	lipgloss.SetColorProfile(termenv.Ascii)
}

// now is the picker's clock in every test.
var now = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

const home = "/home/u"

func title(s string) *string { return &s }

// local are the sessions of /home/u/proj, newest first.
var local = []session.SessionInfo{
	{Path: home + "/.xcsh/agent/sessions/-proj/2026-01-15T11-59-30-000Z_19a1b2c3d4e5f601.jsonl", ID: "19a1b2c3d4e5f601",
		Cwd: home + "/proj", Title: title("Refactor the lexer"), Modified: now.Add(-30 * time.Second), MessageCount: 12,
		FirstMessage: "the lexer is slow", AllMessagesText: "the lexer is slow it allocates per token"},
	{Path: home + "/.xcsh/agent/sessions/-proj/2026-01-15T11-00-00-000Z_19a1b2c3d4e5f602.jsonl", ID: "19a1b2c3d4e5f602",
		Cwd: home + "/proj", Modified: now.Add(-61 * time.Minute), MessageCount: 4,
		FirstMessage: "fix the parser on CRLF input", AllMessagesText: "fix the parser on CRLF input done: normalised line ends"},
	{Path: home + "/.xcsh/agent/sessions/-proj/2026-01-14T09-00-00-000Z_19a1b2c3d4e5f603.jsonl", ID: "19a1b2c3d4e5f603",
		Cwd: home + "/proj", Modified: now.Add(-27 * time.Hour), MessageCount: 1,
		FirstMessage: "(no messages)", AllMessagesText: ""},
	{Path: home + "/.xcsh/agent/sessions/-proj/2026-01-10T09-00-00-000Z_19a1b2c3d4e5f604.jsonl", ID: "19a1b2c3d4e5f604",
		Cwd: home + "/proj", Title: title("A title far too long to fit in the row of an eighty column terminal, so it is cut"),
		Modified: now.Add(-5 * 24 * time.Hour), MessageCount: 230, FirstMessage: "long one", AllMessagesText: "benchmark the scanner"},
}

// elsewhere are sessions of other directories.
var elsewhere = []session.SessionInfo{
	{Path: home + "/.xcsh/agent/sessions/-web/2026-01-15T11-55-00-000Z_29a1b2c3d4e5f605.jsonl", ID: "29a1b2c3d4e5f605",
		Cwd: home + "/web", Title: title("Deploy the frobnicator"), Modified: now.Add(-5 * time.Minute), MessageCount: 7,
		FirstMessage: "deploy", AllMessagesText: "deploy kubernetes"},
	{Path: "/srv/agent/sessions/--srv-data--/2026-01-13T08-00-00-000Z_29a1b2c3d4e5f606.jsonl", ID: "29a1b2c3d4e5f606",
		Cwd: "/srv/data", Modified: now.Add(-2 * 24 * time.Hour), MessageCount: 2,
		FirstMessage: "vacuum the database", AllMessagesText: "vacuum the database"},
}

func allSessions() []session.SessionInfo {
	all := append([]session.SessionInfo{}, local[:1]...)
	all = append(all, elsewhere[0])
	all = append(all, local[1:3]...)
	all = append(all, elsewhere[1])
	return append(all, local[3])
}

func newTestPicker(localInfos []session.SessionInfo) *Picker {
	return NewPicker(PickerOptions{Local: localInfos, LoadAll: allSessions, Now: func() time.Time { return now }, Home: home})
}

// TestPickerGolden renders the picker at 80x24 through a real bubbletea
// program (teatest) and compares the screen with testdata/TestPickerGolden/*.
// Regenerate with `go test ./ui -run TestPickerGolden -update`.
func TestPickerGolden(t *testing.T) {
	tests := []struct {
		name  string
		local []session.SessionInfo
		keys  func(tm *teatest.TestModel)
		until string // on the screen once the keys are handled
	}{
		{"list", local, func(*teatest.TestModel) {}, "Refactor the lexer"},
		{"filtered", local, func(tm *teatest.TestModel) { tm.Type("parser") }, "> parser"},
		{"cursor", local, func(tm *teatest.TestModel) {
			tm.Send(tea.KeyMsg{Type: tea.KeyDown})
			tm.Send(tea.KeyMsg{Type: tea.KeyDown})
		}, "4/4"},
		{"no match", local, func(tm *teatest.TestModel) { tm.Type("zzzz") }, "No session matches."},
		{"empty", nil, func(*teatest.TestModel) {}, "No sessions in this directory"},
		{"all", local, func(tm *teatest.TestModel) { tm.Send(tea.KeyMsg{Type: tea.KeyTab}) }, "Deploy the frobnicator"},
		{"all from empty", nil, func(tm *teatest.TestModel) { tm.Send(tea.KeyMsg{Type: tea.KeyTab}) }, "vacuum the database"},
		{"all filtered", local, func(tm *teatest.TestModel) {
			tm.Send(tea.KeyMsg{Type: tea.KeyTab})
			tm.Type("srv")
		}, "> srv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := teatest.NewTestModel(t, newTestPicker(tt.local), teatest.WithInitialTermSize(80, 24))
			tt.keys(tm)
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), tt.until) },
				teatest.WithDuration(5*time.Second))
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			p := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Picker)
			golden.RequireEqual(t, []byte(p.View()+"\n"))
		})
	}
}

// press feeds keys to the picker's Update and returns the last command.
func press(p *Picker, keys ...tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = p.Update(k)
	}
	return cmd
}

var (
	keyEnter = tea.KeyMsg{Type: tea.KeyEnter}
	keyEsc   = tea.KeyMsg{Type: tea.KeyEsc}
	keyCtrlC = tea.KeyMsg{Type: tea.KeyCtrlC}
	keyTab   = tea.KeyMsg{Type: tea.KeyTab}
	keyDown  = tea.KeyMsg{Type: tea.KeyDown}
	keyUp    = tea.KeyMsg{Type: tea.KeyUp}
	keyPgDn  = tea.KeyMsg{Type: tea.KeyPgDown}
	keyPgUp  = tea.KeyMsg{Type: tea.KeyPgUp}
	keyEnd   = tea.KeyMsg{Type: tea.KeyEnd}
	keyHome  = tea.KeyMsg{Type: tea.KeyHome}
	keyBack  = tea.KeyMsg{Type: tea.KeyBackspace}
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// TestPickerEnds checks how each ending key leaves the picker.
func TestPickerEnds(t *testing.T) {
	tests := []struct {
		name    string
		local   []session.SessionInfo
		keys    []tea.KeyMsg
		outcome PickerOutcome
		path    string
		quits   bool
	}{
		{"enter opens the first", local, []tea.KeyMsg{keyEnter}, PickerSelected, local[0].Path, true},
		{"enter opens the row under the cursor", local, []tea.KeyMsg{keyDown, keyDown, keyUp, keyEnter}, PickerSelected, local[1].Path, true},
		{"enter opens the best match", local, []tea.KeyMsg{runes("crlf"), keyEnter}, PickerSelected, local[1].Path, true},
		{"esc cancels", local, []tea.KeyMsg{keyDown, keyEsc}, PickerCancelled, "", true},
		{"esc cancels with a query", local, []tea.KeyMsg{runes("lex"), keyEsc}, PickerCancelled, "", true},
		{"ctrl+c interrupts", local, []tea.KeyMsg{keyCtrlC}, PickerInterrupted, "", true},
		{"enter on an empty list does nothing", nil, []tea.KeyMsg{keyEnter}, PickerCancelled, "", false},
		{"enter with no match does nothing", local, []tea.KeyMsg{runes("zzzz"), keyEnter}, PickerCancelled, "", false},
		{"esc on an empty list cancels", nil, []tea.KeyMsg{keyEsc}, PickerCancelled, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPicker(tt.local)
			cmd := press(p, tt.keys...)
			outcome, path := p.Result()
			if outcome != tt.outcome || path != tt.path {
				t.Errorf("Result() = %v, %q; want %v, %q", outcome, path, tt.outcome, tt.path)
			}
			if isQuit(cmd) != tt.quits {
				t.Errorf("quits = %v, want %v", !tt.quits, tt.quits)
			}
			if tt.quits && p.View() != "" {
				t.Errorf("View after the end = %q, want nothing left on the screen", p.View())
			}
		})
	}
}

// TestPickerTab: Tab lists every session (loaded once, off the update loop)
// and Tab again comes back to this directory.
func TestPickerTab(t *testing.T) {
	calls := 0
	p := NewPicker(PickerOptions{Local: nil, Now: func() time.Time { return now }, LoadAll: func() []session.SessionInfo {
		calls++
		return allSessions()
	}})
	cmd := press(p, keyTab)
	if cmd == nil || calls != 0 {
		t.Fatalf("Tab: cmd %v, LoadAll called %d times; want a command that loads", cmd, calls)
	}
	if v := p.View(); !strings.Contains(v, "all sessions") || !strings.Contains(v, "Loading all sessions…") {
		t.Errorf("while loading:\n%s", v)
	}
	press(p, keyEnter) // nothing to open yet
	if o, _ := p.Result(); o != PickerCancelled || p.done {
		t.Fatalf("Enter while loading ended the picker")
	}
	p.Update(cmd())
	if calls != 1 || len(p.visible) != len(allSessions()) {
		t.Fatalf("after loading: %d calls, %d rows", calls, len(p.visible))
	}
	if cmd := press(p, keyTab); cmd != nil || len(p.visible) != 0 || !strings.Contains(p.View(), "No sessions in this directory. Press Tab to view all.") {
		t.Errorf("second Tab: cmd %v, view:\n%s", cmd, p.View())
	}
	if cmd := press(p, keyTab); cmd != nil || calls != 1 || len(p.visible) != len(allSessions()) {
		t.Errorf("third Tab: cmd %v, %d calls, %d rows", cmd, calls, len(p.visible))
	}
	press(p, keyDown, keyEnter)
	if o, path := p.Result(); o != PickerSelected || path != elsewhere[0].Path {
		t.Errorf("Enter in the all view: %v %q, want %q", o, path, elsewhere[0].Path)
	}
}

// TestPickerSearch: the query searches id, title, cwd, first message, all
// message text and path; every word must match; the best match comes first.
// Matching is fuzzy, so a query can also match loosely elsewhere (exact
// marks the cases where nothing else may match).
func TestPickerSearch(t *testing.T) {
	tests := []struct {
		query string
		want  []string // ids, best first
		exact bool
	}{
		{"", []string{"19a1b2c3d4e5f601", "19a1b2c3d4e5f602", "19a1b2c3d4e5f603", "19a1b2c3d4e5f604"}, true},
		{"f603", []string{"19a1b2c3d4e5f603"}, true},          // id
		{"refactor", []string{"19a1b2c3d4e5f601"}, false},     // title
		{"crlf", []string{"19a1b2c3d4e5f602"}, false},         // first message
		{"allocates", []string{"19a1b2c3d4e5f601"}, true},     // message text
		{"benchmark", []string{"19a1b2c3d4e5f604"}, true},     // message text
		{"2026-01-14t09", []string{"19a1b2c3d4e5f603"}, true}, // path
		{"PARSER crlf", []string{"19a1b2c3d4e5f602"}, true},   // words, any case
		{"parser benchmark", nil, true},                       // every word must match
		{"zzzz", nil, true},
	}
	for _, tt := range tests {
		p := newTestPicker(local)
		press(p, runes(tt.query))
		var got []string
		for _, i := range p.visible {
			got = append(got, p.scopes[0][i].info.ID)
		}
		if len(got) < len(tt.want) || (tt.exact && len(got) != len(tt.want)) ||
			strings.Join(got[:len(tt.want)], " ") != strings.Join(tt.want, " ") {
			t.Errorf("query %q: %v, want %v first (exact: %v)", tt.query, got, tt.want, tt.exact)
		}
	}
	// the cwd, in the all view
	p := newTestPicker(local)
	p.Update(press(p, keyTab)())
	press(p, runes("/srv/data"))
	if len(p.visible) != 1 || p.scopes[1][p.visible[0]].info.ID != "29a1b2c3d4e5f606" {
		t.Errorf("cwd search in all: %v", p.visible)
	}
	press(p, keyBack, keyBack, keyBack, keyBack, keyBack, keyBack, keyBack, keyBack, keyBack)
	if p.query != "" || len(p.visible) != len(allSessions()) {
		t.Errorf("after deleting the query: %q, %d rows", p.query, len(p.visible))
	}
}

// TestPickerMoves: arrows, pages, Home and End keep the cursor on the list
// and the cursor row on the screen.
func TestPickerMoves(t *testing.T) {
	var many []session.SessionInfo
	for i := range 50 {
		many = append(many, session.SessionInfo{Path: "/s/" + string(rune('a'+i%26)) + ".jsonl", ID: "id", Cwd: "/p",
			FirstMessage: "message", Modified: now.Add(-time.Duration(i) * time.Minute)})
	}
	p := newTestPicker(many)
	p.Update(tea.WindowSizeMsg{Width: 80, Height: 15}) // 10 rows a page
	tests := []struct {
		key            tea.KeyMsg
		cursor, offset int
	}{
		{keyUp, 0, 0},
		{keyDown, 1, 0},
		{keyPgDn, 11, 2},
		{keyPgDn, 21, 12},
		{keyPgUp, 11, 11},
		{keyEnd, 49, 40},
		{keyDown, 49, 40},
		{keyPgUp, 39, 39},
		{keyHome, 0, 0},
		{keyPgUp, 0, 0},
	}
	for i, tt := range tests {
		press(p, tt.key)
		if p.cursor != tt.cursor || p.offset != tt.offset {
			t.Fatalf("step %d (%v): cursor %d offset %d, want %d %d", i, tt.key, p.cursor, p.offset, tt.cursor, tt.offset)
		}
		if rows := strings.Count(p.View(), "\n") - 2; rows != 10 {
			t.Fatalf("step %d: %d rows on the screen, want 10", i, rows)
		}
		if !strings.Contains(p.View(), "› ") {
			t.Fatalf("step %d: the cursor row is not on the screen:\n%s", i, p.View())
		}
	}
}

// TestPickerWidths: at any width every line fits, so a row never wraps.
func TestPickerWidths(t *testing.T) {
	p := newTestPicker(local)
	p.Update(press(p, keyTab)())
	for w := 10; w <= 120; w++ {
		p.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		lines := strings.Split(p.View(), "\n")
		for _, l := range lines {
			if got := ansi.StringWidth(l); got > w {
				t.Fatalf("width %d: row %q is %d wide", w, l, got)
			}
		}
		if w >= 60 && !strings.Contains(p.View(), "vacuum the database") {
			t.Errorf("width %d: names are cut although there is room:\n%s", w, p.View())
		}
	}
}

func TestAgo(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1 minute ago"},
		{59*time.Minute + 59*time.Second, "59 minutes ago"},
		{time.Hour, "1 hour ago"},
		{23 * time.Hour, "23 hours ago"},
		{24 * time.Hour, "1 day ago"},
		{6*24*time.Hour + 23*time.Hour, "6 days ago"},
	}
	for _, tt := range tests {
		if got := ago(now, now.Add(-tt.d)); got != tt.want {
			t.Errorf("ago(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	if got := ago(now, now.Add(-8*24*time.Hour)); !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(got) {
		t.Errorf("ago(8 days) = %q, want a date", got)
	}
}

// TestPickerLabel: a picker over an id prefix's matches says so.
func TestPickerLabel(t *testing.T) {
	p := NewPicker(PickerOptions{Local: local[:2], LocalLabel: `sessions matching "19a1"`, Now: func() time.Time { return now }})
	if first := strings.SplitN(p.View(), "\n", 2)[0]; first != `Resume session — sessions matching "19a1" (Tab: switch)` {
		t.Errorf("title %q", first)
	}
}
