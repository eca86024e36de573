"""The antenna schedule: the zone dealt to next is scanned every cycle once learned, every
antenna within ceil(n / cold_min) cycles whatever the others cost (the bound of
docs/reader-board.md), and the doc's scan-time figures are the timing model's."""

from __future__ import annotations

import math
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from reader_firmware import timing
from reader_firmware.scheduler import Scheduler

DOC = Path(__file__).resolve().parents[2] / "docs" / "reader-board.md"


@settings(max_examples=200)
@given(
    n=st.integers(1, 32),
    cold_min=st.integers(1, 4),
    costs=st.lists(st.floats(0, 200_000), min_size=32, max_size=32),
    budget=st.floats(0, 100_000),
    changes=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 31)), max_size=40),
    failed=st.sets(st.integers(0, 31), max_size=4),
)
def test_every_live_antenna_is_scanned_within_the_bound(
    n: int, cold_min: int, costs: list[float], budget: float,
    changes: list[tuple[int, int]], failed: set[int],
) -> None:  # fmt: skip
    sched = Scheduler(n, cold_min=cold_min)
    for a in range(n):
        sched.scanned(a, costs[a])
    skip = [a in failed for a in range(n)]
    bound = math.ceil(n / min(cold_min, n))
    last = dict.fromkeys(range(n), 0)
    by_cycle = dict(changes)
    for cycle in range(1, 200):
        if cycle in by_cycle:
            sched.changed(by_cycle[cycle] % n, cycle)
        plan = sched.plan(cycle, budget, skip)
        assert len(plan) == len(set(plan)) and not any(skip[a] for a in plan)
        for a in plan:
            last[a] = cycle
        for a in range(n):
            if not skip[a]:
                assert cycle - last[a] < bound, (a, cycle, last[a], bound)


def test_the_next_seat_is_learned_and_scanned_every_cycle() -> None:
    sched = Scheduler(16, cold_min=2)
    for a in range(16):
        sched.scanned(a, 20_000.0)  # slow antennas: the budget allows only the minimum
    for cycle, seat in enumerate([0, 1, 2, 3, 4, 5], start=1):  # first round of hole cards
        sched.changed(seat, cycle)
    sched.changed(0, 7)  # second round starts at seat 1's antenna again
    plan = sched.plan(8, 50_000.0, [False] * 16)
    assert plan[:2] == [1, 0]  # seat 2's antenna first: it comes next in the dealing order


def test_the_docs_scan_times_are_the_timing_models() -> None:
    text = DOC.read_text()

    def doc_ms(label: str) -> float:
        m = re.search(re.escape(label) + r"[^|]*\|[^|]*\|\s*\*{0,2}([\d.]+) ms", text)
        assert m, label
        return float(m.group(1))

    assert doc_ms("| nothing (was empty)") == round(timing.antenna_us(0, True) / 1000, 1)
    assert doc_ms("| a new card (was empty)") == round(timing.antenna_us(1, True) / 1000, 1)
    assert doc_ms("| 2 cards (was not empty)") == round(timing.antenna_us(2, False) / 1000, 1)
    assert doc_ms("| 5 board cards") == round(timing.antenna_us(5, False) / 1000, 1)
    assert f"{timing.request_us() / 1000:.2f} ms" in text
    assert f"{timing.response_us() / 1000:.2f} ms" in text
    hole = timing.antenna_us(2, False, 1)
    board, burn, muck = (timing.antenna_us(k, False, c) for k, c in ((5, 2), (3, 1), (12, 3)))
    times = [hole] * 6 + [board, burn, muck] + [timing.antenna_us(0, True)] * 7
    worst, cycles = timing.cycle_bound_us(times, hot=3, cold_per_cycle=2)
    assert cycles == 8
    assert f"**{worst / 1e6:.2f} s**" in text
    assert f"takes {sum(times) / 1000:.0f} ms" in text
