"""The showdown's scenarios (issue 12), one per rule and profile where the profiles differ,
through ``railguard scenario`` (the simulated table and the real daemon): in the default
suite, so the README's test command runs them."""

from __future__ import annotations

import pytest

from tests.scenario.test_library import LIBRARY, railguard

SHOWDOWN = [
    "vistancia-002/002-ShowdownOrder-1-no-river-bet-left-of-button-first.scn",
    "vistancia-002/002-PlayBoard-1-muck-untabled-no-claim.scn",
    "vistancia-002/002-KillWinning-1-tabled-winner-to-the-muck.scn",
    "club-003/003-Betting-award-losing-hand-live-at-the-award.scn",
    "a2c-000/000-S3-show-4-award-once-every-hand-is-shown.scn",
    "shaved-dog-004/004-AR-6-discarded-unshown-relinquishes.scn",
]


@pytest.mark.timeout(150)
def test_showdown_scenarios_pass() -> None:
    out = railguard(*[str(LIBRARY / s) for s in SHOWDOWN], timeout=140)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1] == f"{len(SHOWDOWN)} passed, 0 failed"
