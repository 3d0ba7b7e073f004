package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/supervisor"
)

// DashIntentKind names what the dashboard asks cmd to do.
type DashIntentKind int

// What the dashboard asks for.
const (
	// IntentJump shows Pane on the user's client.
	IntentJump DashIntentKind = iota + 1
	// IntentLaunch starts an agent as Launch says: a new one, a resume or a
	// fork, in a new split or window or typed into an idle shell.
	IntentLaunch
	// IntentClose asks the agent in Pane to quit.
	IntentClose
	// IntentNotify tells the user Text: the agent in Pane (none: outside
	// tmux) started waiting where no client shows it.
	IntentNotify
)

// DashIntent is an action the dashboard wants carried out. The dashboard
// runs no process: cmd does it, through supervisor.Actions.
type DashIntent struct {
	Kind   DashIntentKind
	Pane   string
	Launch supervisor.LaunchSpec
	Text   string
}

// DashResult is what carrying out an intent did.
type DashResult struct {
	// Pane is the pane acted on, or the one a launch created.
	Pane string
	// Text says what was done, for the status line ("" for nothing).
	Text string
}

// DashOptions configure the dashboard. Its functions are cmd's; they are
// called from tea.Cmds, never from Update.
type DashOptions struct {
	// Snapshots delivers the engine's snapshots (supervisor.Engine.Subscribe);
	// nil: only DashSnapshotMsg sent into the program updates the screen.
	Snapshots <-chan supervisor.Snapshot
	// Initial is shown until a snapshot arrives.
	Initial supervisor.Snapshot
	// Infos returns what the session index knows of the given session files
	// (cached by size and modification time: unchanged files are not read).
	Infos func(paths []string) []session.SessionInfo
	// AllSessions lists every session, newest first.
	AllSessions func() []session.SessionInfo
	// Do carries out an intent.
	Do func(ctx context.Context, in DashIntent) (DashResult, error)
	// Follow watches a session file: a value arrives on the channel when it
	// changed, until stop is called. nil: the preview is read again on every
	// snapshot only.
	Follow func(path string) (changed <-chan struct{}, stop func())
	// SelfPane is the dashboard's own pane ("" outside tmux or in a popup).
	SelfPane string
	// Popup: the dashboard runs in a tmux popup, which a jump closes.
	Popup bool
	// Notify announces an agent that starts waiting where no client shows
	// its pane (an IntentNotify).
	Notify bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Home shortens paths under it to ~.
	Home string
}

// DashSnapshotMsg carries a snapshot into the dashboard.
type DashSnapshotMsg struct {
	Snapshot supervisor.Snapshot
	fromChan bool // the listener must listen again
}

type (
	dashInfosMsg struct{ infos []session.SessionInfo }
	dashAllMsg   struct{ infos []session.SessionInfo }
	dashDoneMsg  struct {
		in  DashIntent
		res DashResult
		err error
	}
	dashTickMsg      struct{}
	previewFollowMsg struct {
		path    string
		changed <-chan struct{}
		stop    func()
	}
)

// dashMode is what has the keyboard.
type dashMode int

const (
	dashList    dashMode = iota
	dashFilter           // typing the query
	dashHelp             // the key list
	dashTarget           // choosing where to resume, fork or launch
	dashConfirm          // closing an agent: y or n
)

// actionTimeout bounds one intent: a hung tmux must not leave it running.
const actionTimeout = 30 * time.Second

// Dash is the dashboard model.
type Dash struct {
	opt  DashOptions
	keys dashKeyMap
	ctx  context.Context
	stop context.CancelFunc

	snap       supervisor.Snapshot
	infos      map[string]session.SessionInfo // by path, from Infos and AllSessions
	all        []session.SessionInfo
	shortCache map[string]shortCached // match text of all-sessions rows, per file version

	// Loads in flight, and whether another is due when they end.
	infosBusy, infosAgain bool
	allBusy, allAgain     bool
	allLoaded             bool
	allAt                 time.Time // when the last listing started (real time)
	allDue                bool      // a listing is scheduled

	view        dashView
	group       groupMode
	sort        sortMode
	hidePreview bool
	query       string

	rows    []dashRow
	visible []int      // rows matching the query, in order
	lines   []dashLine // what the list draws: group headers and rows
	cursor  int        // index into visible
	offset  int        // first line drawn
	selKey  string     // the selected row's key, kept across rebuilds
	// pendingSel is the key of a row to select once it appears (a pane a
	// launch created).
	pendingSel string

	mode    dashMode
	target  *targetList
	closing dashClosing // the agent x asked to close

	prev preview

	status    string
	statusErr bool
	notified  map[string]bool // waits already seen: "<pid>@<since>"
	primed    bool            // the first snapshot was seen
	ticking   bool
	width     int
	height    int
	quitting  bool
}

// dashClosing is the agent a close asks about.
type dashClosing struct{ pane, name string }

// dashLine is one line of the list: a group header (row < 0) or a row.
type dashLine struct {
	row    int // index into visible, -1 for a header
	header string
}

// NewDash returns the dashboard.
func NewDash(opt DashOptions) *Dash {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	ctx, stop := context.WithCancel(context.Background())
	d := &Dash{
		opt: opt, keys: newDashKeyMap(), ctx: ctx, stop: stop,
		snap: opt.Initial, infos: map[string]session.SessionInfo{}, shortCache: map[string]shortCached{},
		notified: map[string]bool{}, width: 80, height: 24,
	}
	d.attention() // waits already there are not announced
	d.rebuild()
	return d
}

// Init implements tea.Model.
func (d *Dash) Init() tea.Cmd {
	cmds := []tea.Cmd{d.listen()}
	if d.snap.Seq > 0 {
		cmds = append(cmds, d.afterSnapshot()...)
	}
	return tea.Batch(cmds...)
}

// Close ends what the dashboard started (the preview's watch).
func (d *Dash) Close() {
	d.stop()
	d.prev.reset("")
}

// listen waits for the next snapshot from the engine.
func (d *Dash) listen() tea.Cmd {
	ch := d.opt.Snapshots
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return DashSnapshotMsg{Snapshot: s, fromChan: true}
	}
}

// Update implements tea.Model: it only dispatches.
func (d *Dash) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		d.width, d.height = msg.Width, msg.Height
		d.scrollToCursor()
		return d, nil
	case tea.KeyMsg:
		return d, d.handleKey(msg)
	case DashSnapshotMsg:
		return d, d.handleSnapshot(msg)
	case dashInfosMsg:
		return d, d.handleInfos(msg)
	case dashAllMsg:
		return d, d.handleAll(msg)
	case dashDoneMsg:
		return d, d.handleDone(msg)
	case previewReadMsg:
		return d, d.handlePreviewRead(msg)
	case previewChangedMsg:
		return d, d.handlePreviewChanged(msg)
	case previewFollowMsg:
		return d, d.handlePreviewFollow(msg)
	case dashTickMsg:
		return d, d.handleTick()
	case dashAllDueMsg:
		d.allDue = false
		if d.view == viewAll {
			return d, d.loadAll()
		}
	}
	return d, nil
}

// handleSnapshot takes a new snapshot: rows, announcements, the preview and
// the lookups it calls for.
func (d *Dash) handleSnapshot(m DashSnapshotMsg) tea.Cmd {
	d.snap = m.Snapshot
	var cmds []tea.Cmd
	if m.fromChan {
		cmds = append(cmds, d.listen())
	}
	cmds = append(cmds, d.attention()...)
	d.rebuild()
	cmds = append(cmds, d.afterSnapshot()...)
	return tea.Batch(cmds...)
}

// afterSnapshot asks for what a snapshot makes stale: the session details
// of the live sessions, the all-sessions list when it is shown, and the
// preview's file (a stat when it did not change).
func (d *Dash) afterSnapshot() []tea.Cmd {
	cmds := []tea.Cmd{d.loadInfos(), d.syncPreview(true), d.tick()}
	if d.view == viewAll {
		cmds = append(cmds, d.reloadAllSoon())
	}
	return cmds
}

// allReloadEvery spaces the listings of every session that snapshots call
// for: with thousands of sessions a listing stats every file (the index
// reads only those that changed).
const allReloadEvery = 2 * time.Second

// dashAllDueMsg: a listing put off by allReloadEvery is due.
type dashAllDueMsg struct{}

// reloadAllSoon lists every session now, or once allReloadEvery has passed
// since the last listing.
func (d *Dash) reloadAllSoon() tea.Cmd {
	if d.allDue {
		return nil
	}
	wait := allReloadEvery - time.Since(d.allAt)
	if wait <= 0 {
		return d.loadAll()
	}
	d.allDue = true
	return tea.Tick(wait, func(time.Time) tea.Msg { return dashAllDueMsg{} })
}

// loadInfos looks the live sessions up in the index, off the update loop.
func (d *Dash) loadInfos() tea.Cmd {
	if d.opt.Infos == nil {
		return nil
	}
	if d.infosBusy {
		d.infosAgain = true
		return nil
	}
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, p := range d.snap.Panes {
		if p.Session != nil {
			add(p.Session.Path)
		}
	}
	for _, a := range d.snap.Agents {
		add(a.SessionFile)
	}
	if len(paths) == 0 {
		return nil
	}
	d.infosBusy = true
	infos := d.opt.Infos
	return func() tea.Msg { return dashInfosMsg{infos(paths)} }
}

func (d *Dash) handleInfos(m dashInfosMsg) tea.Cmd {
	d.infosBusy = false
	for _, in := range m.infos {
		d.infos[in.Path] = in
	}
	if d.view == viewLive {
		d.rebuild()
	}
	cmd := d.syncPreview(false)
	if d.infosAgain {
		d.infosAgain = false
		return tea.Batch(cmd, d.loadInfos())
	}
	return cmd
}

// loadAll lists every session, off the update loop.
func (d *Dash) loadAll() tea.Cmd {
	if d.opt.AllSessions == nil {
		d.allLoaded = true
		return nil
	}
	if d.allBusy {
		d.allAgain = true
		return nil
	}
	d.allBusy, d.allAt = true, time.Now()
	all := d.opt.AllSessions
	return func() tea.Msg { return dashAllMsg{all()} }
}

func (d *Dash) handleAll(m dashAllMsg) tea.Cmd {
	d.allBusy, d.allLoaded = false, true
	d.all = m.infos
	for _, in := range m.infos {
		d.infos[in.Path] = in
	}
	if len(d.shortCache) > 2*len(d.all)+100 {
		d.shortCache = map[string]shortCached{}
	}
	d.rebuild()
	cmd := d.syncPreview(false)
	if d.allAgain {
		d.allAgain = false
		return tea.Batch(cmd, d.loadAll())
	}
	return cmd
}

// attention announces agents that started waiting since the last snapshot
// where no client shows their pane. Waits already there when the dashboard
// opened are counted in the header, not announced.
func (d *Dash) attention() []tea.Cmd {
	var cmds []tea.Cmd
	seen := map[string]bool{}
	for _, a := range d.snap.Agents {
		if a.State != agent.StateWaiting {
			continue
		}
		k := fmt.Sprintf("%d@%d", a.PID, a.Since.UnixNano())
		seen[k] = true
		if d.notified[k] || !d.primed {
			continue
		}
		if p, ok := d.snap.PaneByID(a.Pane); ok && p.Visible {
			continue
		}
		where := "outside tmux"
		if a.Pane != "" {
			where = "in " + a.Pane
			if p, ok := d.snap.PaneByID(a.Pane); ok {
				where += " (" + p.MuxSessionName + ":" + fmt.Sprint(p.WindowIndex) + ")"
			}
		}
		name := session.SanitizeName(a.Title)
		if name == "" {
			name = shortPath(a.Cwd, d.opt.Home)
		}
		text := fmt.Sprintf("xcsh: %s is waiting %s", name, where)
		d.setStatus(text+" — w jumps there", false)
		if d.opt.Notify {
			cmds = append(cmds, d.do(DashIntent{Kind: IntentNotify, Pane: a.Pane, Text: text}))
		}
	}
	d.notified, d.primed = seen, d.primed || d.snap.Seq > 0
	return cmds
}

// tick redraws the ages every second while an agent's state has one.
func (d *Dash) tick() tea.Cmd {
	if d.ticking || !d.needsTick() {
		return nil
	}
	d.ticking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return dashTickMsg{} })
}

func (d *Dash) needsTick() bool {
	for _, a := range d.snap.Agents {
		switch a.State {
		case agent.StateBusy, agent.StateWaiting, agent.StateStarting:
			return true
		}
	}
	return false
}

func (d *Dash) handleTick() tea.Cmd {
	d.ticking = false
	return d.tick()
}

// do runs an intent through opt.Do, off the update loop.
func (d *Dash) do(in DashIntent) tea.Cmd {
	do := d.opt.Do
	if do == nil {
		return nil
	}
	ctx := d.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		res, err := do(ctx, in)
		return dashDoneMsg{in: in, res: res, err: err}
	}
}

func (d *Dash) handleDone(m dashDoneMsg) tea.Cmd {
	if m.err != nil {
		if m.in.Kind == IntentNotify {
			d.setStatus("could not notify: "+m.err.Error(), true)
		} else {
			d.setStatus(m.err.Error(), true)
		}
		return nil
	}
	if m.res.Text != "" && m.in.Kind != IntentNotify {
		d.setStatus(m.res.Text, false)
	}
	switch m.in.Kind {
	case IntentJump:
		if d.opt.Popup {
			d.quitting = true
			d.Close()
			return tea.Quit
		}
	case IntentLaunch:
		if m.res.Pane != "" {
			d.pendingSel = "pane:" + m.res.Pane
			if d.view != viewLive {
				d.view = viewLive
			}
			d.rebuild()
		}
	}
	return nil
}

func (d *Dash) setStatus(s string, isErr bool) { d.status, d.statusErr = s, isErr }

// rebuild makes the rows from the snapshot (or the session list), sorts
// and filters them, and keeps the selection on the same row.
func (d *Dash) rebuild() {
	if d.view == viewAll {
		d.rows = allRows(d.all, d.snap, d.group, d.opt.Home, d.shortCache)
	} else {
		d.rows = liveRows(d.snap, d.infos, d.group, d.opt.Home)
	}
	sortRows(d.rows, d.sort)
	d.refilter()
}

// refilter applies the query and lays the lines out.
func (d *Dash) refilter() {
	words := strings.Fields(strings.ToLower(d.query))
	d.visible = d.visible[:0]
	for i := range d.rows {
		if len(words) == 0 || matchRow(&d.rows[i], words) {
			d.visible = append(d.visible, i)
		}
	}
	d.lines = d.lines[:0]
	last := "\x00"
	for vi, ri := range d.visible {
		if g := d.rows[ri].group; g != last {
			last = g
			if g != "" || vi > 0 {
				d.lines = append(d.lines, dashLine{row: -1, header: g})
			}
		}
		d.lines = append(d.lines, dashLine{row: vi})
	}
	// Keep the selection on its row; a launched pane takes it once shown.
	want := d.selKey
	if d.pendingSel != "" {
		for vi, ri := range d.visible {
			if d.rows[ri].key == d.pendingSel {
				want, d.pendingSel = d.pendingSel, ""
				d.cursor = vi
				break
			}
		}
	}
	found := false
	for vi, ri := range d.visible {
		if d.rows[ri].key == want {
			d.cursor, found = vi, true
			break
		}
	}
	if !found {
		d.cursor = min(d.cursor, len(d.visible)-1)
		d.cursor = max(d.cursor, 0)
	}
	if r := d.selected(); r != nil {
		d.selKey = r.key
	}
	d.scrollToCursor()
}

// selected is the row under the cursor, nil when the list is empty.
func (d *Dash) selected() *dashRow {
	if d.cursor < 0 || d.cursor >= len(d.visible) {
		return nil
	}
	return &d.rows[d.visible[d.cursor]]
}

func (d *Dash) move(n int) tea.Cmd {
	if len(d.visible) == 0 {
		return nil
	}
	d.cursor = max(0, min(len(d.visible)-1, d.cursor+n))
	d.selKey = d.selected().key
	d.scrollToCursor()
	return d.syncPreview(false)
}

// cursorLine is the line index of the cursor's row.
func (d *Dash) cursorLine() int {
	for i, l := range d.lines {
		if l.row == d.cursor {
			return i
		}
	}
	return 0
}

func (d *Dash) scrollToCursor() {
	h := d.layout().list
	cl := d.cursorLine()
	// Show the cursor's group header too when the row is first in its group.
	top := cl
	if cl > 0 && d.lines[cl-1].row < 0 {
		top = cl - 1
	}
	if top < d.offset {
		d.offset = top
	}
	if cl >= d.offset+h {
		d.offset = cl - h + 1
	}
	d.offset = max(0, min(d.offset, len(d.lines)-h))
}

// syncPreview points the preview at the selected row's session: a new
// file is read from its end and followed; the same file is read for what
// was appended when reread is true.
func (d *Dash) syncPreview(reread bool) tea.Cmd {
	path := ""
	if r := d.selected(); r != nil {
		path = r.sessionPath
	}
	if d.hidePreview {
		path = ""
	}
	if path == d.prev.path {
		if reread {
			return d.prev.readCmd()
		}
		return nil
	}
	d.prev.reset(path)
	if path == "" {
		return nil
	}
	return tea.Batch(d.prev.readCmd(), d.follow(path))
}

// follow starts watching path, off the update loop.
func (d *Dash) follow(path string) tea.Cmd {
	f := d.opt.Follow
	if f == nil {
		return nil
	}
	return func() tea.Msg {
		ch, stop := f(path)
		return previewFollowMsg{path: path, changed: ch, stop: stop}
	}
}

func (d *Dash) handlePreviewFollow(m previewFollowMsg) tea.Cmd {
	if m.path != d.prev.path || d.quitting {
		if m.stop != nil {
			m.stop()
		}
		return nil
	}
	if d.prev.stop != nil {
		d.prev.stop()
	}
	d.prev.stop, d.prev.changed = m.stop, m.changed
	return waitChange(m.path, m.changed)
}

// waitChange waits for the followed file's next change.
func waitChange(path string, ch <-chan struct{}) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		if _, ok := <-ch; !ok {
			return nil
		}
		return previewChangedMsg{path: path}
	}
}

func (d *Dash) handlePreviewChanged(m previewChangedMsg) tea.Cmd {
	if m.path != d.prev.path {
		return nil
	}
	return tea.Batch(d.prev.readCmd(), waitChange(m.path, d.prev.changed))
}

func (d *Dash) handlePreviewRead(m previewReadMsg) tea.Cmd {
	if !d.prev.apply(m) {
		return nil
	}
	var cmds []tea.Cmd
	if d.prev.again {
		d.prev.again = false
		cmds = append(cmds, d.prev.readCmd())
	}
	return tea.Batch(cmds...)
}

// handleKey dispatches a key by mode.
func (d *Dash) handleKey(k tea.KeyMsg) tea.Cmd {
	if k.Alt && !k.Paste {
		// No key of the dashboard takes Alt: Esc and a key read together
		// are the two keys.
		k.Alt = false
		return tea.Sequence(d.handleKey(tea.KeyMsg{Type: tea.KeyEsc}), d.handleKey(k))
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste && d.mode != dashFilter {
		// Keys typed quickly arrive as one message: each is a command.
		var cmds []tea.Cmd
		for _, r := range k.Runes {
			cmds = append(cmds, d.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
		}
		return tea.Sequence(cmds...)
	}
	switch d.mode {
	case dashHelp:
		if key.Matches(k, d.keys.Help, d.keys.Cancel) || k.String() == "q" {
			d.mode = dashList
		} else if k.String() == "ctrl+c" {
			return d.quit()
		}
		return nil
	case dashFilter:
		return d.filterKey(k)
	case dashTarget:
		return d.targetKey(k)
	case dashConfirm:
		return d.confirmKey(k)
	}
	d.setStatus("", false)
	km := d.keys
	switch {
	case key.Matches(k, km.Quit):
		return d.quit()
	case key.Matches(k, km.Up):
		return d.move(-1)
	case key.Matches(k, km.Down):
		return d.move(1)
	case key.Matches(k, km.PageUp):
		return d.move(-max(1, d.layout().list-1))
	case key.Matches(k, km.PageDown):
		return d.move(max(1, d.layout().list-1))
	case key.Matches(k, km.Home):
		return d.move(-len(d.visible))
	case key.Matches(k, km.End):
		return d.move(len(d.visible))
	case key.Matches(k, km.Jump):
		return d.jump()
	case key.Matches(k, km.Waiting):
		return d.jumpWaiting()
	case key.Matches(k, km.Resume):
		return d.openTarget(targetResume)
	case key.Matches(k, km.Fork):
		return d.openTarget(targetFork)
	case key.Matches(k, km.New):
		return d.openTarget(targetNew)
	case key.Matches(k, km.Close):
		return d.askClose()
	case key.Matches(k, km.Filter):
		d.mode = dashFilter
		d.scrollToCursor()
	case key.Matches(k, km.View):
		return d.switchView()
	case key.Matches(k, km.Group):
		d.group = 1 - d.group
		d.rebuild()
	case key.Matches(k, km.Sort):
		d.sort = (d.sort + 1) % 3
		d.rebuild()
	case key.Matches(k, km.Preview):
		d.hidePreview = !d.hidePreview
		d.scrollToCursor()
		return d.syncPreview(false)
	case key.Matches(k, km.Help):
		d.mode = dashHelp
	case k.Type == tea.KeyEsc && d.query != "":
		d.query = ""
		d.refilter()
		return d.syncPreview(false)
	}
	return nil
}

func (d *Dash) quit() tea.Cmd {
	d.quitting = true
	d.Close()
	return tea.Quit
}

// filterKey edits the query; Enter keeps it, Esc drops it.
func (d *Dash) filterKey(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyCtrlC:
		return d.quit()
	case tea.KeyEnter:
		d.mode = dashList
		d.scrollToCursor()
		return nil
	case tea.KeyEsc:
		d.mode, d.query = dashList, ""
	case tea.KeyUp, tea.KeyCtrlP:
		return d.move(-1)
	case tea.KeyDown, tea.KeyCtrlN:
		return d.move(1)
	case tea.KeyBackspace:
		r := []rune(d.query)
		if len(r) == 0 {
			return nil
		}
		d.query = string(r[:len(r)-1])
	case tea.KeyCtrlU:
		d.query = ""
	case tea.KeySpace:
		d.query += " "
	case tea.KeyRunes:
		d.query += string(k.Runes)
	default:
		return nil
	}
	d.refilter()
	return d.syncPreview(false)
}

// switchView toggles between the live terminals and every session; the
// session list is read when it is first shown and on every snapshot while
// it is.
func (d *Dash) switchView() tea.Cmd {
	d.view = 1 - d.view
	d.cursor, d.offset, d.selKey = 0, 0, ""
	d.rebuild()
	cmds := []tea.Cmd{d.syncPreview(false)}
	if d.view == viewAll {
		cmds = append(cmds, d.loadAll())
	}
	return tea.Batch(cmds...)
}

// liveAgentOf returns the running agent writing the session file path.
func (d *Dash) liveAgentOf(path string) *supervisor.Agent {
	if path == "" {
		return nil
	}
	for i := range d.snap.Agents {
		if f := d.snap.Agents[i].SessionFile; f != "" && filepath.Clean(f) == filepath.Clean(path) {
			return &d.snap.Agents[i]
		}
	}
	return nil
}

// rowPane is the pane a row shows or its session's agent runs in.
func (d *Dash) rowPane(r *dashRow) string {
	if r.pane != nil {
		return r.pane.ID
	}
	if r.agent != nil {
		return r.agent.Pane
	}
	return r.livePane
}

// jump shows the selected pane; on a past session it offers to resume it.
func (d *Dash) jump() tea.Cmd {
	r := d.selected()
	if r == nil {
		return nil
	}
	pane := d.rowPane(r)
	switch {
	case pane != "" && pane == d.opt.SelfPane:
		d.setStatus("this is the dashboard's own pane", false)
		return nil
	case pane != "":
		return d.do(DashIntent{Kind: IntentJump, Pane: pane})
	case r.agent != nil:
		d.setStatus(fmt.Sprintf("the agent (pid %d) runs outside tmux: there is no pane to jump to", r.agent.PID), true)
		return nil
	case r.sessionPath != "" && d.view == viewAll:
		return d.openTarget(targetResume)
	}
	return nil
}

// jumpWaiting shows the agent that has waited longest.
func (d *Dash) jumpWaiting() tea.Cmd {
	var best *supervisor.Agent
	for i := range d.snap.Agents {
		a := &d.snap.Agents[i]
		if a.State == agent.StateWaiting && (best == nil || a.Since.Before(best.Since)) {
			best = a
		}
	}
	switch {
	case best == nil:
		d.setStatus("no agent is waiting", false)
		return nil
	case best.Pane == "":
		d.setStatus(fmt.Sprintf("the agent waiting longest (pid %d, %s) runs outside tmux", best.PID, shortPath(best.Cwd, d.opt.Home)), true)
		return nil
	}
	d.selKey = "pane:" + best.Pane
	d.refilter()
	return tea.Batch(d.syncPreview(false), d.do(DashIntent{Kind: IntentJump, Pane: best.Pane}))
}

// askClose asks before closing the selected row's agent.
func (d *Dash) askClose() tea.Cmd {
	r := d.selected()
	if r == nil {
		return nil
	}
	if r.agent == nil || d.rowPane(r) == "" {
		d.setStatus("no agent runs in a pane here", true)
		return nil
	}
	d.closing = dashClosing{pane: d.rowPane(r), name: r.title}
	d.mode = dashConfirm
	return nil
}

func (d *Dash) confirmKey(k tea.KeyMsg) tea.Cmd {
	switch {
	case k.String() == "ctrl+c":
		return d.quit()
	case key.Matches(k, d.keys.Yes):
		pane := d.closing.pane
		d.mode, d.closing = dashList, dashClosing{}
		d.setStatus("closing the agent in "+pane+"…", false)
		return d.do(DashIntent{Kind: IntentClose, Pane: pane})
	case key.Matches(k, d.keys.No):
		d.mode, d.closing = dashList, dashClosing{}
	}
	return nil
}
