// Package kitty is xcsh's kitty back end: it lists kitty windows with their
// tty, pid, cwd, foreground processes and focus, launches windows, tabs and
// OS windows, focuses, closes, types into and reads windows.
//
// It talks kitty's remote control protocol over kitty's socket
// (KITTY_LISTEN_ON) itself, one connection per call: a command is
// ESC P @kitty-cmd <JSON> ESC \ and the reply comes back framed the same way.
// The Python client `kitty @` of the kitty Debian 12 ships (0.26) costs about
// half a second a call; a call here costs milliseconds (BenchmarkList,
// BenchmarkFocus).
//
// Versions. Every command says which client version sent it, and kitty
// refuses a client newer than itself, comparing major and minor only. The
// client therefore sends ProtocolVersion, 0.26.0, the oldest kitty
// supported, which is also what current kitty's own Go client (kitten) sends.
// Replies are decoded in both namings: 0.26 marks the active window of a tab
// "is_active_window" and the active tab "is_active_tab"; current kitty says
// "is_active" for both.
//
// Quirks that shaped the code (terminal-facts.md, section 4, and the tests
// here against kitty 0.26.5):
//
//   - kitty 0.26 handles a socket command only when the client half-closes
//     the connection, or after about 300 ms; the client therefore shuts its
//     write side down after each command. Current kitty handles a command
//     as soon as its frame is complete, and at end of input too (source).
//   - Payload keys are not the CLI flag names, and kitty silently ignores
//     unknown keys: the window title is "window_title", not "title".
//   - A window's "is_focused" is true for the active window of an inactive
//     tab; Window.Focused is computed from the OS window, tab and window.
//   - kitty 0.26 does not answer a send-text that succeeded, it closes the
//     connection; current kitty answers ok. Both answer a failure, so no
//     command is sent with "no_response", which would hide a missing window.
//   - With remote control off, kitty creates no socket at all: the call fails
//     to connect. Calls then return ErrRemoteControlDisabled, and SetupHelp
//     says what to add to kitty.conf.
//   - kitty pushes no events: a long-running caller polls List.
//   - Focus switches tab and window before kitty answers, but focus moving
//     to another OS window shows in List only once the window system's focus
//     event arrives.
//
// The mapping to the supervisor's Multiplexer (pane = kitty window): a
// MuxPane's ID is the window id in decimal, Window the tab id, MuxSession the
// OS window id; Active is Window.Active, and Visible is Window.Active too (an
// OS window always shows its active tab). Spawn is Launch followed by
// Window(id) for the tty and pid.
package kitty
