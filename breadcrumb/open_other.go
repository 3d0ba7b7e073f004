//go:build !unix

package breadcrumb

// openFlags: no O_NOFOLLOW or O_NONBLOCK here; readFile still refuses
// anything but a regular file after opening it.
const openFlags = 0
