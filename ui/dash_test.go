package ui

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
)

// The dashboard's tests run on a fixed world: a snapshot of five panes and
// an agent outside tmux, session files in a temporary directory, a fixed
// clock, and a Do that records intents instead of acting.

var dashNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

const dashHome = "/home/u"

// dashWorld is one test's fixture.
type dashWorld struct {
	t     testing.TB
	dir   string
	snap  supervisor.Snapshot
	infos map[string]session.SessionInfo
	all   []session.SessionInfo

	mu      sync.Mutex
	intents []DashIntent
	result  DashResult
	err     error
}

// path is a session file of the world.
func (w *dashWorld) path(name string) string { return filepath.Join(w.dir, name+".jsonl") }

// writeSession writes a session file: a header, then messages as
// role/text pairs.
func (w *dashWorld) writeSession(name, id, cwd, title string, msgs ...string) {
	w.t.Helper()
	var b strings.Builder
	h := map[string]any{"type": "session", "version": 3, "id": id, "timestamp": "2026-01-15T10:00:00.000Z", "cwd": cwd}
	if title != "" {
		h["title"] = title
	}
	line, _ := json.Marshal(h)
	b.Write(line)
	b.WriteByte('\n')
	for i := 0; i+1 < len(msgs); i += 2 {
		b.WriteString(dashMessageLine(fmt.Sprintf("%s-%d", id, i), msgs[i], msgs[i+1]))
	}
	if err := os.WriteFile(w.path(name), []byte(b.String()), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// dashMessageLine is a message entry line.
func dashMessageLine(id, role, text string) string {
	var content any = text
	if role == "assistant" {
		content = []any{map[string]any{"type": "text", "text": text}}
	}
	line, _ := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": nil, "timestamp": "2026-01-15T10:00:00.000Z",
		"message": map[string]any{"role": role, "content": content, "timestamp": 1}})
	return string(line) + "\n"
}

func (w *dashWorld) appendMessage(name, id, role, text string) {
	w.t.Helper()
	f, err := os.OpenFile(w.path(name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(dashMessageLine(id, role, text)); err != nil {
		w.t.Fatal(err)
	}
}

func newDashWorld(t testing.TB) *dashWorld {
	t.Helper()
	w := &dashWorld{t: t, dir: t.TempDir(), infos: map[string]session.SessionInfo{}}
	w.writeSession("lexer", "aa01", dashHome+"/proj", "Refactor the lexer",
		"user", "the lexer is slow: it allocates per token",
		"assistant", "I'll pool the token buffers. May I run the benchmarks?")
	w.writeSession("parser", "aa02", dashHome+"/web", "",
		"user", "fix the parser on CRLF input",
		"assistant", "Normalising line ends in the reader.")
	w.writeSession("deploy", "aa03", dashHome+"/web", "Deploy the frobnicator",
		"user", "deploy to staging", "assistant", "Deployed.")
	w.writeSession("docs", "aa04", "/srv/docs", "Write the docs",
		"user", "document the kubernetes setup", "assistant", "Done: docs/setup.md.")
	w.writeSession("bench", "aa05", dashHome+"/proj", "Benchmarks",
		"user", "benchmark the scanner", "assistant", "Running.")
	w.writeSession("old", "aa06", dashHome+"/old", "An old experiment",
		"user", "try a vacuum of the database", "assistant", "Vacuumed.")
	ages := map[string]time.Duration{"lexer": 20 * time.Second, "parser": 5 * time.Second, "deploy": 2 * time.Hour,
		"docs": 40 * time.Minute, "bench": time.Minute, "old": 9 * 24 * time.Hour}
	for _, name := range []string{"parser", "lexer", "bench", "docs", "deploy", "old"} {
		info, ok := session.ReadSessionInfo(session.FileStorage{}, w.path(name))
		if !ok {
			t.Fatalf("session %s unreadable", name)
		}
		info.Modified = dashNow.Add(-ages[name])
		w.infos[info.Path] = info
		w.all = append(w.all, info)
	}
	ref := func(name, title, cwd string) *supervisor.SessionRef {
		return &supervisor.SessionRef{Path: w.path(name), Title: title, Cwd: cwd, Exists: true}
	}
	pane := func(sess, sname string, win int, id, cwd, fg, fgCmd string, agentPID int, visible bool, s *supervisor.SessionRef) supervisor.Pane {
		return supervisor.Pane{MuxPane: supervisor.MuxPane{Server: "tmux -L work", MuxSession: sess, MuxSessionName: sname,
			WindowIndex: win, Window: fmt.Sprintf("@%d", win), ID: id, Cwd: cwd, Active: visible, Visible: visible},
			Foreground: fg, ForegroundCommand: fgCmd, Agent: agentPID, Session: s}
	}
	w.snap = supervisor.Snapshot{
		Seq: 7, At: dashNow, Server: "tmux -L work",
		Panes: []supervisor.Pane{
			pane("$0", "main", 0, "%0", dashHome+"/proj", supervisor.FgProgram, "xcsh", 0, true, nil),
			pane("$0", "main", 0, "%1", dashHome+"/proj", supervisor.FgAgent, "xcsh", 101, false, ref("lexer", "Refactor the lexer", dashHome+"/proj")),
			pane("$0", "main", 1, "%2", dashHome+"/web", supervisor.FgAgent, "xcsh", 102, false, ref("parser", "", dashHome+"/web")),
			pane("$0", "main", 1, "%3", dashHome+"/web", supervisor.FgShell, "bash", 0, false, ref("deploy", "Deploy the frobnicator", dashHome+"/web")),
			pane("$1", "side", 0, "%4", "/srv/docs", supervisor.FgAgent, "xcsh", 104, false, ref("docs", "Write the docs", "/srv/docs")),
			pane("$1", "side", 0, "%5", dashHome, supervisor.FgShell, "zsh", 0, false, nil),
		},
		Agents: []supervisor.Agent{
			{PID: 101, State: "waiting", Since: dashNow.Add(-3 * time.Minute), UpdatedAt: dashNow.Add(-3 * time.Minute), Cwd: dashHome + "/proj",
				SessionFile: w.path("lexer"), SessionID: "aa01", Title: "Refactor the lexer", Model: "anthropic/claude-sonnet-4-5", Pane: "%1"},
			{PID: 102, State: "busy", Since: dashNow.Add(-12 * time.Second), UpdatedAt: dashNow.Add(-12 * time.Second), Cwd: dashHome + "/web",
				SessionFile: w.path("parser"), SessionID: "aa02", Model: "openai/gpt-5", Pane: "%2"},
			{PID: 104, State: "idle", Since: dashNow.Add(-40 * time.Minute), UpdatedAt: dashNow.Add(-40 * time.Minute), Cwd: "/srv/docs",
				SessionFile: w.path("docs"), SessionID: "aa04", Title: "Write the docs", Model: "scripted/demo", Pane: "%4"},
			{PID: 105, State: "busy", Since: dashNow.Add(-time.Minute), UpdatedAt: dashNow.Add(-time.Minute), Cwd: dashHome + "/proj",
				SessionFile: w.path("bench"), SessionID: "aa05", Title: "Benchmarks", Model: "scripted/demo"},
		},
		Counts: map[string]int{"waiting": 1, "busy": 2, "idle": 1},
	}
	return w
}

// options are the dashboard's options on the world.
func (w *dashWorld) options() DashOptions {
	return DashOptions{
		Initial:  w.snap,
		SelfPane: "%0",
		Notify:   true,
		Now:      func() time.Time { return dashNow },
		Home:     dashHome,
		Infos: func(paths []string) []session.SessionInfo {
			var out []session.SessionInfo
			for _, p := range paths {
				if in, ok := w.infos[p]; ok {
					out = append(out, in)
				}
			}
			return out
		},
		AllSessions: func() []session.SessionInfo { return w.all },
		Do: func(_ context.Context, in DashIntent) (DashResult, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.intents = append(w.intents, in)
			return w.result, w.err
		},
	}
}

// done returns the intents carried out so far.
func (w *dashWorld) done() []DashIntent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]DashIntent(nil), w.intents...)
}

// run feeds msg to the dashboard and runs every command it returns, as
// the program would, until none is left; a tick is not waited for.
func run(d *Dash, msg tea.Msg) {
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		_, cmd := d.Update(m)
		queue = append(queue, drain(cmd)...)
	}
}

func drain(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var m tea.Msg
	select {
	case m = <-done:
	case <-time.After(50 * time.Millisecond):
		return nil // a tick or a wait for a change
	}
	switch m := m.(type) {
	case nil, dashTickMsg, tea.QuitMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range m {
			out = append(out, drain(c)...)
		}
		return out
	default:
		return []tea.Msg{m}
	}
}

// newTestDash is a dashboard on the world that has taken its first
// snapshot, session details and preview.
func newTestDash(w *dashWorld, opt DashOptions) *Dash {
	d := NewDash(opt)
	d.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, m := range drain(d.Init()) {
		run(d, m)
	}
	return d
}

func keyRunes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	dkEnter = tea.KeyMsg{Type: tea.KeyEnter}
	dkEsc   = tea.KeyMsg{Type: tea.KeyEsc}
	dkDown  = tea.KeyMsg{Type: tea.KeyDown}
	dkUp    = tea.KeyMsg{Type: tea.KeyUp}
	dkTab   = tea.KeyMsg{Type: tea.KeyTab}
)

// pressDash feeds keys and runs what they start.
func pressDash(d *Dash, keys ...tea.KeyMsg) {
	for _, k := range keys {
		run(d, k)
	}
}

// selectRow moves the cursor to the row with key and reads its preview.
func selectRow(t *testing.T, d *Dash, key string) {
	t.Helper()
	for i, ri := range d.visible {
		if d.rows[ri].key == key {
			d.cursor, d.selKey = i, key
			d.scrollToCursor()
			run(d, nil)
			for _, m := range drain(d.syncPreview(false)) {
				run(d, m)
			}
			return
		}
	}
	t.Fatalf("no row %s among %d", key, len(d.visible))
}

// dashGolden compares got with testdata/dash/<name>.golden (rewritten with
// -update).
func dashGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "dash", name+".golden")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs; got:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestDashGolden renders the main screens at 80x24 on the fixed clock
// through a real bubbletea program (teatest) and compares them with
// testdata/dash/*.golden. Regenerate with `go test ./ui -run TestDashGolden -update`.
func TestDashGolden(t *testing.T) {
	tests := []struct {
		name  string
		size  [2]int
		snap  func(*dashWorld)
		keys  func(tm *teatest.TestModel)
		until string
		first string // shown once the details and the preview are in
	}{
		{name: "live", until: "May I run the benchmarks?"},
		{name: "by_project", keys: func(tm *teatest.TestModel) { tm.Type("g") }, until: "· project ·"},
		{name: "sort_name", keys: func(tm *teatest.TestModel) { tm.Type("ss") }, until: "by name"},
		{name: "filter_text", keys: func(tm *teatest.TestModel) { tm.Type("/crlf") }, until: "Normalising line ends"},
		{name: "all_sessions", keys: func(tm *teatest.TestModel) { tm.Send(tea.KeyMsg{Type: tea.KeyTab}) }, until: "An old experiment"},
		{name: "resume_target", keys: func(tm *teatest.TestModel) { tm.Type("jjjr") }, until: "idle shell %5"},
		{name: "close_confirm", keys: func(tm *teatest.TestModel) { tm.Type("x") }, until: "y/n"},
		{name: "help", keys: func(tm *teatest.TestModel) { tm.Type("?") }, until: "xcsh dash — keys"},
		{name: "narrow", size: [2]int{50, 16}, first: "the benchmarks?", until: "the benchmarks?"},
		{name: "kitty_and_tmux", snap: func(w *dashWorld) {
			// kitty window 7 runs the tmux client of session main; window 8
			// runs an agent of its own, side by side with the tmux panes.
			w.snap.Server = "kitty unix:/tmp/kitty-1 · tmux -L work"
			kitty := func(id, cwd, fg, fgCmd string, agentPID int, hosts *supervisor.Hosted) supervisor.Pane {
				return supervisor.Pane{MuxPane: supervisor.MuxPane{Server: "kitty unix:/tmp/kitty-1", MuxSession: "kitty-1", MuxSessionName: "kitty-1",
					Window: "tab-1", WindowIndex: 0, ID: id, Cwd: cwd, Active: true, Visible: true},
					Foreground: fg, ForegroundCommand: fgCmd, Agent: agentPID, Hosts: hosts}
			}
			w.snap.Panes = append(w.snap.Panes,
				kitty("7", dashHome, supervisor.FgProgram, "tmux", 0, &supervisor.Hosted{Server: "tmux -L work", MuxSession: "$0", MuxSessionName: "main", Pane: "%0", Client: "/dev/pts/9"}),
				kitty("8", dashHome+"/api", supervisor.FgAgent, "xcsh", 108, nil))
			w.snap.Agents = append(w.snap.Agents, supervisor.Agent{PID: 108, State: "busy", Since: dashNow.Add(-4 * time.Second),
				UpdatedAt: dashNow.Add(-4 * time.Second), Cwd: dashHome + "/api", Title: "Add the health endpoint", Model: "anthropic/claude-opus-4-5", Pane: "8"})
			w.snap.Counts["busy"]++
		}, size: [2]int{100, 30}, first: "tmux session main (showing %0)", until: "tmux session main (showing %0)"},
		{name: "empty", snap: func(w *dashWorld) {
			w.snap = supervisor.Snapshot{Seq: 1, At: dashNow, Server: "tmux -L work", Counts: map[string]int{}}
		}, until: "No terminals or agents yet.", first: "No terminals or agents yet."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newDashWorld(t)
			if tt.snap != nil {
				tt.snap(w)
			}
			size := tt.size
			if size[0] == 0 {
				size = [2]int{80, 24}
			}
			tm := teatest.NewTestModel(t, NewDash(w.options()), teatest.WithInitialTermSize(size[0], size[1]))
			first := tt.first
			if first == "" {
				first = "May I run the benchmarks?"
			}
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), first) },
				teatest.WithDuration(5*time.Second))
			if tt.keys != nil {
				tt.keys(tm)
			}
			if tt.until != first {
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), tt.until) },
					teatest.WithDuration(5*time.Second))
			}
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			d := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Dash)
			dashGolden(t, tt.name, d.View()+"\n")
		})
	}
}

// TestDashIntents: each key sends the intent it names, for the row under
// the cursor, and refuses with a status where there is nothing to do.
func TestDashIntents(t *testing.T) {
	// Paths are written with $DIR for the world's directory.
	lexer, deploy, old := "$DIR/lexer.jsonl", "$DIR/deploy.jsonl", "$DIR/old.jsonl"
	keys := func(s string) []tea.KeyMsg {
		var out []tea.KeyMsg
		for _, r := range s {
			out = append(out, keyRunes(string(r)))
		}
		return out
	}
	cat := func(parts ...[]tea.KeyMsg) []tea.KeyMsg {
		var out []tea.KeyMsg
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name   string
		row    string // the row selected first ("" leaves the cursor)
		keys   []tea.KeyMsg
		want   []DashIntent
		status string
	}{
		{name: "enter jumps", keys: []tea.KeyMsg{dkEnter}, want: []DashIntent{{Kind: IntentJump, Pane: "%1"}}},
		{name: "enter on the dashboard's own pane", row: "pane:%0", keys: []tea.KeyMsg{dkEnter}, status: "dashboard's own pane"},
		{name: "enter on an agent outside tmux", row: "agent:105", keys: []tea.KeyMsg{dkEnter}, status: "runs outside tmux"},
		{name: "w jumps to the waiting agent", row: "pane:%4", keys: keys("w"), want: []DashIntent{{Kind: IntentJump, Pane: "%1"}}},
		{name: "resume into the pane itself", row: "pane:%3", keys: cat(keys("r"), []tea.KeyMsg{dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Resume: deploy, Into: true, Target: "%3", KeepShell: true}}}},
		{name: "resume into a split", row: "pane:%3", keys: cat(keys("r"), []tea.KeyMsg{dkDown, dkDown, dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Resume: deploy, Kind: "split", Target: "%3", Horizontal: true, KeepShell: true}}}},
		{name: "resume into another idle shell", row: "pane:%3", keys: cat(keys("r"), []tea.KeyMsg{dkDown, dkDown, dkDown, dkDown, dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Resume: deploy, Into: true, Target: "%5", KeepShell: true}}}},
		{name: "resume of a live session is refused", keys: keys("r"), status: "is live in %1: enter jumps there, f forks it"},
		{name: "resume with no session", row: "pane:%5", keys: keys("r"), status: "no session to resume here"},
		{name: "fork into a split", keys: cat(keys("f"), []tea.KeyMsg{dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Fork: lexer, Kind: "split", Target: "%1", Cwd: dashHome + "/proj", KeepShell: true}}}},
		{name: "fork into a window", keys: cat(keys("f"), []tea.KeyMsg{dkDown, dkDown, dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Fork: lexer, Kind: "window", Target: "$0", Cwd: dashHome + "/proj", KeepShell: true}}}},
		{name: "new agent", row: "pane:%4", keys: cat(keys("n"), []tea.KeyMsg{dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Kind: "split", Target: "%4", Cwd: "/srv/docs", KeepShell: true}}}},
		{name: "target list cancelled", keys: cat(keys("f"), []tea.KeyMsg{dkEsc, dkEnter}), want: []DashIntent{{Kind: IntentJump, Pane: "%1"}}},
		{name: "close asks, y closes", keys: keys("xy"), want: []DashIntent{{Kind: IntentClose, Pane: "%1"}}},
		{name: "close asks, n keeps", keys: keys("xn")},
		{name: "close with no agent", row: "pane:%3", keys: keys("x"), status: "no agent runs in a pane here"},
		{name: "a past session: enter offers to resume", keys: cat([]tea.KeyMsg{dkTab}, keys("/vacuum"), []tea.KeyMsg{dkEnter, dkEnter, dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Resume: old, Kind: "split", Target: "%0", KeepShell: true}}}},
		{name: "keys typed at once", row: "pane:%2", keys: []tea.KeyMsg{keyRunes("kk"), dkEnter}, want: []DashIntent{{Kind: IntentJump, Pane: "%1"}}},
		{name: "esc and a key read together", row: "pane:%3", keys: cat(keys("r"), []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("f"), Alt: true}, dkEnter}),
			want: []DashIntent{{Kind: IntentLaunch, Launch: supervisor.LaunchSpec{Fork: deploy, Into: true, Target: "%3", KeepShell: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newDashWorld(t)
			w.result = DashResult{Text: "done"}
			opt := w.options()
			d := newTestDash(w, opt)
			if tt.row != "" {
				selectRow(t, d, tt.row)
			}
			pressDash(d, tt.keys...)
			got := strings.ReplaceAll(fmt.Sprintf("%+v", w.done()), w.dir, "$DIR")
			if got != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("intents:\n%+v\nwant:\n%+v", got, tt.want)
			}
			if tt.status != "" && !strings.Contains(d.status, tt.status) {
				t.Errorf("status %q, want it to say %q", d.status, tt.status)
			}
		})
	}
}

// TestDashPopupQuitsAfterJump: in a popup a jump closes the dashboard; in
// a pane it stays.
func TestDashPopupQuitsAfterJump(t *testing.T) {
	for _, popup := range []bool{false, true} {
		w := newDashWorld(t)
		opt := w.options()
		opt.Popup = popup
		d := newTestDash(w, opt)
		_, cmd := d.Update(dkEnter)
		done := cmd()
		_, cmd = d.Update(done)
		quits := cmd != nil && fmt.Sprint(cmd()) == fmt.Sprint(tea.Quit())
		if quits != popup {
			t.Errorf("popup %v: quit after a jump = %v", popup, quits)
		}
	}
}

// TestDashAttention: an agent that starts waiting where no client shows its
// pane is announced once; one already waiting when the dashboard opens, or
// in a visible pane, is not.
func TestDashAttention(t *testing.T) {
	w := newDashWorld(t)
	d := newTestDash(w, w.options())
	if got := w.done(); len(got) != 0 {
		t.Fatalf("the wait already there was announced: %+v", got)
	}
	s := w.snap
	s.Seq++
	s.Agents = append([]supervisor.Agent(nil), s.Agents...)
	s.Panes = append([]supervisor.Pane(nil), s.Panes...)
	s.Agents[1].State, s.Agents[1].Since = "waiting", dashNow.Add(-time.Second) // %2, not visible
	s.Agents[2].State, s.Agents[2].Since = "waiting", dashNow                   // %4, made visible
	s.Panes[4].Visible = true
	run(d, DashSnapshotMsg{Snapshot: s})
	got := w.done()
	if len(got) != 1 || got[0].Kind != IntentNotify || got[0].Pane != "%2" || !strings.Contains(got[0].Text, "is waiting in %2 (main:1)") {
		t.Fatalf("announcements %+v, want one for %%2", got)
	}
	if !strings.Contains(d.View(), "w jumps there") {
		t.Errorf("the status line does not say so:\n%s", d.View())
	}
	s.Seq++
	run(d, DashSnapshotMsg{Snapshot: s})
	if got := w.done(); len(got) != 1 {
		t.Errorf("the same wait was announced again: %+v", got)
	}
	// w now jumps to the one waiting longest: %1 (3m).
	pressDash(d, keyRunes("w"))
	if got := w.done(); got[len(got)-1].Kind != IntentJump || got[len(got)-1].Pane != "%1" {
		t.Errorf("w: %+v", got[len(got)-1])
	}
	// Notify off: no intent, the status line still says it.
	w2 := newDashWorld(t)
	opt := w2.options()
	opt.Notify = false
	d2 := newTestDash(w2, opt)
	run(d2, DashSnapshotMsg{Snapshot: s})
	if got := w2.done(); len(got) != 0 {
		t.Errorf("announced with Notify off: %+v", got)
	}
	if !strings.Contains(d2.status, "is waiting in %2") {
		t.Errorf("status %q", d2.status)
	}
}

// TestDashPreviewFollows: the preview reads the end of the file, then only
// what is appended; a file replaced by a rewrite is read again.
func TestDashPreviewFollows(t *testing.T) {
	w := newDashWorld(t)
	changed := make(chan struct{}, 1)
	stopped := 0
	opt := w.options()
	opt.Follow = func(path string) (<-chan struct{}, func()) {
		if path != w.path("lexer") {
			return nil, func() {}
		}
		return changed, func() { stopped++ }
	}
	d := newTestDash(w, opt)
	if !strings.Contains(d.View(), "May I run the benchmarks?") {
		t.Fatalf("preview:\n%s", d.View())
	}
	// Text already read is not read again: change it in place (same size,
	// same file), then append.
	data, _ := os.ReadFile(w.path("lexer"))
	data2 := strings.Replace(string(data), "May I run", "XXXXXXXXX", 1)
	f, _ := os.OpenFile(w.path("lexer"), os.O_WRONLY, 0)
	if _, err := f.WriteAt([]byte(data2), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w.appendMessage("lexer", "n1", "user", "yes, run them")
	changed <- struct{}{}
	run(d, previewChangedMsg{path: w.path("lexer")})
	v := d.View()
	if !strings.Contains(v, "user: yes, run them") || !strings.Contains(v, "May I run the benchmarks?") {
		t.Fatalf("after an append the preview shows:\n%s", v)
	}
	// A torn last line waits for its end.
	line := dashMessageLine("n2", "assistant", "benchmarks done")
	fa, _ := os.OpenFile(w.path("lexer"), os.O_APPEND|os.O_WRONLY, 0)
	fa.WriteString(line[:20])
	run(d, previewChangedMsg{path: w.path("lexer")})
	if strings.Contains(d.View(), "benchmarks done") {
		t.Fatal("a torn line was shown")
	}
	fa.WriteString(line[20:])
	fa.Close()
	// A snapshot alone (no watch event) reads what was appended too.
	s := w.snap
	s.Seq++
	run(d, DashSnapshotMsg{Snapshot: s})
	if !strings.Contains(d.View(), "assistant: benchmarks done") {
		t.Fatalf("after the line ended:\n%s", d.View())
	}
	// A rewrite replaces the file: it is read from its end again.
	tmp := w.path("lexer") + ".tmp"
	if err := os.WriteFile(tmp, []byte(data2), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, w.path("lexer")); err != nil {
		t.Fatal(err)
	}
	run(d, previewChangedMsg{path: w.path("lexer")})
	v = d.View()
	if !strings.Contains(v, "XXXXXXXXX") || strings.Contains(v, "benchmarks done") {
		t.Fatalf("after a rewrite:\n%s", v)
	}
	// Moving to another row stops the watch.
	pressDash(d, dkDown)
	if stopped != 1 {
		t.Errorf("watch stopped %d times, want 1", stopped)
	}
}

// TestDashSelectionKept: the cursor stays on its row when a snapshot
// reorders the rows, and moves to a pane a launch created once it appears.
func TestDashSelectionKept(t *testing.T) {
	w := newDashWorld(t)
	w.result = DashResult{Pane: "%9", Text: "launched"}
	d := newTestDash(w, w.options())
	selectRow(t, d, "pane:%4")
	s := w.snap
	s.Seq++
	s.Agents = append([]supervisor.Agent(nil), s.Agents...)
	s.Agents[2].State = "waiting" // %4 moves up
	run(d, DashSnapshotMsg{Snapshot: s})
	if r := d.selected(); r == nil || r.key != "pane:%4" {
		t.Fatalf("selected %+v after a reorder, want %%4", r)
	}
	pressDash(d, keyRunes("n"), dkEnter)
	s.Seq++
	s.Panes = append(append([]supervisor.Pane(nil), s.Panes...), supervisor.Pane{
		MuxPane: supervisor.MuxPane{MuxSession: "$1", MuxSessionName: "side", ID: "%9", Cwd: "/srv/docs"}, Foreground: supervisor.FgShell})
	run(d, DashSnapshotMsg{Snapshot: s})
	if r := d.selected(); r == nil || r.key != "pane:%9" {
		t.Fatalf("selected %+v after the launch, want the new pane %%9", r)
	}
	if !strings.Contains(d.View(), "launched") {
		t.Errorf("status:\n%s", d.View())
	}
}

// TestDashSnapshotsChannel: snapshots from the engine's channel reach the
// screen of a running program.
func TestDashSnapshotsChannel(t *testing.T) {
	w := newDashWorld(t)
	ch := make(chan supervisor.Snapshot, 1)
	opt := w.options()
	opt.Snapshots = ch
	tm := teatest.NewTestModel(t, NewDash(opt), teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "May I run") }, teatest.WithDuration(5*time.Second))
	s := w.snap
	s.Seq++
	s.Agents = append([]supervisor.Agent(nil), s.Agents...)
	s.Agents[2].State, s.Agents[2].Since = "busy", dashNow.Add(-7*time.Second)
	s.Counts = map[string]int{"waiting": 1, "busy": 3}
	ch <- s
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "busy 7s") }, teatest.WithDuration(5*time.Second))
	s.Seq++
	s.Agents[2].State = "idle"
	ch <- s
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(string(b), "2 busy · 1 idle") || strings.Contains(string(b), "idle  ")
	},
		teatest.WithDuration(5*time.Second))
	close(ch)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, w string
		want bool
	}{
		{"Fix the Parser on CRLF", "crlf", true},
		{"Fix the Parser on CRLF", "parser on", true},
		{"Fix the Parser", "parsers", false},
		{"", "a", false},
		{"abc", "", true},
		{"aAaAb", "aab", true},
		{"Ünïcode Straße", "straße", true},
		{"xyz", "xyzz", false},
	}
	for _, tt := range tests {
		if got := containsFold(tt.s, tt.w); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v", tt.s, tt.w, got)
		}
	}
}

func TestShortAge(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 12 * time.Second: "12s", 3 * time.Minute: "3m",
		5 * time.Hour: "5h", 47 * time.Hour: "47h", 72 * time.Hour: "3d"} {
		if got := shortAge(d); got != want {
			t.Errorf("shortAge(%s) = %q, want %q", d, got, want)
		}
	}
}
