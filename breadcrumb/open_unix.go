//go:build unix

package breadcrumb

import "syscall"

// openFlags keep Read from following a symlink or blocking on a FIFO planted
// under a crumb's name.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
