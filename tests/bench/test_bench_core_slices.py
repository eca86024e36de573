"""bench/bench_core.py times each pass in slices, the arms in turn slice by slice: the slices
must cover every hand once, in order, none empty, so each arm times the same hands as a
whole pass would (docs/performance.md, "The compiled core timed beside pokerkit")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bench.bench_core import slices

ROOT = Path(__file__).resolve().parents[2]


@given(st.integers(min_value=1, max_value=5000), st.integers(min_value=-3, max_value=200))
def test_slices_cover_every_hand_once_in_order(n: int, count: int) -> None:
    parts = slices(n, count)
    assert 1 <= len(parts) <= min(max(count, 1), n)
    covered = [i for part in parts for i in range(n)[part]]
    assert covered == list(range(n))
    sizes = [len(range(n)[part]) for part in parts]
    assert min(sizes) >= 1 and max(sizes) - min(sizes) <= 1


def test_slices_as_asked_when_there_are_enough_hands() -> None:
    assert slices(1000, 10) == [slice(100 * i, 100 * (i + 1)) for i in range(10)]
    assert slices(3, 10) == [slice(0, 1), slice(1, 2), slice(2, 3)]


def test_a_pass_in_no_slices_is_refused_by_name() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_core.py"), "--slices", "0"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--slices must be at least 1, not 0" in proc.stderr
