package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

type writeTool struct{}

func (t *writeTool) NeedsApproval() bool { return false }

func (t *writeTool) Spec() provider.Tool {
	return provider.Tool{
		Name: NameWrite,
		Description: `Create a file or replace its whole content.

Missing parent directories are created. An existing file is overwritten (its permissions are kept), so read it first if you need what is there. To change part of an existing file, prefer the edit tool.
Relative paths resolve against the working directory.`,
		Parameters: schema([]string{"path", "content"},
			"path", prop("string", "Path of the file to write (absolute, or relative to the working directory)."),
			"content", prop("string", "The complete new content of the file."),
		),
	}
}

func (t *writeTool) Run(ctx context.Context, env Env, raw json.RawMessage, _ func(string)) (res Result) {
	defer recoverResult(NameWrite, &res)
	a := parseArgs(NameWrite, raw, "path", "content")
	path := a.str("path", true)
	content := a.str("content", true)
	if r := a.failed(); r != nil {
		return *r
	}
	if path == "" {
		return errorf(`invalid arguments for write: "path" must not be empty`)
	}
	if ctx.Err() != nil {
		return errorf("write aborted: %v", context.Cause(ctx))
	}
	abs := resolvePath(env.Cwd, path)
	if err := writeFileAtomic(abs, []byte(content)); err != nil {
		return errorf("cannot write %s: %v", path, err)
	}
	// N counts UTF-16 code units, as the reference's content.length does.
	return textResult(fmt.Sprintf("wrote %d bytes to %s", jsjson.UTF16Len(content), path), nil)
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it over path, so readers never see a half-written file. Parent directories
// are created; an existing file keeps its permission bits, and a symlink is
// followed so the link itself survives.
func writeFileAtomic(path string, data []byte) (err error) {
	perm := fs.FileMode(0o644)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	switch fi, err := os.Stat(path); {
	case err == nil && fi.IsDir():
		return errors.New("it is a directory")
	case err == nil:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
