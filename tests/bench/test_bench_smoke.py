"""bench/run.py --quick --no-write runs end to end and reports every figure as a number, and
the core benchmark's compiled worker starts on the compiled core. No timing is asserted
(speed is for the bench to print beside its baselines)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from controller.core_build import is_extension
from tests.bench.scripts import bench_json

ROOT = Path(__file__).resolve().parents[2]
KEYS = (
    "core_vs_pokerkit", "e2e_p50_ms", "e2e_p99_ms", "e2e_vs_floor", "e2e_vs_proc_floor",
    "pipeline_hands_per_s",
    "idle_cpu_s_per_min", "rss_mb", "fleet_tables", "fleet_records_per_s", "fleet_lag_ms",
    "fleet_lost",
)  # fmt: skip


@pytest.mark.timeout(150)
def test_bench_run_quick_reports_every_figure() -> None:
    doc = ROOT / "docs" / "performance.md"
    before = doc.read_bytes()
    result = bench_json("run.py", "--quick", "--no-write")
    for key in KEYS:
        assert key in result, key
        value = result[key]
        assert isinstance(value, int | float) and not isinstance(value, bool), (key, value)
    assert result["e2e_p50_ms"] <= result["e2e_p99_ms"]
    assert result["fleet_tables"] == 20
    assert doc.read_bytes() == before  # --no-write leaves the doc alone


@pytest.mark.timeout(420)
def test_compiled_worker_runs_the_compiled_core() -> None:
    """bench_core.py --compiled on 3 hands: the worker, started on the compiled wheel (the
    cached build of the current core's sources, built here if there is none: about 2
    minutes on the loaded dev machine), times the compiled engine, not the checkout's .py
    (it once imported the checkout's pure core and refused to start)."""
    pytest.importorskip("mypyc.build", reason="mypy (mypyc) not installed")
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not (shutil.which("gcc") or shutil.which("cc")) or not include.exists():
        pytest.skip("no C compiler or Python headers")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_core.py"), "--hands", "3",
         "--repeat", "1", "--compiled", "--no-pgo"],
        capture_output=True, text=True, timeout=400, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["hands"] == 3
    assert result["compiled_hands_per_s"] > 0 and result["core_hands_per_s"] > 0
    # the compiled ratio is of the worker's own two figures (pokerkit timed beside it)
    assert result["compiled_pokerkit_hands_per_s"] > 0
    ratio = result["compiled_hands_per_s"] / result["compiled_pokerkit_hands_per_s"]
    assert result["compiled_vs_pokerkit"] == pytest.approx(ratio, rel=0.01, abs=0.02)
    engine = next(line for line in proc.stdout.splitlines() if line.startswith("compiled   :"))
    assert is_extension(engine.rsplit("(", 1)[1].rstrip(")")), engine
