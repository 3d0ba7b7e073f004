package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/xcsh-dev/xcsh/agent/provider"
)

const (
	// maxEditBytes bounds the files edit loads into memory.
	maxEditBytes = 64 << 20
	// maxListedMatches is how many occurrences a non-unique match error lists.
	maxListedMatches = 20
	// maxDiffPreviewLines caps the diff shown to the model; details keep it all.
	maxDiffPreviewLines = 60
)

type editTool struct{}

func (t *editTool) NeedsApproval() bool { return false }

func (t *editTool) Spec() provider.Tool {
	return provider.Tool{
		Name: NameEdit,
		Description: `Edit a file by replacing exact text.

old_text must match the file exactly, character for character, including indentation and whitespace; copy it from the file as read shows it (without any line numbers). It must occur exactly once unless all is true: if it occurs several times the edit is refused and the matching lines are listed, so include enough surrounding lines to make it unique. Line endings are handled for you (write \n; files with CRLF line ends keep them) and a UTF-8 BOM is kept.
To create a new file or replace a whole file, use write instead.`,
		Parameters: schema([]string{"path", "old_text", "new_text"},
			"path", prop("string", "Path of the file to edit (absolute, or relative to the working directory)."),
			"old_text", prop("string", "The exact text to replace; must match once (or use all)."),
			"new_text", prop("string", "The replacement text (may be empty to delete old_text)."),
			"all", prop("boolean", "Replace every occurrence of old_text instead of requiring exactly one (default false)."),
		),
	}
}

// eol is how a file ends its lines.
type eol int

const (
	eolLF    eol = iota // only \n (or no line ends at all)
	eolCRLF             // every \n is preceded by \r
	eolMixed            // both kinds: matched byte for byte
)

func detectEOL(s string) eol {
	crlf := strings.Count(s, "\r\n")
	switch {
	case crlf == 0:
		return eolLF
	case crlf == strings.Count(s, "\n"):
		return eolCRLF
	}
	return eolMixed
}

func (t *editTool) Run(ctx context.Context, env Env, raw json.RawMessage, _ func(string)) (res Result) {
	defer recoverResult(NameEdit, &res)
	a := parseArgs(NameEdit, raw, "path", "old_text", "new_text", "all")
	path := a.str("path", true)
	oldText := a.str("old_text", true)
	newText := a.str("new_text", true)
	all := a.boolean("all")
	if r := a.failed(); r != nil {
		return *r
	}
	switch {
	case path == "":
		return errorf(`invalid arguments for edit: "path" must not be empty`)
	case oldText == "":
		return errorf("old_text must not be empty. To create a file or replace its whole content, use the write tool.")
	case oldText == newText:
		return errorf("old_text and new_text are identical, so the edit would change nothing. Give the text you want in new_text.")
	}
	if ctx.Err() != nil {
		return errorf("edit aborted: %v", context.Cause(ctx))
	}
	abs := resolvePath(env.Cwd, path)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorf("path not found: %s", path)
	case err != nil:
		return errorf("cannot edit %s: %v", path, err)
	case fi.IsDir():
		return errorf("cannot edit %s: it is a directory", path)
	case !fi.Mode().IsRegular():
		return errorf("cannot edit %s: not a regular file", path)
	case fi.Size() > maxEditBytes:
		return errorf("cannot edit %s: the file is %s, over the %s the edit tool handles; use bash (e.g. sed) instead",
			path, formatSize(fi.Size()), formatSize(maxEditBytes))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return errorf("cannot edit %s: %v", path, err)
	}
	if kind := binaryKind(data[:min(len(data), sniffBytes)]); kind != "" {
		return errorf("cannot edit %s: it is a binary file (%s)", path, kind)
	}
	bom := bytes.HasPrefix(data, utf8BOM)
	content := string(bytes.TrimPrefix(data, utf8BOM))
	oldText = strings.TrimPrefix(oldText, string(utf8BOM))
	ending := detectEOL(content)
	if ending != eolMixed {
		// Match on \n-only text: the model writes \n whatever the file uses.
		content = strings.ReplaceAll(content, "\r\n", "\n")
		oldText = strings.ReplaceAll(oldText, "\r\n", "\n")
		newText = strings.ReplaceAll(newText, "\r\n", "\n")
	}
	if oldText == newText {
		return errorf("old_text and new_text differ only in line endings, which the edit tool keeps as the file has them, so the edit would change nothing.")
	}
	matches := findAll(content, oldText)
	if len(matches) == 0 && ending == eolMixed && strings.Contains(oldText, "\n") {
		// A mixed file is matched as it is; the model most likely meant the
		// CRLF spelling of its \n.
		crlfOld := toCRLF(oldText)
		if m := findAll(content, crlfOld); len(m) > 0 {
			oldText, newText, matches = crlfOld, toCRLF(newText), m
		}
	}
	switch {
	case len(matches) == 0:
		return notFound(path, content, oldText)
	case len(matches) > 1 && !all:
		return errorf("old_text occurs %d times in %s (%s). It must match exactly once: include more surrounding lines to make it unique, or set all=true to replace every occurrence.",
			len(matches), path, describeLines(content, matches, len(oldText)))
	}
	updated := strings.ReplaceAll(content, oldText, newText)
	if len(matches) == 1 {
		updated = content[:matches[0]] + newText + content[matches[0]+len(oldText):]
	}
	out := updated
	if ending == eolCRLF {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = string(utf8BOM) + out
	}
	if err := writeFileAtomic(abs, []byte(out)); err != nil {
		return errorf("cannot write %s: %v", path, err)
	}
	diff, first, added, removed := compactDiff(strings.ReplaceAll(content, "\r\n", "\n"), strings.ReplaceAll(updated, "\r\n", "\n"))
	text := fmt.Sprintf("Updated %s", path)
	if len(matches) > 1 {
		text += fmt.Sprintf(" (%d replacements)", len(matches))
	}
	text += fmt.Sprintf(": +%d -%d lines\n%s", added, removed, previewLines(diff, maxDiffPreviewLines))
	details := struct {
		Diff             string `json:"diff"`
		FirstChangedLine int    `json:"firstChangedLine,omitempty"`
	}{diff, first}
	return textResult(text, mustJSON(details))
}

// findAll returns the start offsets of the non-overlapping occurrences of sub.
func findAll(s, sub string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + len(sub)
	}
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// lineAt is the 1-based line of byte offset off.
func lineAt(s string, off int) int { return 1 + strings.Count(s[:off], "\n") }

// describeLines lists where the matches are: "lines 3, 17 and 40" (a
// multi-line match by its range, "lines 3-5").
func describeLines(s string, offs []int, n int) string {
	var parts []string
	for i, off := range offs {
		if i == maxListedMatches {
			parts = append(parts, fmt.Sprintf("and %d more", len(offs)-i))
			break
		}
		from, to := lineAt(s, off), lineAt(s, off+max(n-1, 0))
		if from == to {
			parts = append(parts, strconv.Itoa(from))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", from, to))
		}
	}
	return "at lines " + strings.Join(parts, ", ")
}

// notFound explains a failed match and, when old_text matches once
// whitespace is ignored, shows the text actually there.
func notFound(path, content, oldText string) Result {
	msg := fmt.Sprintf("old_text was not found in %s. It must match the file exactly, including whitespace, indentation and line breaks; read the file again and copy the text.", path)
	if start, end, ok := fuzzyFind(content, oldText); ok {
		from, to := lineAt(content, start), lineAt(content, end)
		where := fmt.Sprintf("line %d", from)
		if to > from {
			where = fmt.Sprintf("lines %d-%d", from, to)
		}
		ls := strings.LastIndex(content[:start], "\n") + 1 // whole lines

		le := strings.Index(content[end:], "\n")
		if le < 0 {
			le = len(content)
		} else {
			le += end
		}
		msg += fmt.Sprintf("\nIgnoring whitespace, it matches %s, which read:\n%s", where, previewLines(content[ls:le], 20))
	}
	return errorf("%s", msg)
}

// fuzzyFind finds old in content with all whitespace ignored and returns the
// byte range [start, end) of the first match in content.
func fuzzyFind(content, old string) (start, end int, ok bool) {
	sq, _ := squeeze(old)
	if sq == "" {
		return 0, 0, false
	}
	sc, offs := squeeze(content)
	i := strings.Index(sc, sq)
	if i < 0 {
		return 0, 0, false
	}
	last := i + len(sq) - 1
	_, size := utf8.DecodeRuneInString(content[offs[last]:])
	return offs[i], offs[last] + size, true
}

// squeeze drops every whitespace rune from s; offs[i] is the offset in s of
// byte i of the result.
func squeeze(s string) (string, []int) {
	var b strings.Builder
	offs := make([]int, 0, len(s))
	for i, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		n := b.Len()
		b.WriteRune(r)
		for range b.Len() - n {
			offs = append(offs, i)
		}
	}
	return b.String(), offs
}

// previewLines keeps the first n lines of s, saying how many were left out.
func previewLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) <= n {
		return s
	}
	rest := strings.Count(lines[n], "\n") + 1
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines)", rest)
}
