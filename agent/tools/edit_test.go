package tools

import (
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		before   string
		args     map[string]any
		after    string
		wantText string // a part of the result text
		diff     string // exact details.diff ("" = not checked)
		first    float64
	}{
		{
			name:   "single replacement",
			before: "a\nb\nc\n",
			args:   map[string]any{"old_text": "b", "new_text": "B"},
			after:  "a\nB\nc\n", wantText: "Updated f.txt: +1 -1 lines",
			diff:  " 1|a\n-2|b\n+2|B\n 3|c",
			first: 2,
		},
		{
			name:   "multi-line, partial lines",
			before: "func f() {\n\treturn 1\n}\n",
			args:   map[string]any{"old_text": "return 1\n}", "new_text": "x := 1\n\treturn x\n}"},
			after:  "func f() {\n\tx := 1\n\treturn x\n}\n",
			first:  2,
		},
		{
			name:   "delete text",
			before: "keep\ndrop me\nkeep\n",
			args:   map[string]any{"old_text": "drop me\n", "new_text": ""},
			after:  "keep\nkeep\n", wantText: "+0 -1 lines",
		},
		{
			name:   "all occurrences",
			before: "x = 1\ny = x\nz = x\n",
			args:   map[string]any{"old_text": "x", "new_text": "w", "all": true},
			after:  "w = 1\ny = w\nz = w\n", wantText: "(3 replacements)",
		},
		{
			name:   "crlf file with lf old_text",
			before: "one\r\ntwo\r\nthree\r\n",
			args:   map[string]any{"old_text": "one\ntwo", "new_text": "1\n2\n2.5"},
			after:  "1\r\n2\r\n2.5\r\nthree\r\n",
			diff:   "-1|one\n-2|two\n+1|1\n+2|2\n+3|2.5\n 3|three",
			first:  1,
		},
		{
			name:   "crlf file with crlf old_text",
			before: "one\r\ntwo\r\n",
			args:   map[string]any{"old_text": "one\r\ntwo", "new_text": "uno\r\ndos"},
			after:  "uno\r\ndos\r\n",
		},
		{
			name:   "bom kept",
			before: "\uFEFFname = a\nother\n",
			args:   map[string]any{"old_text": "name = a", "new_text": "name = b"},
			after:  "\uFEFFname = b\nother\n",
			first:  1,
		},
		{
			name:   "bom and crlf kept",
			before: "\uFEFFa\r\nb\r\n",
			args:   map[string]any{"old_text": "\uFEFFa\nb", "new_text": "a\nc"},
			after:  "\uFEFFa\r\nc\r\n",
			first:  2,
		},
		{
			name:   "mixed line ends matched byte for byte",
			before: "a\r\nb\nc\r\nd\n",
			args:   map[string]any{"old_text": "c\nd", "new_text": "C\nD"},
			after:  "a\r\nb\nC\r\nD\n",
		},
		{
			name:   "mixed line ends, exact match",
			before: "a\r\nb\nc\r\n",
			args:   map[string]any{"old_text": "b\nc", "new_text": "B\nC"},
			after:  "a\r\nB\nC\r\n",
		},
		{
			name:   "context is compact",
			before: numberedLines(30),
			args:   map[string]any{"old_text": "line 15\n", "new_text": "line fifteen\n"},
			after:  strings.Replace(numberedLines(30), "line 15\n", "line fifteen\n", 1),
			diff:   "   |...\n 11|line 11\n 12|line 12\n 13|line 13\n 14|line 14\n-15|line 15\n+15|line fifteen\n 16|line 16\n 17|line 17\n 18|line 18\n 19|line 19\n   |...",
			first:  15,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := writeFile(t, dir, "f.txt", tt.before)
			tt.args["path"] = "f.txt"
			r := call(t, Env{Cwd: dir}, NameEdit, jsonArgs(t, tt.args))
			text := wantOK(t, r)
			if got := readFile(t, p); got != tt.after {
				t.Errorf("file:\n got %q\nwant %q", got, tt.after)
			}
			if !strings.HasPrefix(text, "Updated f.txt") || !strings.Contains(text, tt.wantText) {
				t.Errorf("text %q lacks %q", text, tt.wantText)
			}
			d := details(t, r)
			diff, _ := d["diff"].(string)
			if diff == "" || !strings.Contains(text, diff) && len(strings.Split(diff, "\n")) <= maxDiffPreviewLines {
				t.Errorf("diff %q missing from details or text %q", diff, text)
			}
			if tt.diff != "" && diff != tt.diff {
				t.Errorf("diff:\n got %q\nwant %q", diff, tt.diff)
			}
			if tt.first != 0 && d["firstChangedLine"] != tt.first {
				t.Errorf("firstChangedLine = %v, want %v", d["firstChangedLine"], tt.first)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	t.Parallel()
	const content = "func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n"
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"not found", map[string]any{"old_text": "return err", "new_text": "x"},
			[]string{"old_text was not found in f.txt", "exactly"}},
		{"not found, whitespace differs", map[string]any{"old_text": "func b() {\n    return nil\n}", "new_text": "x"},
			[]string{"old_text was not found", "Ignoring whitespace, it matches lines 5-7, which read:\nfunc b() {\n\treturn nil\n}"}},
		{"non-unique", map[string]any{"old_text": "return nil", "new_text": "return err"},
			[]string{"old_text occurs 2 times in f.txt (at lines 2, 6)", "set all=true"}},
		{"non-unique multi-line", map[string]any{"old_text": "\treturn nil\n}", "new_text": "x"},
			[]string{"occurs 2 times", "at lines 2-3, 6-7"}},
		{"identical", map[string]any{"old_text": "return nil", "new_text": "return nil"},
			[]string{"identical"}},
		{"identical but for line ends", map[string]any{"old_text": "a\r\nb", "new_text": "a\nb"},
			[]string{"only in line endings"}},
		{"empty old_text", map[string]any{"old_text": "", "new_text": "x"},
			[]string{"old_text must not be empty", "write"}},
		{"missing new_text", map[string]any{"old_text": "a"},
			[]string{`missing required argument "new_text"`}},
		{"all not a boolean", map[string]any{"old_text": "a", "new_text": "b", "all": "yes"},
			[]string{`"all" must be a boolean`}},
		{"missing file", map[string]any{"path": "nope.txt", "old_text": "a", "new_text": "b"},
			[]string{"path not found: nope.txt"}},
		{"directory", map[string]any{"path": ".", "old_text": "a", "new_text": "b"},
			[]string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := writeFile(t, dir, "f.txt", content)
			if _, ok := tt.args["path"]; !ok {
				tt.args["path"] = "f.txt"
			}
			wantErr(t, call(t, Env{Cwd: dir}, NameEdit, jsonArgs(t, tt.args)), tt.want...)
			if got := readFile(t, p); got != content {
				t.Errorf("a failed edit changed the file to %q", got)
			}
		})
	}
}

func TestEditBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "b.bin", "ab\x00cd")
	wantErr(t, call(t, Env{Cwd: dir}, NameEdit, `{"path":"b.bin","old_text":"ab","new_text":"x"}`), "binary")
}
