#!/usr/bin/env bash
# The README's first command: set up, then run the main job - N hands dealt on the simulated
# table (private mosquitto, the daemon, the reader board on a pty, GPIO) with a live view.
# Arguments go to `railguard demo` (--hands N, --seed S, --broker URL, --profile NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/railguard demo "$@"
