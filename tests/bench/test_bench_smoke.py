"""bench/run.py --quick --no-write runs end to end and reports every figure as a number.
No timing is asserted (speed is for the bench to print beside its baselines)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEYS = (
    "core_vs_pokerkit", "e2e_p50_ms", "e2e_p99_ms", "e2e_vs_floor", "pipeline_hands_per_s",
    "idle_cpu_s_per_min", "rss_mb", "fleet_tables", "fleet_records_per_s", "fleet_lag_ms",
    "fleet_lost",
)  # fmt: skip


@pytest.mark.timeout(150)
def test_bench_run_quick_reports_every_figure() -> None:
    doc = ROOT / "docs" / "performance.md"
    before = doc.read_bytes()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--no-write"],
        capture_output=True, text=True, timeout=140, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in KEYS:
        assert key in result, key
        value = result[key]
        assert isinstance(value, int | float) and not isinstance(value, bool), (key, value)
    assert result["e2e_p50_ms"] <= result["e2e_p99_ms"]
    assert result["fleet_tables"] == 20
    assert doc.read_bytes() == before  # --no-write leaves the doc alone
