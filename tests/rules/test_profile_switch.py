"""The venue's profile change as a core event (issue 21, profile_switch.py): ``SetProfile``
applies at once between hands; during a hand the core holds it as its pending profile (its
own state, one writer) and applies it once the hand is over, so the next hand is judged by
it; a misdeal's re-deal is the same hand and keeps it pending; a profile whose seats do not
cover the occupied ones is refused with the table unchanged; the pending profile is part of
the core's export and restore."""

from __future__ import annotations

import dataclasses

import pytest
from table_builder import Table

from controller.rules.decisions import ProfileChanged
from controller.rules.engine import TableCore
from controller.rules.events import SetProfile
from controller.rules.phases import Phase
from controller.rules.profile import Profile, builtin_profile


def _changes(t: Table) -> list[ProfileChanged]:
    return [d for d in t.decisions if isinstance(d, ProfileChanged)]


def _short(seats: int) -> Profile:
    return dataclasses.replace(builtin_profile("tda-2024"), name=f"short-{seats}",
                               max_seats=seats)  # fmt: skip


def _hand_to_the_end(t: Table) -> Table:
    t.call_round().flop("3s", "8d", "9h").call_round().turn("Th").call_round()
    t.river("4s").call_round()
    assert t.phase is Phase.COMPLETE
    return t


def test_between_hands_the_profile_applies_at_once() -> None:
    t = Table("tda-2024", 3).mark()
    t.send(SetProfile(t.now(), builtin_profile("club-003")))
    assert t.last().rejected is None
    assert t.core.profile.name == "club-003" and t.core.pending_profile is None
    assert t.snap.profile == "club-003"
    [change] = _changes(t)
    assert (change.profile, change.previous, change.from_hand) == ("club-003", "tda-2024", 1)
    assert t.core.max_seats == 9


def test_mid_hand_it_waits_for_the_hand_to_end_and_judges_the_next_hand() -> None:
    t = Table("tda-2024", 3).post_blinds().deal().mark()
    t.send(SetProfile(t.now(), builtin_profile("a2c-000")))
    assert t.last().rejected is None and _changes(t) == []
    assert t.core.profile.name == "tda-2024" and t.snap.profile == "tda-2024"
    assert t.core.pending_profile == builtin_profile("a2c-000")
    t.call_round().flop("3s", "8d", "9h")
    assert t.core.profile.name == "tda-2024"  # still this hand's
    t.call_round().turn("Th").call_round().river("4s").mark().call_round()
    assert t.phase is Phase.COMPLETE
    # the step that ended the hand: its record, then the change for the next hand
    [change] = _changes(t)
    assert (change.profile, change.previous, change.from_hand) == ("a2c-000", "tda-2024", 2)
    kinds = [type(d).__name__ for d in t.last().decisions]
    assert kinds.index("HandComplete") < kinds.index("ProfileChanged")
    assert t.records[-1].profile == "tda-2024"
    assert t.core.profile.name == "a2c-000" and t.core.pending_profile is None
    t.clear().post_blinds().deal()
    _hand_to_the_end(t)
    assert t.records[-1].profile == "a2c-000" and t.records[-1].hand_no == 2


def test_the_profile_in_force_set_again_cancels_a_pending_one() -> None:
    t = Table("tda-2024", 3).post_blinds().deal()
    t.send(SetProfile(t.now(), builtin_profile("a2c-000")))
    t.send(SetProfile(t.now(), builtin_profile("tda-2024")))
    assert t.last().rejected is None and t.core.pending_profile is None
    t.mark()
    _hand_to_the_end(t)
    assert _changes(t) == [] and t.core.profile.name == "tda-2024"


def test_a_misdeal_re_deals_the_same_hand_under_the_same_profile() -> None:
    """G1: the re-deal is the same hand; the profile set during it waits for its end."""
    t = Table("tda-2024", 3).post_blinds()
    wrong = t.deal_order()[1]
    t.misdeal_first_card(wrong)
    assert t.phase is Phase.MISDEAL
    t.send(SetProfile(t.now(), builtin_profile("roberts-rules")))
    assert t.last().rejected is None and t.core.profile.name == "tda-2024"
    t.clear()
    assert t.core.redeal_pending and t.phase is Phase.IDLE
    assert t.core.profile.name == "tda-2024" and t.core.pending_profile is not None
    t.mark().deal()
    _hand_to_the_end(t)
    assert t.records[-1].profile == "tda-2024" and t.records[-1].deal_no == 2
    assert [c.profile for c in _changes(t)] == ["roberts-rules"]


def test_a_button_draw_keeps_its_rule_until_it_is_over() -> None:
    t = Table("tda-2024", {1: 1000, 3: 1000})
    t.start_draw().mark()
    t.send(SetProfile(t.now(), builtin_profile("club-003")))  # first ace
    assert t.core.profile.name == "tda-2024" and _changes(t) == []
    t.hole(1, "Qd").hole(3, "Ks")  # high card (tda-2024's rule): seat 3
    assert t.snap.button == 3 and t.phase is Phase.DRAW
    t.clear()
    assert t.phase is Phase.IDLE and t.core.profile.name == "club-003"
    assert [c.from_hand for c in _changes(t)] == [1]


@pytest.mark.parametrize("mid_hand", [False, True])
def test_a_profile_too_short_for_the_seats_is_refused_and_changes_nothing(
    mid_hand: bool,
) -> None:
    t = Table("tda-2024", {1: 1000, 4: 1000, 7: 1000})
    if mid_hand:
        t.post_blinds().deal()
    t.send(SetProfile(t.now(), builtin_profile("a2c-000")))  # pending mid-hand
    before = t.core.export()
    step = t.send(SetProfile(t.now(), _short(6)))
    assert step.rejected is not None and step.rejected.code == "profile_seats"
    assert str(step.rejected) == "profile 'short-6' has 6 seats; seats [7] are occupied"
    assert step.decisions == ()
    assert t.core.export() == before  # the earlier pending one kept too
    assert not t.core.can(SetProfile(t.now(), _short(6)))
    assert t.core.can(SetProfile(t.now(), _short(7)))


def test_the_pending_profile_is_exported_and_restored() -> None:
    t = Table("tda-2024", 3).post_blinds().deal()
    t.send(SetProfile(t.now(), builtin_profile("a2c-000")))
    data = t.core.export()
    assert data.pending_profile == builtin_profile("a2c-000")
    again = TableCore(builtin_profile("club-003"), "t1")
    again.restore(data)
    assert again.pending_profile == builtin_profile("a2c-000")
    assert again.profile.name == "tda-2024" and again.export() == data
    # without one: a restore clears the restored core's own
    again.restore(dataclasses.replace(data, pending_profile=None))
    assert again.pending_profile is None
    # the restored table ends the hand and applies it as the first would
    again.restore(data)
    t2 = Table("tda-2024")
    t2.core = again
    t2.t = t.t
    t2.mark()
    _hand_to_the_end(t2)
    assert again.profile.name == "a2c-000"
    assert [c.from_hand for c in _changes(t2)] == [2]
