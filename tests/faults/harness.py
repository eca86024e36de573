"""The simulated table (:class:`hwsim.table.SimTable`) with the demo's dealer, for fault
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
import json
import os
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.demo.hands import NAMES, DemoHand, _demo_hand
from controller.demo.table import VENUE, Table, chip_table
from controller.demo.view import View
from controller.link.config import BrokerConfig
from controller.rules.cards import STANDARD_DECK
from controller.rules.profile import get_profile
from controller.venuelog import SqliteHandStore
from hwsim.layout import SIX
from hwsim.phh import parse_phh
from hwsim.table import OnSimTable, SimTable

BASE = f"railguard/{VENUE}/t1"
ROOT = Path(__file__).resolve().parents[2]
TABLE_PROC = Path(__file__).with_name("table_proc.py")


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
class Rig(OnSimTable):
    sim: SimTable
    table: QuietTable

    @property
    def store(self) -> SqliteHandStore | None:
        if self.sim.logger is None:
            return None
        assert isinstance(self.sim.logger.store, SqliteHandStore)
        return self.sim.logger.store

    def stacks(self) -> list[int]:
        return [self.daemon.core.seats[s].stack for s in range(1, 7)]


@contextlib.asynccontextmanager
async def table_rig(
    port: int, workdir: Path, hands: list[DemoHand], *, logger: bool = True
) -> AsyncIterator[Rig]:
    """A running table (:class:`hwsim.table.SimTable`: six seats, the board on a pty behind
    ``workdir``/reader, the daemon's state in ``workdir``/state, a venue logger of its own
    unless told not to) whose chip registry has the chips of ``hands`` (index i of the list
    is hand index i of :meth:`Table.play`; a fold round's chips depend only on the blinds,
    so a placeholder fold round reserves them)."""
    view = View(out=io.StringIO(), colour=False)
    own_logger = {"backoff": (0.05, 0.5)} if logger else False
    sim = await SimTable.open("127.0.0.1", port, profile="tda-2024", workdir=workdir,
                              seats=SIX, chips=chip_table(hands), transport="pty", view=view,
                              enrol=False, logger=own_logger)  # fmt: skip
    try:
        table = QuietTable(sim, view, random.Random(1), 0.0)
        await table.setup()
        yield Rig(sim, table)
    finally:
        await sim.close()


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``where`` (a full disk on demand); needs root."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                    str(where)], check=True)  # fmt: skip
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def alerts(rig: Rig) -> list[dict[str, Any]]:
    return [a for a in rig.venue.on("alerts") if isinstance(a, dict)]


class TableProcess:
    """``tests/faults/table_proc.py`` (the whole table, daemon, board and dealer, in one
    process: :func:`table_rig` and the dealer) as a child: its JSON lines read one at a time,
    a line written to go on after a pause, its stderr appended to ``log`` (kept: failures
    quote its end). :meth:`kill` is the power cut (SIGKILL); :meth:`close` ends and reaps it
    whatever state it is in."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        self.proc, self.log = proc, log

    @classmethod
    async def start(cls, port: int, workdir: Path, log: Path, *args: str) -> TableProcess:
        """Start it on the table in ``workdir``; ``args``: table_proc.py's own (``--count``,
        ``--first``, ``--seed``/``--fold``, ``--pause-before``)."""
        with log.open("ab") as err:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(TABLE_PROC), "--port", str(port), "--workdir", str(workdir),
                *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=err, cwd=ROOT,
            )  # fmt: skip
        return cls(proc, log)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    async def line(self, timeout: float = 60) -> dict[str, Any] | None:
        """Its next JSON line; None when its output ended (it exited)."""
        assert self.proc.stdout is not None
        raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not raw:
            return None
        msg: dict[str, Any] = json.loads(raw)
        return msg

    async def until(self, event: str, timeout: float = 60) -> dict[str, Any]:
        while (msg := await self.line(timeout)) is not None:
            if msg["event"] == event:
                return msg
        raise AssertionError(f"the table process ended before {event!r}:\n{self.tail()}")

    def go_on(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"go\n")

    async def kill(self) -> int:
        """SIGKILL, and wait for it: a power cut of the table."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
        return await asyncio.wait_for(self.proc.wait(), 10)

    async def wait(self, timeout: float = 30) -> int:
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def close(self) -> None:
        """Killed if still running, and reaped."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        await self.proc.wait()
