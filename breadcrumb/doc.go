// Package breadcrumb reads, writes, validates and prunes terminal breadcrumbs.
//
// A breadcrumb is a small file <agent>/terminal-sessions/<terminal key> that
// names the last session used in one terminal, so that `xcsh --continue`
// resumes exactly that terminal's session. Its content is
//
//	<cwd>\n<session file>\n[<generation token>\n]
//
// The TypeScript xcsh writes the first two lines only and ignores any further
// line; this package reads both forms. The third line is the terminal's
// generation token (see package terminal): the kernel hands a closed pane's
// /dev/pts/N to the next new pane at once, so a crumb whose token differs from
// the terminal's current token belongs to a terminal that no longer exists.
//
// Every function takes the terminal-sessions directory from the caller and
// never touches a path outside it.
package breadcrumb
