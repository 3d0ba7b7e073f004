package terminal

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeKeyPart(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 300)
	tests := []struct{ in, want string }{
		{"%3", "%3"},
		{"7", "7"},
		{"w0t0p0:8A3F6F2C-1B2D-4E5F-9A8B-0C1D2E3F4A5B", "w0t0p0:8A3F6F2C-1B2D-4E5F-9A8B-0C1D2E3F4A5B"},
		{"1111-2222-3333", "1111-2222-3333"},
		{"a.b", "a.b"},
		{"../../x", "_._.__x"},
		{"..", "_."},
		{"...", "_._"},
		{".", "_"},
		{"a..b", "a._b"},
		{"/etc/passwd", "_etc_passwd"},
		{`a\b`, "a_b"},
		{"x\ny\x00z\x7f\u0085", "x_y_z__"},
		{"bad\xffutf8", "bad_utf8"},
		{"\uFFFD ok", "\uFFFD ok"},
		{"héllo", "héllo"},
	}
	for _, tc := range tests {
		if got := SanitizeKeyPart(tc.in); got != tc.want {
			t.Errorf("SanitizeKeyPart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}

	got := SanitizeKeyPart(long)
	if len(got) != MaxKeyPartLen || !strings.HasPrefix(got, "aaaa") {
		t.Errorf("long value: %q (%d bytes)", got, len(got))
	}
	if other := SanitizeKeyPart(long + "b"); other == got {
		t.Errorf("distinct long values collide: %q", got)
	}
	if got := SanitizeKeyPart(strings.Repeat("é", 200)); len(got) > MaxKeyPartLen || !utf8.ValidString(got) {
		t.Errorf("long multi-byte value cut badly: %q", got)
	}
}

func FuzzSanitizeKeyPart(f *testing.F) {
	for _, s := range []string{"%3", "../../x", "..", "a/b", "\x00", strings.Repeat("./", 100), "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := SanitizeKeyPart(v)
		if strings.Contains(got, "..") || strings.ContainsAny(got, `/\`) || strings.HasPrefix(got, ".") ||
			len(got) > MaxKeyPartLen || !utf8.ValidString(got) {
			t.Fatalf("SanitizeKeyPart(%q) = %q", v, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("SanitizeKeyPart(%q) = %q: control character", v, got)
			}
		}
		if (v == "") != (got == "") {
			t.Fatalf("SanitizeKeyPart(%q) = %q", v, got)
		}
	})
}

func TestKey(t *testing.T) {
	t.Parallel()
	all := map[string]string{
		"KITTY_WINDOW_ID": "7", "TMUX_PANE": "%3", "TERM_SESSION_ID": "w0t0p0:U", "WT_SESSION": "G",
	}
	tests := []struct {
		name      string
		tty       string
		env       map[string]string
		key, rule string
	}{
		{"pts", "/dev/pts/3", all, "pts-3", "tty"},
		{"macOS tty", "/dev/ttys003", nil, "ttys003", "tty"},
		{"console", "/dev/tty1", nil, "tty1", "tty"},
		{"kitty first", "", all, "kitty-7", "KITTY_WINDOW_ID"},
		{"tmux", "", map[string]string{"TMUX_PANE": "%3", "TERM_SESSION_ID": "x", "WT_SESSION": "y"}, "tmux-%3", "TMUX_PANE"},
		{"apple", "", map[string]string{"TERM_SESSION_ID": "w0t0p0:U", "WT_SESSION": "y"}, "apple-w0t0p0:U", "TERM_SESSION_ID"},
		{"wt", "", map[string]string{"WT_SESSION": "G"}, "wt-G", "WT_SESSION"},
		{"empty values are absent", "", map[string]string{"KITTY_WINDOW_ID": "", "TMUX_PANE": "", "WT_SESSION": "G"}, "wt-G", "WT_SESSION"},
		{"none", "", nil, "", "none"},
		{"sanitised", "", map[string]string{"TMUX_PANE": "../../x"}, "tmux-_._.__x", "TMUX_PANE"},
	}
	for _, tc := range tests {
		key, rule := key(tc.tty, mapEnv(tc.env))
		if key != tc.key || rule != tc.rule {
			t.Errorf("%s: key = %q, %q; want %q, %q", tc.name, key, rule, tc.key, tc.rule)
		}
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	// comm with spaces and parentheses; fields from a real tmux pane shell.
	line := "4180 (a) b (c)) S 3851 4180 4180 34816 4347 4194560 1 2 3 4 5 6 7 8 20 0 1 0 123456 1 2 3\n"
	st, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{PID: 4180, Comm: "a) b (c)", PPID: 3851, SID: 4180, TTYNr: 34816, StartTime: 123456}
	if st != want {
		t.Errorf("parseStat = %+v, want %+v", st, want)
	}
	for _, bad := range []string{"", "4180 (x", "x (y) S 1 2 3", "1 (y) S 1 2"} {
		if _, err := parseStat([]byte(bad)); !errors.Is(err, errStatFormat) {
			t.Errorf("parseStat(%q): %v", bad, err)
		}
	}
}

func TestPtsPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dev  uint64
		want string
		ok   bool
	}{
		{136<<8 | 3, "/dev/pts/3", true},
		{34816 + 59, "/dev/pts/59", true},
		{137<<8 | 1, "/dev/pts/257", true},
		{136<<8 | (300 & 0xff) | (300&^0xff)<<12, "/dev/pts/300", true}, // minor above 255
		{4<<8 | 1, "", false},                                           // /dev/tty1
	}
	for _, tc := range tests {
		got, ok := ptsPath(tc.dev)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ptsPath(%#x) = %q, %v; want %q, %v", tc.dev, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseTMUX(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		socket  string
		pid     int
		session string
		ok      bool
	}{
		{"/tmp/tmux-0/default,3851,0", "/tmp/tmux-0/default", 3851, "$0", true},
		{"/tmp/a,b/sock,12,3", "/tmp/a,b/sock", 12, "$3", true},
		{"/tmp/s,12,", "/tmp/s", 12, "", true},
		{"", "", 0, "", false},
		{"/tmp/s", "", 0, "", false},
		{"/tmp/s,x,0", "", 0, "", false},
		{",12,0", "", 0, "", false},
	}
	for _, tc := range tests {
		socket, pid, session, ok := parseTMUX(tc.in)
		if socket != tc.socket || pid != tc.pid || session != tc.session || ok != tc.ok {
			t.Errorf("parseTMUX(%q) = %q, %d, %q, %v", tc.in, socket, pid, session, ok)
		}
	}
}

func TestParseTmuxPanes(t *testing.T) {
	t.Parallel()
	got := parseTmuxPanes("%0 3852 /dev/pts/0\n%1 4169 /dev/pts/1\n\nbad line\n%2 x /dev/pts/2\n")
	want := []tmuxPane{{"%0", 3852, "/dev/pts/0"}, {"%1", 4169, "/dev/pts/1"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parseTmuxPanes = %+v, want %+v", got, want)
	}
}

// fakeSystem is a process tree and a set of fds for detect.
type fakeSystem struct {
	self       int
	fds        map[int]string // fd -> tty path
	procs      map[int]procStat
	devTTYPath string // what /dev/tty + TIOCGDEV gives; "" for ENXIO
	boot       string
	panes      []tmuxPane
	panesErr   error
	panesRuns  int
	environ    map[int]map[string]string // pid -> readable /proc/<pid>/environ
}

func (f *fakeSystem) processEnv(pid int, name string) (string, bool) {
	env, ok := f.environ[pid]
	if !ok {
		return "", false
	}
	v, ok := env[name]
	return v, ok
}

const pts3 = 136<<8 | 3

func (f *fakeSystem) fdTTY(fd int) (string, uint64, bool) {
	p, ok := f.fds[fd]
	if !ok {
		return "", 0, false
	}
	return p, devOf(p), true
}

func devOf(p string) uint64 {
	switch p {
	case "/dev/pts/3":
		return pts3
	case "/dev/pts/5":
		return 136<<8 | 5
	}
	return 0
}

func (f *fakeSystem) stat(pid int) (procStat, error) {
	if pid == 0 {
		pid = f.self
	}
	st, ok := f.procs[pid]
	if !ok {
		return procStat{}, errors.New("no such process")
	}
	return st, nil
}

func (f *fakeSystem) devPath(dev uint64) (string, bool) { return ptsPath(dev) }

func (f *fakeSystem) devTTY() (string, uint64, error) {
	if f.devTTYPath == "" {
		return "", 0, errors.New("ENXIO")
	}
	return f.devTTYPath, devOf(f.devTTYPath), nil
}

func (f *fakeSystem) sessionLeader(dev uint64) int {
	for pid, st := range f.procs {
		if st.PID == st.SID && st.TTYNr == dev {
			return pid
		}
	}
	return 0
}

func (f *fakeSystem) bootID() (string, error) {
	if f.boot == "" {
		return "", errors.New("no boot id")
	}
	return f.boot, nil
}

func (f *fakeSystem) tmuxPanes(string) ([]tmuxPane, error) {
	f.panesRuns++
	return f.panes, f.panesErr
}

// paneTree is: kitty 50 -> kitty shell 60 -> tmux client 70 (on the kitty
// window's tty), tmux server 100 -> pane shell 200 (leader of pts/3) -> xcsh 300.
func paneTree() map[int]procStat {
	return map[int]procStat{
		1:   {PID: 1, Comm: "init", SID: 1},
		50:  {PID: 50, Comm: "kitty", PPID: 1, SID: 50},
		60:  {PID: 60, Comm: "bash", PPID: 50, SID: 60, TTYNr: 136<<8 | 9, StartTime: 600},
		70:  {PID: 70, Comm: "tmux: client", PPID: 60, SID: 60, TTYNr: 136<<8 | 9},
		100: {PID: 100, Comm: "tmux: server", PPID: 1, SID: 100},
		200: {PID: 200, Comm: "bash", PPID: 100, SID: 200, TTYNr: pts3, StartTime: 2000},
		300: {PID: 300, Comm: "xcsh", PPID: 200, SID: 200, TTYNr: pts3, StartTime: 3000},
	}
}

var tmuxInKittyEnv = map[string]string{
	"TMUX": "/tmp/tmux-0/default,100,0", "TMUX_PANE": "%3",
	// leaked from the kitty window that started the tmux server
	"KITTY_WINDOW_ID": "2", "KITTY_PID": "50", "KITTY_LISTEN_ON": "unix:/tmp/k",
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tty3 := map[int]string{0: "/dev/pts/3", 1: "/dev/pts/3", 2: "/dev/pts/3"}
	tests := []struct {
		name    string
		sys     *fakeSystem
		env     map[string]string
		want    Identity
		wantErr bool
	}{
		{
			name: "plain pane, tmux inside kitty",
			sys:  &fakeSystem{self: 300, fds: tty3, procs: paneTree(), boot: "B", panes: []tmuxPane{{"%3", 200, "/dev/pts/3"}}},
			env:  tmuxInKittyEnv,
			want: Identity{
				Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "stdin", Token: "sid=200:2000;boot=B", Leader: 200,
				Overlay: &Overlay{Kind: "tmux", ID: "tmux:/tmp/tmux-0/default:100:%3", Socket: "/tmp/tmux-0/default", PID: 100, Session: "$0", Pane: "%3", VerifiedBy: VerifiedByTmux},
			},
		},
		{
			name: "stdin redirected",
			sys:  &fakeSystem{self: 300, fds: map[int]string{1: "/dev/pts/3", 2: "/dev/pts/3"}, procs: paneTree(), boot: "B"},
			want: Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "stdout", Token: "sid=200:2000;boot=B", Leader: 200},
		},
		{
			name: "only stderr",
			sys:  &fakeSystem{self: 300, fds: map[int]string{2: "/dev/pts/3"}, procs: paneTree(), boot: "B"},
			want: Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "stderr", Token: "sid=200:2000;boot=B", Leader: 200},
		},
		{
			name: "all redirected",
			sys:  &fakeSystem{self: 300, procs: paneTree(), boot: "B"},
			want: Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "/proc/self/stat", Token: "sid=200:2000;boot=B", Leader: 200},
		},
		{
			name:    "no /proc: /dev/tty, no leader, no token",
			sys:     &fakeSystem{self: 300, procs: map[int]procStat{}, boot: "B", devTTYPath: "/dev/pts/3"},
			want:    Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "/dev/tty"},
			wantErr: true,
		},
		{
			name:    "nothing at all",
			sys:     &fakeSystem{self: 300, procs: map[int]procStat{}, boot: "B"},
			env:     map[string]string{"KITTY_WINDOW_ID": "7"},
			want:    Identity{Key: "kitty-7", Rule: "KITTY_WINDOW_ID"},
			wantErr: true,
		},
		{
			name: "no controlling tty: environment rules",
			sys: &fakeSystem{self: 300, boot: "B", procs: map[int]procStat{
				300: {PID: 300, Comm: "xcsh", PPID: 1, SID: 300}, 1: {PID: 1, SID: 1},
			}},
			env:  map[string]string{"TMUX_PANE": "../../x", "WT_SESSION": "G"},
			want: Identity{Key: "tmux-_._.__x", Rule: "TMUX_PANE"},
		},
		{
			name: "leader gone: weak token",
			sys: &fakeSystem{self: 300, fds: tty3, boot: "B", procs: map[int]procStat{
				300: {PID: 300, Comm: "xcsh", PPID: 1, SID: 200, TTYNr: pts3}, 1: {PID: 1, SID: 1},
			}},
			want: Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "stdin", Token: "sid=200;boot=B", Leader: 200},
		},
		{
			name: "leader pid reused by a non-leader: weak token",
			sys: &fakeSystem{self: 300, fds: tty3, boot: "B", procs: map[int]procStat{
				300: {PID: 300, Comm: "xcsh", PPID: 1, SID: 200, TTYNr: pts3},
				200: {PID: 200, Comm: "other", PPID: 1, SID: 150, StartTime: 9},
				1:   {PID: 1, SID: 1},
			}},
			want: Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "stdin", Token: "sid=200;boot=B", Leader: 200},
		},
		{
			name: "tty on stdin is not ours: leader found by scan",
			sys: &fakeSystem{self: 300, fds: map[int]string{0: "/dev/pts/5"}, boot: "B", procs: func() map[int]procStat {
				m := paneTree()
				m[500] = procStat{PID: 500, Comm: "bash", PPID: 100, SID: 500, TTYNr: 136<<8 | 5, StartTime: 5000}
				return m
			}()},
			want: Identity{Key: "pts-5", Rule: "tty", TTY: "/dev/pts/5", TTYFrom: "stdin", Token: "sid=500:5000;boot=B", Leader: 500},
		},
		{
			name:    "no boot id",
			sys:     &fakeSystem{self: 300, fds: tty3, procs: paneTree()},
			want:    Identity{Key: "pts-3", Rule: "tty", TTY: "/dev/pts/3", TTYFrom: "stdin", Token: "sid=200:2000", Leader: 200},
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := detect(tc.sys, mapEnv(tc.env))
			if (err != nil) != tc.wantErr {
				t.Errorf("detect error = %v, want error: %v", err, tc.wantErr)
			}
			if got.Overlay != nil && tc.want.Overlay == nil {
				got.Overlay = nil // overlays are tested below
			}
			assertIdentity(t, got, tc.want)
		})
	}
}

func TestInnermost(t *testing.T) {
	t.Parallel()
	kittyWindow := func() map[int]procStat {
		m := paneTree()
		// xcsh 400 in a kitty window that was started from the tmux pane:
		// kitty 350 is a child of the pane shell 200.
		m[350] = procStat{PID: 350, Comm: "kitty", PPID: 200, SID: 200}
		m[360] = procStat{PID: 360, Comm: "bash", PPID: 350, SID: 360, TTYNr: 136<<8 | 7, StartTime: 3600}
		m[400] = procStat{PID: 400, Comm: "xcsh", PPID: 360, SID: 360, TTYNr: 136<<8 | 7}
		return m
	}
	tests := []struct {
		name      string
		sys       *fakeSystem
		env       map[string]string
		want      *Overlay
		tmuxCalls int
	}{
		{
			name: "no multiplexer",
			sys:  &fakeSystem{self: 300, procs: paneTree()},
			want: nil,
		},
		{
			name: "tmux inside kitty: tmux, pane from the pane leader's environment",
			sys:  &fakeSystem{self: 300, procs: paneTree(), environ: map[int]map[string]string{200: {"TMUX_PANE": "%3"}}},
			env:  tmuxInKittyEnv,
			want: &Overlay{Kind: "tmux", ID: "tmux:/tmp/tmux-0/default:100:%3", Socket: "/tmp/tmux-0/default", PID: 100, Session: "$0", Pane: "%3", VerifiedBy: VerifiedByPaneEnviron},
		},
		{
			name: "wrong TMUX_PANE is corrected by the pane leader's environment",
			sys:  &fakeSystem{self: 300, procs: paneTree(), environ: map[int]map[string]string{200: {"TMUX_PANE": "%3"}}},
			env:  map[string]string{"TMUX": "/s,100,0", "TMUX_PANE": "%99"},
			want: &Overlay{Kind: "tmux", ID: "tmux:/s:100:%3", Socket: "/s", PID: 100, Session: "$0", Pane: "%3", VerifiedBy: VerifiedByPaneEnviron},
		},
		{
			name:      "environment unreadable: confirmed by the server",
			sys:       &fakeSystem{self: 300, procs: paneTree(), panes: []tmuxPane{{"%1", 150, "/dev/pts/1"}, {"%3", 200, "/dev/pts/3"}}},
			env:       tmuxInKittyEnv,
			want:      &Overlay{Kind: "tmux", ID: "tmux:/tmp/tmux-0/default:100:%3", Socket: "/tmp/tmux-0/default", PID: 100, Session: "$0", Pane: "%3", VerifiedBy: VerifiedByTmux},
			tmuxCalls: 1,
		},
		{
			name:      "wrong TMUX_PANE is corrected by the server",
			sys:       &fakeSystem{self: 300, procs: paneTree(), panes: []tmuxPane{{"%3", 200, "/dev/pts/3"}}},
			env:       map[string]string{"TMUX": "/s,100,0", "TMUX_PANE": "%99"},
			want:      &Overlay{Kind: "tmux", ID: "tmux:/s:100:%3", Socket: "/s", PID: 100, Session: "$0", Pane: "%3", VerifiedBy: VerifiedByTmux},
			tmuxCalls: 1,
		},
		{
			name:      "tmux unreachable: process tree",
			sys:       &fakeSystem{self: 300, procs: paneTree(), panesErr: errors.New("no server")},
			env:       map[string]string{"TMUX": "/s,100,0", "TMUX_PANE": "%3"},
			want:      &Overlay{Kind: "tmux", ID: "tmux:/s:100:%3", Socket: "/s", PID: 100, Session: "$0", Pane: "%3", VerifiedBy: VerifiedByProcessTree},
			tmuxCalls: 1,
		},
		{
			name: "kitty started from a tmux pane: kitty is nearer",
			sys:  &fakeSystem{self: 400, procs: kittyWindow()},
			env:  map[string]string{"TMUX": "/s,100,0", "TMUX_PANE": "%3", "KITTY_WINDOW_ID": "4", "KITTY_PID": "350", "KITTY_LISTEN_ON": "unix:/k"},
			want: &Overlay{Kind: "kitty", ID: "kitty:350:4", Socket: "unix:/k", PID: 350, Pane: "4", VerifiedBy: VerifiedByProcessTree},
		},
		{
			name: "old kitty without KITTY_PID: matched by name",
			sys:  &fakeSystem{self: 400, procs: kittyWindow()},
			env:  map[string]string{"KITTY_WINDOW_ID": "4"},
			want: &Overlay{Kind: "kitty", ID: "kitty::4", Pane: "4", VerifiedBy: VerifiedByProcessTree},
		},
		{
			name:      "leaked ids only: first candidate, unverified",
			sys:       &fakeSystem{self: 300, procs: paneTree(), panesErr: errors.New("no server")},
			env:       map[string]string{"TMUX": "/gone,999,0", "TMUX_PANE": "%3", "KITTY_WINDOW_ID": "2", "KITTY_PID": "998"},
			want:      &Overlay{Kind: "tmux", ID: "tmux:/gone:999:%3", Socket: "/gone", PID: 999, Session: "$0", Pane: "%3"},
			tmuxCalls: 1,
		},
		{
			name: "wezterm",
			sys: &fakeSystem{self: 300, procs: func() map[int]procStat {
				m := paneTree()
				m[100] = procStat{PID: 100, Comm: "wezterm-mux-ser", PPID: 1, SID: 100}
				return m
			}()},
			env:  map[string]string{"WEZTERM_PANE": "12", "WEZTERM_UNIX_SOCKET": "/run/w/sock", "KITTY_WINDOW_ID": "2", "KITTY_PID": "50"},
			want: &Overlay{Kind: "wezterm", ID: "wezterm:/run/w/sock:12", Socket: "/run/w/sock", Pane: "12", VerifiedBy: VerifiedByProcessTree},
		},
		{
			name: "control characters in ids",
			sys:  &fakeSystem{self: 300, procs: paneTree()},
			env:  map[string]string{"WEZTERM_PANE": "1\n2"},
			want: &Overlay{Kind: "wezterm", ID: "wezterm::1_2", Pane: "1_2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			self, _ := tc.sys.stat(0)
			chain := &lineage{sys: tc.sys, procs: []procStat{self}}
			leader := findLeader(tc.sys, chain, self.TTYNr)
			tty, _ := ptsPath(self.TTYNr)
			got := innermost(tc.sys, mapEnv(tc.env), chain, tty, leader)
			assertOverlay(t, got, tc.want)
			if tc.sys.panesRuns != tc.tmuxCalls {
				t.Errorf("tmux ran %d times, want %d", tc.sys.panesRuns, tc.tmuxCalls)
			}
		})
	}
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func assertIdentity(t *testing.T, got, want Identity) {
	t.Helper()
	gotOv, wantOv := got.Overlay, want.Overlay
	got.Overlay, want.Overlay = nil, nil
	if got != want {
		t.Errorf("identity\n got %+v\nwant %+v", got, want)
	}
	assertOverlay(t, gotOv, wantOv)
}

func assertOverlay(t *testing.T, got, want *Overlay) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("overlay = %+v, want %+v", got, want)
	case *got != *want:
		t.Errorf("overlay\n got %+v\nwant %+v", *got, *want)
	}
}
