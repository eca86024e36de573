#!/usr/bin/env bash
# The README's test command: set up, then lint (ruff), type-check (mypy --strict) and run the
# whole test suite. Extra arguments go to pytest.
# The suite runs on RAILGUARD_TEST_WORKERS pytest-xdist workers (default 2, one a core: 3 on
# the 2-core machine were faster, but their daemons, brokers and browsers starved each other
# into the tests' timeouts on a shared VM; 0 runs it in this one process). docs/performance.md, "The test suite's wall time", has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== ruff";  .venv/bin/ruff check controller firmware_bridge hwsim reader_firmware tests bench scripts
.venv/bin/ruff format --check controller firmware_bridge hwsim reader_firmware tests bench scripts
echo "== mypy";  .venv/bin/mypy
echo "== pytest"; .venv/bin/python -m pytest -q -n "${RAILGUARD_TEST_WORKERS:-2}" "$@"
