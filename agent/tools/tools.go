package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/xcsh-dev/xcsh/agent/provider"
	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

// Names of the built-in tools.
const (
	NameRead  = "read"
	NameWrite = "write"
	NameEdit  = "edit"
	NameBash  = "bash"
)

// Defaults of Options.
const (
	DefaultBashTimeout    = 300 * time.Second
	DefaultMaxOutputBytes = 50 * 1024
	DefaultMaxLines       = 3000
	// DefaultReadLines is how many lines read shows when the model gives no limit.
	DefaultReadLines = 300
)

// Env is what a tool run may use.
type Env struct {
	// Cwd is the directory relative paths resolve against ("" means the
	// process's working directory).
	Cwd string
	// ArtifactsDir is the session's artifacts dir (<session file without
	// .jsonl>); "" when the session is in memory (then no log files).
	ArtifactsDir string
	// Approve, when non-nil, is asked before a tool that needs approval runs
	// (bash when approval is on); false refuses. Tool.Run asks it itself, so
	// callers must not ask again.
	Approve func(ctx context.Context, tool string, args json.RawMessage) (bool, error)
}

// Result is what goes back to the model.
type Result struct {
	// Content is text, plus an image block for read of an image.
	Content []provider.Block
	// Details is tool-specific JSON for the session and the UI; nil when
	// there is nothing to report.
	Details json.RawMessage
	IsError bool
}

// Text returns the text blocks of the result joined by newlines.
func (r Result) Text() string {
	var parts []string
	for _, b := range r.Content {
		if b.Type == provider.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Tool is one built-in tool.
type Tool interface {
	// Spec is the name, description and JSON schema sent to the model.
	Spec() provider.Tool
	// NeedsApproval reports whether Run asks Env.Approve before doing anything.
	NeedsApproval() bool
	// Run executes one call. It never panics and never returns a Go error:
	// failures are Results with IsError set. update, when non-nil, receives
	// partial output (bash only); it is called from Run's goroutine and never
	// after Run returns.
	Run(ctx context.Context, env Env, args json.RawMessage, update func(partial string)) Result
}

// Options configure the built-in tools; zero fields take the defaults.
type Options struct {
	// BashTimeout is bash's timeout when the model gives none (default 300 s).
	BashTimeout time.Duration
	// MaxOutputBytes caps the text one result carries (default 50 KiB).
	MaxOutputBytes int
	// MaxLines caps the lines one result carries (default 3000).
	MaxLines int
	// BashApprove makes bash ask Env.Approve before running a command
	// (tools.bash.approve = "ask").
	BashApprove bool
}

func (o Options) withDefaults() Options {
	if o.BashTimeout <= 0 {
		o.BashTimeout = DefaultBashTimeout
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	return o
}

// Builtin returns read, write, edit and bash, in that order.
func Builtin(o Options) []Tool {
	o = o.withDefaults()
	return []Tool{&readTool{o: o}, &writeTool{}, &editTool{}, &bashTool{o: o, killGrace: defaultKillGrace}}
}

// ByName returns the tool called name, or nil.
func ByName(ts []Tool, name string) Tool {
	for _, t := range ts {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

// Specs returns the schemas of ts for a provider request.
func Specs(ts []Tool) []provider.Tool {
	out := make([]provider.Tool, len(ts))
	for i, t := range ts {
		out[i] = t.Spec()
	}
	return out
}

// textResult is a successful result holding one text block.
func textResult(text string, details json.RawMessage) Result {
	return Result{Content: []provider.Block{{Type: provider.BlockText, Text: text}}, Details: details}
}

// errorf is an error result whose text is the formatted message.
func errorf(format string, a ...any) Result {
	return Result{Content: []provider.Block{{Type: provider.BlockText, Text: fmt.Sprintf(format, a...)}}, IsError: true}
}

// recoverResult turns a panic in a tool into an error result, so one bad
// call cannot take the agent down.
func recoverResult(tool string, res *Result) {
	if v := recover(); v != nil {
		*res = errorf("internal error in the %s tool: %v", tool, v)
		res.Details = mustJSON(map[string]string{"stack": string(debug.Stack())})
	}
}

// mustJSON marshals details; the values are built here, so failure is a bug.
func mustJSON(v any) json.RawMessage {
	b, err := jsjson.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshal details: %v", err))
	}
	return b
}

// resolvePath makes p absolute: "~" and "~/x" expand to the home directory,
// relative paths resolve against cwd.
func resolvePath(cwd, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// schema builds a JSON-schema object from properties (name, then a schema
// object as JSON) and the required names. The order of props is kept.
func schema(required []string, props ...string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i+1 < len(props); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsjson.AppendString(nil, props[i]))
		b.WriteByte(':')
		b.WriteString(props[i+1])
	}
	b.WriteString(`},"required":[`)
	for i, r := range required {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsjson.AppendString(nil, r))
	}
	b.WriteString(`],"additionalProperties":false}`)
	return json.RawMessage(b.String())
}

// prop is one property schema: a type and a description.
func prop(typ, desc string) string {
	return `{"type":` + string(jsjson.AppendString(nil, typ)) + `,"description":` + string(jsjson.AppendString(nil, desc)) + `}`
}
