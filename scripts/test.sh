#!/usr/bin/env bash
# The README's test command: set up, then lint (ruff), type-check (mypy --strict) and run the
# whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== ruff";  .venv/bin/ruff check controller firmware_bridge hwsim tests bench scripts
.venv/bin/ruff format --check controller firmware_bridge hwsim tests bench scripts
echo "== mypy";  .venv/bin/mypy
echo "== pytest"; .venv/bin/python -m pytest -q "$@"
