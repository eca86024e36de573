"""bench/console_link.py small: the console's real link on a private mosquitto works through
a held backlog in each variant (the bench itself checks that every table's last state
arrived: it exits non-zero otherwise). No timing is asserted."""

from __future__ import annotations

import pytest

from tests.bench.scripts import bench_json


@pytest.mark.timeout(200)
def test_console_link_bench_receives_every_message_in_each_variant() -> None:
    r = bench_json("console_link.py", "--messages", "1500", "--tables", "10", "--rounds", "1",
                   timeout=180)  # fmt: skip
    assert r["messages"] == 1500 and r["tables"] == 10
    assert all(r[f"{k}_us_per_message"] > 0 for k in ("before", "qos1", "after")), r
