package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// States an agent reports about itself.
const (
	StateStarting = "starting"
	StateIdle     = "idle"
	StateBusy     = "busy"
	StateWaiting  = "waiting" // for the user's approval or answer
	StateExited   = "exited"
)

// Live is the content of <agent>/agents/<pid>.json.
type Live struct {
	PID           int       `json:"pid"`
	StartTime     uint64    `json:"startTime"` // process start, clock ticks since boot
	TerminalKey   string    `json:"terminalKey,omitempty"`
	TerminalToken string    `json:"terminalToken,omitempty"`
	TTY           string    `json:"tty,omitempty"`
	Overlay       any       `json:"overlay,omitempty"`
	Cwd           string    `json:"cwd"`
	SessionFile   string    `json:"sessionFile,omitempty"`
	SessionID     string    `json:"sessionId"`
	Title         string    `json:"title,omitempty"`
	Model         string    `json:"model,omitempty"`
	ThinkingLevel string    `json:"thinkingLevel,omitempty"`
	State         string    `json:"state"`
	Since         time.Time `json:"since"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// LiveFile writes an agent's live state by rename, and removes it on exit.
type LiveFile struct {
	mu      sync.Mutex
	dir     string
	path    string
	cur     Live
	removed bool // after Remove, updates are dropped: an exited agent stays gone
}

// NewLiveFile prepares the live file of this process in dir.
func NewLiveFile(dir string, base Live) *LiveFile {
	base.PID = os.Getpid()
	base.StartTime = ProcStartTime(base.PID)
	return &LiveFile{dir: dir, path: filepath.Join(dir, strconv.Itoa(base.PID)+".json"), cur: base}
}

// Path is the live file's path.
func (l *LiveFile) Path() string { return l.path }

// Update changes the state (and anything set in fn) and rewrites the file.
func (l *LiveFile) Update(state string, fn func(*Live)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.removed {
		return nil
	}
	now := time.Now().UTC()
	if state != "" && state != l.cur.State {
		l.cur.State = state
		l.cur.Since = now
	}
	if fn != nil {
		fn(&l.cur)
	}
	l.cur.UpdatedAt = now
	data, err := json.Marshal(l.cur)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("live state dir %s: %w", l.dir, err)
	}
	tmp, err := os.CreateTemp(l.dir, "."+strconv.Itoa(l.cur.PID)+".*.tmp")
	if err != nil {
		return fmt.Errorf("live state %s: %w", l.path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("live state %s: %w", l.path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), l.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("live state %s: %w", l.path, err)
	}
	return nil
}

// Current returns the state last written.
func (l *LiveFile) Current() Live {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

// Remove deletes the live file.
func (l *LiveFile) Remove() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.removed = true
	if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// ReadLive reads every live file in dir. Stale ones (the pid is gone, or a
// new process has its pid) are reported with State "exited" and Stale true.
func ReadLive(dir string) ([]LiveStatus, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []LiveStatus
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var l Live
		if json.Unmarshal(data, &l) != nil || l.PID <= 0 {
			continue
		}
		st := LiveStatus{Live: l, Path: filepath.Join(dir, name)}
		if !Alive(l.PID, l.StartTime) {
			st.Stale = true
			st.State = StateExited
		}
		out = append(out, st)
	}
	return out, nil
}

// LiveStatus is a live file as read, with staleness.
type LiveStatus struct {
	Live
	Path  string
	Stale bool
}

// Alive reports whether pid runs and started at startTime (when known).
func Alive(pid int, startTime uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if startTime != 0 {
		if st := ProcStartTime(pid); st != 0 && st != startTime {
			return false
		}
	}
	return true
}

// ProcStartTime returns a process's start time in clock ticks since boot
// (/proc/<pid>/stat field 22), or 0.
func ProcStartTime(pid int) uint64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// SessionLock is an exclusive advisory lock on one session file, held in
// <agents dir>/locks/<sha256 of the path>.lock so atomic rewrites of the
// session (a rename) do not drop it.
type SessionLock struct {
	f    *os.File
	path string
}

// ErrLocked is returned when another live agent writes the session.
var ErrLocked = errors.New("session is being written by another agent")

// LockedError names the agent that holds a session.
type LockedError struct {
	Session string
	Holder  *Live // nil when unknown
}

func (e *LockedError) Error() string {
	if e.Holder != nil {
		where := e.Holder.TerminalKey
		if where == "" {
			where = "another terminal"
		}
		return fmt.Sprintf("session %s is being written by agent pid %d in %s (%s)", e.Session, e.Holder.PID, where, e.Holder.Cwd)
	}
	return fmt.Sprintf("session %s is being written by another agent", e.Session)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(t error) bool { return t == ErrLocked }

// LockSession takes the lock of sessionFile or fails with a LockedError.
func LockSession(agentsDir, sessionFile string) (*SessionLock, error) {
	abs, _ := filepath.Abs(sessionFile)
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(agentsDir, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock dir %s: %w", dir, err)
	}
	p := filepath.Join(dir, hex.EncodeToString(sum[:12])+".lock")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		le := &LockedError{Session: abs}
		if data, rerr := os.ReadFile(p); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])); perr == nil {
				if lives, _ := ReadLive(agentsDir); lives != nil {
					for _, l := range lives {
						if l.PID == pid {
							h := l.Live
							le.Holder = &h
						}
					}
				}
				if le.Holder == nil {
					le.Holder = &Live{PID: pid}
				}
			}
		}
		return nil, le
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+abs+"\n"), 0)
	return &SessionLock{f: f, path: p}, nil
}

// Unlock releases the lock.
func (l *SessionLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return err
}
