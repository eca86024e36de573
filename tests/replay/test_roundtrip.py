"""The round trip a venue makes (issue 12): recorded hands dealt through the whole system
(``railguard replay --broker``: pty reader board, GPIO, the daemon, mosquitto) into a
``railguard venue-log`` of the venue's own, exported with ``venue-log export --format phh``,
played by pokerkit to the source files' actions and finishing stacks, and replayed by
``railguard replay --core-only``.

The sample: a checked-through flop and turn, a river showdown with an elimination, an all-in
before the river, a big blind ante, a checked-through river whose showdown has a hand shown
and one mucked (two console presses in a row), and the side-pot hand. The whole corpus:
docs/replay.md.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.replay import compare_stacks
from controller.replay_system.table import LAYOUT as REPLAY_LAYOUT
from controller.venuelog.store import open_store
from hwsim.broker import plain_broker
from hwsim.phh import HandHistory, load_phh
from tests.replay.cli import ROOT, run_replay
from tests.replay.hands import SIDE_POTS
from tests.replay.test_system_replay import needs_data, needs_mosquitto
from tests.shared import PHH

pokerkit = pytest.importorskip("pokerkit")

RAILGUARD = Path(sys.executable).parent / "railguard"
SAMPLE = [
    "pluribus/100/0.phh",  # flop and turn checked through
    "pluribus/31/11.phh",  # a river showdown; seat 2 is eliminated
    "pluribus/84/7.phh",  # all in on the turn
    "wsop-2023-43-day5/2.phh",  # a big blind ante
    "pluribus/43/34.phh",  # the river checked through, a showdown: one shows, one mucks
]


def _cmd(*args: str) -> list[str]:
    base = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    return [*base, *args]


def _norm(action: str) -> str:
    """A flop's three cards in sorted order: the reader senses them in one scan, their order
    is unknown (and means nothing to the game)."""
    if action.startswith("d db "):
        cards = action[5:]
        return "d db " + "".join(sorted(cards[i : i + 2] for i in range(0, len(cards), 2)))
    return action


def _key(actions: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A hand's identity: its hole cards and board (the dealer deals the recorded cards)."""
    return tuple(sorted(_norm(a) for a in actions if a.startswith(("d dh", "d db"))))


def _moves(actions: list[str] | tuple[str, ...]) -> list[str]:
    return [_norm(a) for a in actions if " sm" not in a and not a.startswith("#")]


def _wait(cond: object, what: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not cond():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.1)


@needs_mosquitto
@needs_data
@pytest.mark.timeout(150)
def test_hands_round_trip_through_the_venue_logger_and_pokerkit(tmp_path: Path) -> None:
    side = tmp_path / "side-pots.phh"
    side.write_text(SIDE_POTS)
    sources = [PHH / n for n in SAMPLE] + [side]
    db = tmp_path / "venue.db"
    with plain_broker() as broker:
        log = (tmp_path / "venue-log.txt").open("w+")
        logger = subprocess.Popen(
            _cmd("venue-log", "run", "--db", str(db), "--host", "127.0.0.1", "--port",
                 str(broker.port), "--allow-plaintext", "--instance", "roundtrip",
                 "--group", "roundtrip"),
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            _wait(lambda: "connected" in Path(log.name).read_text(), "the venue logger")
            code, lines = run_replay(
                "--broker", f"mqtt://127.0.0.1:{broker.port}", "--tables", "2",
                *map(str, sources),
            )  # fmt: skip
            assert code == 0 and lines[-1] == f"{len(sources)} passed, 0 failed", "\n".join(lines)
            for line in lines[:-1]:  # no false alert: an elimination included
                assert "rejected" not in json.loads(line).get("alerts", []), line
            _wait(lambda: open_store(str(db)).count() >= len(sources), "the stored hands")
        finally:
            os.killpg(logger.pid, signal.SIGINT)
            try:
                logger.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(logger.pid, signal.SIGKILL)
                logger.wait(5)
            log.close()
    out = tmp_path / "export"
    done = subprocess.run(
        _cmd("venue-log", "export", "--db", str(db), "--format", "phh", "--out", str(out)),
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("*.phh"))
    assert len(files) == len(sources)

    by_key: dict[tuple[str, ...], HandHistory] = {}
    for path in sources:
        with path.open("rb") as fp:
            by_key[_key(pokerkit.HandHistory.load(fp).actions)] = load_phh(path)
    for f in files:
        with f.open("rb") as fp:
            exported = pokerkit.HandHistory.load(fp)
        states = list(exported)  # pokerkit plays the record (no repair needed)
        hh = by_key.pop(_key(exported.actions))
        with open(hh.source, "rb") as fp:
            source = pokerkit.HandHistory.load(fp)
        assert _moves(exported.actions) == _moves(source.actions), f
        played = [int(x) for x in states[-1].stacks]
        ok, expected, _ = compare_stacks(hh, played, odd_chip=True)
        assert ok, f"{f.name}: pokerkit ends {played}, the source {expected}"
        assert list(exported.finishing_stacks) == played
        if any(hh.players):
            assert list(exported.players) == list(hh.players)
        # the table's own seat count (the replay's simulated table seats ten), not a default
        assert exported.seat_count == REPLAY_LAYOUT.seats
    assert not by_key

    # and railguard's own replay reads the export back
    code, lines = run_replay("--core-only", str(out))
    assert code == 0 and lines[-1] == f"{len(sources)} passed, 0 failed", "\n".join(lines)
