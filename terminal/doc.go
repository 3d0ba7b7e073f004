// Package terminal identifies the terminal this process runs in.
//
// An Identity has three parts (DESIGN.md, "Terminal identity"):
//
//   - the key, the breadcrumb's file name, derived exactly as TypeScript xcsh
//     derives it: the controlling tty (/dev/pts/3 -> pts-3), else
//     KITTY_WINDOW_ID, TMUX_PANE, TERM_SESSION_ID, WT_SESSION, with the
//     environment values sanitised before they become file names;
//   - the generation token: the terminal's session leader (pid and start
//     time) and the boot id. The kernel hands a closed pane's /dev/pts/N to
//     the next new pane at once, so the key alone cannot tell the two apart;
//   - the multiplexer overlay: the innermost of tmux, WezTerm and kitty,
//     found by walking up the process tree, because outer ids such as
//     KITTY_WINDOW_ID leak into every tmux pane.
//
// The tty is found even when stdin, stdout or both are redirected: from fds
// 0, 1 and 2, then /proc/self/stat (tty_nr), then /dev/tty with TIOCGDEV.
// Detection reads /proc and is Linux only; elsewhere only the environment
// rules apply.
package terminal
