"""The false-alarm budget (issue 24): a recorded hand is clean play, so ``railguard replay``
fails a hand that raises any alert above info, unless the alert is its profile's legitimate
refusal of the hand (``controller.replay.REFUSALS``: 004 AR-9's three-raise cap), which is
reported per hand and counted apart. A sample of the shared corpus under every profile
through the core, and a few hands through the whole system (pty board, daemon, MQTT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from controller.replay import REFUSALS, ReplayResult, judged, replay_file
from controller.rules.profile import builtin_profile, builtin_profile_names
from tests.replay.cli import run_replay
from tests.shared import PHH, requires

needs_data = requires(PHH)  # fails, never skips, without ../shared

# 004 AR-9 [L59]: "There is a three-raise limit per betting round." A fourth raise.
FOUR_RAISES = """
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000]
actions = ['d dh p1 AsKs', 'd dh p2 7h2d', 'd dh p3 QcQd',
           'p3 cbr 300', 'p1 cbr 900', 'p2 f', 'p3 cbr 2000', 'p1 cbr 4000', 'p3 f']
finishing_stacks = [12100, 9900, 8000]
"""


@needs_data
@pytest.mark.parametrize("profile", builtin_profile_names())
def test_a_sample_of_the_corpus_raises_no_false_alarm(profile: str) -> None:
    files = sorted(PHH.rglob("*.phh"))[::40]  # every folder, about 210 hands
    assert len(files) > 200
    prof = builtin_profile(profile)
    results = [replay_file(f, prof) for f in files]
    false_alarms = [r.line() for r in results if r.alarms and not r.refused]
    assert false_alarms == []
    assert [r.line() for r in results if r.failed] == []
    assert all(r.refused in REFUSALS.get(profile, {}) for r in results if r.refused)
    assert sum(r.match is True for r in results) > 190


def test_a_profile_refusal_is_counted_apart_with_its_clause(tmp_path: Path) -> None:
    """004's raise cap refuses a fourth raise: the hand says so, with 004 AR-9, and is
    neither passed nor failed; the same hand under tda-2024 (no cap) passes."""
    f = tmp_path / "four-raises.phh"
    f.write_text(FOUR_RAISES)
    r = replay_file(f, builtin_profile("shaved-dog-004"))
    assert r.refused == "raise_limit" and "AR-9" in r.clause and "[L59]" in r.clause
    assert not r.failed
    line = json.loads(r.line())
    assert line["refused"] == "raise_limit" and "three-raise limit" in line["clause"]
    ok = replay_file(f, builtin_profile("tda-2024"))
    assert ok.match is True and ok.alarms == () and not ok.refused


def test_an_alert_above_info_fails_a_hand_whose_stacks_match() -> None:
    r = ReplayResult("x.phh", "1", True, [1], [1], alarms=("losing_hand_live",))
    j = judged(r, "club-003")
    assert j.failed and "losing_hand_live" in j.error
    # the same alert is not another profile's refusal either; 004's refusal is its own
    assert judged(replace_alarms(r, ("raise_limit",)), "tda-2024").failed
    assert not judged(replace_alarms(r, ("raise_limit",)), "shaved-dog-004").failed
    assert judged(replace_alarms(r, ()), "club-003") == replace_alarms(r, ())


def replace_alarms(r: ReplayResult, alarms: tuple[str, ...]) -> ReplayResult:
    return ReplayResult(r.file, r.hand, r.match, r.expected, r.got, alarms=alarms)


# limped pots (the sweep is the big blind's check: under 002 it drew CHIPS_TAKEN_BACK for
# each limper through the daemon) and contested showdowns (003's LOSING_HAND_LIVE)
SYSTEM_SAMPLE = ("pluribus/30/45", "pluribus/30/63", "pluribus/30/21", "pluribus/30/27")


@needs_data
@pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)
@pytest.mark.timeout(240)
@pytest.mark.parametrize("profile", ["vistancia-002", "club-003"])
def test_a_sample_through_the_whole_system_raises_no_false_alarm(profile: str) -> None:
    files = [str(PHH / f"{name}.phh") for name in SYSTEM_SAMPLE]
    code, lines = run_replay("--profile", profile, "--tables", "2", *files, timeout=200)
    assert lines[-1] == f"{len(files)} passed, 0 failed", "\n".join(lines)
    assert code == 0
    for r in map(json.loads, lines[:-1]):
        assert r["match"] is True and "alarms" not in r, r
