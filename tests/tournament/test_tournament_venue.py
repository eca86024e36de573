"""The tournament service against real parts: a private mosquitto, three simulated tables
(real daemons, boards and GPIO simulated: hwsim) and a venue logger. The service draws the
seats (seat commands to the tables), pushes the level, and when a hand played at a table
busts two players (its hand record, as the table sends it) publishes standings in which the
simultaneous bust-outs are ordered by starting stack (000 [L53]) and a balancing proposal
(004 [L111]: within one at six tables or fewer); the floor's confirm moves the player from
one table to the other with his stack (unseat, then seat), and the journal survives a
restart. A level change pushed by the clock reaches every table; the one that has played
a hand shows it pending until its next hand (G11)."""

from __future__ import annotations

import asyncio
import io
import random
import time
from pathlib import Path
from typing import Any

import pytest

from controller.demo.hands import DemoHand
from controller.demo.table import chip_table
from controller.demo.view import View
from controller.tournament.draw import draw_seats
from controller.tournament.event import load_event_text
from controller.tournament.service import EventService
from controller.tournament.state import TournamentState
from controller.tournament.store import Journal
from controller.venuelog.store import open_for_export
from hwsim.layout import wait_until
from hwsim.table import SimTable
from tests.brokers import plain_broker
from tests.tournament.venue import EVENT, PROFILE, Dealer, desk, seats, state, three_handed, venue


def _seed_and_table() -> tuple[int, str, dict[int, tuple[str, int]]]:
    """A draw seed under which some table has 5,000 chips on the button (seat 3, who shoves
    and wins) and 4,500 and 5,000 in the blinds (both bust: unequal starting stacks)."""
    ev = load_event_text(EVENT)
    for seed in range(1000):
        d = draw_seats(TournamentState(ev), ev.entrants, random.Random(seed))
        for t in ("t1", "t2", "t3"):
            at = {s.seat: (s.player, s.stack) for s in d.seatings if s.table == t}
            if at[3][1] == 5000 and sorted((at[1][1], at[2][1])) == [4500, 5000]:
                return seed, t, at
    raise AssertionError("no such draw")


def _bust_hand(at: dict[int, tuple[str, int]]) -> DemoHand:
    """Three-handed: seat 3 (the button) all in with aces, both blinds call all in and lose."""
    stacks = [at[1][1], at[2][1], at[3][1]]
    acts = ["d dh p1 7c2d", "d dh p2 8h3s", "d dh p3 AsAh", f"p3 cbr {stacks[2]}", "p1 cc",
            "p2 cc", "d db KcQd9h", "d db 4s", "d db 5c"]  # fmt: skip
    return three_handed("bust", stacks, acts)


def _shown(sim: SimTable) -> dict[str, Any]:
    """The level a table shows: the one pending (from its next hand), else the one in force."""
    st = state(sim)
    return dict(st.get("pending_level") or st.get("level") or {})


async def _scenario(tmp: Path, port: int) -> dict[str, Any]:
    seed, table, at = _seed_and_table()
    hand = _bust_hand(at)
    out: dict[str, Any] = {"table": table, "at": at}
    async with venue(tmp, port, chip_table([hand])) as tables, desk(tmp, port, seed) as d:
        service, floor = d.service, d.floor
        try:
            drawn = await floor.ask("draw")
            out["draw"] = drawn
            for t, sim in tables.items():  # every seat command reached its table
                await wait_until(lambda sim=sim: len(seats(sim)) == 3, f"{t} seated", 15)
            out["seated"] = {t: seats(sim) for t, sim in tables.items()}
            out["clock"] = await floor.ask("clock", op="start")
            sim = tables[table]
            await wait_until(
                lambda: state(sim).get("level", {}).get("big_blind") == 50,
                "level 1 pushed",
                15,
            )
            dealer = Dealer(sim, View(io.StringIO(), colour=False), random.Random(0), 0.0)
            await dealer.setup()
            await dealer.play(0, hand)
            out["outcome"] = dealer.outcome
            await wait_until(
                lambda: floor.last.get("standings", {}).get("players_left") == 7,
                "the standings after the bust-outs",
                20,
            )
            await wait_until(
                lambda: (floor.last.get("proposal") or {}).get("proposal"), "a proposal", 10
            )
            out["standings"] = floor.last["standings"]
            out["proposal"] = floor.last["proposal"]["proposal"]
            out["clock_topic"] = floor.last["clock"]
            out["stale"] = await floor.ask("confirm", proposal=999)
            out["confirm"] = await floor.ask("confirm", proposal=out["proposal"]["id"])
            out["after"] = {t: seats(s) for t, s in tables.items()}
            # a busted player seated again by hand (as the console's seat form would):
            # the event calls it irregular (004 [L135]: no re-entry)
            free = next(n for n in (1, 2, 3) if n not in out["after"][table])
            gone = min(at[1], at[2], key=lambda x: x[1])[0]
            await tables[table].venue.do(
                "seat", seat=free, player_id=gone, name="Back Again", stack=4500
            )
            await wait_until(
                lambda: floor.last["standings"].get("irregular"),
                "the irregular seat in the standings",
                15,
            )
            out["irregular"] = floor.last["standings"]["irregular"]
            await tables[table].venue.do("unseat", seat=free)
            # the director moves the clock on past level 1: level 2 goes to every table
            out["adjust"] = await floor.ask("clock", op="adjust", seconds=30 * 60)
            for t, s in tables.items():
                await wait_until(lambda s=s: _shown(s).get("big_blind") == 100, f"{t}: level 2", 15)
            out["levels"] = {t: state(s) for t, s in tables.items()}
            await wait_until(
                lambda: (floor.last.get("proposal") or {}).get("proposal") is None,
                "no proposal after the move",
                10,
            )
        finally:
            out["state"] = service.state
            out["violations"] = floor.violations
    link = d.link
    # the journal brings the event back as it was (a restart)
    again = Journal(tmp / "ev1.db")
    out["replayed"] = again.open_event(EVENT, "ev1.toml")
    again.close()
    # a service down during the hand: its journal has the draw only; the venue logger's
    # store has the record, and the catch-up applies it
    late = Journal(tmp / "late.db")
    svc = EventService(
        late.open_event(EVENT, "ev1.toml"),
        late,
        random.Random(seed),
        time.time,
        link.send,
        link.publish,
    )
    svc.commit(out["state"].draws[0])
    store = open_for_export(tmp / "venue.db")
    out["caught_up"] = (svc.catch_up(store), svc.catch_up(store))  # the second finds none
    store.close()
    out["late"] = svc.state
    late.close()
    return out


@pytest.mark.clause("004-TG-13", profiles=(PROFILE,))
def test_a_bust_out_at_a_table_makes_standings_and_a_balancing_proposal(tmp_path: Path) -> None:
    with plain_broker() as b:
        out = asyncio.run(asyncio.wait_for(_scenario(tmp_path, b.port), 150))
    at, table = out["at"], out["table"]
    assert out["violations"] == []  # what the service published kept its schema
    assert out["draw"]["ok"], out["draw"]
    # the draw's seats are the tables' seats, each entrant with the event's stack
    drawn = {(r["table"], r["seat"]): r["player_id"] for r in out["draw"]["data"]["seated"]}
    for t, at_t in out["seated"].items():
        assert {(t, s): p for s, (p, _) in at_t.items()} == {
            k: v for k, v in drawn.items() if k[0] == t
        }
        assert all(stack in (4500, 5000) for _, stack in at_t.values())
    assert out["outcome"].mismatches == [] and out["outcome"].hands == 1
    st = out["standings"]
    # 000 [L53]: both blinds busted in one hand; the one who started with more finishes higher
    big = at[1][0] if at[1][1] == 5000 else at[2][0]
    small = at[2][0] if big == at[1][0] else at[1][0]
    places = {e["player_id"]: e["place"] for e in st["eliminated"]}
    assert places == {small: 9, big: 8}
    assert st["players_left"] == 7 and st["chips"] == sum(s for _, s in at.values()) + sum(
        stack for t, at_t in out["seated"].items() if t != table for _, stack in at_t.values()
    )
    winner = next(p for p in st["players"] if p["player_id"] == at[3][0])
    assert winner["stack"] == sum(s for _, s in at.values())  # from the table's own record
    prop = out["proposal"]
    assert prop["kind"] == "balance" and len(prop["moves"]) == 1  # 1 against 3: within one
    move = prop["moves"][0]
    assert move["to_table"] == table and move["from_table"] != table
    assert (
        out["clock_topic"]["level"]["big_blind"] == 50 and out["clock_topic"]["players_left"] == 7
    )
    assert not out["stale"]["ok"] and "not the one pending" in out["stale"]["reason"]
    assert out["confirm"]["ok"], out["confirm"]
    # the move reached both tables; the moved player kept his stack
    before = out["seated"][move["from_table"]][move["from_seat"]]
    assert move["from_seat"] not in out["after"][move["from_table"]]
    assert out["after"][table][move["to_seat"]] == before
    counts = sorted(len(s) for s in out["after"].values())
    assert counts == [2, 2, 3]
    assert out["adjust"]["ok"] and out["adjust"]["data"]["clock"]["level"]["level"] == 2
    assert out["irregular"] == [
        {
            "table": table,
            "seat": out["irregular"][0]["seat"],
            "player_id": small,
            "reason": "eliminated: this event allows no re-entry (004 [L135], 004-TG-25)",
        }
    ]
    # G11: the table that has played a hand applies it from its next hand (pending until
    # then); the tables that have not dealt yet apply it at once
    lv2 = {"level": 2, "small_blind": 50, "big_blind": 100, "ante": 0}
    for t, st in out["levels"].items():
        if t == table:
            assert st["pending_level"] == lv2 and st["level"]["big_blind"] == 50
        else:
            assert st["level"] == lv2 and st.get("pending_level") is None
    # the catch-up from the logger's store: the same eliminations and a proposal
    assert out["caught_up"] == (1, 0)
    assert out["late"].eliminations == out["state"].eliminations
    assert out["late"].proposal is not None and out["late"].proposal.kind.value == "balance"
    # the journal replayed is the state the service had
    assert out["replayed"] == out["state"]
