"""The scenario library through ``railguard scenario`` (the simulated table and the real
daemon). The full library takes about two minutes (some 45 scenarios at 2-5 s each), so it
is ``slow``; the default suite runs one scenario per clause family."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hwsim.scenario.parse import parse_file

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "scenarios"
SUBSET = [  # one per clause family
    "tda-2024/000-S3-misdeal-1h-wrong-first-seat.scn",  # deal order
    "roberts-rules/000-S3-misdeal-1a-exposed-fifth-card-replaced.scn",  # exposed/boxed
    "a2c-000/000-S3-irreg-5-duplicate-card-voids.scn",  # foreign/duplicate/joker
    "vistancia-002/002-FourCardFlop-b-unknown-order-floor-draw.scn",  # the board
    "tda-2024/000-S3-bet-4-short-all-in-does-not-reopen.scn",  # betting
    "tda-2024/000-S1-levels-7-level-from-next-hand.scn",  # table, multi-hand
]


def railguard(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from controller.cli import main; raise SystemExit(main())"]
    return subprocess.run([*cmd, "scenario", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip


def test_library_names_each_scenario_after_its_clause() -> None:
    files = sorted(LIBRARY.rglob("*.scn"))
    assert len(files) >= 40
    for f in files:
        text = f.read_text()
        assert parse_file(f).profile == f.parent.name, f
        assert "Rulebook:" in text or "no rulebook" in text.lower(), f"{f}: cite the rulebook"


@pytest.mark.timeout(120)
def test_library_subset_passes() -> None:
    out = railguard(*[str(LIBRARY / s) for s in SUBSET], timeout=110)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1] == f"{len(SUBSET)} passed, 0 failed"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_whole_library_passes() -> None:
    out = railguard(str(LIBRARY), "--quiet", timeout=580)
    n = len(list(LIBRARY.rglob("*.scn")))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1] == f"{n} passed, 0 failed"


@pytest.mark.timeout(60)
def test_cli_reports_a_malformed_file_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.scn"
    bad.write_text("profile tda-2024\nseat 1 1000\nexpect alert NOPE\n")
    out = railguard(str(bad), timeout=50)
    assert out.returncode == 1
    assert f"FAIL {bad}:3: expect alert NOPE: unknown alert code" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"
