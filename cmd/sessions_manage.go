package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/agent"
	"github.com/xcsh-dev/xcsh/session"
)

// sessionPath resolves a path or id prefix to one session file, as --fork does.
func (a *app) sessionPath(v string) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	opt := a.sessionOptions()
	ix := session.OpenIndex(nil, opt.SessionsRoot)
	defer func() { _ = ix.Save() }()
	d, err := session.Resolve(opt, ix, session.Request{Cwd: cwd, Fork: v}, nil)
	if err != nil {
		return "", err
	}
	return d.Path, nil
}

func (a *app) sessionsFork() *cobra.Command {
	var asJSON bool
	var dir string
	c := &cobra.Command{
		Use:   "fork <file|id>",
		Short: "Copy a session into this directory's sessions (or --cwd DIR) as a new session; the terminal's breadcrumb is not touched",
		Args:  exactArgs(1, "a session file or id prefix"),
		RunE: func(_ *cobra.Command, args []string) error {
			src, err := a.sessionPath(args[0])
			if err != nil {
				return err
			}
			if dir == "" {
				dir, _ = os.Getwd()
			}
			m, err := session.ForkFrom(a.sessionOptions(), src, dir, "")
			if err != nil {
				return err
			}
			if err := m.Close(); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.out, map[string]string{"source": src, "sessionFile": m.SessionFile(), "sessionId": m.SessionID()})
			}
			fmt.Fprintf(a.out, "Forked %s to %s\n", src, m.SessionFile())
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&dir, "cwd", "", "the directory the fork belongs to (default: the current one)")
	return c
}

func (a *app) sessionsRm() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "rm <file|id>...",
		Short: "Delete sessions and their artifacts dirs; a session a live agent writes is refused",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &UsageError{Msg: "expected one or more session files or id prefixes"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			var removed []string
			for _, v := range args {
				p, err := a.sessionPath(v)
				if err != nil {
					return err
				}
				lk, err := agent.LockSession(a.paths.Agents, p)
				if err != nil {
					var le *agent.LockedError
					if errors.As(err, &le) {
						return fmt.Errorf("not removed: %w; quit that agent first", err)
					}
					return err
				}
				rmErr := os.Remove(p)
				if rmErr == nil {
					rmErr = os.RemoveAll(strings.TrimSuffix(p, ".jsonl"))
				}
				_ = lk.Unlock()
				if rmErr != nil {
					return fmt.Errorf("remove %s: %w", p, rmErr)
				}
				removed = append(removed, p)
				if !asJSON {
					fmt.Fprintf(a.out, "Removed %s\n", p)
				}
			}
			if asJSON {
				return writeJSON(a.out, map[string][]string{"removed": removed})
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
