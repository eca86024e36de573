"""bench/fleet_lag.py in its smallest size (a few seconds): the fleet run with the logger
under cProfile, every record stored and its commit timed. No timing is asserted; what is
asserted is what the bench counts, so that it cannot break silently."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(150)
def test_fleet_lag_smallest_run_counts_and_profiles() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fleet_lag.py"), "--tables", "3", "--seconds",
         "3", "--profile-logger"],
        capture_output=True, text=True, timeout=140, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["fleet_tables"] == 3 and r["fleet_lost"] == 0 and r["fleet_submitted"] > 0, r
    assert r["inline_commit"] is False and r["fsync"]["p50_ms"] >= 0, r
    assert r["commit"]["p50_ms"] <= r["commit"]["max_ms"], r  # each record's commit timed
    assert "venue_log" in proc.stderr  # the logger's profile: its command was in it
