package kitty

import (
	"errors"
	"fmt"
)

// Errors callers test for with errors.Is.
var (
	// ErrRemoteControlDisabled: kitty's remote control cannot be reached.
	// With allow_remote_control off kitty creates no socket, so a socket that
	// does not exist or refuses connections is reported this way too, as is
	// kitty's own refusal; a kitty that is not running looks the same.
	// SetupHelp explains the fix.
	ErrRemoteControlDisabled = errors.New("kitty remote control is off, or kitty is not running")
	// ErrNoAddress: no socket address is known: KITTY_LISTEN_ON is not set.
	// Inside a kitty window that means kitty listens on no socket, and
	// FromEnv reports ErrRemoteControlDisabled as well.
	ErrNoAddress = errors.New("KITTY_LISTEN_ON is not set")
	// ErrNotFound: no window or tab matches.
	ErrNotFound = errors.New("not found")
	// ErrTooOld: the kitty is older than ProtocolVersion.
	ErrTooOld = errors.New("kitty is older than 0.26")
	// ErrNoResponse: kitty closed the connection without answering.
	ErrNoResponse = errors.New("kitty closed the connection without a response")
)

// Error is a command kitty answered with an error, or one that could not be
// sent.
type Error struct {
	Addr string // the socket, as given to New
	Cmd  string // "ls", "focus-window", ...
	Msg  string // kitty's message, e.g. "No matching windows for expression: id:9"
	// Traceback is kitty's Python traceback, when it sent one.
	Traceback string
	Err       error // a sentinel above, or the connection's error
}

func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("kitty %s %s: %s", e.Addr, e.Cmd, msg)
}

func (e *Error) Unwrap() error { return e.Err }
