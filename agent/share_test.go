package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xcsh-dev/xcsh/session"
)

// shareEnv is a private setup for /share: an agent dir, an HTML page to
// share, and a bin dir holding the stand-in gh (testdata/share/gh) that logs
// its calls.
type shareEnv struct {
	agentDir, page, bin, log string
}

func newShareEnv(t *testing.T) *shareEnv {
	t.Helper()
	dir := t.TempDir()
	e := &shareEnv{
		agentDir: filepath.Join(dir, "agent"),
		page:     filepath.Join(dir, "page.html"),
		bin:      filepath.Join(dir, "bin"),
		log:      filepath.Join(dir, "gh.log"),
	}
	for _, d := range []string{e.agentDir, e.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gh, err := os.ReadFile("testdata/share/gh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.bin, "gh"), gh, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.page, []byte("<!DOCTYPE html><p>page</p>"), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// env puts the stand-in gh first on PATH, before the system's tools (sh,
// head, sleep) and any real gh.
func (e *shareEnv) env(extra ...string) []string {
	return append([]string{"PATH=" + e.bin + ":/usr/bin:/bin", "FAKE_GH_LOG=" + e.log, "HOME=" + filepath.Dir(e.bin)}, extra...)
}

// ghCalls returns what the stand-in gh logged.
func (e *shareEnv) ghCalls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(e.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// shareProgram installs <agent dir>/share with a shell body.
func (e *shareEnv) shareProgram(t *testing.T, body string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.agentDir, ShareProgram), []byte("#!/bin/sh\n"+body+"\n"), mode); err != nil {
		t.Fatal(err)
	}
}

func TestShareGist(t *testing.T) {
	const gist = "https://gist.github.com/tester/0123456789abcdef0123456789abcdef"
	tests := []struct {
		name    string
		env     []string
		want    ShareResult
		wantErr string
		calls   []string
	}{
		{
			name:  "created",
			want:  ShareResult{URL: "https://gistpreview.github.io/?0123456789abcdef0123456789abcdef", Message: "Share URL: https://gistpreview.github.io/?0123456789abcdef0123456789abcdef\nGist: " + gist},
			calls: []string{"auth status", "gist create --public=false PAGE", "file <!DOCTYPE html>"},
		},
		{
			name:    "not logged in",
			env:     []string{"FAKE_GH_AUTH_FAIL=1"},
			wantErr: "GitHub CLI is not logged in. Run 'gh auth login' first.",
			calls:   []string{"auth status"},
		},
		{
			name:    "gist create fails",
			env:     []string{"FAKE_GH_FAIL=HTTP 422: Validation Failed"},
			wantErr: "Failed to create gist: HTTP 422: Validation Failed",
			calls:   []string{"auth status", "gist create --public=false PAGE", "file <!DOCTYPE html>"},
		},
		{
			name:    "no URL printed",
			env:     []string{"FAKE_GH_URL="},
			wantErr: "Failed to parse gist ID from gh output",
			calls:   []string{"auth status", "gist create --public=false PAGE", "file <!DOCTYPE html>"},
		},
		{
			name:    "URL without an id",
			env:     []string{"FAKE_GH_URL=https://gist.github.com/tester/"},
			wantErr: "Failed to parse gist ID from gh output",
			calls:   []string{"auth status", "gist create --public=false PAGE", "file <!DOCTYPE html>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newShareEnv(t)
			got, err := Share(context.Background(), e.agentDir, e.page, e.env(tt.env...))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("Share error = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Share: %v", err)
			}
			if got != tt.want {
				t.Errorf("Share = %+v, want %+v", got, tt.want)
			}
			calls := strings.Join(e.ghCalls(t), "\n")
			if want := strings.ReplaceAll(strings.Join(tt.calls, "\n"), "PAGE", e.page); calls != want {
				t.Errorf("gh calls:\n%s\nwant:\n%s", calls, want)
			}
		})
	}
}

func TestShareGhMissing(t *testing.T) {
	e := newShareEnv(t)
	empty := t.TempDir()
	_, err := Share(context.Background(), e.agentDir, e.page, []string{"PATH=" + empty})
	if !errors.Is(err, ErrGhNotInstalled) || err.Error() != "GitHub CLI (gh) is not installed. Install it from https://cli.github.com/" {
		t.Errorf("Share = %v", err)
	}
}

func TestShareCancel(t *testing.T) {
	e := newShareEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := Share(ctx, e.agentDir, e.page, e.env("FAKE_GH_SLEEP=30"))
	if !errors.Is(err, ErrShareCancelled) || err.Error() != "Share cancelled" {
		t.Errorf("Share = %v, want Share cancelled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v: gh and its sleep were not killed", d)
	}
}

func TestShareProgram(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		mode    os.FileMode
		want    ShareResult
		wantErr string
	}{
		{
			name: "URL",
			body: `echo "uploading $1" >&2; test "$SHARE_TEST" = yes || exit 3; test -f "$1" || exit 4; echo "https://share.example/s/1"`,
			want: ShareResult{URL: "https://share.example/s/1", Message: "Share URL: https://share.example/s/1"},
		},
		{
			name: "progress then URL",
			body: `echo "uploading..."; echo "  https://share.example/s/2  "`,
			want: ShareResult{URL: "https://share.example/s/2", Message: "Share URL: https://share.example/s/2"},
		},
		{
			name: "JSON",
			body: `echo '{"url": "https://share.example/s/3", "message": "Expires in 7 days"}'`,
			want: ShareResult{URL: "https://share.example/s/3", Message: "Share URL: https://share.example/s/3\nExpires in 7 days"},
		},
		{
			name: "JSON message only",
			body: `printf '{\n  "message": "Copied to the team drive"\n}\n'`,
			want: ShareResult{Message: "Copied to the team drive"},
		},
		{
			name: "nothing printed",
			body: `exit 0`,
			want: ShareResult{Message: "Session shared"},
		},
		{
			name: "empty JSON",
			body: `echo '{}'`,
			want: ShareResult{Message: "Session shared"},
		},
		{
			name:    "fails",
			body:    `echo "upload refused: quota" >&2; exit 1`,
			wantErr: "Custom share failed: upload refused: quota",
		},
		{
			name:    "fails silently",
			body:    `exit 7`,
			wantErr: "Custom share failed: exit status 7",
		},
		{
			name:    "bad JSON",
			body:    `echo '{"url": 3}'`,
			wantErr: "Custom share failed: AGENT/share printed JSON that is not {\"url\": ..., \"message\": ...}: *",
		},
		{
			name:    "not executable",
			body:    `echo https://never`,
			mode:    0o644,
			wantErr: "Failed to load share program: AGENT/share is not an executable file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newShareEnv(t)
			mode := tt.mode
			if mode == 0 {
				mode = 0o755
			}
			e.shareProgram(t, tt.body, mode)
			got, err := Share(context.Background(), e.agentDir, e.page, e.env("SHARE_TEST=yes"))
			if tt.wantErr != "" {
				want := strings.ReplaceAll(tt.wantErr, "AGENT", e.agentDir)
				if prefix, ok := strings.CutSuffix(want, "*"); ok && err != nil && strings.HasPrefix(err.Error(), prefix) {
					want = err.Error()
				}
				if err == nil || err.Error() != want {
					t.Errorf("Share error = %v\nwant %s", err, want)
				}
			} else if err != nil {
				t.Fatalf("Share: %v", err)
			}
			if got != tt.want {
				t.Errorf("Share = %+v, want %+v", got, tt.want)
			}
			// A share program, working or not, is never followed by a gist.
			if calls := e.ghCalls(t); len(calls) != 0 {
				t.Errorf("gh was run: %q", calls)
			}
		})
	}
}

func TestShareProgramCancel(t *testing.T) {
	e := newShareEnv(t)
	e.shareProgram(t, `sleep 30; echo https://late`, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Share(ctx, e.agentDir, e.page, e.env()); !errors.Is(err, ErrShareCancelled) {
		t.Errorf("Share = %v, want Share cancelled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

// TestShareRealGhNotLoggedIn runs the real gh, with a configuration of its
// own and no token, so that it is not logged in; gh answers that without the
// network.
func TestShareRealGhNotLoggedIn(t *testing.T) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		t.Skip("gh is not installed and could not be (.ci/run apt-installs it): skipping the real gh test")
	}
	e := newShareEnv(t)
	home := t.TempDir()
	env := []string{
		"PATH=" + filepath.Dir(gh) + ":/usr/bin:/bin",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GH_CONFIG_DIR=" + filepath.Join(home, "gh"),
		"GH_NO_UPDATE_NOTIFIER=1",
		"GH_PROMPT_DISABLED=1",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = Share(ctx, e.agentDir, e.page, env)
	if !errors.Is(err, ErrGhNotLoggedIn) {
		t.Errorf("Share with the real gh = %v, want %v", err, ErrGhNotLoggedIn)
	}
}

func TestShareSession(t *testing.T) {
	e := newShareEnv(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	m, err := session.Load(session.Options{}, "../session/testdata/export/all-roles.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ShareSession(context.Background(), m, session.ExportOptions{SystemPrompt: "sys"}, e.agentDir, e.env())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.URL, GistPreviewURL) {
		t.Errorf("URL = %q", got.URL)
	}
	calls := e.ghCalls(t)
	if len(calls) != 3 || calls[2] != "file <!DOCTYPE html>" {
		t.Fatalf("gh did not see the page: %q", calls)
	}
	page := strings.TrimPrefix(calls[1], "gist create --public=false ")
	if filepath.Dir(page) != tmp || !strings.HasSuffix(page, ".html") {
		t.Errorf("page shared from %s, want a .html file in %s", page, tmp)
	}
	if _, err := os.Stat(page); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary page %s was not removed (%v)", page, err)
	}

	// A failed share removes the page too.
	if _, err := ShareSession(context.Background(), m, session.ExportOptions{}, e.agentDir, e.env("FAKE_GH_FAIL=boom")); err == nil {
		t.Error("ShareSession succeeded with a failing gh")
	}
	if names, _ := os.ReadDir(tmp); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

func TestShareSessionInMemory(t *testing.T) {
	e := newShareEnv(t)
	m := session.InMemory(session.Options{}, "/tmp")
	_, err := ShareSession(context.Background(), m, session.ExportOptions{}, e.agentDir, e.env())
	if err == nil || err.Error() != "Failed to export session: Cannot export in-memory session to HTML" {
		t.Errorf("ShareSession = %v", err)
	}
	if calls := e.ghCalls(t); len(calls) != 0 {
		t.Errorf("gh was run: %q", calls)
	}
}
