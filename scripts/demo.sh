#!/usr/bin/env bash
# The README's first command: set up, then run the main job. Until the simulated-table demo
# lands, the main runnable job is replaying real recorded hands through the rules core.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if .venv/bin/railguard demo --help >/dev/null 2>&1; then
  exec .venv/bin/railguard demo "$@"
fi
exec .venv/bin/railguard replay --core-only ../shared/data/phh/famous ../shared/data/phh/wsop-2023-43-day5 "$@"
