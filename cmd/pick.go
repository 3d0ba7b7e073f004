package cmd

import (
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/xcsh-dev/xcsh/session"
	"github.com/xcsh-dev/xcsh/ui"
)

// pick runs the session picker over d.Candidates (titled label, "" for this
// directory): for --resume without a value, and on a terminal for an
// ambiguous id prefix. It returns "" when nothing was picked (after saying
// so).
func (a *app) pick(d session.Decision, opt session.Options, label string) (string, error) {
	ix := session.OpenIndex(nil, opt.SessionsRoot)
	all := func() []session.SessionInfo { return ix.ListAllSessions(opt.SessionsRoot) }
	if len(d.Candidates) == 0 && len(all()) == 0 {
		fmt.Fprintln(a.out, "No sessions found")
		return "", nil
	}
	if !isTerminal(a.in) {
		return "", &UsageError{Msg: "--resume without a value opens a picker and needs a terminal; give an id prefix or a path (see `xcsh sessions list`)"}
	}
	p := ui.NewPicker(ui.PickerOptions{Local: d.Candidates, LocalLabel: label, LoadAll: all, Home: os.Getenv("HOME")})
	// The picker draws on stderr, so that stdout stays clean for what is
	// opened; on stdout only when stderr is not the terminal.
	var screen io.Writer = a.err
	if !isTerminal(a.err) && isTerminal(a.out) {
		screen = a.out
	}
	prog := tea.NewProgram(p, tea.WithInput(a.in), tea.WithOutput(screen), tea.WithAltScreen())
	if _, err := prog.Run(); err != nil {
		return "", fmt.Errorf("session picker: %w", err)
	}
	_ = ix.Save()
	outcome, path := p.Result()
	switch outcome {
	case ui.PickerSelected:
		return path, nil
	case ui.PickerInterrupted:
		return "", nil
	}
	fmt.Fprintln(a.out, "No session selected")
	return "", nil
}
