package ui

import "github.com/charmbracelet/bubbles/key"

// dashKeyMap is every key of the dashboard, in one place: Update matches
// against it and the help screen and the footer are drawn from it.
type dashKeyMap struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding

	Jump, Waiting, Resume, Fork, New, Close key.Binding

	Filter, View, Group, Sort, Preview, Help, Quit key.Binding

	// In the target list, the close confirmation and the filter line.
	Choose, Cancel, Yes, No key.Binding
}

func newDashKeyMap() dashKeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return dashKeyMap{
		Up:       b("↑/k", "move up", "up", "k", "ctrl+p"),
		Down:     b("↓/j", "move down", "down", "j", "ctrl+n"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown"),
		Home:     b("home", "first row", "home"),
		End:      b("end", "last row", "end"),

		Jump:    b("enter", "jump to the pane (a past session: resume it)", "enter"),
		Waiting: b("w", "jump to the agent waiting longest", "w"),
		Resume:  b("r", "resume the session into a split, a window or an idle shell", "r"),
		Fork:    b("f", "fork the session into a split, a window or an idle shell", "f"),
		New:     b("n", "launch a new agent", "n"),
		Close:   b("x", "close the agent (asks first)", "x"),

		Filter:  b("/", "filter by title, directory and message text", "/"),
		View:    b("tab", "live terminals / all sessions", "tab", "shift+tab"),
		Group:   b("g", "group by tmux window / by project", "g"),
		Sort:    b("s", "sort by state, activity or name", "s"),
		Preview: b("p", "show or hide the preview", "p"),
		Help:    b("?", "show or hide this help", "?"),
		Quit:    b("q", "quit", "q", "ctrl+c"),

		Choose: b("enter", "choose", "enter"),
		Cancel: b("esc", "cancel", "esc"),
		Yes:    b("y", "yes", "y", "Y"),
		No:     b("n", "no", "n", "N", "esc"),
	}
}

// helpGroups are the keys the help screen lists, by topic.
func (k dashKeyMap) helpGroups() []struct {
	title string
	keys  []key.Binding
} {
	return []struct {
		title string
		keys  []key.Binding
	}{
		{"Move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}},
		{"Act", []key.Binding{k.Jump, k.Waiting, k.Resume, k.Fork, k.New, k.Close}},
		{"Show", []key.Binding{k.Filter, k.View, k.Group, k.Sort, k.Preview, k.Help, k.Quit}},
	}
}
