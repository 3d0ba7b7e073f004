package session

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Request says which session a command line asks for.
type Request struct {
	// Cwd is the process working directory.
	Cwd string
	// Continue is -c / --continue.
	Continue bool
	// Resume is the value of -r / --resume; ResumeSet without a value asks for the picker.
	Resume    string
	ResumeSet bool
	// Fork is the value of --fork.
	Fork string
	// NoSession is --no-session.
	NoSession bool
	// SessionDir is --session-dir.
	SessionDir string
}

// Actions a Decision can take.
const (
	ActionNew      = "new"       // a new session in Dir
	ActionOpen     = "open"      // open Path
	ActionFork     = "fork"      // forkFrom Path into Dir
	ActionInMemory = "in-memory" // --no-session
	ActionPick     = "pick"      // --resume without a value: show the picker over Candidates
	ActionAskFork  = "ask-fork"  // a match in another project: ask, then fork (or refuse)
)

// Decision is the outcome of resolution: what to open, and why.
type Decision struct {
	Action string
	// Path is the session file to open or fork from.
	Path string
	// Dir is the session dir a new or forked session goes to.
	Dir string
	// Rule explains which rule chose the session, for --explain.
	Rule string
	// OtherCwd is the cwd of a session found in another project.
	OtherCwd string
	// Candidates are the sessions a picker offers.
	Candidates []SessionInfo
}

// ErrUsage marks a request that combines flags that cannot go together.
var ErrUsage = errors.New("usage")

// NotFoundSessionError is `Session "<v>" not found.`
type NotFoundSessionError struct{ Value string }

func (e *NotFoundSessionError) Error() string { return fmt.Sprintf("Session %q not found.", e.Value) }

// OtherProjectError is `Session "<v>" is in another project (<cwd>).`
type OtherProjectError struct{ Value, Cwd string }

func (e *OtherProjectError) Error() string {
	return fmt.Sprintf("Session %q is in another project (%s).", e.Value, e.Cwd)
}

// AmbiguousError lists the sessions an id prefix matches.
type AmbiguousError struct {
	Value   string
	Matches []SessionInfo
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %q matches %d sessions; give more of the id:", e.Value, len(e.Matches))
	for _, m := range e.Matches {
		fmt.Fprintf(&b, "\n  %s  %s  %s", m.ID, m.Cwd, oneLineName(m))
	}
	return b.String()
}

func oneLineName(s SessionInfo) string {
	if s.Title != nil && *s.Title != "" {
		return SanitizeName(*s.Title)
	}
	return shortName(SanitizeName(s.FirstMessage))
}

// CrumbLookup returns the session file this terminal's breadcrumb names for
// cwd, with a reason; path is "" when there is no usable crumb.
type CrumbLookup func(cwd string) (path, reason string)

// IsPathLike reports whether a --resume or --fork value names a file.
func IsPathLike(v string) bool {
	return strings.ContainsAny(v, "/\\") || strings.HasSuffix(v, ".jsonl")
}

// Resolve decides which session a request opens, exactly as the reference's
// start-up does, with our fixes: ambiguous prefixes are an error, --no-session
// with -c or -r is a usage error, and explicit paths are resolved against Cwd.
func Resolve(opt Options, ix *Index, req Request, crumb CrumbLookup) (Decision, error) {
	opt.fill()
	if ix == nil {
		ix = OpenIndex(opt.Storage, opt.SessionsRoot)
	}
	dir := req.SessionDir
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(req.Cwd, dir)
	}
	sessionDir := func() string {
		if dir != "" {
			return dir
		}
		return opt.SessionDir(req.Cwd)
	}
	if req.NoSession {
		switch {
		case req.Fork != "":
			return Decision{}, fmt.Errorf("--fork requires session persistence: %w", ErrUsage)
		case req.Continue:
			return Decision{}, fmt.Errorf("--no-session cannot be combined with --continue: %w", ErrUsage)
		case req.ResumeSet:
			return Decision{}, fmt.Errorf("--no-session cannot be combined with --resume: %w", ErrUsage)
		}
		return Decision{Action: ActionInMemory, Rule: "--no-session: kept in memory, nothing written"}, nil
	}
	if req.Fork != "" {
		if IsPathLike(req.Fork) {
			p := absFrom(req.Cwd, req.Fork)
			if err := Probe(opt.Storage, p); err != nil {
				return Decision{}, err
			}
			return Decision{Action: ActionFork, Path: p, Dir: sessionDir(), Rule: "--fork " + req.Fork + ": the path given"}, nil
		}
		m, _, err := matchID(opt, ix, req.Fork, req.Cwd, dir)
		if err != nil {
			return Decision{}, err
		}
		return Decision{Action: ActionFork, Path: m.Path, Dir: sessionDir(), Rule: fmt.Sprintf("--fork %s: session %s", req.Fork, m.ID)}, nil
	}
	if req.ResumeSet && req.Resume == "" {
		d := sessionDir()
		return Decision{Action: ActionPick, Dir: d, Candidates: ix.ListSessions(d), Rule: "--resume without a value: pick a session"}, nil
	}
	if req.ResumeSet {
		v := req.Resume
		if IsPathLike(v) {
			p := absFrom(req.Cwd, v)
			if err := Probe(opt.Storage, p); err != nil && !IsNotExist(err) {
				return Decision{}, err
			}
			return Decision{Action: ActionOpen, Path: p, Dir: dirOr(dir, filepath.Dir(p)), Rule: "--resume " + v + ": the path given (created when missing)"}, nil
		}
		m, global, err := matchID(opt, ix, v, req.Cwd, dir)
		if err != nil {
			return Decision{}, err
		}
		if global && realpath(req.Cwd) != realpath(orDefault(m.Cwd, req.Cwd)) {
			return Decision{Action: ActionAskFork, Path: m.Path, Dir: sessionDir(), OtherCwd: m.Cwd,
				Rule: fmt.Sprintf("--resume %s: session %s found in another project (%s)", v, m.ID, m.Cwd)}, nil
		}
		scope := "this directory's sessions"
		if global {
			scope = "all sessions"
		}
		return Decision{Action: ActionOpen, Path: m.Path, Dir: dirOr(dir, filepath.Dir(m.Path)), Rule: fmt.Sprintf("--resume %s: id prefix matched session %s in %s", v, m.ID, scope)}, nil
	}
	if req.Continue {
		d := sessionDir()
		why := "no breadcrumb for this terminal"
		if crumb != nil {
			p, reason := crumb(req.Cwd)
			if p != "" {
				return Decision{Action: ActionOpen, Path: p, Dir: dirOr(dir, filepath.Dir(p)), Rule: reason}, nil
			}
			if reason != "" {
				why = reason
			}
		}
		if r := ix.RecentSessions(d, 1); len(r) > 0 {
			return Decision{Action: ActionOpen, Path: r[0].Path, Dir: d, Rule: why + "; the newest session in " + d}, nil
		}
		return Decision{Action: ActionNew, Dir: d, Rule: why + "; no session in " + d + ": a new session"}, nil
	}
	return Decision{Action: ActionNew, Dir: sessionDir(), Rule: "no session flag: a new session"}, nil
}

func dirOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func orDefault(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

func absFrom(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// matchID finds the one session whose id, file name, or file name part after
// the last '_' starts with v (case-insensitive): first in this directory's
// sessions, then, unless a session dir was given, everywhere.
func matchID(opt Options, ix *Index, v, cwd, dir string) (SessionInfo, bool, error) {
	local := dir
	if local == "" {
		local = opt.SessionDir(cwd)
	}
	if ms := matches(ix.ListSessions(local), v); len(ms) == 1 {
		return ms[0], false, nil
	} else if len(ms) > 1 {
		return SessionInfo{}, false, &AmbiguousError{Value: v, Matches: ms}
	}
	if dir == "" {
		if ms := matches(ix.ListAllSessions(opt.SessionsRoot), v); len(ms) == 1 {
			return ms[0], true, nil
		} else if len(ms) > 1 {
			return SessionInfo{}, false, &AmbiguousError{Value: v, Matches: ms}
		}
	}
	return SessionInfo{}, false, &NotFoundSessionError{Value: v}
}

func matches(list []SessionInfo, v string) []SessionInfo {
	lv := strings.ToLower(v)
	var out []SessionInfo
	for _, s := range list {
		base := strings.ToLower(strings.TrimSuffix(filepath.Base(s.Path), ".jsonl"))
		tail := base
		if i := strings.LastIndex(base, "_"); i >= 0 {
			tail = base[i+1:]
		}
		if strings.ToLower(s.ID) == lv || base == lv || tail == lv {
			return []SessionInfo{s} // an exact id wins over prefixes
		}
		if strings.HasPrefix(strings.ToLower(s.ID), lv) || strings.HasPrefix(base, lv) || strings.HasPrefix(tail, lv) {
			out = append(out, s)
		}
	}
	return out
}
