package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/xcsh-dev/xcsh/session"
)

// ErrForkWhileBusy is the reference's refusal of /fork during a turn.
var ErrForkWhileBusy = errors.New("Wait for the current response to finish or abort it before forking.") //nolint:staticcheck // the reference's text

// stop aborts a running turn, clears the queue and flushes the session.
func (a *Agent) stop() error {
	a.mu.Lock()
	done, busy := a.done, a.busy
	a.mu.Unlock()
	a.Abort()
	if busy && done != nil {
		// the turn ends as soon as its provider call and tools see the abort
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			return errors.New("the running turn did not stop within 10 s")
		}
	}
	return a.sm.Flush()
}

// SwitchSession switches to the session file at path (/resume), with every
// step of seed 001: a cancellable session_before_switch, abort, clear queues,
// flush, open the file, rebuild the context, session_switch, restore model and
// thinking level. It reports false when a hook cancelled the switch; on any
// error the agent stays on its session.
func (a *Agent) SwitchSession(path string) (bool, error) {
	if err := a.bus.Emit(ev(EvSessionBeforeSwitch, "reason", "resume", "targetSessionFile", path)); err != nil {
		return false, nil
	}
	if err := a.stop(); err != nil {
		return false, err
	}
	prev := a.sm.SessionFile()
	abs, _ := filepath.Abs(path)
	if err := session.Probe(nil, abs); err != nil {
		return false, err
	}
	var lk *SessionLock
	if a.cfg.AgentsDir != "" {
		var err error
		if lk, err = LockSession(a.cfg.AgentsDir, abs); err != nil {
			return false, err
		}
	}
	if err := a.sm.SetSessionFile(abs); err != nil {
		_ = lk.Unlock()
		if prev != "" {
			_ = a.sm.SetSessionFile(prev) // roll back
		}
		return false, err
	}
	if lk != nil {
		_ = a.lk.Unlock()
		a.lk = lk
	}
	a.restoreSettings()
	_ = a.bus.Emit(ev(EvSessionSwitch, "reason", "resume", "previousSessionFile", prev))
	a.setState("")
	return true, nil
}

// NewSession starts a new session in the same directory (/new). It reports
// false when a hook cancelled it.
func (a *Agent) NewSession() (bool, error) {
	if err := a.bus.Emit(ev(EvSessionBeforeSwitch, "reason", "new")); err != nil {
		return false, nil
	}
	if err := a.stop(); err != nil {
		return false, err
	}
	prev := a.sm.SessionFile()
	a.sm.NewSession(nil)
	if err := a.relock(); err != nil {
		return false, err
	}
	if a.thinking != "" {
		raw, _ := json.Marshal(a.thinking)
		_, _ = a.sm.AppendThinkingLevelChange(raw)
	}
	_ = a.bus.Emit(ev(EvSessionSwitch, "reason", "new", "previousSessionFile", prev))
	a.setState("")
	return true, nil
}

// relock moves the session lock to the manager's current file.
func (a *Agent) relock() error {
	if a.cfg.AgentsDir == "" || !a.sm.IsPersisted() || a.sm.SessionFile() == "" {
		return nil
	}
	lk, err := LockSession(a.cfg.AgentsDir, a.sm.SessionFile())
	if err != nil {
		return err
	}
	_ = a.lk.Unlock()
	a.lk = lk
	return nil
}

// Fork copies the session into a new file and continues there (/fork). It
// is refused while a turn runs; the artifacts dir is copied; the terminal's
// crumb follows the new file (through the manager's OnSessionFile).
func (a *Agent) Fork() (newFile string, ok bool, err error) {
	if a.Busy() {
		return "", false, ErrForkWhileBusy
	}
	if err := a.bus.Emit(ev(EvSessionBeforeSwitch, "reason", "fork")); err != nil {
		return "", false, nil
	}
	if err := a.sm.Flush(); err != nil {
		return "", false, err
	}
	oldFile, newFile, ok, err := a.sm.Fork()
	if err != nil || !ok {
		return "", ok, err
	}
	if err := copyDir(trimJSONL(oldFile), trimJSONL(newFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "Failed to copy artifacts during fork: %v\n", err)
	}
	if err := a.relock(); err != nil {
		return newFile, true, err
	}
	_ = a.bus.Emit(ev(EvSessionSwitch, "reason", "fork", "previousSessionFile", oldFile))
	a.setState("")
	return newFile, true, nil
}

func trimJSONL(p string) string { return p[:len(p)-len(filepath.Ext(p))] }

// copyDir copies the files of src into dst, recursively.
func copyDir(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// Branch starts a new session from the user message entryID: the path up to
// its parent is copied into a branched session (a root message gives a new,
// empty session); its text is returned for the editor.
func (a *Agent) Branch(entryID string) (text string, err error) {
	if a.Busy() {
		return "", ErrBusy
	}
	e := a.sm.Entry(entryID)
	if e == nil || e.Type != session.TypeMessage || jsonRole(e.Get("message")) != "user" {
		return "", fmt.Errorf("entry %s is not a user message", entryID)
	}
	if err := a.sm.Flush(); err != nil {
		return "", err
	}
	prev := a.sm.SessionFile()
	text = session.MessageText(e.Get("message"))
	if e.ParentID == "" {
		ps, _ := json.Marshal(prev)
		a.sm.NewSession(ps)
	} else if _, err := a.sm.CreateBranchedSession(e.ParentID); err != nil {
		return "", err
	}
	if err := a.relock(); err != nil {
		return text, err
	}
	_ = a.bus.Emit(ev(EvSessionBranch, "previousSessionFile", prev))
	a.setState("")
	return text, nil
}

func jsonRole(msg []byte) string {
	var m struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Role
}

// NavigateTree moves the leaf to targetID (/tree). For a user or custom
// message the leaf becomes its parent and its text is returned for the
// editor. With a summary, a branch_summary entry records the abandoned branch.
func (a *Agent) NavigateTree(targetID, summary string) (editorText string, err error) {
	if a.Busy() {
		return "", ErrBusy
	}
	e := a.sm.Entry(targetID)
	if e == nil {
		return "", &session.NotFoundError{ID: targetID}
	}
	oldLeaf, _ := a.sm.LeafID()
	newLeaf := targetID
	if (e.Type == session.TypeMessage && jsonRole(e.Get("message")) == "user") || e.Type == session.TypeCustomMessage {
		newLeaf = e.ParentID
		if e.Type == session.TypeMessage {
			editorText = session.MessageText(e.Get("message"))
		} else {
			_ = json.Unmarshal(e.Get("content"), &editorText)
		}
	}
	var summaryID string
	switch {
	case summary != "":
		summaryID, err = a.sm.BranchWithSummary(newLeaf, summary, nil, nil)
	case newLeaf == "":
		a.sm.ResetLeaf()
	default:
		err = a.sm.Branch(newLeaf)
	}
	if err != nil {
		return "", err
	}
	_ = a.bus.Emit(ev(EvSessionTree, "newLeafId", newLeaf, "oldLeafId", oldLeaf, "summaryEntryId", nonEmptyString(summaryID)))
	a.restoreSettings()
	return editorText, nil
}

func nonEmptyString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Label sets or clears (empty) the label of an entry.
func (a *Agent) Label(entryID, label string) error {
	var raw json.RawMessage
	if label != "" {
		raw, _ = json.Marshal(label)
	}
	_, err := a.sm.AppendLabelChange(entryID, raw)
	return err
}

// SetTitle sets the session title as the user (it wins over automatic titles).
func (a *Agent) SetTitle(title string) error {
	ok, err := a.sm.SetSessionName(title, session.TitleUser)
	if err == nil && !ok {
		return errors.New("the title is empty after removing control characters")
	}
	a.setState("")
	return err
}
