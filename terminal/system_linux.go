package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// tmuxTimeout bounds the one tmux call Detect makes; a hung server must not
// hang an agent's start.
const tmuxTimeout = 2 * time.Second

type linuxSystem struct{}

func hostSystem() system { return linuxSystem{} }

// fdTTY accepts fd only if it is a terminal (TCGETS succeeds) and its
// /proc/self/fd link names a device under /dev other than /dev/tty, which
// hides the real device, and the pty masters.
func (linuxSystem) fdTTY(fd int) (string, uint64, bool) {
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return "", 0, false
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !strings.HasPrefix(p, "/dev/") {
		return "", 0, false
	}
	switch p {
	case "/dev/tty", "/dev/ptmx", "/dev/pts/ptmx":
		return "", 0, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return "", 0, false
	}
	return p, st.Rdev, true
}

func (linuxSystem) stat(pid int) (procStat, error) {
	name := "/proc/self/stat"
	if pid != 0 {
		name = "/proc/" + strconv.Itoa(pid) + "/stat"
	}
	data, err := readProcFile(name)
	if err != nil {
		return procStat{}, err
	}
	st, err := parseStat(data)
	if err != nil {
		return procStat{}, fmt.Errorf("read %s: %w", name, err)
	}
	return st, nil
}

// readProcFile reads a small /proc file with plain system calls: os.ReadFile
// would also register the fd with the poller, which doubles the cost of a
// walk up the process tree.
func readProcFile(name string) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// devPath names a pty slave by its number and any other tty by finding the
// character device in /dev with that number.
func (linuxSystem) devPath(dev uint64) (string, bool) {
	if p, ok := ptsPath(dev); ok {
		return p, true
	}
	want := unix.Mkdev(devMajorMinor(dev))
	entries, err := os.ReadDir("/dev")
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if e.Type()&os.ModeCharDevice == 0 || e.Name() == "tty" || e.Name() == "console" {
			continue
		}
		p := filepath.Join("/dev", e.Name())
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Rdev == want {
			return p, true
		}
	}
	return "", false
}

// devTTY asks /dev/tty, the controlling tty, for its real device: the fd's
// own stat says (5,0) whatever the tty is; TIOCGDEV does not.
func (s linuxSystem) devTTY() (string, uint64, error) {
	fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", 0, fmt.Errorf("open /dev/tty: %w", err)
	}
	defer unix.Close(fd)
	dev, err := unix.IoctlGetUint32(fd, unix.TIOCGDEV)
	if err != nil {
		return "", 0, fmt.Errorf("/dev/tty TIOCGDEV: %w", err)
	}
	p, ok := s.devPath(uint64(dev))
	if !ok {
		return "", 0, fmt.Errorf("/dev/tty: no device file for %d:%d", unix.Major(uint64(dev)), unix.Minor(uint64(dev)))
	}
	return p, uint64(dev), nil
}

// sessionLeader scans /proc for a session leader whose controlling tty is
// dev. Detection needs it only when the tty was found on an fd but is not
// the controlling tty of this process or its ancestors.
func (s linuxSystem) sessionLeader(dev uint64) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if st, err := s.stat(pid); err == nil && st.PID == st.SID && st.TTYNr == dev {
			return pid
		}
	}
	return 0
}

var bootID = sync.OnceValues(func() (string, error) {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
})

func (linuxSystem) bootID() (string, error) { return bootID() }

func (linuxSystem) processEnv(pid int, name string) (string, bool) {
	data, err := readProcFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	for kv := range strings.SplitSeq(string(data), "\x00") {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func (linuxSystem) tmuxPanes(socket string) ([]tmuxPane, error) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-S", socket,
		"list-panes", "-a", "-F", "#{pane_id} #{pane_pid} #{pane_tty}").Output()
	if err != nil {
		return nil, fmt.Errorf("tmux -S %s list-panes: %w", socket, err)
	}
	return parseTmuxPanes(string(out)), nil
}
