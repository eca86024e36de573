"""Real hands under club-003 as a venue that wants the dealer's ACK for the big blind's check
sets it in its own profile file (``bb_option_ack = true``; no packaged profile does since
issue 24, 003 Opening Deal [L89] asks for no press): the virtual dealer (hwsim.dealer) confirms the
big blind's check as a dealer at that table must, and every hand ends with the recorded
finishing stacks and no premature-flop or pending-action alert."""

from __future__ import annotations

from dataclasses import replace

from controller.replay import replay_file
from controller.rules.profile import get_profile
from tests.shared import PHH, requires

needs_data = requires(PHH)  # fails, never skips, without ../shared


@needs_data
def test_club_003_replays_real_hands_with_the_big_blind_check_confirmed() -> None:
    files = sorted(PHH.rglob("*.phh"))[::10]  # a tenth of the corpus, every folder
    assert len(files) > 500
    profile = replace(get_profile("club-003"), bb_option_ack=True)
    results = [replay_file(f, profile) for f in files]
    failed = [r.line() for r in results if r.failed]
    assert failed == []
    flagged = [r.file for r in results if {"premature_flop", "action_pending"} & set(r.alerts)]
    assert flagged == []
    assert sum(r.match is True for r in results) > 500
