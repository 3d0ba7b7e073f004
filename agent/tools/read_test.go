package tools

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

func TestReadText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "small.txt", "alpha\nbeta\ngamma\n")
	writeFile(t, dir, "crlf.txt", "\uFEFFone\r\ntwo\r\n")
	writeFile(t, dir, "nonl.txt", "a\nb")
	writeFile(t, dir, "empty.txt", "")
	writeFile(t, dir, "big.txt", numberedLines(1000))
	long := strings.Repeat("x", 1000)
	writeFile(t, dir, "wide.txt", strings.Repeat(long+"\n", 100)) // 100 KB
	writeFile(t, dir, "huge-line.txt", "short\n"+strings.Repeat("y", 60<<10)+"\nafter\n")
	writeFile(t, dir, "latin1.txt", "caf\xe9\n")

	tests := []struct {
		name, args string
		want       string // exact text
		prefix     string // or a prefix plus a suffix
		suffix     string
		truncated  bool
	}{
		{name: "whole file", args: `{"path":"small.txt"}`, want: "alpha\nbeta\ngamma"},
		{name: "offset and limit", args: `{"path":"small.txt","offset":2,"limit":1}`, want: "beta\n\n[showing lines 2-2 of 3. use offset=3 to continue]", truncated: true},
		{name: "offset to the end", args: `{"path":"small.txt","offset":3}`, want: "gamma"},
		{name: "numbers as strings", args: `{"path":"small.txt","offset":"2","limit":"5"}`, want: "beta\ngamma"},
		{name: "crlf and bom stripped", args: `{"path":"crlf.txt"}`, want: "one\ntwo"},
		{name: "no final newline", args: `{"path":"nonl.txt"}`, want: "a\nb"},
		{name: "empty file", args: `{"path":"empty.txt"}`, want: "(empty file)"},
		{name: "offset past the end", args: `{"path":"small.txt","offset":10}`, want: "offset 10 is past the end of small.txt, which has 3 lines. Use an offset from 1 to 3."},
		{name: "default line cap", args: `{"path":"big.txt"}`, prefix: "line 1\nline 2\n", suffix: "line 300\n\n[showing lines 1-300 of 1000. use offset=301 to continue]", truncated: true},
		{name: "limit capped at max lines", args: `{"path":"big.txt","offset":990,"limit":100000}`, prefix: "line 990\n", suffix: "line 1000"},
		{name: "byte cap", args: `{"path":"wide.txt"}`, prefix: long + "\n", suffix: long + "\n\n[showing lines 1-51 of 100 (50.0KB limit). use offset=52 to continue]", truncated: true},
		{name: "huge first line", args: `{"path":"huge-line.txt","offset":2}`, want: "[line 2 is 60.0KB, over the 50.0KB limit. Show part of it with bash, e.g. sed -n '2p' huge-line.txt | cut -c1-25600. use offset=3 to continue after it]", truncated: true},
		{name: "line before a huge one", args: `{"path":"huge-line.txt"}`, want: "short\n\n[showing lines 1-1 of 3 (50.0KB limit). use offset=2 to continue]", truncated: true},
		{name: "invalid utf-8 replaced", args: `{"path":"latin1.txt"}`, want: "caf\uFFFD"},
		{name: "absolute path", args: jsonArgs(t, map[string]any{"path": filepath.Join(dir, "small.txt"), "limit": 1}), prefix: "alpha\n\n[showing lines 1-1 of 3", truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, Env{Cwd: dir}, NameRead, tt.args)
			got := wantOK(t, r)
			if tt.want != "" && got != tt.want {
				t.Errorf("text:\n got %q\nwant %q", got, tt.want)
			}
			if !strings.HasPrefix(got, tt.prefix) || !strings.HasSuffix(got, tt.suffix) {
				t.Errorf("text %q...%q lacks prefix %q or suffix %q", head(got), tail(got), tt.prefix, tt.suffix)
			}
			d := details(t, r)
			if src := dig(d, "meta", "source", "type"); src != "path" {
				t.Errorf("details.meta.source.type = %v, want path (%s)", src, r.Details)
			}
			if v, _ := dig(d, "meta", "source", "value").(string); !filepath.IsAbs(v) {
				t.Errorf("details.meta.source.value = %q, want an absolute path", v)
			}
			if got := dig(d, "meta", "truncation") != nil; got != tt.truncated {
				t.Errorf("truncation in details = %v, want %v (%s)", got, tt.truncated, r.Details)
			}
		})
	}
}

func TestReadTruncationDetails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "big.txt", numberedLines(1000))
	r := call(t, Env{Cwd: dir}, NameRead, `{"path":"big.txt","offset":101,"limit":50}`)
	wantOK(t, r)
	want := `{"meta":{"source":{"type":"path","value":"` + filepath.Join(dir, "big.txt") + `"},"truncation":{"direction":"head","truncatedBy":"lines","totalLines":1000,"totalBytes":` +
		strconv.Itoa(len(numberedLines(1000))) + `,"outputLines":50,"outputBytes":` + strconv.Itoa(len(numberedLines(150))-len(numberedLines(100))-1) +
		`,"maxBytes":51200,"shownRange":{"start":101,"end":150},"nextOffset":151}}}`
	if string(r.Details) != want {
		t.Errorf("details:\n got %s\nwant %s", r.Details, want)
	}
}

func TestReadDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "b.txt", "")
	writeFile(t, dir, "a/x.txt", "")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := call(t, Env{Cwd: dir}, NameRead, `{"path":"."}`)
	if got := wantOK(t, r); got != "a/\nb.txt\nempty/" {
		t.Errorf("listing = %q", got)
	}
	if dig(details(t, r), "isDirectory") != true {
		t.Errorf("details = %s, want isDirectory", r.Details)
	}
	r = call(t, Env{Cwd: dir}, NameRead, `{"path":"empty"}`)
	if got := wantOK(t, r); got != "(empty directory)" {
		t.Errorf("empty listing = %q", got)
	}
}

func TestReadImage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	writeFile(t, dir, "pixel.png", png)
	writeFile(t, dir, "photo.jpg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	writeFile(t, dir, "anim.gif", "GIF89a\x01\x00\x01\x00")
	writeFile(t, dir, "pic.webp", "RIFF\x10\x00\x00\x00WEBPVP8 ")
	for _, tt := range []struct{ file, mime string }{
		{"pixel.png", "image/png"}, {"photo.jpg", "image/jpeg"}, {"anim.gif", "image/gif"}, {"pic.webp", "image/webp"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			r := call(t, Env{Cwd: dir}, NameRead, `{"path":"`+tt.file+`"}`)
			wantOK(t, r)
			if len(r.Content) != 2 || r.Content[0].Type != provider.BlockText || r.Content[1].Type != provider.BlockImage {
				t.Fatalf("content = %+v, want text then image", r.Content)
			}
			if !strings.Contains(r.Content[0].Text, tt.mime) {
				t.Errorf("note %q lacks %s", r.Content[0].Text, tt.mime)
			}
			img := r.Content[1]
			data, err := base64.StdEncoding.DecodeString(img.Data)
			if err != nil || img.MimeType != tt.mime || string(data) != readFile(t, filepath.Join(dir, tt.file)) {
				t.Errorf("image block mime %q, data ok %v (err %v)", img.MimeType, string(data) == readFile(t, filepath.Join(dir, tt.file)), err)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "bin.dat", "abc\x00def")
	writeFile(t, dir, "fake.png", "not really a png\x00\x01")
	writeFile(t, dir, "doc.pdf", "%PDF-1.7\n...")
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, args string }{
		{"missing file", `{"path":"nope.txt"}`},
		{"binary", `{"path":"bin.dat"}`},
		{"image extension without image data", `{"path":"fake.png"}`},
		{"pdf", `{"path":"doc.pdf"}`},
		{"fifo", `{"path":"fifo"}`},
		{"missing path", `{}`},
		{"empty path", `{"path":""}`},
		{"path not a string", `{"path":7}`},
		{"unknown argument", `{"path":"x","lines":3}`},
		{"bad offset", `{"path":"x","offset":"ten"}`},
		{"not an object", `["x"]`},
		{"malformed json", `{"path":`},
	}
	want := map[string][]string{
		"missing file":                       {"path not found: nope.txt"},
		"binary":                             {"bin.dat", "binary file"},
		"image extension without image data": {"fake.png", "binary file"},
		"pdf":                                {"PDF document"},
		"fifo":                               {"not a regular file"},
		"missing path":                       {`missing required argument "path"`},
		"empty path":                         {`"path" must not be empty`},
		"path not a string":                  {`argument "path" must be a string, got a number`},
		"unknown argument":                   {`unknown argument "lines"`, "allowed: path, offset, limit"},
		"bad offset":                         {`argument "offset" must be a number`},
		"not an object":                      {"must be a JSON object"},
		"malformed json":                     {"not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantErr(t, call(t, Env{Cwd: dir}, NameRead, tt.args), want[tt.name]...)
		})
	}
}

func head(s string) string { return s[:min(len(s), 40)] }
func tail(s string) string { return s[max(0, len(s)-80):] }
