"""Injected dealer errors (hwsim.inject) through the rules core: every kind under several
profiles raises its alert, the virtual dealer performs the profile's remedy, and the hand
still ends with the recorded finishing stacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.replay import replay_core_injected, replay_file, replay_paths
from controller.rules.decisions import HandComplete
from controller.rules.engine import TableCore
from controller.rules.events import ButtonPress, CardPlaced, ZoneKind
from controller.rules.profile import get_profile
from hwsim.dealer import plan_hand
from hwsim.inject import KINDS, Injection, InjectionError, parse_kind
from hwsim.phh import load_phh, parse_phh
from tests.replay.hands import ALL_IN_PREFLOP, HAND_WITH_FLOP_BET
from tests.shared import PHH, requires

ROOT = Path(__file__).resolve().parents[2]
needs_data = requires(PHH)  # fails, never skips, without ../shared

PROFILES = ("tda-2024", "a2c-000", "club-003", "roberts-rules", "shaved-dog-004")


def _flop_hand(tmp_path: Path) -> Path:
    p = tmp_path / "flop-bet.phh"
    p.write_text(HAND_WITH_FLOP_BET)
    return p


def _kinds() -> list[str]:
    return [*KINDS, "exposed:1"]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("kind", _kinds())
def test_every_kind_raises_its_alert_and_keeps_the_result(
    tmp_path: Path, kind: str, profile: str
) -> None:
    r = replay_file(_flop_hand(tmp_path), get_profile(profile), kind)
    assert r.injected, r.line()
    assert KINDS[parse_kind(kind)[0]][0].value in r.alerts, r.line()
    assert r.match is True, r.line()
    assert r.got == [8100, 9900, 12300, 9700]
    assert r.remedy


@pytest.mark.parametrize(
    ("kind", "profile", "remedy"),
    [
        ("exposed", "tda-2024", "dealt on"),  # 3rd card: a replacement, not a misdeal
        ("exposed", "club-003", "misdeal"),  # any exposed card is a misdeal
        ("exposed:1", "tda-2024", "misdeal"),
        ("four-card-flop", "tda-2024", "fourth card moved to the burn"),
        ("four-card-flop", "a2c-000", "flop returned"),
        ("premature-turn", "tda-2024", "turn is dealt without a burn"),
        ("premature-turn", "a2c-000", "river is dealt without a burn"),
        ("extra-hole-card", "tda-2024", "misdeal"),
        ("extra-hole-card", "a2c-000", "flop burn"),
        ("wrong-first-seat", "roberts-rules", "misdeal"),
        ("wrong-first-seat", "club-003", "floor ruling"),
        ("wrong-first-seat", "shaved-dog-004", "card moved to the right seat"),  # silent: a note
    ],
)
def test_the_remedy_follows_the_profile(
    tmp_path: Path, kind: str, profile: str, remedy: str
) -> None:
    r = replay_file(_flop_hand(tmp_path), get_profile(profile), kind)
    assert remedy in r.remedy, r.line()
    assert r.match is True


def test_the_remedy_follows_the_core_not_a_guess() -> None:
    """Told (wrongly) that the exposed third card was a misdeal, the dealer re-deals; the
    core, which called no misdeal, does not end the hand with the recorded stacks."""
    hh = parse_phh(HAND_WITH_FLOP_BET, "flop-bet")
    inj = Injection(plan_hand(hh, get_profile("tda-2024")), "exposed", 3)
    core = TableCore(inj.plan.profile, table="x")
    gen = inj.events()
    ev = next(gen, None)
    rejected = 0
    records = []
    while ev is not None:
        step = core.handle(ev)
        rejected += step.rejected is not None
        records += [d for d in step.decisions if isinstance(d, HandComplete)]
        try:
            ev = gen.send((("exposed_card", "critical"),)) if inj.awaiting else next(gen)
        except StopIteration:
            ev = None
    assert "misdeal" in inj.remedy
    ends = [{s.seat: s.end_stack for s in r.record.seats} for r in records]
    assert rejected or ends != [{1: 8100, 2: 9900, 3: 12300, 4: 9700}]


def _drive_ignoring_feedback(inj: Injection) -> list[object]:
    out: list[object] = []
    gen = inj.events()
    ev = next(gen, None)
    while ev is not None:
        out.append(ev)
        try:
            ev = gen.send(()) if inj.awaiting else next(gen)
        except StopIteration:
            ev = None
    return out


def test_the_error_is_what_the_kind_says() -> None:
    hh = parse_phh(HAND_WITH_FLOP_BET, "flop-bet")
    prof = get_profile("tda-2024")
    _, _, inj = replay_core_injected(hh, prof, "exposed:2")
    assert inj.fired and inj.applied
    plan = plan_hand(hh, prof)
    holes = [e for e in plan.events if isinstance(e, CardPlaced) and e.zone is ZoneKind.HOLE]
    gen_events = _drive_ignoring_feedback(Injection(plan, "exposed", 2))
    press = next(i for i, e in enumerate(gen_events) if isinstance(e, ButtonPress))
    shown = gen_events[press - 1]
    assert isinstance(shown, CardPlaced) and shown.seat == holes[1].seat
    assert shown.card not in {e.card for e in plan.events if isinstance(e, CardPlaced)}


def test_a_hand_without_a_flop_is_not_injected_with_a_board_error() -> None:
    text = HAND_WITH_FLOP_BET.split("           'p3 cbr 300'", maxsplit=1)[0]
    text += "'p3 cbr 300', 'p4 f', 'p1 f', 'p2 f']\nfinishing_stacks = [9950, 9900, 10150, 10000]\n"
    hh = parse_phh(text, "no-flop")
    for kind in ("four-card-flop", "missing-burn", "premature-turn"):
        rec, _, inj = replay_core_injected(hh, get_profile("tda-2024"), kind)
        assert not inj.applied and rec is not None and not inj.problem()


def test_unknown_kinds_are_refused() -> None:
    with pytest.raises(InjectionError, match="unknown injection 'boxed'"):
        parse_kind("boxed")
    with pytest.raises(InjectionError, match="only exposed takes"):
        parse_kind("missing-burn:2")
    assert parse_kind("exposed:4") == ("exposed", 4)


@needs_data
@pytest.mark.parametrize("profile", ("tda-2024", "a2c-000", "club-003"))
def test_recorded_hands_with_every_kind(profile: str) -> None:
    files = [*sorted((PHH / "pluribus").rglob("*.phh"))[::1200], PHH / "famous"]
    prof = get_profile(profile)
    for kind in _kinds():
        results = list(replay_paths([str(f) for f in files], prof, kind))
        bad = [r.line() for r in results if r.match is False]
        assert not bad, "\n".join(bad)
        assert sum(r.injected for r in results) >= 1, kind
        for r in (r for r in results if r.match is not None):
            d = json.loads(r.line())
            assert d["inject"] == (kind if kind != "exposed" else "exposed:3")


@needs_data
def test_dwan_ivey_with_an_exposed_first_card() -> None:
    hh = load_phh(PHH / "famous" / "dwan-ivey-2009.phh")
    rec, alerts, inj = replay_core_injected(hh, get_profile("tda-2024"), "exposed:1")
    assert rec is not None and "misdeal" in inj.remedy
    assert next(a.code.value for a in alerts) == "exposed_card"


def test_no_four_card_flop_in_a_run_out() -> None:
    """With nobody left to bet, a fourth card after the flop is a turn dealt without a burn:
    the dealer makes no four-card flop there, but a missing burn still raises its alert."""
    hh = parse_phh(ALL_IN_PREFLOP, "all-in")
    rec, _, inj = replay_core_injected(hh, get_profile("tda-2024"), "four-card-flop")
    assert not inj.applied and rec is not None
    rec, alerts, inj = replay_core_injected(hh, get_profile("tda-2024"), "missing-burn")
    assert inj.applied and "missing_burn" in [a.code.value for a in alerts]
    assert rec is not None
    assert sorted((s.seat, s.end_stack) for s in rec.seats) == [(1, 950), (2, 0), (3, 2050)]
