"""Hand-for-hand with real parts (issue 25): a private mosquitto, three simulated tables
(real daemons; boards and GPIO simulated), a venue logger and the tournament service. The
floor turns hand-for-hand on; the first table to complete its hand is sent ``hold_deal``
and its state shows the hold; a card dealt there is DEALT_WHILE_HELD (its rules core
decides); the second table is held too; the first table's daemon restarts (the hold is not
in its table store) and the service, seeing it unheld, holds it again (``check_hold``); when
the third completes the round, every table is released at once and the next round starts."""

from __future__ import annotations

import asyncio
import io
import logging
import random
from pathlib import Path
from typing import Any

from controller.demo.hands import DemoHand
from controller.demo.table import chip_table
from controller.demo.view import View
from controller.rules.cards import Card
from hwsim.layout import card_uid, wait_until
from hwsim.table import SimTable
from tests.brokers import plain_broker
from tests.tournament.venue import (
    Dealer,
    desk,
    open_table,
    seats,
    state,
    three_handed,
    venue,
)


class _Holds(logging.Handler):
    """The tables the tournament service logs as held."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.tables: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().endswith(" held"):
            self.tables.append(record.getMessage().rsplit(" ", 2)[-2])


def _fold_hand(stacks: list[int]) -> DemoHand:
    """Three-handed, seat 3 on the button: the button and the small blind fold."""
    acts = ["d dh p1 7c2d", "d dh p2 8h3s", "d dh p3 AsAh", "p3 f", "p1 f"]
    return three_handed("fold", stacks, acts)


def _dealer(sim: SimTable) -> Dealer:
    return Dealer(sim, View(io.StringIO(), colour=False), random.Random(0), 0.0)


async def _play(sim: SimTable) -> Dealer:
    at = seats(sim)
    dealer = _dealer(sim)
    await dealer.setup()
    await dealer.play(0, _fold_hand([at[s][1] for s in (1, 2, 3)]))
    return dealer


async def _scenario(tmp: Path, port: int) -> dict[str, Any]:
    template = _fold_hand([4500, 4500, 4500])  # the chips' tags: the blinds only
    chips = chip_table([template])
    out: dict[str, Any] = {}
    async with venue(tmp, port, chips) as tables, desk(tmp, port, 7) as d:
        service, floor = d.service, d.floor
        assert (await floor.ask("draw"))["ok"]
        for t, sim in tables.items():
            await wait_until(lambda sim=sim: len(seats(sim)) == 3, f"{t} seated", 15)
        assert (await floor.ask("clock", op="start"))["ok"]
        for t, sim in tables.items():
            await wait_until(
                lambda sim=sim: state(sim).get("level", {}).get("big_blind") == 50,
                f"{t}: level 1",
                15,
            )
        out["on"] = await floor.ask("hand_for_hand", on=True)
        rnd = service.state.h4h.round
        out["round"] = rnd
        a, b, c3 = tables["t1"], tables["t2"], tables["t3"]
        out["a_outcome"] = (await _play(a)).outcome
        before = seats(a)
        await wait_until(lambda: state(a).get("deal_hold") == rnd, "t1 held", 15)
        out["b_before"] = state(b).get("deal_hold")
        # the dealer at the held table deals the next hand's first card (to the small blind)
        since = len(a.venue.on("alerts"))
        uid = card_uid(Card.parse("Kd"))
        await a.move_tags([(uid, a.layout.hole[2])])
        await wait_until(
            lambda: any(x.get("code") == "DEALT_WHILE_HELD" for x in a.venue.on("alerts")[since:]),
            "the alert for a card dealt while held",
            15,
        )
        out["alerts"] = a.venue.on("alerts")[since:]
        a.lift([uid])
        out["b_outcome"] = (await _play(b)).outcome
        await wait_until(lambda: state(b).get("deal_hold") == rnd, "t2 held", 15)
        out["held_both"] = (state(a).get("deal_hold"), state(b).get("deal_hold"))
        # t1's daemon restarts while held: the hold is not in its table store, so its state
        # shows none; the service, seeing a held table without it, holds it again (check_hold)
        holds = _Holds()
        log = logging.getLogger("railguard.tournament")
        level = log.level
        log.setLevel(logging.INFO)
        log.addHandler(holds)
        try:
            await a.close()
            tables["t1"] = a = await open_table(tmp, port, "t1", chips)
            await wait_until(lambda: state(a).get("deal_hold") == rnd, "t1 held again", 20)
        finally:
            log.removeHandler(holds)
            log.setLevel(level)
        out["restarted"] = (a.daemon.core.deal_hold, seats(a) == before, holds.tables)
        out["c_outcome"] = (await _play(c3)).outcome
        for t, sim in tables.items():
            await wait_until(lambda sim=sim: state(sim).get("deal_hold") is None,
                             f"{t} released", 15)  # fmt: skip
        await wait_until(
            lambda: (
                floor.last.get("standings", {}).get("hand_for_hand", {}).get("round") == rnd + 1
            ),
            "the next round in the standings",
            15,
        )
        out["h4h"] = floor.last["standings"]["hand_for_hand"]
        out["off"] = await floor.ask("hand_for_hand", on=False)
        out["violations"] = floor.violations
    return out


def test_hand_for_hand_holds_each_table_until_every_table_has_completed(tmp_path: Path) -> None:
    with plain_broker() as b:
        out = asyncio.run(asyncio.wait_for(_scenario(tmp_path, b.port), 150))
    assert out["on"]["ok"] and out["round"] >= 1
    assert out["violations"] == []  # what the service published kept its schema
    for k in ("a_outcome", "b_outcome", "c_outcome"):
        assert out[k].hands == 1 and out[k].mismatches == [], out[k]
    assert out["b_before"] is None  # a table that has not completed its hand is not held
    held = [x for x in out["alerts"] if x["code"] == "DEALT_WHILE_HELD"]
    assert len(held) == 1 and held[0]["severity"] == "warning"
    assert f"round {out['round']}" in held[0]["remedy"]
    assert out["held_both"] == (out["round"], out["round"])
    # check_hold: the restarted table came back with its seats and was held again, once
    assert out["restarted"] == (out["round"], True, ["t1"])
    assert out["h4h"] == {"on": True, "round": out["round"] + 1, "done": []}
    assert out["off"]["ok"]
