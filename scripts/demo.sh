#!/usr/bin/env bash
# `make demo`: the main job on a fresh machine, no model and no API key needed.
# Three scripted agents run in split panes of a private tmux server, with the
# supervisor's counts in the status bar. In a terminal the demo attaches
# (leave with Ctrl-b d); without one it runs the agents, prints their panes
# and cleans up.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux
  else
    echo "xcsh demo needs tmux: install it (e.g. sudo apt-get install tmux) and run make demo again" >&2
    exit 1
  fi
fi
if [ -t 0 ] && [ -t 1 ]; then
  exec bin/xcsh demo
fi
exec bin/xcsh demo --no-attach
