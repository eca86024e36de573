"""``bench/e2e.py --sources DIR`` in its smallest size (a few seconds): the daemon imports its
packages from DIR (here the checkout itself, through ``PYTHONPATH``), the run reports its
CPU, and the alerts took the link's direct path (``VenueLink.publish_alert`` writing them to
the broker's socket; controller/daemon/trace.py). A bad DIR is refused by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.scripts import bench_json

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(150)
def test_e2e_with_sources_runs_and_reports() -> None:
    r = bench_json("e2e.py", "--events", "5", "--sources", str(ROOT))
    assert r["events"] == 5 and r["daemon_alive"] and r["daemon_cpu_s"] > 0, r
    assert r["stages_matched"] == 5 and r["direct"] >= 1, r  # the link was idle at least once


def test_e2e_refuses_sources_without_the_packages(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "e2e.py"), "--sources", str(tmp_path)],
        capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "no controller package" in proc.stderr
