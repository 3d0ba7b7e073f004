package terminal

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

var errStatFormat = errors.New("unexpected /proc stat format")

// parseStat parses /proc/<pid>/stat. comm, the second field, may contain
// spaces and parentheses, so the fields after it are taken from after the
// last ')'.
func parseStat(data []byte) (procStat, error) {
	s := string(data)
	open := strings.IndexByte(s, '(')
	closing := strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return procStat{}, errStatFormat
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return procStat{}, fmt.Errorf("%w: pid: %w", errStatFormat, err)
	}
	// After comm: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) ... starttime(22);
	// field n is f[n-3].
	f := strings.Fields(s[closing+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("%w: %d fields after comm", errStatFormat, len(f))
	}
	st := procStat{PID: pid, Comm: s[open+1 : closing]}
	ppid, err1 := strconv.Atoi(f[4-3])
	sid, err2 := strconv.Atoi(f[6-3])
	ttyNr, err3 := strconv.ParseInt(f[7-3], 10, 64)
	start, err4 := strconv.ParseUint(f[22-3], 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return procStat{}, fmt.Errorf("%w: %w", errStatFormat, err)
	}
	st.PPID, st.SID, st.TTYNr, st.StartTime = ppid, sid, uint64(uint32(ttyNr)), start
	return st, nil
}

// devMajorMinor decodes a device number in the kernel's new_encode_dev form,
// used by tty_nr and TIOCGDEV and, for the small numbers of tty devices, by
// stat's st_rdev too.
func devMajorMinor(dev uint64) (major, minor uint32) {
	major = uint32((dev>>8)&0xfff) | uint32((dev>>32)&^0xfff)
	minor = uint32(dev&0xff) | uint32((dev>>12)&^0xff)
	return major, minor
}

// ptsPath names a Unix98 pty slave: majors 136 to 143 are /dev/pts.
func ptsPath(dev uint64) (string, bool) {
	major, minor := devMajorMinor(dev)
	if major < 136 || major > 143 {
		return "", false
	}
	return "/dev/pts/" + strconv.FormatUint(uint64(major-136)*256+uint64(minor), 10), true
}
