"""``bench/e2e_bare.py`` in its smallest size: the bare process (the daemon's transport,
decoder and MQTT client, nothing else) starts, every placed card's alert reaches the
subscriber, and the run reports the end-to-end and floor figures as bench/e2e.py does."""

from __future__ import annotations

import pytest

from tests.bench.scripts import bench_json


@pytest.mark.timeout(150)
def test_bare_run_reports_every_event() -> None:
    r = bench_json("e2e_bare.py", "--events", "8", "--rounds", "1")
    assert r["events"] == 8 and len(r["runs"]) == 1, r
    run = r["runs"][0]
    assert run["run"] == "bare" and run["timeouts"] == 0, run
    # Each figure is a real measurement; how they compare is the bench's finding, not the
    # test's (with 8 events the alert's median can fall under the floor's on a loaded machine).
    assert 0 < run["floor_p50_ms"] <= run["floor_p99_ms"], run
    assert 0 < run["e2e_p50_ms"] <= run["e2e_p99_ms"], run
    assert 0 < run["proc_pty_p50_ms"] <= run["proc_pty_p99_ms"], run
