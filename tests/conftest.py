"""Fixtures shared across test folders.

The private pcscd (real pcscd + the vpcd virtual reader) is one session fixture for the
whole run: libpcsclite fixes its socket path once per process, so two session pcscds in one
pytest process (one per test module) would leave the second unreachable."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "firmware_bridge"))

import pcsc_fixtures

pcscd_session = pcsc_fixtures.pcscd_session
pcscd = pcsc_fixtures.pcscd

# ---------------------------------------------------------------- clause coverage (issue 16)
# The clause marker's bookkeeping and the end-of-run check (tests/coverage_plugin.py).
sys.path.insert(0, str(Path(__file__).parent))
pytest_plugins = ["coverage_plugin"]
