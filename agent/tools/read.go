package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

const (
	// maxImageBytes is the largest image read returns (as the reference).
	maxImageBytes = 20 << 20
	// maxDirEntries is how many directory entries read lists.
	maxDirEntries = 500
	// sniffBytes is how much of a file decides whether it is binary.
	sniffBytes = 8 << 10
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

type readTool struct{ o Options }

func (t *readTool) NeedsApproval() bool { return false }

func (t *readTool) Spec() provider.Tool {
	return provider.Tool{
		Name: NameRead,
		Description: fmt.Sprintf(`Read a file or list a directory.

Text files come back as their raw lines (no line-number prefixes), at most %d lines or %s per call starting at offset (default 1). When more lines remain, the result ends with "[showing lines A-B of N. use offset=K to continue]": call read again with that offset to see more. Use offset and limit to page through large files instead of reading them whole.
Images (PNG, JPEG, GIF, WebP) come back as an image you can see. A directory comes back as a listing of its entries, subdirectories ending in "/".
Relative paths resolve against the working directory.`, DefaultReadLines, formatSize(int64(t.o.MaxOutputBytes))),
		Parameters: schema([]string{"path"},
			"path", prop("string", "Path of the file or directory to read (absolute, or relative to the working directory)."),
			"offset", prop("integer", "1-based line number to start from (default 1)."),
			"limit", prop("integer", fmt.Sprintf("Maximum number of lines to show (default %d, at most %d).", DefaultReadLines, t.o.MaxLines)),
		),
	}
}

func (t *readTool) Run(ctx context.Context, env Env, raw json.RawMessage, _ func(string)) (res Result) {
	defer recoverResult(NameRead, &res)
	a := parseArgs(NameRead, raw, "path", "offset", "limit")
	path := a.str("path", true)
	offset, _ := a.num("offset")
	limit, hasLimit := a.num("limit")
	if r := a.failed(); r != nil {
		return *r
	}
	if path == "" {
		return errorf(`invalid arguments for read: "path" must not be empty`)
	}
	if ctx.Err() != nil {
		return errorf("read aborted: %v", context.Cause(ctx))
	}
	abs := resolvePath(env.Cwd, path)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return errorf("path not found: %s", path)
	}
	if err != nil {
		return errorf("cannot read %s: %v", path, err)
	}
	if fi.IsDir() {
		return listDir(path, abs)
	}
	if !fi.Mode().IsRegular() {
		return errorf("cannot read %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(abs)
	if err != nil {
		return errorf("cannot read %s: %v", path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return errorf("cannot read %s: %v", path, err)
	}
	if mime := imageMime(head); mime != "" {
		return readImage(path, abs, fi.Size(), mime, br)
	}
	if kind := binaryKind(head); kind != "" {
		return errorf("cannot read %s: it is a binary file (%s, %s), not text. Inspect it with bash instead (e.g. `file`, `xxd %s | head`).",
			path, kind, formatSize(fi.Size()), shellQuote(path))
	}
	lines := DefaultReadLines
	if hasLimit {
		lines = max(int(limit), 1)
	}
	lines = min(lines, t.o.MaxLines)
	return readText(br, path, abs, fi.Size(), max(int(offset), 1), lines, t.o.MaxOutputBytes)
}

// readText shows up to maxLines lines (and maxBytes bytes) of r from line
// start on, counting all lines to say how many remain.
func readText(r *bufio.Reader, path, abs string, size int64, start, maxLines, maxBytes int) Result {
	var (
		out        strings.Builder
		shown      int // lines written to out
		collecting = true
		cutBy      string
		firstBig   int64 // size of the first line when it alone exceeds maxBytes
		cur        []byte
		curLen     int64 // full length of the current line, even when cur stopped growing
		pending    bool  // bytes of an unterminated line were read
		lineNo     int
	)
	finishLine := func() {
		lineNo++
		inWindow := collecting && lineNo >= start
		line := cur
		full := curLen
		cur, curLen, pending = cur[:0], 0, false
		if !inWindow {
			return
		}
		capped := int64(len(line)) < full // the line outgrew maxBytes while being read
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		need := len(line)
		if shown > 0 {
			need++
		}
		if capped || out.Len()+need > maxBytes {
			collecting, cutBy = false, "bytes"
			if shown == 0 {
				firstBig = full
			}
			return
		}
		if shown > 0 {
			out.WriteByte('\n')
		}
		out.Write(bytes.ToValidUTF8(line, []byte("\uFFFD")))
		shown++
		if shown == maxLines {
			collecting = false
			cutBy = "lines"
		}
	}
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			pending = true
			curLen += int64(len(chunk))
			if collecting && lineNo+1 >= start && len(cur) <= maxBytes {
				cur = append(cur, chunk...)
			}
			if chunk[len(chunk)-1] == '\n' {
				finishLine()
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if pending {
				finishLine()
			}
			break
		}
		if err != nil {
			return errorf("cannot read %s: %v", path, err)
		}
	}
	total := lineNo
	details := &meta{Source: &source{Type: "path", Value: abs}}
	if total == 0 {
		return textResult("(empty file)", mustJSON(map[string]any{"meta": details}))
	}
	if start > total {
		return textResult(fmt.Sprintf("offset %d is past the end of %s, which has %d lines. Use an offset from 1 to %d.", start, path, total, total),
			mustJSON(map[string]any{"meta": details}))
	}
	end := start + shown - 1
	if end >= total {
		return textResult(out.String(), mustJSON(map[string]any{"meta": details}))
	}
	tr := &truncation{
		Direction: "head", TruncatedBy: cutBy, TotalLines: total, TotalBytes: size,
		OutputLines: shown, OutputBytes: out.Len(), MaxBytes: maxBytes, NextOffset: end + 1,
	}
	details.Truncation = tr
	d := mustJSON(map[string]any{"meta": details})
	if firstBig > 0 {
		tr.FirstLineExceedsLimit = true
		tr.NextOffset = start + 1
		d = mustJSON(map[string]any{"meta": details})
		text := fmt.Sprintf("[line %d is %s, over the %s limit. Show part of it with bash, e.g. sed -n '%dp' %s | cut -c1-%d", start,
			formatSize(firstBig), formatSize(int64(maxBytes)), start, shellQuote(path), maxBytes/2)
		if start < total {
			text += fmt.Sprintf(". use offset=%d to continue after it", start+1)
		}
		return textResult(text+"]", d)
	}
	tr.ShownRange = &lineRange{Start: start, End: end}
	d = mustJSON(map[string]any{"meta": details})
	return textResult(out.String()+"\n\n"+tr.notice(""), d)
}

// listDir lists the entries of a directory, subdirectories with a trailing "/".
func listDir(path, abs string) Result {
	entries, err := os.ReadDir(abs)
	if err != nil && len(entries) == 0 {
		return errorf("cannot list %s: %v", path, err)
	}
	details := mustJSON(map[string]any{"isDirectory": true, "meta": &meta{Source: &source{Type: "path", Value: abs}}})
	if len(entries) == 0 {
		return textResult("(empty directory)", details)
	}
	var b strings.Builder
	for i, e := range entries {
		if i == maxDirEntries {
			fmt.Fprintf(&b, "\n[%d more entries not shown; use bash (ls, find) to see them]", len(entries)-maxDirEntries)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
	}
	return textResult(b.String(), details)
}

// readImage returns an image block and a short note.
func readImage(path, abs string, size int64, mime string, r io.Reader) Result {
	if size > maxImageBytes {
		return errorf("cannot read %s: the image is %s, over the %s limit", path, formatSize(size), formatSize(maxImageBytes))
	}
	data, err := io.ReadAll(io.LimitReader(r, maxImageBytes+1))
	if err != nil {
		return errorf("cannot read %s: %v", path, err)
	}
	return Result{
		Content: []provider.Block{
			{Type: provider.BlockText, Text: fmt.Sprintf("Read image file %s [%s, %s]", path, mime, formatSize(int64(len(data))))},
			{Type: provider.BlockImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mime},
		},
		Details: mustJSON(map[string]any{"meta": &meta{Source: &source{Type: "path", Value: abs}}}),
	}
}

// imageMime recognises PNG, JPEG, GIF and WebP by their magic bytes.
func imageMime(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// binaryKind names the kind of a non-text file from its first bytes, or
// returns "" for text. A NUL byte marks binary, as git and grep decide.
func binaryKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return "PDF document"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "zip archive"
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF executable"
	case bytes.HasPrefix(head, []byte{0x1F, 0x8B}):
		return "gzip data"
	case bytes.IndexByte(head, 0) >= 0:
		if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
			return "UTF-16 text"
		}
		return "contains NUL bytes"
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
