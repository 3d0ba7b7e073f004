package session

import (
	"os"
	"syscall"
)

// mapMin is the file size from which sessions are mapped instead of read:
// reading a large file into fresh heap memory costs a page fault per 4 KiB,
// which on virtual machines dominates the whole open.
const mapMin = 8 << 20

// readForKeeps returns the bytes of a session file that is loaded to be
// used: large files are mapped (read-only, private, pre-faulted: measured
// 10-20 ms quicker on a 231 MB session than faulting as it is read) and never
// unmapped, so entries may keep sub-slices of them for the process's life.
// xcsh and oh-my-pi only ever append to a session file or replace it by
// rename, which leave a mapping intact.
func readForKeeps(st Storage, path string) ([]byte, error) {
	if _, ok := st.(FileStorage); !ok {
		return st.ReadFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() < mapMin || fi.Size() > 1<<40 {
		return st.ReadFile(path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return st.ReadFile(path)
	}
	return data, nil
}
