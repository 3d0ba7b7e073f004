//go:build !linux

package terminal

import "errors"

var errUnsupported = errors.New("terminal detection reads /proc: linux only")

// otherSystem finds no tty and no processes, so only the environment rules
// apply.
type otherSystem struct{}

func hostSystem() system { return otherSystem{} }

func (otherSystem) fdTTY(int) (string, uint64, bool)      { return "", 0, false }
func (otherSystem) stat(int) (procStat, error)            { return procStat{}, errUnsupported }
func (otherSystem) devPath(uint64) (string, bool)         { return "", false }
func (otherSystem) devTTY() (string, uint64, error)       { return "", 0, errUnsupported }
func (otherSystem) sessionLeader(uint64) int              { return 0 }
func (otherSystem) bootID() (string, error)               { return "", errUnsupported }
func (otherSystem) processEnv(int, string) (string, bool) { return "", false }
func (otherSystem) tmuxPanes(string) ([]tmuxPane, error)  { return nil, errUnsupported }
