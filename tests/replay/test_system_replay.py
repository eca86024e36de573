"""``railguard replay`` without ``--core-only``: recorded hands dealt through the pty reader
board, MockFactory GPIO, the in-process daemon, a private mosquitto and the venue logger;
the records that come back over MQTT are compared with the files' finishing stacks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from controller.replay_system import Pace, system_replay
from hwsim.inject import KINDS
from tests.replay.cli import run_replay
from tests.replay.hands import HAND_WITH_FLOP_BET
from tests.shared import PHH, requires

needs_mosquitto = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)
needs_data = requires(PHH)  # fails, never skips, without ../shared

MALFORMED = """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [1000, 1000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d',
           'p1 xx']
"""


@needs_mosquitto
@needs_data
@pytest.mark.timeout(160)
def test_recorded_hands_through_the_whole_system(tmp_path: Path) -> None:
    pluribus = sorted((PHH / "pluribus").rglob("*.phh"))[:400:80]  # 5 hands
    wsop = PHH / "wsop-2023-43-day5" / "1.phh"  # big-blind ante, 5 players, millions
    dwan = PHH / "famous" / "dwan-ivey-2009.phh"  # every player antes: a second table
    bad = tmp_path / "malformed.phh"
    bad.write_text(MALFORMED)
    badugi = PHH / "famous" / "alice-carol-wikipedia.phh"  # not hold'em: skipped
    files = [*pluribus, wsop, bad, dwan, badugi]
    code, lines = run_replay(*map(str, files))
    assert lines[-1] == "7 passed, 1 failed, 1 skipped", "\n".join(lines)
    assert code == 1
    results = [json.loads(x) for x in lines[:-1]]
    assert [r["file"] for r in results] == [str(f) for f in files]  # in file order
    for r in results[:6] + results[7:8]:
        assert r["match"] is True, r
        assert r["got"] == r["expected"] and len(r["got"]) >= 3
    assert results[-1]["match"] is None and "skipped" in results[-1]["error"]
    err = results[6]
    assert err["match"] is False
    assert err["error"].startswith(f"{bad}:7:") and "xx" in err["error"]


@needs_mosquitto
@pytest.mark.timeout(160)
def test_a_wrong_record_is_a_failure(tmp_path: Path) -> None:
    """The comparison is real: a file whose finishing stacks are off fails."""
    good = tmp_path / "good.phh"
    good.write_text(HAND_WITH_FLOP_BET)
    wrong = tmp_path / "wrong.phh"
    wrong.write_text(
        HAND_WITH_FLOP_BET.replace("[8100, 9900, 12300, 9700]", "[8100, 9900, 12200, 9800]")
    )
    code, lines = run_replay("--quiet", str(good), str(wrong))
    assert lines[-1] == "1 passed, 1 failed", "\n".join(lines)
    assert code == 1
    r = json.loads(lines[0])
    assert r["file"] == str(wrong) and r["got"] == [8100, 9900, 12300, 9700]


@needs_mosquitto
@pytest.mark.timeout(120)
@pytest.mark.parametrize(("kind", "remedy"), [
    ("exposed", "dealt on"),  # console EXPOSED on the GPIO; the replacement after the deal
    ("four-card-flop", "fourth card moved to the burn"),
])  # fmt: skip
def test_injected_errors_through_the_whole_system(tmp_path: Path, kind: str, remedy: str) -> None:
    files = []
    for i in range(2):
        p = tmp_path / f"hand-{i}.phh"
        p.write_text(HAND_WITH_FLOP_BET)
        files.append(str(p))
    results = list(system_replay(files, "tda-2024", inject=kind, timeout=8))
    assert len(results) == 2
    for r in results:
        assert r.match is True, r.line()
        assert r.injected and remedy in r.remedy
        assert KINDS[kind][0].value in r.alerts, r.line()


def test_compressed_time() -> None:
    fastest = Pace.of(0)
    assert (fastest.scan_ms, fastest.debounce_cycles, fastest.pitch_s) == (10, 1, 0.0)
    real = Pace.of(1)
    assert (real.scan_ms, real.debounce_cycles, real.removal_cycles) == (50, 2, 3)
    assert real.pitch_s == pytest.approx(0.3)
    ten = Pace.of(10)  # 5 ms would be ideal: the 10 ms floor, one cycle of debounce
    assert (ten.scan_ms, ten.debounce_cycles, ten.removal_cycles) == (10, 1, 2)
    assert ten.sensor_settle_s == pytest.approx(0.02)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--inject", "boxed"], "unknown injection 'boxed'"),
        (["--broker", "http://x"], "expected mqtt://HOST[:PORT]"),
        (["--speed", "-1"], "--speed must not be negative"),
        (["--profile", "nope"], "unknown profile 'nope'"),
    ],
)
def test_bad_arguments_are_refused_before_anything_starts(args: list[str], message: str) -> None:
    code, lines = run_replay(*args, "x.phh", timeout=30)
    assert code == 2
    assert message in lines[-1]
