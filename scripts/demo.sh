#!/usr/bin/env bash
# The README's first command: set up, then run the main job - N hands dealt on the simulated
# table (private mosquitto, the daemon, the reader board on a pty, GPIO) with a live view.
# The floor console opens on the demo's broker: its address and a one-run login are printed
# (--console-port PORT, --no-console). Arguments go to `railguard demo` (--hands N, --seed S,
# --broker URL, --profile NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/railguard demo "$@"
