package breadcrumb

import "errors"

var (
	// ErrInvalidKey reports a terminal key that cannot be used as a file name
	// inside the terminal-sessions directory: empty, too long, starting with
	// '.', or containing '/', "..", a NUL or another control character.
	ErrInvalidKey = errors.New("invalid terminal key")

	// ErrMalformed reports a breadcrumb file that does not hold at least a cwd
	// line and a session file line.
	ErrMalformed = errors.New("malformed breadcrumb")

	// ErrInvalidCrumb reports a Crumb that cannot be written: an empty cwd or
	// session file, or a field containing a line break.
	ErrInvalidCrumb = errors.New("invalid breadcrumb")
)
