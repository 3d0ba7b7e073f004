package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/xcsh-dev/xcsh/session"
)

// ShareProgram is the name of the custom share program in the agent dir:
// when <agent dir>/share exists, /share runs it instead of creating a gist.
const ShareProgram = "share"

// GistPreviewURL is the page that shows a gist's HTML file rendered.
const GistPreviewURL = "https://gistpreview.github.io/?"

// The errors /share reports, with the reference's messages.
var (
	ErrGhNotInstalled = errors.New("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/") //nolint:staticcheck // the reference's text
	ErrGhNotLoggedIn  = errors.New("GitHub CLI is not logged in. Run 'gh auth login' first.")                   //nolint:staticcheck // the reference's text
	ErrGistID         = errors.New("Failed to parse gist ID from gh output")                                    //nolint:staticcheck // the reference's text
	ErrShareCancelled = errors.New("Share cancelled")                                                           //nolint:staticcheck // the reference's text
)

// ShareResult is what /share shows: the URL to open ("" when there is none)
// and the message for the user.
type ShareResult struct{ URL, Message string }

// maxShareOutput bounds what is kept of a share program's or gh's output.
const maxShareOutput = 1 << 20

// shareKillDelay is how long a cancelled share program's pipes may stay open
// (held by its own children) before they are closed on it.
const shareKillDelay = 2 * time.Second

// Share shares the HTML page at htmlPath; it exports nothing itself (see
// ShareSession). When <agentDir>/share exists it is run with htmlPath as its
// argument and prints either the URL, or a JSON object {"url": ...,
// "message": ...}; nothing printed means the session was shared without a
// URL. Its failure (not executable, non-zero exit, unreadable output) is an
// error and, as in the reference, nothing falls back to a gist. Without a
// share program it runs `gh auth status`, then `gh gist create
// --public=false <htmlPath>`, and returns the gist's preview URL
// (gistpreview.github.io) and the gist URL. env is the environment of the
// programs run, PATH included (nil: this process's); cancelling ctx kills
// them and returns ErrShareCancelled.
func Share(ctx context.Context, agentDir, htmlPath string, env []string) (ShareResult, error) {
	if env == nil {
		env = os.Environ()
	}
	if agentDir != "" {
		prog := filepath.Join(agentDir, ShareProgram)
		fi, err := os.Stat(prog)
		switch {
		case err == nil:
			return customShare(ctx, prog, fi, htmlPath, env)
		case !errors.Is(err, fs.ErrNotExist):
			return ShareResult{}, fmt.Errorf("Failed to load share program: %w", err) //nolint:staticcheck // the reference's text
		}
	}
	return gistShare(ctx, htmlPath, env)
}

// customShare runs the agent dir's share program.
func customShare(ctx context.Context, prog string, fi fs.FileInfo, htmlPath string, env []string) (ShareResult, error) {
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return ShareResult{}, fmt.Errorf("Failed to load share program: %s is not an executable file", prog) //nolint:staticcheck // the reference's text
	}
	out, stderr, err := runShare(ctx, env, prog, htmlPath)
	if ctx.Err() != nil {
		return ShareResult{}, ErrShareCancelled
	}
	if err != nil {
		return ShareResult{}, fmt.Errorf("Custom share failed: %s", failure(stderr, err)) //nolint:staticcheck // the reference's text
	}
	text := strings.TrimSpace(string(out))
	if text == "" {
		return ShareResult{Message: "Session shared"}, nil
	}
	var r ShareResult
	if strings.HasPrefix(text, "{") {
		var obj struct {
			URL     *string `json:"url"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal([]byte(text), &obj); err != nil {
			return ShareResult{}, fmt.Errorf("Custom share failed: %s printed JSON that is not {\"url\": ..., \"message\": ...}: %w", prog, err) //nolint:staticcheck // the reference's text
		}
		if obj.URL != nil {
			r.URL = *obj.URL
		}
		if obj.Message != nil {
			r.Message = *obj.Message
		}
	} else {
		// A program may report progress first: the URL is its last line.
		lines := strings.Split(text, "\n")
		r.URL = strings.TrimSpace(lines[len(lines)-1])
	}
	var parts []string
	if r.URL != "" {
		parts = append(parts, "Share URL: "+r.URL)
	}
	if r.Message != "" {
		parts = append(parts, r.Message)
	}
	if len(parts) == 0 {
		return ShareResult{Message: "Session shared"}, nil
	}
	r.Message = strings.Join(parts, "\n")
	return r, nil
}

// gistShare shares through a secret GitHub gist with the gh command.
func gistShare(ctx context.Context, htmlPath string, env []string) (ShareResult, error) {
	gh, err := lookPath("gh", env)
	if err != nil {
		return ShareResult{}, ErrGhNotInstalled
	}
	if _, _, err := runShare(ctx, env, gh, "auth", "status"); err != nil {
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return ShareResult{}, ErrShareCancelled
		case errors.As(err, &ee):
			return ShareResult{}, ErrGhNotLoggedIn
		}
		return ShareResult{}, ErrGhNotInstalled
	}
	out, stderr, err := runShare(ctx, env, gh, "gist", "create", "--public=false", htmlPath)
	if ctx.Err() != nil {
		return ShareResult{}, ErrShareCancelled
	}
	if err != nil {
		return ShareResult{}, fmt.Errorf("Failed to create gist: %s", failure(stderr, err)) //nolint:staticcheck // the reference's text
	}
	gistURL := strings.TrimSpace(string(out))
	id := gistURL[strings.LastIndex(gistURL, "/")+1:]
	if id == "" {
		return ShareResult{}, ErrGistID
	}
	preview := GistPreviewURL + id
	return ShareResult{URL: preview, Message: "Share URL: " + preview + "\nGist: " + gistURL}, nil
}

// ShareSession is the whole of /share: it exports m to a temporary HTML file
// (<temp dir>/<snowflake>.html), shares it with Share, and removes the file
// again, whatever happened. An export failure is reported as the reference
// reports it ("Failed to export session: ...").
func ShareSession(ctx context.Context, m *session.Manager, o session.ExportOptions, agentDir string, env []string) (ShareResult, error) {
	tmp := filepath.Join(os.TempDir(), session.NewIDSource(nil).Snowflake(time.Now())+".html")
	path, err := session.ExportFile(m, tmp, "", o)
	if err != nil {
		return ShareResult{}, fmt.Errorf("Failed to export session: %w", err) //nolint:staticcheck // the reference's text
	}
	defer os.Remove(path)
	return Share(ctx, agentDir, path, env)
}

// runShare runs argv in its own process group with env, and returns its
// output (at most maxShareOutput bytes of each stream). Cancelling ctx kills
// the whole group, so a share program's children go too.
func runShare(ctx context.Context, env []string, argv ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = shareKillDelay
	var out, errb capped
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

// failure is what a failed program said: the end of its stderr, else how it
// ended.
func failure(stderr []byte, err error) string {
	msg := strings.TrimSpace(string(stderr))
	if msg == "" {
		return err.Error()
	}
	if len(msg) > 2000 {
		msg = "…" + msg[len(msg)-2000:]
	}
	return msg
}

// capped is a buffer that keeps the first maxShareOutput bytes written.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxShareOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// lookPath finds an executable on the PATH of env (exec.LookPath would use
// this process's PATH).
func lookPath(name string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}
