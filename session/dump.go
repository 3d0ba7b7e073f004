package session

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// DumpTool is a tool as /dump lists it: its name, description and JSON
// parameter schema.
type DumpTool struct {
	Name, Description string
	Parameters        json.RawMessage
}

// DumpInput is what /dump formats: the agent's system prompt, model
// ("provider/id", "" when none is selected), thinking level, tools, and the
// messages of the current context (compaction summary, kept and later
// messages; not the whole file).
type DumpInput struct {
	SystemPrompt, Model, ThinkingLevel string
	Tools                              []DumpTool
	Messages                           []json.RawMessage
}

// intentField is the intent-tracing argument every tool schema carries; /dump
// leaves it out of parameter and argument lists.
const intentField = "_i"

// DumpText formats the /dump text exactly as the reference's
// formatSessionDumpText does (reference section 10): a list of pieces joined
// with "\n", then trimmed as JavaScript trims. Values are turned into text the
// way JavaScript's template literals and Array.join do, so a message missing
// a field reads as the reference's does ("undefined" in a template, nothing in
// a join).
func DumpText(in DumpInput) string {
	var d dumper
	if in.SystemPrompt != "" {
		d.push("## System Prompt\n", in.SystemPrompt, "\n")
	}
	model := in.Model
	if model == "" {
		model = "(not selected)"
	}
	d.push("## Configuration\n", "Model: "+model, "Thinking Level: "+in.ThinkingLevel, "\n")
	if len(in.Tools) > 0 {
		d.push("## Available Tools\n")
		for _, t := range in.Tools {
			d.push(`<tool name="`+t.Name+`">`, t.Description)
			d.push("\nParameters:\n" + argsXML(t.Parameters, true))
			d.push("</tool>\n")
		}
		d.push("\n")
	}
	for _, msg := range in.Messages {
		d.message(msg)
	}
	return jsTrim(strings.Join(d.lines, "\n"))
}

// dumper collects the pieces of a dump.
type dumper struct{ lines []string }

func (d *dumper) push(s ...string) { d.lines = append(d.lines, s...) }

// pushValue pushes a raw value as Array.join would write it: undefined and
// null as nothing, anything else as String(v).
func (d *dumper) pushValue(v []byte) { d.lines = append(d.lines, joinText(v)) }

func (d *dumper) message(msg []byte) {
	switch role := rawString(member(msg, "role")); role {
	case "user", "developer":
		if role == "developer" {
			d.push("## Developer\n")
		} else {
			d.push("## User\n")
		}
		d.content(member(msg, "content"), "[Image]")
		d.push("\n")
	case "assistant":
		d.push("## Assistant\n")
		elements(member(msg, "content"), func(c []byte) {
			switch rawString(member(c, "type")) {
			case "text":
				d.pushValue(member(c, "text"))
			case "thinking":
				d.push("<thinking>")
				d.pushValue(member(c, "thinking"))
				d.push("</thinking>\n")
			case "toolCall":
				d.push(`<invoke name="` + jsString(member(c, "name")) + `">`)
				if args := member(c, "arguments"); len(args) > 0 && (args[0] == '{' || args[0] == '[') {
					d.push(argsXML(args, false))
				}
				d.push("</invoke>\n")
			}
		})
		d.push("")
	case "toolResult":
		d.push("### Tool Result: " + jsString(member(msg, "toolName")))
		if truthy(member(msg, "isError")) {
			d.push("(error)")
		}
		elements(member(msg, "content"), func(c []byte) {
			switch rawString(member(c, "type")) {
			case "text":
				d.push("```")
				d.pushValue(member(c, "text"))
				d.push("```")
			case "image":
				d.push("[Image output]")
			}
		})
		d.push("")
	case "bashExecution", "pythonExecution":
		if truthy(member(msg, "excludeFromContext")) {
			return
		}
		if role == "bashExecution" {
			d.push("## Bash Execution\n", bashExecutionText(msg), "\n")
		} else {
			d.push("## Python Execution\n", pythonExecutionText(msg), "\n")
		}
	case "custom", "hookMessage":
		d.push("## " + jsString(member(msg, "customType")) + "\n")
		d.content(member(msg, "content"), "[Image]")
		d.push("\n")
	case "branchSummary":
		d.push("## Branch Summary\n", "(from branch: "+jsString(member(msg, "fromId"))+")\n")
		d.pushValue(member(msg, "summary"))
		d.push("\n")
	case "compactionSummary":
		d.push("## Compaction Summary\n", "("+jsString(member(msg, "tokensBefore"))+" tokens before compaction)\n")
		d.pushValue(member(msg, "summary"))
		d.push("\n")
	case "fileMention":
		d.push("## File Mention\n")
		elements(member(msg, "files"), func(f []byte) {
			d.push(`<file path="` + jsString(member(f, "path")) + `">`)
			if c := member(f, "content"); truthy(c) {
				d.pushValue(c)
			}
			if truthy(member(f, "image")) {
				d.push("[Image attached]")
			}
			d.push("</file>\n")
		})
		d.push("\n")
	}
}

// content pushes user-like content: a string as it is, else each text block
// and image for each image block.
func (d *dumper) content(c []byte, image string) {
	if len(c) > 0 && c[0] == '"' {
		d.push(rawString(c))
		return
	}
	elements(c, func(b []byte) {
		switch rawString(member(b, "type")) {
		case "text":
			d.pushValue(member(b, "text"))
		case "image":
			d.push(image)
		}
	})
}

// argsXML writes the top-level members of a JSON object (or the items of an
// array), in JavaScript's Object.entries order, one line each:
// `\t<parameter name="k">v</parameter>`, strings raw and other values as
// JSON.stringify writes them; the intent field is skipped. With stripTypeBox,
// keys starting "TypeBox." are removed at every depth first, as the
// reference does for tool schemas.
func argsXML(raw []byte, stripTypeBox bool) string {
	n, err := jsjson.Parse(raw)
	if err != nil || n == nil || (n.Kind != '{' && n.Kind != '[') {
		return ""
	}
	if stripTypeBox {
		dropTypeBox(n)
	}
	canon := n.AppendJSON(nil)
	vals := jsjson.ParseJSONL(canon)
	if len(vals) != 1 {
		return ""
	}
	var parts []string
	add := func(key string, v []byte) {
		if key == intentField {
			return
		}
		parts = append(parts, "\t<parameter name=\""+key+"\">"+jsonOrString(v)+"</parameter>")
	}
	if n.Kind == '[' {
		i := 0
		elements(canon, func(v []byte) {
			add(strconv.Itoa(i), v)
			i++
		})
	} else {
		for _, f := range vals[0].Fields() {
			add(f.Key, f.Val)
		}
	}
	return strings.Join(parts, "\n")
}

// dropTypeBox removes keys starting "TypeBox." from every object in n.
func dropTypeBox(n *jsjson.Node) {
	if n == nil {
		return
	}
	for _, it := range n.Items {
		dropTypeBox(it)
	}
	for i := 0; i < len(n.Keys); {
		if strings.HasPrefix(n.Keys[i], "TypeBox.") {
			n.Delete(n.Keys[i])
			continue
		}
		dropTypeBox(n.Vals[i])
		i++
	}
}

// jsonOrString is a canonical value as the reference writes a parameter: a
// string raw, anything else as its JSON text.
func jsonOrString(v []byte) string {
	if len(v) > 0 && v[0] == '"' {
		return rawString(v)
	}
	return string(v)
}

// bashExecutionText is the reference's bashExecutionToText.
func bashExecutionText(msg []byte) string {
	var b strings.Builder
	b.WriteString("Ran `" + jsString(member(msg, "command")) + "`\n")
	if out := member(msg, "output"); truthy(out) {
		b.WriteString("```\n" + jsString(out) + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	if truthy(member(msg, "cancelled")) {
		b.WriteString("\n\n(command cancelled)")
	} else if c := member(msg, "exitCode"); nonZeroExit(c) {
		b.WriteString("\n\nCommand exited with code " + jsString(c))
	}
	b.WriteString(outputNotice(member(msg, "meta")))
	return b.String()
}

// pythonExecutionText is the reference's pythonExecutionToText.
func pythonExecutionText(msg []byte) string {
	var b strings.Builder
	b.WriteString("Ran Python:\n```python\n" + jsString(member(msg, "code")) + "\n```\n")
	if out := member(msg, "output"); truthy(out) {
		b.WriteString("Output:\n```\n" + jsString(out) + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	if truthy(member(msg, "cancelled")) {
		b.WriteString("\n\n(execution cancelled)")
	} else if c := member(msg, "exitCode"); nonZeroExit(c) {
		b.WriteString("\n\nExecution failed with code " + jsString(c))
	}
	b.WriteString(outputNotice(member(msg, "meta")))
	return b.String()
}

// nonZeroExit is `c !== null && c !== undefined && c !== 0`.
func nonZeroExit(c []byte) bool {
	if c == nil || string(c) == "null" {
		return false
	}
	f, ok := jsNumber(c)
	return !ok || f != 0
}

// outputNotice is the reference's formatOutputNotice (tools/output-meta.ts).
func outputNotice(meta []byte) string {
	if !truthy(meta) {
		return ""
	}
	var parts []string
	if t := member(meta, "truncation"); truthy(t) {
		var notice string
		if r := member(t, "shownRange"); truthy(r) {
			notice = "Showing lines " + jsString(member(r, "start")) + "-" + jsString(member(r, "end")) + " of " + jsString(member(t, "totalLines"))
		} else {
			notice = "Showing " + jsString(member(t, "outputLines")) + " of " + jsString(member(t, "totalLines")) + " lines"
		}
		if rawString(member(t, "truncatedBy")) == "bytes" {
			notice += " (" + formatSize(member(t, "outputBytes")) + " limit)"
		}
		if v := member(t, "nextOffset"); v != nil && string(v) != "null" {
			notice += ". Use offset=" + jsString(v) + " to continue"
		} else if v := member(t, "artifactId"); v != nil && string(v) != "null" {
			notice += ". Full: artifact://" + jsString(v)
		}
		parts = append(parts, notice)
	}
	limits := member(meta, "limits")
	if l := member(limits, "matchLimit"); truthy(l) {
		parts = append(parts, jsString(member(l, "reached"))+" matches limit reached. Use limit="+jsString(member(l, "suggestion"))+" for more")
	}
	if l := member(limits, "resultLimit"); truthy(l) {
		parts = append(parts, jsString(member(l, "reached"))+" results limit reached. Use limit="+jsString(member(l, "suggestion"))+" for more")
	}
	if l := member(limits, "headLimit"); truthy(l) {
		parts = append(parts, jsString(member(l, "reached"))+" results limit reached. Use head_limit="+jsString(member(l, "suggestion"))+" for more")
	}
	if l := member(limits, "columnTruncated"); truthy(l) {
		parts = append(parts, "Some lines truncated to "+jsString(member(l, "maxColumn"))+" chars")
	}
	diagnostics := ""
	if dg := member(meta, "diagnostics"); truthy(dg) {
		var msgs []string
		elements(member(dg, "messages"), func(v []byte) { msgs = append(msgs, joinText(v)) })
		if len(msgs) > 0 {
			diagnostics = "\n\nLSP Diagnostics (" + jsString(member(dg, "summary")) + "):\n  " + strings.Join(msgs, "\n  ")
		}
	}
	notice := ""
	if len(parts) > 0 {
		notice = "\n\n[" + strings.Join(parts, ". ") + "]"
	}
	return notice + diagnostics
}

// formatSize is the reference's formatSize (tools/truncate.ts): bytes, KB or
// MB with one decimal rounded as Number.prototype.toFixed rounds (halves up).
func formatSize(raw []byte) string {
	f, ok := jsNumber(raw)
	if !ok {
		f = math.NaN()
	}
	switch {
	case f < 1024:
		return jsString(raw) + "B"
	case f < 1024*1024:
		return toFixed1(f, 1024) + "KB"
	}
	return toFixed1(f, 1024*1024) + "MB"
}

// toFixed1 is (f/div).toFixed(1). For whole byte counts it is computed
// exactly in integers, so halves round up as JavaScript's toFixed does
// (Go's formatting rounds them to even).
func toFixed1(f float64, div int64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	if f == math.Trunc(f) && f >= 0 && f < 1<<50 {
		n := (int64(f)*20 + div) / (2 * div) // round(f*10/div), halves up
		return strconv.FormatInt(n/10, 10) + "." + strconv.FormatInt(n%10, 10)
	}
	return strconv.FormatFloat(f/float64(div), 'f', 1, 64)
}

// jsNumber returns the value of a raw JSON number.
func jsNumber(raw []byte) (float64, bool) {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// jsString is String(v) for a raw JSON value, as a template literal writes
// it: strings as they are, numbers as JavaScript prints them, undefined and
// null by name, arrays joined with commas, objects as "[object Object]".
func jsString(v []byte) string {
	if v == nil {
		return "undefined"
	}
	switch v[0] {
	case '"':
		return rawString(v)
	case '{':
		return "[object Object]"
	case '[':
		var parts []string
		elements(v, func(e []byte) { parts = append(parts, joinText(e)) })
		return strings.Join(parts, ",")
	case 't', 'f', 'n':
		return string(v)
	}
	if c, err := jsjson.Canonical(v); err == nil {
		return string(c)
	}
	return string(v)
}

// joinText is how Array.join writes an element: undefined and null as
// nothing, anything else as String(v).
func joinText(v []byte) string {
	if v == nil || string(v) == "null" {
		return ""
	}
	return jsString(v)
}

// jsTrim is String.prototype.trim: JavaScript's white space and line
// terminators, which differ from unicode.IsSpace in U+FEFF (space in
// JavaScript) and U+0085 (not).
func jsTrim(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Zs, r)
}

// OSC52 returns the escape sequence that asks the terminal to put text on
// the clipboard (OSC 52, clipboard "c", standard base64). Inside tmux the
// sequence is wrapped in tmux's DCS passthrough, with its ESC doubled, so
// that it reaches the outer terminal; tmux needs `allow-passthrough on` for
// that (tmux 3.3 and later), or `set-clipboard on` for its own handling.
func OSC52(text string, tmux bool) string {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
	if tmux {
		return "\x1bPtmux;\x1b" + seq + "\x1b\\"
	}
	return seq
}

// OSC52Limit is the largest text OSC52 should be used for. Terminals drop
// longer sequences silently (hterm and several others stop near 100,000
// base64 bytes, about 74,000 bytes of text), and OSC 52 gives no answer, so a
// longer dump goes to a file instead.
const OSC52Limit = 74994

// OSC52Fits reports whether text is short enough to copy with OSC52.
func OSC52Fits(text string) bool { return len(text) <= OSC52Limit }

// SaveDump writes a dump that cannot go to the clipboard to
// <dir>/xcsh-dump-<time>.md (mode 0600, like session files) and returns its
// path, for /dump to print.
func SaveDump(dir, text string, now time.Time) (string, error) {
	t := now.UTC()
	p := filepath.Join(dir, fmt.Sprintf("xcsh-dump-%s-%03d.md", t.Format("20060102-150405"), t.Nanosecond()/1e6))
	if err := writeFileAtomic(p, func(w *os.File) error {
		_, err := w.WriteString(text)
		return err
	}); err != nil {
		return "", fmt.Errorf("write dump: %w", err)
	}
	return p, nil
}
