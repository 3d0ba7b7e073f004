package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/xcsh-dev/xcsh/breadcrumb"
	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/terminal"
)

func (a *app) addOpenFlags(c *cobra.Command) {
	f := c.Flags()
	f.BoolP("continue", "c", false, "this terminal's last session, else the newest in this directory, else a new one")
	f.StringP("resume", "r", "", "resume a session by id prefix or path (a picker without a value)")
	f.Lookup("resume").NoOptDefVal = " "
	f.String("fork", "", "fork a session (id prefix or path) into this directory and continue it")
	f.Bool("no-session", false, "keep the session in memory only")
	f.String("session-dir", "", "directory for session files")
	f.Bool("explain", false, "with -c, -r or --fork: print which session would be opened and why; open nothing")
}

// request builds the resolution request from the flags. A bare -r takes the
// next argument as its value when it does not start with '-', as xcsh does.
func (a *app) request(c *cobra.Command, args []string) (session.Request, []string, error) {
	f := c.Flags()
	cwd, err := os.Getwd()
	if err != nil {
		return session.Request{}, nil, fmt.Errorf("current directory: %w", err)
	}
	req := session.Request{Cwd: cwd}
	req.Continue, _ = f.GetBool("continue")
	req.NoSession, _ = f.GetBool("no-session")
	req.Fork, _ = f.GetString("fork")
	req.SessionDir, _ = f.GetString("session-dir")
	if f.Changed("resume") {
		req.ResumeSet = true
		v, _ := f.GetString("resume")
		v = strings.TrimSpace(v)
		if v == "" && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			v, args = args[0], args[1:]
		}
		req.Resume = v
	}
	return req, args, nil
}

// terminalContext is this process's terminal and its breadcrumb dir.
type terminalContext struct {
	id  terminal.Identity
	dir string
}

func (a *app) terminal() terminalContext {
	id, _ := terminal.Detect(nil)
	return terminalContext{id: id, dir: a.paths.TerminalSessions}
}

// crumbLookup follows this terminal's breadcrumb when it is valid here.
func (tc terminalContext) crumbLookup(cwd string) (string, string) {
	if tc.id.Key == "" {
		return "", "no terminal id (no tty and no terminal variables)"
	}
	c, err := breadcrumb.Read(tc.dir, tc.id.Key)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", "no breadcrumb for terminal " + tc.id.Key
		}
		return "", fmt.Sprintf("breadcrumb %s unreadable (%v)", tc.id.Key, err)
	}
	p := c.SessionPath()
	if _, err := os.Stat(p); os.IsNotExist(err) && c.Token != "" && c.Token == tc.id.Token && sameDir(c.Cwd, cwd) {
		// this terminal's agent started a new session and left before its first reply
		return p, fmt.Sprintf("breadcrumb %s names a new session that has no messages yet (%s)", tc.id.Key, p)
	}
	ok, why := breadcrumb.Validate(c, cwd, tc.id.Token, func(p string) bool { return session.Probe(nil, p) == nil })
	if !ok {
		return "", fmt.Sprintf("breadcrumb %s not followed: %s", tc.id.Key, why)
	}
	return p, fmt.Sprintf("breadcrumb of terminal %s (%s)", tc.id.Key, tc.id.Rule)
}

// absFrom makes p absolute against cwd.
func absFrom(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// writeCrumb points this terminal's breadcrumb at a session file.
func (tc terminalContext) writeCrumb(cwd, file string) error {
	if tc.id.Key == "" || file == "" {
		return nil
	}
	return breadcrumb.Write(tc.dir, tc.id.Key, breadcrumb.Crumb{Cwd: cwd, SessionFile: file, Token: tc.id.Token})
}

func (a *app) runRoot(c *cobra.Command, args []string) error {
	req, args, err := a.request(c, args)
	if err != nil {
		return err
	}
	explain, _ := c.Flags().GetBool("explain")
	if pm, _ := c.Flags().GetBool("print"); pm && !explain {
		return a.runPrint(c, req, args)
	}
	if !explain && isTerminal(a.in) && isTerminal(a.out) {
		return a.runChat(c, req, args)
	}
	if !req.Continue && !req.ResumeSet && req.Fork == "" && !req.NoSession && req.SessionDir == "" && !explain && len(args) == 0 {
		return c.Help()
	}
	if explain {
		tc := a.terminal()
		d, err := a.resolve(req, tc)
		if err != nil {
			return err
		}
		a.printExplain(d, tc)
		return nil
	}
	// Off a terminal (stdin or stdout redirected) and without -p, opening a
	// session ends here: the session is closed again and described.
	m, err := a.openSession(req)
	if err != nil || m == nil {
		return err
	}
	if err := m.Close(); err != nil {
		return err
	}
	return a.show(m, false, false)
}

// resolve decides which session req opens in the terminal tc.
func (a *app) resolve(req session.Request, tc terminalContext) (session.Decision, error) {
	opt := a.sessionOptions()
	ix := session.OpenIndex(nil, opt.SessionsRoot)
	defer func() { _ = ix.Save() }()
	d, err := session.Resolve(opt, ix, req, tc.crumbLookup)
	if err != nil {
		if errors.Is(err, session.ErrUsage) {
			return d, &UsageError{Msg: strings.TrimSuffix(err.Error(), ": usage")}
		}
		return d, err
	}
	return d, nil
}

// openSession resolves req and opens the session it names in this terminal:
// migrated, with this terminal's breadcrumb pointing at it. It is the one path
// through which xcsh opens a session, whatever asks for it (the command line
// today, the agent runtime and /resume later). The manager is nil when nothing
// was opened (the picker was cancelled, or there was nothing to pick); the
// caller closes it.
func (a *app) openSession(req session.Request) (*session.Manager, error) {
	tc := a.terminal()
	d, err := a.resolve(req, tc)
	pickLabel := "" // the picker's first list: this directory's sessions
	var amb *session.AmbiguousError
	if errors.As(err, &amb) && isTerminal(a.in) {
		// An ambiguous id prefix is never settled by taking the first match:
		// off a terminal it fails with the list, on one the user picks.
		d, err = session.Decision{Action: session.ActionPick, Candidates: amb.Matches}, nil
		pickLabel = fmt.Sprintf("sessions matching %q", amb.Value)
		if req.SessionDir != "" {
			d.Dir = absFrom(req.Cwd, req.SessionDir)
		}
	}
	if err != nil {
		return nil, err
	}
	return a.execute(d, req, tc, a.sessionOptions(), pickLabel)
}

func (a *app) printExplain(d session.Decision, tc terminalContext) {
	fmt.Fprintf(a.out, "action:   %s\n", d.Action)
	if d.Path != "" {
		fmt.Fprintf(a.out, "session:  %s\n", d.Path)
	}
	if d.Dir != "" {
		fmt.Fprintf(a.out, "dir:      %s\n", d.Dir)
	}
	fmt.Fprintf(a.out, "rule:     %s\n", d.Rule)
	key := tc.id.Key
	if key == "" {
		key = "(none)"
	}
	fmt.Fprintf(a.out, "terminal: %s (%s)\n", key, tc.id.Rule)
}

// execute carries out a decision (see openSession); pickLabel titles the
// picker's first list.
func (a *app) execute(d session.Decision, req session.Request, tc terminalContext, opt session.Options, pickLabel string) (*session.Manager, error) {
	var crumbErr error
	opt.OnSessionFile = func(cwd, file string) {
		if err := tc.writeCrumb(cwd, file); err != nil && crumbErr == nil {
			crumbErr = err
		}
	}
	var m *session.Manager
	var err error
	switch d.Action {
	case session.ActionInMemory:
		m = session.InMemory(opt, req.Cwd)
	case session.ActionNew:
		m = session.Create(opt, req.Cwd, d.Dir)
	case session.ActionOpen:
		cwd := ""
		if req.Continue {
			cwd = req.Cwd // as continueRecent: the session continues here, and the crumb says so
		}
		m, err = session.OpenIn(opt, d.Path, d.Dir, cwd)
	case session.ActionFork:
		m, err = session.ForkFrom(opt, d.Path, req.Cwd, d.Dir)
	case session.ActionAskFork:
		if !isTerminal(a.in) {
			return nil, &session.OtherProjectError{Value: req.Resume, Cwd: d.OtherCwd}
		}
		fmt.Fprintf(a.out, "Session found in different project: %s. Fork into current directory? [y/N] ", d.OtherCwd)
		line, _ := bufio.NewReader(a.in).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			return nil, &session.OtherProjectError{Value: req.Resume, Cwd: d.OtherCwd}
		}
		m, err = session.ForkFrom(opt, d.Path, req.Cwd, d.Dir)
	case session.ActionPick:
		path, perr := a.pick(d, opt, pickLabel)
		if perr != nil || path == "" {
			return nil, perr
		}
		if req.Fork != "" {
			// an ambiguous --fork prefix, settled in the picker
			m, err = session.ForkFrom(opt, path, req.Cwd, d.Dir)
		} else {
			m, err = session.Open(opt, path, "")
		}
	default:
		return nil, fmt.Errorf("unknown resolution %q", d.Action)
	}
	if err != nil {
		return nil, err
	}
	if crumbErr != nil {
		fmt.Fprintf(a.err, "warning: breadcrumb for terminal %s not written: %v\n", tc.id.Key, crumbErr)
	}
	return m, nil
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
