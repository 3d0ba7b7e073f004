package kitty

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// want is the state both ls fixtures describe: OS window 1 (focused) with
// tab 1 (inactive; window 1) and tab 2 (active; windows 2 and 3, 3 active),
// OS window 2 (not focused) with tab 3 (window 4).
var wantFixture = []struct {
	id, tab, osw, pid int
	title, cwd, cmd   string
	active, focused   bool
}{
	{1, 1, 1, 20922, "sh", "/tmp/klab", "sh", false, false},
	{2, 2, 1, 21940, "agentA", "/tmp", "sleep", false, false},
	{3, 2, 1, 21944, "wB", "/tmp/klab", "sleep", true, true},
	{4, 3, 2, 21950, "agentC", "/tmp/klab", "sleep", true, false},
}

func TestDecodeListBothNamings(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"ls-0.26.5.json", "ls-0.48.json"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("testdata/" + file)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := decodeList(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(ws) != len(wantFixture) {
				t.Fatalf("%d windows, want %d: %+v", len(ws), len(wantFixture), ws)
			}
			for i, w := range wantFixture {
				g := ws[i]
				if g.ID != w.id || g.TabID != w.tab || g.OSWindowID != w.osw || g.PID != w.pid ||
					g.Title != w.title || g.Cwd != w.cwd || g.Command() != w.cmd {
					t.Errorf("window %d: got %+v", w.id, g)
				}
				if g.Active != w.active || g.Focused != w.focused {
					t.Errorf("window %d: active %v focused %v, want %v %v", w.id, g.Active, g.Focused, w.active, w.focused)
				}
				if len(g.Foreground) != 1 || g.Foreground[0].PID == 0 || g.Foreground[0].Cwd == "" {
					t.Errorf("window %d: foreground %+v", w.id, g.Foreground)
				}
			}
			if ws[1].Env["AGENT"] != "1" {
				t.Errorf("window 2 env %v", ws[1].Env)
			}
			if strings.Contains(file, "0.48") && !ws[2].AtPrompt {
				t.Errorf("window 3: at_prompt lost")
			}
		})
	}
}

func TestAppendASCIIJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "é and ü", "emoji 😀 here", "esc \x1b\\ st \u009c end", "\u2028", "tab\tnl\n"} {
		js, err := json.Marshal(map[string]string{"data": s})
		if err != nil {
			t.Fatal(err)
		}
		out := appendASCIIJSON(nil, js)
		for i, b := range out {
			if b >= 0x80 || b == 0x1b {
				t.Fatalf("%q: byte %#x at %d in %s", s, b, i, out)
			}
		}
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil || back["data"] != s {
			t.Errorf("%q: round trip gave %q (%v) from %s", s, back["data"], err, out)
		}
	}
}

func TestEncodeFrame(t *testing.T) {
	t.Parallel()
	f, err := encodeFrame("focus-window", map[string]any{"match": "id:2"})
	if err != nil {
		t.Fatal(err)
	}
	want := "\x1bP@kitty-cmd" + `{"cmd":"focus-window","version":[0,26,0],"payload":{"match":"id:2"}}` + "\x1b\\"
	if string(f) != want {
		t.Errorf("frame\n got %q\nwant %q", f, want)
	}
	body, ok := decodeFrame(append([]byte("noise"), f...))
	if !ok || string(body) != want[len(framePrefix):len(want)-2] {
		t.Errorf("decodeFrame: %q %v", body, ok)
	}
	if _, ok := decodeFrame(f[:len(f)-1]); ok {
		t.Error("decodeFrame accepted a frame without its terminator")
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	// comm with spaces and a ')' inside; tty_nr 34875 is 136:59, /dev/pts/59.
	st, err := parseStat("26756 (we ird) (x)) S 26000 26756 26756 34875 26761 4194560 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0")
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != 26000 || st.sid != 26756 {
		t.Errorf("parsed %+v", st)
	}
	if p, ok := ptsPath(st.ttyNr); !ok || p != "/dev/pts/59" {
		t.Errorf("tty %q %v", p, ok)
	}
	// pts 300: major 137, minor 44.
	if p, ok := ptsPath(137<<8 | 44); !ok || p != "/dev/pts/300" {
		t.Errorf("pts 300: %q %v", p, ok)
	}
	if _, ok := ptsPath(4<<8 | 1); ok { // /dev/tty1
		t.Error("a virtual console taken for a pty")
	}
	if _, err := parseStat("garbage"); err == nil {
		t.Error("garbage parsed")
	}
}

func TestLastLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n\n\n  \n", 2, "b\nc\n"},
		{"a\nb\n", 5, "a\nb\n"},
		{"\n\n", 3, ""},
		{"one", 1, "one\n"},
	} {
		if got := lastLines(c.in, c.n); got != c.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]error{
		"No matching windows for expression: id:99":                               ErrNotFound,
		"No matching tabs for expression: id:9":                                   ErrNotFound,
		"Remote control is disabled":                                              ErrRemoteControlDisabled,
		"Remote control is disabled. Add allow_remote_control to your kitty.conf": ErrRemoteControlDisabled,
		"Remote control is allowed over a socket only":                            ErrRemoteControlDisabled,
		"The kitty client you are using to send remote commands is newer than this kitty instance. This is not supported.": ErrTooOld,
		"something else": nil,
	} {
		if got := classify(msg); got != want {
			t.Errorf("classify(%q) = %v, want %v", msg, got, want)
		}
	}
}

func FuzzDecodeList(f *testing.F) {
	for _, file := range []string{"ls-0.26.5.json", "ls-0.48.json"} {
		data, err := os.ReadFile("testdata/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"tabs":[{"windows":[{"id":1,"is_active":null}]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeFrame(data)
		ws, err := decodeList(data)
		if err != nil {
			return
		}
		for _, w := range ws {
			if w.Focused && !w.Active {
				t.Fatalf("focused but not active: %+v", w)
			}
		}
	})
}
