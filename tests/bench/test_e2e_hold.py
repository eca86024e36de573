"""``bench/e2e_hold.py`` in its smallest size: one daemon, its alerts split at random into a
held arm and a not-held arm by their ids; the bench checks that the daemon held its reader
for exactly the held arm's alerts (its sitecustomize's record) and reports both arms."""

from __future__ import annotations

import pytest

from tests.bench.scripts import bench_json


@pytest.mark.timeout(150)
def test_hold_pairs_report_both_arms_from_one_daemon() -> None:
    r = bench_json("e2e_hold.py", "--events", "24")
    assert r["timeouts"] == 0 and r["hold_ms"] == 1.0, r
    assert r["held"]["n"] + r["not_held"]["n"] == 24, r
    for arm in ("held", "not_held"):
        a = r[arm]
        assert 0 < a["e2e_p50_ms"] <= a["e2e_p99_ms"], a
        assert 0 < a["alert_hop_p50_ms"] <= a["alert_hop_p99_ms"], a
