"""The simulated table of ``railguard demo`` (controller.demo.table) opened up for fault
tests: the daemon in this process, the reader board on a pty behind a stable symlink (so an
unplugged board comes back at the same path), MockFactory GPIO, a venue subscriber and,
unless the caller runs its own, a venue logger; the virtual dealer plays hands on it.

``fold_round(stacks)`` builds a hand that continues from the daemon's current stacks (all
fold to the big blind), which needs no venue command: it can be dealt while the broker is
down.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.daemon.service import Daemon
from controller.demo.hands import NAMES, DemoHand, _demo_hand
from controller.demo.table import VENUE, Table, Venue, chip_table, daemon_config
from controller.demo.view import View
from controller.link.config import BrokerConfig
from controller.rules.cards import STANDARD_DECK
from controller.rules.profile import get_profile
from controller.venuelog import SqliteHandStore, VenueLogger
from firmware_bridge.protocol import SetConfig
from hwsim.board import SimBoard
from hwsim.gpio import SimGpio, wired_factory
from hwsim.phh import parse_phh

BASE = f"railguard/{VENUE}/t1"


def plain(port: int) -> BrokerConfig:
    return BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)


def fold_round(stacks: list[int], rng: random.Random, label: str) -> DemoHand:
    """Six players with ``stacks`` (seats 1..6); everyone folds to the big blind."""
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    acts = [f"d dh p{i + 1} {deck.pop()}{deck.pop()}" for i in range(6)]
    acts += [f"p{i} f" for i in (3, 4, 5, 6, 1)]
    text = "\n".join([
        "variant = 'NT'", "ante_trimming_status = true", f"antes = {[0] * 6}",
        f"blinds_or_straddles = {[50, 100, 0, 0, 0, 0]}", "min_bet = 100",
        f"starting_stacks = {stacks}", f"actions = {acts!r}", "hand = 1",
        f"players = {list(NAMES[:6])!r}",
    ]) + "\n"  # fmt: skip
    return _demo_hand(label, parse_phh(text, label), get_profile("tda-2024"), 6)


class QuietTable(Table):
    """The demo dealer; with ``offline`` set it skips the venue commands of the table setup
    (same players, same stacks, same level: only the button puck moves)."""

    offline = False

    async def _table_setup(self, hand: DemoHand) -> None:
        if not self.offline:
            await super()._table_setup(hand)
            return
        await self._settled()
        if self.button is not None:
            self.gpio.set_puck(self.button, False)
            await asyncio.sleep(0.3)
        button = len(hand.plan.seats)
        self.gpio.set_puck(button, True)
        self.button = button
        await asyncio.sleep(0.3)


@dataclass
class Rig:
    board: SimBoard
    daemon: Daemon
    venue: Venue
    table: QuietTable
    logger: VenueLogger | None
    store: SqliteHandStore | None
    run: asyncio.Task[None]
    stop: asyncio.Event

    def stacks(self) -> list[int]:
        return [self.daemon.core.seats[s].stack for s in range(1, 7)]


@contextlib.asynccontextmanager
async def table_rig(
    port: int, workdir: Path, hands: list[DemoHand], *, logger: bool = True
) -> AsyncIterator[Rig]:
    """A running table whose chip registry has the chips of ``hands`` (index i of the list
    is hand index i of :meth:`Table.play`; a fold round's chips depend only on the blinds,
    so a placeholder fold round reserves them)."""
    workdir.mkdir(parents=True, exist_ok=True)
    board = SimBoard(16, config=SetConfig(scan_period_ms=20, heartbeat_interval_ms=200))
    link = workdir / "reader"
    await board.start_pty(symlink=link)
    chips = chip_table(hands)
    cfg = daemon_config(str(link), "127.0.0.1", port, "t1", "tda-2024", workdir / "state", chips)
    factory = wired_factory()
    gpio = SimGpio(factory, cfg.gpio)
    daemon = Daemon(cfg, pin_factory=factory)
    stop = asyncio.Event()
    view = View(out=io.StringIO(), colour=False)
    venue = Venue("127.0.0.1", port, BASE, view)
    store = SqliteHandStore(workdir / "venue.db") if logger else None
    vlog = VenueLogger(plain(port), store, backoff=(0.05, 0.5)) if store is not None else None
    run = asyncio.create_task(daemon.run(stop))
    table = QuietTable(daemon, board, gpio, venue, view, random.Random(1), 0.0)
    try:
        if vlog is not None:
            vlog.start()
            await vlog.wait_connected(10)
        await venue.start()
        await asyncio.wait_for(daemon.ready.wait(), 15)
        await table.setup()
        yield Rig(board, daemon, venue, table, vlog, store, run, stop)
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(run, 10)
        await venue.stop()
        if vlog is not None:
            with contextlib.suppress(Exception):
                await vlog.stop()
        if store is not None:
            store.close()
        await board.stop()
        factory.reset()


def alerts(rig: Rig) -> list[dict[str, Any]]:
    return [a for a in rig.venue.on("alerts") if isinstance(a, dict)]
