package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/xcsh-dev/xcsh/supervisor"
)

// targetKind is what the target list is for.
type targetKind int

const (
	targetResume targetKind = iota
	targetFork
	targetNew
)

// targetList offers where to start an agent: the selected pane when it is
// an idle shell, a new split beside the selected pane (below or side by
// side), a new window in its tmux session, or any idle shell pane.
type targetList struct {
	title  string
	items  []targetItem
	cursor int
}

type targetItem struct {
	label string
	spec  supervisor.LaunchSpec
}

// idleShell reports whether a pane is a shell at its prompt with no agent.
func idleShell(p *supervisor.Pane) bool {
	return p.Agent == 0 && p.Foreground == supervisor.FgShell
}

// openTarget opens the target list for a resume, a fork or a new agent from
// the selected row.
func (d *Dash) openTarget(kind targetKind) tea.Cmd {
	r := d.selected()
	var path, name, cwd, ref string
	var rowPane *supervisor.Pane
	if r != nil {
		path, name, cwd, ref, rowPane = r.sessionPath, r.title, r.cwd, d.rowPane(r), r.pane
	}
	if name == "" {
		name = "the session"
	} else {
		name = "“" + name + "”"
	}
	base := supervisor.LaunchSpec{KeepShell: true}
	var title string
	switch kind {
	case targetResume, targetFork:
		verb := map[targetKind]string{targetResume: "resume", targetFork: "fork"}[kind]
		if path == "" {
			d.setStatus("no session to "+verb+" here", true)
			return nil
		}
		exists := r.info != nil || (r.pane != nil && r.pane.Session != nil && r.pane.Session.Exists) || r.agent != nil
		if !exists {
			d.setStatus("the session has no messages yet: nothing to "+verb, true)
			return nil
		}
		if kind == targetResume {
			if a := d.liveAgentOf(path); a != nil {
				where := "outside tmux"
				if a.Pane != "" {
					where = "in " + a.Pane + ": enter jumps there"
				}
				d.setStatus(fmt.Sprintf("%s is live %s, f forks it", name, where), true)
				return nil
			}
			base.Resume = path
			title = "Resume " + name + " into:"
		} else {
			base.Fork = path
			title = "Fork " + name + " into:"
		}
	default:
		where := shortPath(cwd, d.opt.Home)
		if where == "" {
			title = "Launch a new agent into:"
		} else {
			title = "Launch a new agent in " + where + " into:"
		}
	}
	// New panes start in the row's directory: a resume in the session's own
	// (the supervisor finds it), a fork or a new agent in the row's.
	newCwd := cwd
	if kind == targetResume {
		newCwd = ""
	}
	t := &targetList{title: title}
	add := func(label string, s supervisor.LaunchSpec) {
		spec := base
		spec.Kind, spec.Target, spec.Horizontal, spec.Into = s.Kind, s.Target, s.Horizontal, s.Into
		if !s.Into {
			spec.Cwd = newCwd
		}
		t.items = append(t.items, targetItem{label: label, spec: spec})
	}
	if rowPane != nil && rowPane.ID != d.opt.SelfPane && idleShell(rowPane) {
		add("this pane "+rowPane.ID+" (an idle shell)", supervisor.LaunchSpec{Into: true, Target: rowPane.ID})
	}
	if ref == "" {
		ref = d.opt.SelfPane
	}
	refSession, refSessionName := "", ""
	if p, ok := d.snap.PaneByID(ref); ok {
		refSession, refSessionName = p.MuxSession, p.MuxSessionName
	}
	if ref != "" {
		add("new split below "+ref, supervisor.LaunchSpec{Kind: "split", Target: ref})
		add("new split beside "+ref, supervisor.LaunchSpec{Kind: "split", Target: ref, Horizontal: true})
	} else {
		add("new split of the current pane", supervisor.LaunchSpec{Kind: "split"})
	}
	if refSession != "" {
		add("new window in session "+refSessionName, supervisor.LaunchSpec{Kind: "window", Target: refSession})
	} else {
		add("new window", supervisor.LaunchSpec{Kind: "window"})
	}
	for i := range d.snap.Panes {
		p := &d.snap.Panes[i]
		if !idleShell(p) || p.ID == d.opt.SelfPane || (rowPane != nil && p.ID == rowPane.ID) {
			continue
		}
		add(fmt.Sprintf("idle shell %s  %s:%d  %s", p.ID, p.MuxSessionName, p.WindowIndex, shortPath(p.Cwd, d.opt.Home)),
			supervisor.LaunchSpec{Into: true, Target: p.ID})
	}
	d.target = t
	d.mode = dashTarget
	return nil
}

func (d *Dash) targetKey(k tea.KeyMsg) tea.Cmd {
	t := d.target
	switch {
	case k.String() == "ctrl+c":
		return d.quit()
	case key.Matches(k, d.keys.Cancel), k.String() == "q":
		d.mode, d.target = dashList, nil
	case key.Matches(k, d.keys.Up):
		t.cursor = max(0, t.cursor-1)
	case key.Matches(k, d.keys.Down):
		t.cursor = min(len(t.items)-1, t.cursor+1)
	case key.Matches(k, d.keys.Choose):
		it := t.items[t.cursor]
		d.mode, d.target = dashList, nil
		d.setStatus("starting: "+it.label+"…", false)
		return d.do(DashIntent{Kind: IntentLaunch, Launch: it.spec})
	}
	return nil
}
