#!/bin/sh
# Build xcsh and run its demo: three scripted agents (no model, no API key)
# in split panes of a private tmux server, attached in this terminal.
# Leave with Ctrl-b d; the demo's server and temporary files are removed.
# Extra arguments go to `xcsh demo` (e.g. --no-attach, --session-only).
set -eu
cd "$(dirname "$0")/.."
if ! command -v tmux >/dev/null 2>&1; then
	echo "xcsh demo needs tmux: install it (e.g. apt-get install tmux), or run: $0 --session-only" >&2
	[ "${1:-}" = "--session-only" ] || exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/xcsh-build-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
go build -o "$dir/xcsh" ./cmd/xcsh
"$dir/xcsh" demo "$@"
