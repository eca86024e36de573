"""``railguard demo --tables N``: the demo as a room. N simulated tables of different sizes
(six, nine and eight seats, then again) on one broker with one venue logger, each dealt by
its own virtual dealer at the same time; the first table's hands are printed as they are
played, the others are summed up at the end.

Each table's dealer taps their badge before the first hand and hands over to a second dealer
half way (the tap reaches the daemon as its PC/SC task hands one over: ``BadgeTap`` and
``SetDealer`` on the daemon's queue, the path of :mod:`hwsim.scenario.verbs`' ``badge``), so
the hand records carry dealer names and the console's dealer quality has them.
"""

from __future__ import annotations

import io
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from controller.daemon.service import Daemon
from controller.demo.hands import DemoHand
from controller.demo.table import Outcome, RoomTable, Table, deal_room, layout_for
from controller.demo.view import View
from controller.rules.events import BadgeTap, SetDealer
from hwsim.layout import Layout, wait_until
from hwsim.table import SimTable

#: the tables' sizes in turn: a room of several table sizes
SIZES = (6, 9, 8)
#: the demo's dealers (staff ids on their badges), two a table
DEALERS = ("Ana", "Ben", "Chloe", "Dev", "Eva", "Femi", "Gus", "Hana", "Ivo", "Jun")

__all__ = ["DEALERS", "SIZES", "TablePlan", "run_room", "table_ids"]


@dataclass
class TablePlan:
    """One table of the room: its id, its seats, its hands, its view, its two dealers."""

    table_id: str
    seats: int
    hands: list[DemoHand]
    view: View
    dealers: tuple[str, str]
    outcome: Outcome = field(default_factory=Outcome)
    records: int = 0
    over_mqtt: int = 0


def table_ids(base: str, n: int) -> list[str]:
    """``t1``..``tN`` on the demo's own broker; ``<base>-1``.. on a venue's."""
    if base == "t1":
        return [f"t{i + 1}" for i in range(n)]
    return [base] if n == 1 else [f"{base}-{i + 1}" for i in range(n)]


def plans(ids: list[str], hands: list[list[DemoHand]], main: View) -> list[TablePlan]:
    """A plan per table: sizes from :data:`SIZES` (at least what the hands need), the first
    table printed by ``main``, the others quiet."""
    out = []
    for i, (tid, hs) in enumerate(zip(ids, hands, strict=True)):
        view = main if i == 0 else View(io.StringIO(), colour=False)
        view.total = len(hs)
        seats = max(SIZES[i % len(SIZES)], layout_for(hs).seats)
        two = (DEALERS[(2 * i) % len(DEALERS)], DEALERS[(2 * i + 1) % len(DEALERS)])
        out.append(TablePlan(tid, seats, hs, view, two))
    return out


def tap_in(daemon: Daemon, dealer: str, was: str | None) -> None:
    """The dealer's badge at the table's reader: the one on duty taps out, the next in."""
    t = time.monotonic()
    if was:
        daemon.put(BadgeTap(t, was), "pcsc")
        daemon.put(SetDealer(t, ""), "pcsc")
    daemon.put(BadgeTap(t, dealer), "pcsc")
    daemon.put(SetDealer(t, dealer), "pcsc")


def _on_duty(daemon: Daemon, dealer: str) -> Callable[[], bool]:
    return lambda: daemon.core.dealer == dealer


async def _deal(sim: SimTable, plan: TablePlan, seed: int, error_rate: float,
                kinds: tuple[str, ...]) -> None:  # fmt: skip
    rng = random.Random(f"{seed}-errors-{plan.table_id}")
    table = Table(sim, plan.view, rng, error_rate)
    table.kinds = kinds
    await table.setup()
    half = max(1, len(plan.hands) // 2)
    on_duty: str | None = None
    for i, hand in enumerate(plan.hands):
        if i in (0, half):
            dealer = plan.dealers[0] if i == 0 else plan.dealers[1]
            if dealer != on_duty:
                tap_in(sim.daemon, dealer, on_duty)
                on_duty = dealer
                await wait_until(_on_duty(sim.daemon, dealer), "the dealer's badge")
        await table.play(i, hand)
    plan.outcome = table.outcome


async def run_room(
    tables: list[TablePlan],
    *,
    host: str,
    port: int,
    profile: str,
    seed: int,
    error_rate: float,
    workdir: Path,
    logger_group: str = "venuelog",
    logger_instance: str = "main",
    kinds: tuple[str, ...] = (),
) -> int:
    """Deal every table's hands at once on one broker, one venue logger (``workdir``/
    venue.db); each plan gets its outcome and record counts. Returns the hands the logger
    stored."""
    placed = [RoomTable(p.table_id, workdir / p.table_id, Layout(p.seats), p.hands, p.view)
              for p in tables]  # fmt: skip

    async def deal(i: int, sim: SimTable) -> None:
        await _deal(sim, tables[i], seed, error_rate, kinds)

    sent, stored = await deal_room(
        placed, deal, host=host, port=port, profile=profile, workdir=workdir,
        logger_group=logger_group, logger_instance=logger_instance)  # fmt: skip
    for plan, d in zip(tables, sent, strict=True):
        plan.records, plan.over_mqtt = d.records, d.over_mqtt
        plan.outcome.records = d.records
    return stored
