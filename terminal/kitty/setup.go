package kitty

import (
	"errors"
	"os"
	"strings"
)

// DefaultListenOn is the listen_on value ConfigSnippet suggests: a socket in
// the user's runtime directory when XDG_RUNTIME_DIR is set (kitty expands
// the variable itself, so the line suits any machine), else in /tmp.
// {kitty_pid} keeps two kitty instances apart; kitty.conf's listen_on gets
// "-<pid>" appended anyway when it lacks it.
func DefaultListenOn(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("XDG_RUNTIME_DIR") != "" {
		return "unix:${XDG_RUNTIME_DIR}/kitty-{kitty_pid}"
	}
	return "unix:/tmp/kitty-{kitty_pid}"
}

// ConfigSnippet is what to add to kitty.conf so that xcsh can reach kitty,
// listening on listenOn (DefaultListenOn when ""). socket-only accepts
// commands from the socket alone, never from programs writing escape codes
// to their terminal.
func ConfigSnippet(listenOn string) string {
	if listenOn == "" {
		listenOn = DefaultListenOn(nil)
	}
	return "# xcsh: let xcsh list, open and focus kitty windows (remote control over a socket only).\n" +
		"allow_remote_control socket-only\n" +
		"listen_on " + listenOn + "\n"
}

// SetupHelp explains how to turn kitty's remote control on when err says it
// is off (ErrRemoteControlDisabled), and is "" for any other error.
func SetupHelp(err error) string {
	if !errors.Is(err, ErrRemoteControlDisabled) {
		return ""
	}
	var b strings.Builder
	b.WriteString("xcsh cannot reach kitty's remote control (" + err.Error() + ").\n")
	b.WriteString("Add these lines to kitty.conf (usually ~/.config/kitty/kitty.conf; `kitty --debug-config` shows which file kitty reads):\n\n")
	for line := range strings.Lines(ConfigSnippet("")) {
		b.WriteString("    " + line)
	}
	b.WriteString("\nthen quit kitty and start it again: kitty reads listen_on only at start-up.\n")
	b.WriteString("`xcsh supervise --print-kitty-config` prints these lines again.\n")
	return b.String()
}
