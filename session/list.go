package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// RecentPrefixBytes is how much of each file the recent list reads.
const RecentPrefixBytes = 4096

// RecentSession is one row of the recent list (reference section 6).
type RecentSession struct {
	Path     string
	Mtime    time.Time
	FullName string
	Name     string
}

// TimeAgo renders how long before now the session changed, as the reference does.
func TimeAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
	return t.Local().Format("1/2/2006")
}

// sessionFiles lists the *.jsonl files directly in dir, dot-files excluded.
func sessionFiles(st Storage, dir string) []string {
	ents, err := st.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	return out
}

var newlineRe = regexp.MustCompile(`\r?\n`)

// SanitizeName keeps the first line, removes C0 controls and DEL, and trims.
func SanitizeName(s string) string {
	s = newlineRe.Split(s, 2)[0]
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// shortName cuts a name to 40 UTF-16 units: 39 and an ellipsis, never
// splitting a surrogate pair.
func shortName(s string) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= 40 {
		return s
	}
	cut := 39
	if utf16.IsSurrogate(rune(u[cut-1])) && u[cut-1] < 0xdc00 {
		cut--
	}
	return string(utf16.Decode(u[:cut])) + "…"
}

// decodePrefix decodes a file prefix as the reference does: BOM stripped,
// a truncated trailing character becomes U+FFFD.
func decodePrefix(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if utf8.Valid(b) {
		return b
	}
	return []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// RecentSessions lists the sessions in dir, newest first, from the first 4 KB
// of each file; files that are not sessions are skipped.
func RecentSessions(st Storage, dir string, limit int) []RecentSession {
	var out []RecentSession
	for _, p := range sessionFiles(st, dir) {
		fi, err := st.Stat(p)
		if err != nil {
			continue
		}
		if r, ok := recentOf(st, p, fi); ok {
			out = append(out, r)
		}
	}
	sortRecent(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// recentOf reads the recent-list row of one file from its 4 KB prefix.
func recentOf(st Storage, p string, fi fs.FileInfo) (RecentSession, bool) {
	prefix, err := st.ReadPrefix(p, RecentPrefixBytes)
	if err != nil {
		return RecentSession{}, false
	}
	entries := ParseEntries(decodePrefix(prefix))
	if len(entries) == 0 || !isHeader(entries[0]) {
		return RecentSession{}, false
	}
	h := entries[0]
	title := h.GetString("title")
	var firstPrompt string
	if !truthy(h.Get("title")) {
		for _, e := range entries[1:] {
			if e.Type != TypeMessage {
				continue
			}
			msg := e.Get("message")
			if rawString(member(msg, "role")) != "user" {
				continue
			}
			firstPrompt = firstText(member(msg, "content"))
			break
		}
	}
	full := ""
	for _, c := range []string{title, firstPrompt, h.GetString("id")} {
		if s := SanitizeName(c); s != "" {
			full = s
			break
		}
	}
	if full == "" {
		full = strings.TrimSuffix(filepath.Base(p), ".jsonl")
	}
	return RecentSession{Path: p, Mtime: fi.ModTime(), FullName: full, Name: shortName(full)}, true
}

// MostRecentSession returns the newest session file in dir, or "".
func MostRecentSession(st Storage, dir string) string {
	if r := RecentSessions(st, dir, 1); len(r) > 0 {
		return r[0].Path
	}
	return ""
}

// firstText returns a string content, or the first block with a string text.
func firstText(content []byte) string {
	if len(content) > 0 && content[0] == '"' {
		return rawString(content)
	}
	var out string
	found := false
	elements(content, func(v []byte) {
		if found {
			return
		}
		if t := member(v, "text"); len(t) > 0 && t[0] == '"' {
			out, found = rawString(t), true
		}
	})
	return out
}

// SessionInfo describes one session in the full and global lists.
type SessionInfo struct {
	Path              string
	ID                string
	Cwd               string
	Title             *string
	ParentSessionPath json.RawMessage
	Created           *time.Time
	Modified          time.Time
	MessageCount      int
	FirstMessage      string
	AllMessagesText   string
}

// MarshalJSON writes the reference's SessionInfo field names.
func (s SessionInfo) MarshalJSON() ([]byte, error) {
	fs := []Field{
		{Key: "path", Val: str(s.Path)},
		{Key: "id", Val: str(s.ID)},
		{Key: "cwd", Val: str(s.Cwd)},
	}
	if s.Title != nil {
		fs = append(fs, Field{Key: "title", Val: str(*s.Title)})
	}
	if s.ParentSessionPath != nil {
		fs = append(fs, Field{Key: "parentSessionPath", Val: s.ParentSessionPath})
	}
	created := rawNull
	if s.Created != nil {
		created = str(ISOTime(*s.Created))
	}
	fs = append(fs,
		Field{Key: "created", Val: created},
		Field{Key: "modified", Val: str(ISOTime(s.Modified))},
		Field{Key: "messageCount", Val: num(float64(s.MessageCount))},
		Field{Key: "firstMessage", Val: str(s.FirstMessage)},
		Field{Key: "allMessagesText", Val: str(s.AllMessagesText)},
	)
	return encodeFields(fs), nil
}

// ReadSessionInfo reads a whole session file into a SessionInfo; ok is false
// when it is not a session (or a user/assistant message has no content).
func ReadSessionInfo(st Storage, path string) (SessionInfo, bool) {
	fi, err := st.Stat(path)
	if err != nil {
		return SessionInfo{}, false
	}
	data, err := st.ReadFile(path)
	if err != nil {
		return SessionInfo{}, false
	}
	return sessionInfoFrom(path, fi.ModTime(), data)
}

func sessionInfoFrom(path string, mtime time.Time, data []byte) (SessionInfo, bool) {
	entries := ParseEntries(data)
	if len(entries) == 0 {
		return SessionInfo{}, false
	}
	h := entries[0]
	if h.Type != TypeSession || !truthy(h.Get("id")) {
		return SessionInfo{}, false
	}
	info := SessionInfo{Path: path, ID: jsText(h.Get("id")), Modified: mtime, ParentSessionPath: h.Get("parentSession")}
	if c := h.Get("cwd"); len(c) > 0 && c[0] == '"' {
		info.Cwd = rawString(c)
	}
	if ms, ok := parseISOms(h.GetString("timestamp")); ok {
		t := time.UnixMilli(ms).UTC()
		info.Created = &t
	}
	var lastShort *string
	var all []string
	first := ""
	for _, e := range entries[1:] {
		switch e.Type {
		case TypeCompaction:
			if s := e.Get("shortSummary"); len(s) > 0 && s[0] == '"' {
				v := rawString(s)
				lastShort = &v
			}
		case TypeMessage:
			msg := e.Get("message")
			if !truthy(msg) {
				continue
			}
			info.MessageCount++
			role := rawString(member(msg, "role"))
			if role != "user" && role != "assistant" {
				continue
			}
			content := member(msg, "content")
			if content == nil || bytes.Equal(content, rawNull) {
				return SessionInfo{}, false
			}
			text := ""
			if content[0] == '"' {
				text = rawString(content)
			} else {
				var parts []string
				elements(content, func(v []byte) {
					if rawString(member(v, "type")) == "text" {
						parts = append(parts, jsText(member(v, "text")))
					}
				})
				text = strings.Join(parts, " ")
			}
			if text != "" {
				all = append(all, text)
				if role == "user" && first == "" {
					first = text
				}
			}
		}
	}
	if t := h.Get("title"); t != nil && !bytes.Equal(t, rawNull) {
		v := jsText(t)
		info.Title = &v
	} else {
		info.Title = lastShort
	}
	if first == "" {
		first = "(no messages)"
	}
	info.FirstMessage = first
	info.AllMessagesText = strings.Join(all, " ")
	return info, true
}

// ListSessions returns every session in dir with its details, newest first.
func ListSessions(st Storage, dir string) []SessionInfo {
	return collect(st, sessionFiles(st, dir))
}

// ListAllSessions returns every session under root (one level of project
// dirs and below), newest first. Subagent transcripts inside a session's
// artifacts dir (<session>/<task>.jsonl next to <session>.jsonl) are left out.
func ListAllSessions(st Storage, root string) []SessionInfo {
	return collect(st, allSessionFiles(st, root))
}

// allSessionFiles finds *.jsonl files below root, skipping dot-files and the
// artifacts dir <name>/ of any <name>.jsonl.
func allSessionFiles(st Storage, root string) []string {
	var files []string
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := st.ReadDir(dir)
		if err != nil {
			return
		}
		names := map[string]bool{}
		for _, e := range ents {
			names[e.Name()] = true
		}
		for _, e := range ents {
			n := e.Name()
			p := filepath.Join(dir, n)
			if e.IsDir() {
				if !names[n+".jsonl"] {
					walk(p)
				}
				continue
			}
			if !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".jsonl") && e.Type()&fs.ModeType == 0 {
				files = append(files, p)
			}
		}
	}
	walk(root)
	return files
}

func collect(st Storage, files []string) []SessionInfo {
	out := make([]SessionInfo, 0, len(files))
	for _, p := range files {
		if info, ok := ReadSessionInfo(st, p); ok {
			out = append(out, info)
		}
	}
	sortInfos(out)
	return out
}
