package breadcrumb_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/breadcrumb"
)

func TestPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, key := range []string{"pts-3", "tmux-%3", "kitty-7", "apple-w0t0p0:8A3F", "wt-1111-2222", "ttys003", "a.b"} {
		got, err := breadcrumb.Path(dir, key)
		if err != nil {
			t.Errorf("Path(%q): %v", key, err)
			continue
		}
		if filepath.Dir(got) != dir {
			t.Errorf("Path(%q) = %q, not directly in %q", key, got, dir)
		}
	}
	for _, key := range []string{"", ".", "..", "../x", "x/..", "a/b", `a\b`, ".hidden", "a..b", "x\x00y", "x\ny", "x\x7f", strings.Repeat("k", breadcrumb.MaxKeyLen+1)} {
		if got, err := breadcrumb.Path(dir, key); !errors.Is(err, breadcrumb.ErrInvalidKey) {
			t.Errorf("Path(%q) = %q, %v; want ErrInvalidKey", key, got, err)
		}
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    breadcrumb.Crumb
		wantErr error
	}{
		{"two lines (TypeScript xcsh)", "/w\n/s/a.jsonl\n", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl"}, nil},
		{"three lines", "/w\n/s/a.jsonl\nsid=1:2;boot=b\n", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl", Token: "sid=1:2;boot=b"}, nil},
		{"CRLF two lines", "/w\r\n/s/a.jsonl\r\n", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl"}, nil},
		{"CRLF three lines", "/w\r\n/s/a.jsonl\r\ntok\r\n", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl", Token: "tok"}, nil},
		{"no final newline", "/w\n/s/a.jsonl", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl"}, nil},
		{"extra lines ignored", "/w\n/s\ntok\nfuture\n", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s", Token: "tok"}, nil},
		{"spaces kept", " /w x\n/s y \n", breadcrumb.Crumb{Cwd: " /w x", SessionFile: "/s y "}, nil},
		{"empty", "", breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
		{"one line", "/w\n", breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
		{"one line no newline", "/w", breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
		{"empty session line", "/w\n\ntok\n", breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
		{"empty cwd line", "\n/s\n", breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
		{"blank lines", "\n\n\n", breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
		{"too big", "/w\n/s\n" + strings.Repeat("x", 65<<10), breadcrumb.Crumb{}, breadcrumb.ErrMalformed},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := fmt.Sprintf("pts-%d", i)
			if err := os.WriteFile(filepath.Join(dir, key), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := breadcrumb.Read(dir, key)
			if !errors.Is(err, tc.wantErr) || (err != nil && tc.wantErr == nil) {
				t.Fatalf("Read: error %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), filepath.Join(dir, key)) {
				t.Errorf("error %q does not name the file", err)
			}
			if got != tc.want {
				t.Errorf("Read = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadMissingAndSpecial(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := breadcrumb.Read(dir, "pts-9"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing crumb: %v, want fs.ErrNotExist", err)
	}
	if _, err := breadcrumb.Read(dir, "../pts-9"); !errors.Is(err, breadcrumb.ErrInvalidKey) {
		t.Errorf("bad key: %v, want ErrInvalidKey", err)
	}

	// A FIFO under a crumb's name must not block Read.
	if err := syscall.Mkfifo(filepath.Join(dir, "pts-fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := breadcrumb.Read(dir, "pts-fifo"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, breadcrumb.ErrMalformed) {
			t.Errorf("FIFO: %v, want ErrMalformed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}

	// A symlink is not followed.
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("/w\n/s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "pts-link")); err != nil {
		t.Fatal(err)
	}
	if c, err := breadcrumb.Read(dir, "pts-link"); err == nil {
		t.Errorf("symlinked crumb read as %+v, want an error", c)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		crumb breadcrumb.Crumb
		want  string
	}{
		{"without token: two lines, as TypeScript xcsh", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl"}, "/w\n/s/a.jsonl\n"},
		{"with token: three lines", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s/a.jsonl", Token: "sid=1:2;boot=b"}, "/w\n/s/a.jsonl\nsid=1:2;boot=b\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "agent", "terminal-sessions")
			if err := breadcrumb.Write(dir, "tmux-%3", tc.crumb); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "tmux-%3")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.want {
				t.Errorf("content %q, want %q", data, tc.want)
			}
			assertMode(t, path, 0o600)
			assertMode(t, dir, 0o700|fs.ModeDir)
			assertOnly(t, dir, "tmux-%3")
			got, err := breadcrumb.Read(dir, "tmux-%3")
			if err != nil || got != tc.crumb {
				t.Errorf("Read after Write = %+v, %v; want %+v", got, err, tc.crumb)
			}
		})
	}
}

func TestWriteReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// An existing crumb with loose permissions (as Bun.write leaves it) is
	// replaced by a 0600 one.
	path := filepath.Join(dir, "pts-3")
	if err := os.WriteFile(path, []byte("/old\n/old.jsonl\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := breadcrumb.Crumb{Cwd: "/new", SessionFile: "/new.jsonl", Token: "t"}
	if err := breadcrumb.Write(dir, "pts-3", want); err != nil {
		t.Fatal(err)
	}
	if got, err := breadcrumb.Read(dir, "pts-3"); err != nil || got != want {
		t.Errorf("Read = %+v, %v; want %+v", got, err, want)
	}
	assertMode(t, path, 0o600)
	assertOnly(t, dir, "pts-3")
}

func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     string
		crumb   breadcrumb.Crumb
		wantErr error
	}{
		{"parent key", "..", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s"}, breadcrumb.ErrInvalidKey},
		{"escaping key", "../../x", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s"}, breadcrumb.ErrInvalidKey},
		{"key with slash", "tmux-a/b", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s"}, breadcrumb.ErrInvalidKey},
		{"empty cwd", "pts-1", breadcrumb.Crumb{SessionFile: "/s"}, breadcrumb.ErrInvalidCrumb},
		{"empty session", "pts-1", breadcrumb.Crumb{Cwd: "/w"}, breadcrumb.ErrInvalidCrumb},
		{"newline in cwd", "pts-1", breadcrumb.Crumb{Cwd: "/w\n/evil", SessionFile: "/s"}, breadcrumb.ErrInvalidCrumb},
		{"CR in session", "pts-1", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s\r"}, breadcrumb.ErrInvalidCrumb},
		{"newline in token", "pts-1", breadcrumb.Crumb{Cwd: "/w", SessionFile: "/s", Token: "a\nb"}, breadcrumb.ErrInvalidCrumb},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "a", "b", "terminal-sessions")
			if err := breadcrumb.Write(dir, tc.key, tc.crumb); !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write: %v, want %v", err, tc.wantErr)
			}
			if files := walkFiles(t, root); len(files) != 0 {
				t.Errorf("refused Write left files: %v", files)
			}
		})
	}
}

// TestWriteAtomic races writers against readers: a reader sees one complete
// crumb or the other, never a torn or empty one, and no temporary file
// survives.
func TestWriteAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := breadcrumb.Crumb{Cwd: "/a", SessionFile: "/a/" + strings.Repeat("a", 3000) + ".jsonl", Token: "ta"}
	b := breadcrumb.Crumb{Cwd: "/b", SessionFile: "/b.jsonl"}
	if err := breadcrumb.Write(dir, "pts-1", a); err != nil {
		t.Fatal(err)
	}
	const rounds = 200
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range rounds {
				c := a
				if (i+w)%2 == 1 {
					c = b
				}
				if err := breadcrumb.Write(dir, "pts-1", c); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range rounds {
				got, err := breadcrumb.Read(dir, "pts-1")
				if err != nil || (got != a && got != b) {
					t.Errorf("torn read: %+v, %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	assertOnly(t, dir, "pts-1")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	other := filepath.Join(root, "other")
	link := filepath.Join(root, "link")
	sessions := filepath.Join(root, "sessions")
	for _, d := range []string{work, other, sessions, filepath.Join(sessions, "adir")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(work, link); err != nil {
		t.Fatal(err)
	}
	sess := filepath.Join(sessions, "s.jsonl")
	notSess := filepath.Join(sessions, "notes.txt")
	for _, f := range []string{sess, notSess, filepath.Join(work, "rel.jsonl")} {
		if err := os.WriteFile(f, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	isSession := func(p string) bool { return strings.HasSuffix(p, ".jsonl") }

	tests := []struct {
		name   string
		crumb  breadcrumb.Crumb
		cwd    string
		token  string
		ok     bool
		reason string // substring of the reason when !ok
	}{
		{"same cwd, same token", breadcrumb.Crumb{Cwd: work, SessionFile: sess, Token: "t1"}, work, "t1", true, ""},
		{"crumb cwd through symlink", breadcrumb.Crumb{Cwd: link, SessionFile: sess}, work, "", true, ""},
		{"current cwd through symlink", breadcrumb.Crumb{Cwd: work, SessionFile: sess}, link, "", true, ""},
		{"unclean cwd", breadcrumb.Crumb{Cwd: work + "/../work/.", SessionFile: sess}, work, "", true, ""},
		{"missing dirs compare clean", breadcrumb.Crumb{Cwd: "/nonexistent/a/../b", SessionFile: sess}, "/nonexistent/b", "", true, ""},
		{"different cwd", breadcrumb.Crumb{Cwd: other, SessionFile: sess}, work, "", false, "crumb is for"},
		{"case differs", breadcrumb.Crumb{Cwd: strings.ToUpper(work), SessionFile: sess}, work, "", false, "crumb is for"},
		{"missing session file", breadcrumb.Crumb{Cwd: work, SessionFile: filepath.Join(sessions, "gone.jsonl")}, work, "", false, "does not exist"},
		{"session is a directory", breadcrumb.Crumb{Cwd: work, SessionFile: filepath.Join(sessions, "adir")}, work, "", false, "not a regular file"},
		{"not a session", breadcrumb.Crumb{Cwd: work, SessionFile: notSess}, work, "", false, "not a session"},
		{"relative session file", breadcrumb.Crumb{Cwd: work, SessionFile: "rel.jsonl"}, work, "", true, ""},
		{"token mismatch", breadcrumb.Crumb{Cwd: work, SessionFile: sess, Token: "sid=1:100;boot=b"}, work, "sid=2:200;boot=b", false, "generation token"},
		{"token absent in crumb (TypeScript xcsh)", breadcrumb.Crumb{Cwd: work, SessionFile: sess}, work, "sid=2:200;boot=b", true, ""},
		{"token absent in terminal", breadcrumb.Crumb{Cwd: work, SessionFile: sess, Token: "sid=1:100;boot=b"}, work, "", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ok, reason := breadcrumb.Validate(tc.crumb, tc.cwd, tc.token, isSession)
			if ok != tc.ok {
				t.Fatalf("Validate = %v (%q), want %v", ok, reason, tc.ok)
			}
			if ok && reason != "" {
				t.Errorf("ok with reason %q", reason)
			}
			if !ok && !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not contain %q", reason, tc.reason)
			}
		})
	}

	t.Run("nil isSession accepts regular files", func(t *testing.T) {
		t.Parallel()
		if ok, reason := breadcrumb.Validate(breadcrumb.Crumb{Cwd: work, SessionFile: notSess}, work, "", nil); !ok {
			t.Errorf("Validate = false (%q)", reason)
		}
	})
}

func TestPrune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	files := []struct {
		name, content string
		aged          bool
	}{
		{"pts-1", "/w\n/keep.jsonl\n", false},
		{"pts-2", "/w\n/drop.jsonl\ntok\n", false},
		{"tmux-%3", "/w\n/drop.jsonl\n", true},
		{"kitty-4", "garbage", true},           // malformed and old: removed
		{"kitty-5", "", false},                 // malformed but young (being written): kept
		{".pts-1.123.tmp", "/w\n/x\n", true},   // stale temporary file: removed
		{".pts-2.456.tmp", "/w\n/x\n", false},  // temporary file of a running Write: kept
		{".hidden", "/w\n/drop.jsonl\n", true}, // not a key: untouched
		{"a..b", "/w\n/drop.jsonl\n", true},    // not a key: untouched
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.aged {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "pts-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent", filepath.Join(dir, "pts-link")); err != nil {
		t.Fatal(err)
	}

	var seen []string
	removed, err := breadcrumb.Prune(dir, func(key string, c breadcrumb.Crumb) bool {
		seen = append(seen, key)
		return c.SessionFile != "/drop.jsonl"
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	slices.Sort(seen)
	if want := []string{"kitty-4", "pts-2", "tmux-%3"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	if want := []string{"pts-1", "pts-2", "tmux-%3"}; !slices.Equal(seen, want) {
		t.Errorf("keep saw %v, want %v", seen, want)
	}
	assertOnly(t, dir, ".hidden", ".pts-2.456.tmp", "a..b", "kitty-5", "pts-1", "pts-dir", "pts-link")

	t.Run("missing dir", func(t *testing.T) {
		t.Parallel()
		removed, err := breadcrumb.Prune(filepath.Join(dir, "nope"), nil)
		if err != nil || removed != nil {
			t.Errorf("Prune(missing) = %v, %v", removed, err)
		}
	})
}

func assertMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (fs.ModePerm | fs.ModeDir); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

// assertOnly checks that dir holds exactly the entries names.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func walkFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
