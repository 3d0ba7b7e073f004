package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, content string
		before              string // existing content ("" = no file)
		mode                os.FileMode
		wantText            string
	}{
		{name: "new file", path: "a.txt", content: "hello\n", wantText: "wrote 6 bytes to a.txt"},
		{name: "creates parents", path: "deep/er/b.txt", content: "x", wantText: "wrote 1 bytes to deep/er/b.txt"},
		{name: "utf-16 units", path: "u.txt", content: "héllo😀", wantText: "wrote 7 bytes to u.txt"},
		{name: "empty content", path: "e.txt", content: "", wantText: "wrote 0 bytes to e.txt"},
		{name: "overwrite keeps mode", path: "run.sh", content: "#!/bin/sh\necho hi\n", before: "old", mode: 0o750, wantText: "wrote 18 bytes to run.sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			abs := filepath.Join(dir, tt.path)
			if tt.before != "" {
				writeFile(t, dir, tt.path, tt.before)
				if err := os.Chmod(abs, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			r := call(t, Env{Cwd: dir}, NameWrite, jsonArgs(t, map[string]any{"path": tt.path, "content": tt.content}))
			if got := wantOK(t, r); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if got := readFile(t, abs); got != tt.content {
				t.Errorf("file = %q, want %q", got, tt.content)
			}
			fi, err := os.Stat(abs)
			if err != nil {
				t.Fatal(err)
			}
			if tt.mode != 0 && fi.Mode().Perm() != tt.mode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.mode)
			}
			if tt.mode == 0 && fi.Mode().Perm() != 0o644 {
				t.Errorf("new file mode = %v, want 0644", fi.Mode().Perm())
			}
			entries, _ := os.ReadDir(filepath.Dir(abs))
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the file (temp file left behind?)", len(entries))
			}
		})
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := writeFile(t, dir, "target.txt", "old")
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, Env{Cwd: dir}, NameWrite, `{"path":"link.txt","content":"new"}`))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink (%v)", err)
	}
	if got := readFile(t, target); got != "new" {
		t.Errorf("target = %q, want new", got)
	}
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "file", "x")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		want       []string
	}{
		{"a directory", `{"path":"sub","content":"x"}`, []string{"cannot write sub", "directory"}},
		{"parent is a file", `{"path":"file/x.txt","content":"x"}`, []string{"cannot write file/x.txt"}},
		{"missing content", `{"path":"a.txt"}`, []string{`missing required argument "content"`}},
		{"content not a string", `{"path":"a.txt","content":["x"]}`, []string{`"content" must be a string, got an array`}},
		{"unknown argument", `{"path":"a.txt","content":"x","mode":"0644"}`, []string{`unknown argument "mode"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantErr(t, call(t, Env{Cwd: dir}, NameWrite, tt.args), tt.want...)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a failed write created a.txt")
	}
}
