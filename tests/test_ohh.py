"""controller.ohh: HandRecord -> OHH 1.4, validated against the link's schema."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controller.link import schemas
from controller.ohh import to_ohh, totals
from controller.replay import expected_stacks, replay_core
from controller.rules.profile import get_profile
from hwsim.phh import load_phh
from tests.shared import PHH, need

FILES = [
    "pluribus/83/0.phh",
    "pluribus/83/100.phh",
    "pluribus/83/63.phh",
    "wsop-2023-43-day5/1.phh",
    "wsop-2023-43-day5/2.phh",
    "famous/dwan-ivey-2009.phh",
]
START = datetime(2024, 5, 1, 18, 30, tzinfo=UTC)


@pytest.mark.parametrize("name", FILES)
def test_ohh_of_replayed_hand(name: str) -> None:
    hh = load_phh(need(PHH / name))
    rec, _ = replay_core(hh, get_profile("tda-2024"))
    assert rec is not None
    ohh = to_ohh(rec, START, table_size=9)
    schemas.validate("ohh", ohh)
    assert ohh["start_date_utc"] == "2024-05-01T18:30:00Z"
    assert ohh["site_name"] == "railguard"
    put, pots, won = totals(ohh)
    assert put == pots == won
    # final stacks: starting stack - put in + won
    by_id = {p["id"]: p["starting_stack"] for p in ohh["players"]}
    for r in ohh["rounds"]:
        for a in r["actions"]:
            by_id[a["player_id"]] -= int(a.get("amount", 0)) if a["action"] != "Dealt Cards" else 0
    for p in ohh["pots"]:
        for w in p["player_wins"]:
            by_id[w["player_id"]] += w["win_amount"]
    for u in ohh.get("uncalled_bets", ()):
        by_id[u["player_id"]] += u["amount"]
    # the source file's finishing stacks, else pokerkit's play of the source file (the dealer
    # seats p1, p2, ... at seats 1, 2, ...)
    expected = expected_stacks(hh)
    assert expected is not None
    source = {i + 1: int(x) for i, x in enumerate(expected)}
    assert by_id == source
    assert {p["id"]: p["final_stack"] for p in ohh["players"]} == source
    if hh.players:
        assert [p["name"] for p in ohh["players"]] == list(hh.players)
    streets = [r["street"] for r in ohh["rounds"] if r["street"] != "Showdown"]
    assert streets == ["Preflop", "Flop", "Turn", "River"][: len(streets)]
    showdown = [r for r in ohh["rounds"] if r["street"] == "Showdown"]
    assert len(showdown) <= 1 and (not showdown or ohh["rounds"][-1] is showdown[0])
    dealt = [a for a in ohh["rounds"][0]["actions"] if a["action"] == "Dealt Cards"]
    assert len(dealt) == len(rec.seats)
    board = [c for r in ohh["rounds"] for c in r.get("cards", [])]
    assert board == [str(c) for c in rec.board]


def test_naive_datetime_is_utc() -> None:
    hh = load_phh(need(PHH / FILES[0]))
    rec, _ = replay_core(hh, get_profile("tda-2024"))
    assert rec is not None
    ohh = to_ohh(rec, datetime(2024, 1, 2, 3, 4, 5))
    assert ohh["start_date_utc"] == "2024-01-02T03:04:05Z"
