//go:build !linux

package session

// readForKeeps reads a session file that is loaded to be used.
func readForKeeps(st Storage, path string) ([]byte, error) { return st.ReadFile(path) }
