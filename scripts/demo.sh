#!/usr/bin/env bash
# The main job on a fresh machine: write a scripted session (no model, no API key)
# and show how xcsh reads it back: the tree with its branch and label, the context.
set -euo pipefail
cd "$(dirname "$0")/.."
bin/xcsh demo
