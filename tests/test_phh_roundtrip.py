"""Hand records that tracking tools trust (issue 12): a recorded hand dealt through the rules
core, written as OHH and exported as PHH, is played by pokerkit (an outside reader) to the
source file's actions and finishing stacks, and read back by railguard's own replay.

The whole system (table daemon, broker, venue logger) is in tests/replay/test_roundtrip.py;
this is the same chain without the processes, over a sample of the shared corpus and the
hand-written side-pot hand.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.ohh import to_ohh
from controller.replay import compare_stacks, expected_stacks, replay_core
from controller.rules.profile import get_profile
from controller.venuelog.export import export_phh_dir, phh_text
from hwsim.phh import HandHistory, load_phh, parse_phh
from tests.replay.hands import SIDE_POTS
from tests.shared import PHH, need

pokerkit = pytest.importorskip("pokerkit")

SAMPLE = [
    "pluribus/100/0.phh",  # the flop and turn checked through (seat 1 before seat 4)
    "pluribus/31/11.phh",  # a showdown on the river
    "pluribus/84/7.phh",  # all in on the turn: the hands are shown before the river
    "pluribus/30/7.phh",  # the river bet called: a showdown the source settles with a muck
    "wsop-2023-43-day5/2.phh",  # a big blind ante
    "wsop-2023-43-day5/62.phh",  # a big blind ante
    "pluribus/32/23.phh",  # a split pot with an odd chip
]
START = datetime(2024, 5, 1, 18, 30, tzinfo=UTC)


def _moves(actions: list[str] | tuple[str, ...]) -> list[str]:
    """The deal and the players' actions, without the showdown (the source may muck a
    losing hand, the table tables every hand it read) and comments."""
    out = []
    for line in actions:
        a = line.split("#")[0].strip()
        if a and " sm" not in a:
            out.append(a)
    return out


def _source_hand(name: str, tmp_path: Path) -> HandHistory:
    if name == "SIDE_POTS":
        path = tmp_path / "side-pots.phh"
        path.write_text(SIDE_POTS)
        return load_phh(path)
    return load_phh(need(PHH / name))


def _round_trip(hh: HandHistory, tmp_path: Path) -> tuple[str, list[int]]:
    rec, _ = replay_core(hh, get_profile("tda-2024"))
    assert rec is not None
    ohh = to_ohh(rec, START, table_name="t1", table_size=6)
    text = phh_text(ohh)
    by_seat = {s.seat: s.end_stack for s in rec.seats}
    return text, [by_seat[i + 1] for i in range(hh.player_count)]


@pytest.mark.parametrize("name", [*SAMPLE, "SIDE_POTS"])
def test_exported_phh_plays_in_pokerkit_as_the_source(name: str, tmp_path: Path) -> None:
    hh = _source_hand(name, tmp_path)
    text, table = _round_trip(hh, tmp_path)
    exported = pokerkit.HandHistory.loads(text)
    states = list(exported)  # raises if pokerkit cannot play (or repair) the record
    played = [int(x) for x in states[-1].stacks]
    # pokerkit's outcome of the exported record is the source's outcome (an odd chip, which
    # the source splits in halves, goes by the table's rule)
    ok, expected, _ = compare_stacks(hh, played, odd_chip=True)
    assert ok, f"pokerkit plays the export to {played}, the source ends {expected}"
    # and the record's own finishing stacks are the table's
    assert list(exported.finishing_stacks) == table
    with open(hh.source) as f:
        source_actions = pokerkit.HandHistory.loads(f.read()).actions
    assert _moves(exported.actions) == _moves(source_actions)
    if any(hh.players):
        assert list(exported.players) == list(hh.players)
    assert exported.seat_count == 6


def test_showdown_is_in_the_record(tmp_path: Path) -> None:
    """The river showdown of pluribus/31/11: both hands tabled, last aggressor first."""
    hh = load_phh(need(PHH / "pluribus/31/11.phh"))
    rec, _ = replay_core(hh, get_profile("tda-2024"))
    assert rec is not None
    ohh = to_ohh(rec, START, table_size=6)
    last = ohh["rounds"][-1]
    assert last["street"] == "Showdown"
    shown = [(a["player_id"], a["action"], "".join(a["cards"])) for a in last["actions"]]
    # the source: 'p2 sm 7h5s', 'p3 sm QdAd' (p2, the river's last aggressor, first)
    assert shown == [(2, "Shows Cards", "7h5s"), (3, "Shows Cards", "QdAd")]


def test_phh_export_is_one_file_per_hand_that_replay_reads(tmp_path: Path) -> None:
    hands = []
    for i, name in enumerate(SAMPLE[:3]):
        hh = load_phh(need(PHH / name))
        rec, _ = replay_core(hh, get_profile("tda-2024"))
        assert rec is not None
        hands.append({"hand_id": f"v1-t1-{i + 1}", "ohh": to_ohh(rec, START, table_size=6)})
    out = tmp_path / "export"
    assert export_phh_dir(hands, out) == 3
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["v1-t1-1.phh", "v1-t1-2.phh", "v1-t1-3.phh"]
    for f, name in zip(files, SAMPLE[:3], strict=True):
        back = load_phh(f)  # railguard's own reader: variant, finishing stacks and all
        rec, _ = replay_core(back, get_profile("tda-2024"))
        assert rec is not None
        src = expected_stacks(load_phh(need(PHH / name)))
        assert src is not None
        assert [s.end_stack for s in rec.seats] == [int(x) for x in src]
        with f.open("rb") as fp:
            list(pokerkit.HandHistory.load(fp))


def test_uncalled_bet_is_returned_not_won() -> None:
    """pluribus/100/0: seat 1's river bet of 230 is not called; it is given back, and the
    pot seat 1 wins is what was called (source: 10310 = 10000 - 210 + 520)."""
    hh = load_phh(need(PHH / "pluribus/100/0.phh"))
    rec, _ = replay_core(hh, get_profile("tda-2024"))
    assert rec is not None
    assert rec.returned == ((1, 230),)
    assert [(p.amount, p.winners) for p in rec.pots] == [(210 + 210 + 100, (1,))]


def test_short_blind_excess_is_not_a_pot_won() -> None:
    """A big blind all in for 60 against a 50 small blind that calls... the 10 nobody can
    match is the big blind's own: returned, never among the winners of a pot."""
    text = """
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [2000, 60, 2000]
actions = ['d dh p1 7c2d', 'd dh p2 AsAh', 'd dh p3 8s6s', 'p3 f', 'p1 f']
"""
    hh = parse_phh(text, "short-blind")
    rec, _ = replay_core(hh, get_profile("tda-2024"))
    assert rec is not None
    assert rec.returned == ((2, 10),)
    assert [(p.amount, p.winners) for p in rec.pots] == [(100, (2,))]
    assert [s.end_stack for s in rec.seats] == [1950, 110, 2000]
