"""The festival fleet bench end to end, small (``bench/fleet.py --tables 6``): two logger
processes into a private PostgreSQL, the console in headless chromium, the tables in two
worker processes. Marked slow (about a minute; the README's test command skips it: run with
``-m slow``). No timing is asserted; what is asserted is what the bench counts: every hand
the tables submitted is in the database, every alert they published reached the page, and
every process's CPU was measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.scripts import bench_json


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_fleet_festival_small_run_counts_everything(tmp_path: Path) -> None:
    r = bench_json("fleet.py", "--tables", "6", "--seconds", "30", "--alert-every", "1",
                   "--workdir", str(tmp_path), timeout=280)  # fmt: skip
    assert r["tables"] == 6 and r["loggers"] == 2
    assert r["submitted"] > 0 and r["stored"] == r["submitted"] and r["lost"] == 0, r
    assert r["alerts"] > 0 and r["alerts_shown"] == r["alerts"], r
    assert r["alert_tile_p50_ms"] <= r["alert_tile_p99_ms"]
    assert set(r["cpu_cores"]) == {
        "broker", "postgres", "logger-0", "logger-1", "console", "chromium", "tables", "bench",
    }  # fmt: skip
    # the hand records came from the table processes' outboxes, the states were published
    assert r["states_per_s"] > 0
    assert len(list(tmp_path.glob("t00*.db"))) == 6


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_fleet_festival_stream_only_times_alerts_on_the_console_stream(tmp_path: Path) -> None:
    """``--stream-only``: the console and a headless client of its stream, no chromium;
    every alert reached the stream, as an alert and in its table's tile."""
    r = bench_json("fleet.py", "--tables", "4", "--seconds", "30", "--alert-every", "1",
                   "--loggers", "1", "--table-procs", "1", "--stream-only",
                   "--workdir", str(tmp_path), timeout=280)  # fmt: skip
    assert r["lost"] == 0 and r["alerts"] > 0, r
    assert r["alerts_shown"] == 0  # no page
    assert r["alerts_tiled_on_stream"] == r["alerts"], r
    assert r["alert_stream_tile_p50_ms"] <= r["alert_stream_tile_p99_ms"]
    assert set(r["cpu_cores"]) == {"broker", "postgres", "logger-0", "console", "tables", "bench"}


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_fleet_festival_replay_counts_what_the_replayed_tables_published(tmp_path: Path) -> None:
    """``--replay``: two real tables recorded (bench/fleet_record.py), replayed as five by
    one publisher process; every record they published is stored, every alert reached the
    stream in its tile, in order through its clocks, and the schedule's lateness is
    reported; ``--console-gc`` put its probe into the console."""
    r = bench_json("fleet.py", "--tables", "5", "--seconds", "20", "--alert-every", "1",
                   "--loggers", "1", "--table-procs", "1", "--stream-only", "--replay",
                   "--templates", "2", "--console-gc", "--workdir", str(tmp_path),
                   timeout=400)  # fmt: skip
    assert r["tables_mode"] == "replay" and (tmp_path / "recording.pickle").exists()
    assert r["submitted"] > 0 and r["stored"] == r["submitted"] and r["lost"] == 0, r
    assert r["alerts"] > 0 and r["alerts_tiled_on_stream"] == r["alerts"], r
    assert r["replay_late_p50_ms"] <= r["replay_late_p99_ms"]
    clocks = json.loads((tmp_path / "alerts.json").read_text())  # each alert's clocks
    assert len(clocks) == r["alerts"], clocks
    assert all(c["published"] <= min(c["broker"], c["stream"]) <= c["stream_tile"]
               for c in clocks.values()), clocks  # fmt: skip
    assert (tmp_path / "gc.jsonl").exists()  # the console ran with the collector probe
    gc = r["console_gc"]  # the probe's totals over the dealing window
    assert gc is not None and len(gc["collections"]) == 3 and gc["frozen"] > 0, gc
    assert r["console_messages"] > 0 and r["console_cpu_s_per_1000"] > 0, r
    assert set(r["cpu_cores"]) == {"broker", "postgres", "logger-0", "console", "tables", "bench"}


def test_gc_window_takes_the_totals_around_the_dealing(tmp_path: Path) -> None:
    """The collections of the window: the last totals line before its start and before its
    end; the full and slow collections logged inside it."""
    from bench.fleet_festival import gc_window

    lines = [
        {"wall": 9.0, "totals": True, "n": [5, 1, 0], "ms": [1.0, 2.0, 0.0]},
        {"wall": 12.0, "gen": 2, "ms": 30.0, "collected": 4, "objects": 900},
        {"wall": 12.0, "totals": True, "n": [50, 5, 1], "ms": [11.0, 7.0, 30.0]},
        {"wall": 13.0, "gen": 0, "ms": 12.0, "collected": 700, "objects": 0},
        {"wall": 13.0, "totals": True, "n": [60, 5, 1], "ms": [25.0, 7.0, 30.0],
         "frozen": 40000, "threshold": [10000, 10, 10]},
        {"wall": 25.0, "totals": True, "n": [99, 9, 9], "ms": [99.0, 99.0, 99.0]},
    ]  # fmt: skip
    path = tmp_path / "gc.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    w = gc_window(path, 10.0, 20.0)
    assert w is not None
    assert w["collections"] == [55, 4, 1] and w["pause_ms"] == [24.0, 5.0, 30.0]
    assert w["pause_ms_per_s"] == 5.9 and w["full_ms_max"] == 30.0
    assert w["full_objects_max"] == 900 and w["slow"] == 2 and w["young_collected_max"] == 700
    assert w["frozen"] == 40000 and w["threshold"] == [10000, 10, 10]
    assert gc_window(path, 5.0, 20.0) is None  # no totals before the start
