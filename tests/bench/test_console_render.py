"""bench/console_render.py in its smallest size (a few seconds with chromium): the page's
own marks are read back for every kind of update it is driven with. No timing is asserted;
what is asserted is what the bench counts, so that the bench cannot break silently."""

from __future__ import annotations

import pytest

from tests.bench.scripts import bench_json


@pytest.mark.timeout(180)
def test_console_render_smallest_run_times_every_update() -> None:
    r = bench_json("console_render.py", "--tiles", "6", "--batches", "1,6", "--frames", "1",
                   "--alerts", "2", timeout=170)  # fmt: skip
    assert r["tiles"] == 6
    for k in (1, 6):
        f = r["frames"][str(k)]
        # every changed table's tile was redrawn, each redraw timed with the paint after it
        assert f["tiles_drawn"] >= k and f["flush"]["n"] == f["flushes"] >= 1, f
        assert f["after_flush_paint"]["n"] == f["flushes"], f
        assert f["tile_handler"]["n"] >= k, f
    alerts = r["alerts"]
    assert alerts["alert_handler"]["n"] == alerts["sent"] == 2, alerts
    assert alerts["tile_handler"]["n"] >= 2, alerts
