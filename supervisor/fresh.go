package supervisor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/xcsh-dev/xcsh/breadcrumb"
)

// freshenCrumbs applies DESIGN.md's breadcrumb freshness rules and returns
// the crumbs that remain, by key:
//
//   - a crumb whose terminal is gone is removed: its generation token names
//     a session leader that no longer runs (on this boot; a crumb from
//     another boot may come from another machine sharing the agent dir, and
//     it is never followed here anyway), or it has no token and its pane
//     just closed;
//   - a crumb whose session file moved (the same session id elsewhere under
//     the sessions dir) follows it;
//   - a crumb whose session file was deleted is removed: the file was seen
//     before, or its directory is gone. A crumb naming a file that was never
//     seen stays: it is a new session that has no reply yet, which
//     `xcsh -c` continues;
//   - a crumb follows its agent when the agent opened another session.
func (e *Engine) freshenCrumbs(closed map[string]string, agentSessions map[string]bool, agents []liveAgent) map[string]breadcrumb.Crumb {
	dir := e.cfg.Paths.TerminalSessions
	crumbs := map[string]breadcrumb.Crumb{}
	rewrites := map[string]breadcrumb.Crumb{}
	known := map[string]bool{}
	boot := bootID()
	_, err := breadcrumb.Prune(dir, func(key string, c breadcrumb.Crumb) bool {
		if c.Token != "" {
			t := parseToken(c.Token)
			if t.parsedOK && (t.boot == "" || t.boot == boot) && !running(t.leader, t.start) {
				return false
			}
		} else if _, ok := closed[key]; ok {
			return false
		}
		path := c.SessionPath()
		switch {
		case fileExists(path):
			known[path] = true
		case agentSessions[path]:
		default:
			if to := e.movedTo(path); to != "" {
				c.SessionFile = to
				rewrites[key] = c
			} else if e.known[path] || !dirExists(filepath.Dir(path)) {
				return false
			}
		}
		crumbs[key] = c
		return true
	})
	e.report(err)
	for key, c := range rewrites {
		e.report(breadcrumb.Write(dir, key, c))
		known[c.SessionPath()] = true
	}
	e.known = known

	// A crumb follows its agent into another session. The live file must be
	// newer than the crumb: an agent that switched writes the crumb first and
	// its live file next, and an older live file must not undo that.
	for _, a := range agents {
		l := a.live
		if l.TerminalKey == "" || l.SessionFile == "" || breadcrumb.CheckKey(l.TerminalKey) != nil {
			continue
		}
		c, ok := crumbs[l.TerminalKey]
		if ok {
			if c.Token != "" && l.TerminalToken != "" && c.Token != l.TerminalToken {
				continue // another terminal's, on the same tty
			}
			if c.SessionPath() == filepath.Clean(l.SessionFile) {
				continue
			}
			if p, err := breadcrumb.Path(dir, l.TerminalKey); err == nil {
				if fi, err := os.Stat(p); err == nil && !l.UpdatedAt.After(fi.ModTime()) {
					continue
				}
			}
		}
		nc := breadcrumb.Crumb{Cwd: l.Cwd, SessionFile: l.SessionFile, Token: l.TerminalToken}
		if nc.Cwd == "" {
			continue
		}
		if err := breadcrumb.Write(dir, l.TerminalKey, nc); err != nil {
			e.report(err)
			continue
		}
		crumbs[l.TerminalKey] = nc
	}
	return crumbs
}

// movedTo finds where a missing session file went: a session with the same
// id (the part of the file name after the last '_') elsewhere under the
// sessions dir. Answers are cached until session files come or go.
func (e *Engine) movedTo(path string) string {
	if g := e.sessionsGen.Load(); e.moved == nil || e.gen != g {
		e.moved, e.gen = map[string]string{}, g
	}
	if to, ok := e.moved[path]; ok {
		return to
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if i := strings.LastIndexByte(id, '_'); i >= 0 {
		id = id[i+1:]
	}
	to := ""
	if id != "" && e.cfg.Paths.Sessions != "" {
		if _, err := os.Stat(e.cfg.Paths.Sessions); !errors.Is(err, fs.ErrNotExist) {
			for _, s := range e.ix.ListAllSessions(e.cfg.Paths.Sessions) {
				if s.ID == id && filepath.Clean(s.Path) != path {
					to = s.Path
					break
				}
			}
		}
	}
	e.moved[path] = to
	return to
}
