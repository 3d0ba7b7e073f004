package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/xcsh-dev/xcsh/session"
)

// recentJSON is one row of `xcsh sessions recent --json`.
type recentJSON struct {
	Path     string `json:"path"`
	Mtime    string `json:"mtime"`
	FullName string `json:"fullName"`
	Name     string `json:"name"`
	TimeAgo  string `json:"timeAgo"`
}

func (a *app) listDir(c *cobra.Command) (string, error) {
	opt := a.sessionOptions()
	if d, _ := c.Flags().GetString("session-dir"); d != "" {
		return filepath.Abs(d)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	return opt.SessionDir(cwd), nil
}

func (a *app) sessionsList() *cobra.Command {
	var asJSON, all bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List this directory's sessions (--all: every session), newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			opt := a.sessionOptions()
			ix := session.OpenIndex(nil, opt.SessionsRoot)
			defer func() { _ = ix.Save() }()
			var list []session.SessionInfo
			if all {
				list = ix.ListAllSessions(opt.SessionsRoot)
			} else {
				dir, err := a.listDir(c)
				if err != nil {
					return err
				}
				list = ix.ListSessions(dir)
			}
			if asJSON {
				if list == nil {
					list = []session.SessionInfo{}
				}
				return writeJSON(a.out, list)
			}
			now := time.Now()
			for _, s := range list {
				name := s.FirstMessage
				if s.Title != nil && *s.Title != "" {
					name = *s.Title
				}
				fmt.Fprintf(a.out, "%s  %-12s %4d msgs  %s  %s\n", s.ID, session.TimeAgo(now, s.Modified), s.MessageCount, oneLine(session.SanitizeName(name), 50), s.Cwd)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.out, "No sessions found")
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON (the reference's SessionInfo fields)")
	c.Flags().BoolVar(&all, "all", false, "every session of every directory")
	c.Flags().String("session-dir", "", "list this session dir instead of the current directory's")
	return c
}

func (a *app) sessionsRecent() *cobra.Command {
	var asJSON bool
	var limit int
	c := &cobra.Command{
		Use:   "recent",
		Short: "The recent list of this directory: names from the first 4 KB of each file",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			dir, err := a.listDir(c)
			if err != nil {
				return err
			}
			opt := a.sessionOptions()
			ix := session.OpenIndex(nil, opt.SessionsRoot)
			defer func() { _ = ix.Save() }()
			now := time.Now()
			rows := []recentJSON{}
			for _, r := range ix.RecentSessions(dir, limit) {
				rows = append(rows, recentJSON{r.Path, session.ISOTime(r.Mtime), r.FullName, r.Name, session.TimeAgo(now, r.Mtime)})
			}
			if asJSON {
				return writeJSON(a.out, rows)
			}
			for _, r := range rows {
				fmt.Fprintf(a.out, "%-40s  %-10s  %s\n", r.Name, r.TimeAgo, r.Path)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().IntVar(&limit, "limit", 10, "at most this many sessions (0: all)")
	c.Flags().String("session-dir", "", "use this session dir instead of the current directory's")
	return c
}
