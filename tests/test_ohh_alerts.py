"""The alerts of a hand in its record (``ohh.alerts``, docs/mqtt.md "Hand records"): a
recorded hand of the shared corpus dealt through the rules core with one dealer error
injected (hwsim/inject.py, as ``railguard replay --inject`` does). What must be in the record
comes from the injection's own description: its code (``KINDS``) and when the error is made
(during the deal, while the flop is dealt, while the turn is dealt)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controller.link import schemas
from controller.ohh import to_ohh
from controller.replay import replay_core, replay_core_injected
from controller.rules.profile import get_profile
from hwsim.inject import KINDS
from hwsim.phh import load_phh
from tests.shared import PHH, need

SOURCE = "pluribus/31/11.phh"  # preflop raise and call, flop, turn and river bet, showdown
START = datetime(2024, 5, 1, 18, 30, tzinfo=UTC)


def _ohh(inject: str | None) -> dict[str, object]:
    hh = load_phh(need(PHH / SOURCE))
    if inject is None:
        rec, _ = replay_core(hh, get_profile("tda-2024"))
    else:
        rec, _, _ = replay_core_injected(hh, get_profile("tda-2024"), inject)
    assert rec is not None
    ohh = to_ohh(rec, START, table_size=6)
    schemas.validate("ohh", ohh)
    return ohh


def _last_action(ohh: dict[str, object], street: str) -> int:
    rounds = ohh["rounds"]
    assert isinstance(rounds, list)
    rnd = next(r for r in rounds if r["street"] == street)
    return int(rnd["actions"][-1]["action_number"])


@pytest.mark.parametrize(
    ("inject", "street", "after"),
    [
        ("exposed", "Preflop", None),  # a hole card exposed during the deal
        ("four-card-flop", "Flop", "Preflop"),  # made while the flop is dealt
        ("missing-burn", "Flop", "Preflop"),  # the first flop card without a burn
        ("premature-turn", "Flop", None),  # the turn dealt during the flop's betting
    ],
)
def test_the_injected_error_is_in_the_record_on_its_street(
    inject: str, street: str, after: str | None
) -> None:
    ohh = _ohh(inject)
    alerts = ohh["alerts"]
    assert isinstance(alerts, list)
    code = KINDS[inject][0].value.upper()
    found = [a for a in alerts if a["code"] == code]
    assert len(found) == 1, alerts
    a = found[0]
    assert a["street"] == street and a["severity"] == "warning" and a["clause"]
    if after is not None:  # between two streets: after the last action of the one before
        assert a["after_action"] == _last_action(ohh, after)


def test_a_misdealt_deal_s_alert_is_in_the_re_deal_s_record() -> None:
    """The first card to the wrong seat under TDA 2024 is a misdeal (000 SECTION 3): the
    hand is dealt again under the same number; the misdealt deal has no record of its own,
    so its alert is the re-deal's, first, before any action."""
    ohh = _ohh("wrong-first-seat")
    assert str(ohh["game_number"]).endswith(".2")  # the second deal of the hand
    alerts = ohh["alerts"]
    assert isinstance(alerts, list)
    assert [(a["code"], a["severity"], a["street"], a["after_action"]) for a in alerts] == [
        ("WRONG_FIRST_SEAT", "critical", "Preflop", 0)
    ]


def test_a_clean_hand_has_no_alert() -> None:
    assert _ohh(None)["alerts"] == []
