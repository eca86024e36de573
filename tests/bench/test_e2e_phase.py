"""``bench/e2e_phase.py`` and ``bench/redact_secrets.py`` in their smallest sizes: the
in-phase broker hop is taken from inside the board's write of the watched antenna's frame
(every event gives one, none times out), beside the quiet hop and the alert's own; the
guard's first look at fresh secrets is timed through the regex and the matcher."""

from __future__ import annotations

import pytest

from tests.bench.scripts import bench_json


@pytest.mark.timeout(150)
def test_the_in_phase_hop_is_taken_after_every_event() -> None:
    r = bench_json("e2e_phase.py", "--events", "8")
    assert r["events"] == 8 and r["timeouts"] == 0, r
    hops = ("alert_broker_hop", "quiet_broker_hop", "in_phase_broker_hop", "scan_end_broker_hop")
    for name in hops:
        row = r[name]
        assert isinstance(row, dict) and row["n"] == 8, (name, row)
        assert 0 < row["p50_ms"] <= row["p99_ms"] < 1000, (name, row)


@pytest.mark.timeout(60)
def test_the_guard_is_timed_through_both_matchers() -> None:
    r = bench_json("redact_secrets.py", "--rounds", "5")
    for k in ("k1", "k2", "k6", "k18"):
        row = r[k]
        assert isinstance(row, dict), r
        assert row["regex_us"] > 0 and row["matcher_us"] > 0, row
        # the ratio of the two figures (each rounded to 0.1 µs, the ratio to 0.1)
        assert abs(row["regex_vs_matcher"] - row["regex_us"] / row["matcher_us"]) < 0.1, row
