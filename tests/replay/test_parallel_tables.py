"""``railguard replay --tables N``: several tables (a process each, with its own pty board and
daemon) on one private mosquitto and one venue logger; results come out in file order, and
a table process that dies is replaced while the run goes on."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
from pathlib import Path

import pytest

from controller.replay_system import system_replay
from controller.replay_system.tables import DEPTH
from tests.replay.cli import run_replay
from tests.replay.hands import HAND_WITH_FLOP_BET
from tests.replay.test_system_replay import MALFORMED, PHH, needs_data, needs_mosquitto

WRONG = HAND_WITH_FLOP_BET.replace("[8100, 9900, 12300, 9700]", "[8100, 9900, 12200, 9800]")


@needs_mosquitto
@needs_data
@pytest.mark.timeout(120)
def test_ten_hands_over_three_tables_in_file_order(tmp_path: Path) -> None:
    pluribus = sorted((PHH / "pluribus" / "30").glob("*.phh"))[:6]
    bad = tmp_path / "malformed.phh"
    bad.write_text(MALFORMED)
    wrong = tmp_path / "wrong.phh"
    wrong.write_text(WRONG)
    good = tmp_path / "good.phh"
    good.write_text(HAND_WITH_FLOP_BET)
    badugi = PHH / "famous" / "alice-carol-wikipedia.phh"
    # the files that cannot be dealt come back at once: they wait for the hands before them
    files = [*pluribus[:2], bad, pluribus[2], wrong, badugi, *pluribus[3:], good]
    code, lines = run_replay("--tables", "3", *map(str, files))
    assert lines[-1] == "7 passed, 2 failed, 1 skipped", "\n".join(lines)
    assert code == 1
    results = [json.loads(x) for x in lines[:-1]]
    assert [r["file"] for r in results] == [str(f) for f in files]
    by_file = {r["file"]: r for r in results}
    for f in [*pluribus, good]:
        r = by_file[str(f)]
        assert r["match"] is True and r["got"] == r["expected"], r
    assert by_file[str(bad)]["error"].startswith(f"{bad}:7:")
    assert by_file[str(wrong)]["match"] is False
    assert by_file[str(wrong)]["got"] == [8100, 9900, 12300, 9700]  # the table's, not the file's
    assert by_file[str(badugi)]["match"] is None


@needs_mosquitto
@pytest.mark.timeout(150)
def test_a_table_that_dies_is_replaced_and_the_run_goes_on(tmp_path: Path) -> None:
    files = []
    for i in range(12):
        p = tmp_path / f"hand-{i:02}.phh"
        p.write_text(HAND_WITH_FLOP_BET)
        files.append(str(p))
    results = []
    killed = None
    for r in system_replay(files, "tda-2024", tables=3, timeout=8):
        results.append(r)
        if killed is None:  # a table process killed mid-run (as by the OOM killer)
            victim = next(p for p in multiprocessing.active_children()
                          if p.name == "railguard-replay-t2")  # fmt: skip
            assert victim.pid is not None
            os.kill(victim.pid, signal.SIGKILL)
            killed = victim
    assert [r.file for r in results] == files  # every file, in order
    lost = [r for r in results if not r.match]
    assert 1 <= len(lost) <= DEPTH, [r.line() for r in results]
    for r in lost:
        assert r.error.startswith("table t2 stopped"), r.line()
    assert results[-1].match is True  # handed out after the kill
    assert killed is not None and not killed.is_alive()
    names = {p.name for p in multiprocessing.active_children()}
    assert not any(n.startswith("railguard-replay-") for n in names)  # all stopped
