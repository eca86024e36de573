"""One simulated table of one to ten seats: the reader board, MockFactory GPIO, the daemon
in-process and a venue subscriber on a broker. ``railguard demo``, the system replay and the
scenario runner each open one and play on it; ``railguard sim`` builds its pieces for a
daemon started by hand (:mod:`hwsim.sim`).

    table = await SimTable.open(host, port, profile="tda-2024", workdir=tmp, seats=10)
    await table.move_tags([(card_uid(ace), table.layout.hole[7])])
    await table.close()

This is the one simulated table of the project: the demo (:mod:`controller.demo.table`), the
system replay, the scenario runner (:mod:`hwsim.scenario.rig`), the daemon's and the fault
tests' rigs open it, each with the options it needs (``transport``, ``seats``, ``clock``,
``timing``, ``settings`` for the config, ``badge_factory``, ``logger`` for a venue logger
on the same broker). Its config comes from the one builder,
:func:`hwsim.layout.config_mapping`, which is also what a daemon run as its own process
(``bench/procs.py``, ``railguard sim``) is given as TOML. The rules core alone, with no
daemon, board or broker, is :mod:`hwsim.scenario.core_rig`.

The board is in-process by default (:mod:`hwsim.inprocess`: the daemon takes the board's
snapshots as objects through its ``board_factory``); ``transport="pty"`` puts it on a pty
behind a symlink (``workdir/reader``) and the daemon opens it with pyserial, for whatever has
the serial path under test (byte faults, unplugging, a stall). Either way the table drives
the daemon only through its public inputs (the board, the GPIO pins, venue commands over
MQTT) and reads it through its published MQTT output and :meth:`Daemon.observe`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, Literal

from controller.daemon import config
from controller.daemon.clock import Clock, SystemClock
from controller.daemon.observe import Observation
from controller.daemon.service import Daemon
from controller.link.config import BrokerConfig
from controller.rules.events import ConsoleButton
from controller.venuelog import SqliteHandStore, VenueLogger
from firmware_bridge.pcsc import BadgeFactory
from firmware_bridge.protocol import SetConfig
from firmware_bridge.zones import ZoneType
from hwsim.board import SimBoard
from hwsim.gpio import SimGpio, wired_factory
from hwsim.inprocess import InProcessFactory
from hwsim.layout import (
    SIX,
    TEN,
    VENUE,
    Layout,
    TableFailure,
    config_mapping,
    deck_cards,
    wait_until,
)
from hwsim.venue import LiveView, Venue

Transport = Literal["inprocess", "pty"]
CONFIG_HEADER = (
    "# the simulated table's config for `railguard run --config`\n"
    "# (written by hwsim.table; the board is the pty behind reader.ports)\n\n"
)

__all__ = [
    "SIX", "TEN", "Layout", "OnSimTable", "SimTable", "TableFailure", "Transport",
    "venue_logger",
]  # fmt: skip


def write_config(path: Path, mapping: Mapping[str, Any]) -> None:
    """The simulated table's config (:func:`hwsim.layout.config_mapping`) as the TOML file
    ``railguard run --config`` reads (``controller.daemon.config.dumps``)."""
    path.write_text(CONFIG_HEADER + config.dumps(mapping))


async def start_logger(host: str, port: int, workdir: Path, **kw: Any) -> VenueLogger:
    """A venue logger on the table's broker storing in ``workdir``/venue.db (the folder made
    if missing), connected. ``kw``: :class:`VenueLogger`'s options (instance, group,
    backoff)."""
    workdir.mkdir(parents=True, exist_ok=True)
    logger = VenueLogger(BrokerConfig(host=host, port=port, tls=False, allow_plaintext=True),
                         SqliteHandStore(workdir / "venue.db"), **kw)  # fmt: skip
    logger.start()
    try:
        await wait_until(lambda: logger.stats.connects > 0, "the venue logger", 20)
    except BaseException:
        await stop_logger(logger)
        raise
    return logger


async def stop_logger(logger: VenueLogger) -> None:
    """Stop a logger of :func:`start_logger` and close its store."""
    with contextlib.suppress(Exception):
        await logger.stop()
    logger.store.close()


@contextlib.asynccontextmanager
async def venue_logger(host: str, port: int, workdir: Path,
                       **kw: Any) -> AsyncIterator[VenueLogger]:  # fmt: skip
    """:func:`start_logger` for several tables on one broker (the demo's room, an event);
    stopped and its store closed after."""
    logger = await start_logger(host, port, workdir, **kw)
    try:
        yield logger
    finally:
        await stop_logger(logger)


def link_detail(daemon: Daemon, venue: Venue) -> str:
    """Where the venue link stands, for a command or record wait that timed out."""
    link, st = daemon.link, daemon.link.stats
    return (f"daemon link: {'connected' if link.connected else 'down'}, {st.connects} "
            f"connects, {st.commands_ok} commands answered ok, {st.commands_refused} refused"
            f"{', last error ' + st.last_error if st.last_error else ''}; venue: "
            f"{len(venue.responses)} responses unclaimed")  # fmt: skip


class SimTable:
    """A running simulated table (see the module docstring). Build it with :meth:`open`."""

    def __init__(self, daemon: Daemon, board: SimBoard, gpio: SimGpio, venue: Venue,
                 factory: Any, layout: Layout, transport: Transport,
                 symlink: Path | None) -> None:  # fmt: skip
        self.daemon, self.board, self.gpio, self.venue = daemon, board, gpio, venue
        self.factory, self.layout, self.transport = factory, layout, transport
        self.symlink = symlink  # the pty's stable path (transport "pty")
        self.logger: VenueLogger | None = None  # the table's own venue logger (``logger``)
        self.where: dict[bytes, int] = {}  # every tag on the board: its antenna
        self.poll = 0.002  # seconds between two looks at the daemon
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        *,
        profile: str,
        workdir: Path,
        table_id: str = "t1",
        seats: int | Layout = TEN,
        chips: dict[bytes, int] | None = None,
        transport: Transport = "inprocess",
        scan_period_ms: int = 20,
        timing: dict[str, Any] | None = None,
        view: LiveView | None = None,
        topics: tuple[str, ...] = ("#",),
        record: bool = True,
        on_message: Any = None,
        enrol: bool = True,
        decks: tuple[str, ...] = ("A",),
        clock: Clock | None = None,
        storage: Path | None = None,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        badge_factory: BadgeFactory | None = None,
        logger: bool | Mapping[str, Any] = False,
        config_file: Path | None = None,
    ) -> SimTable:
        """Start the board, the daemon and the venue subscriber; wait until the daemon is
        ready; enrol ``decks`` (deck A: the 52 cards of :func:`hwsim.layout.card_uid`; "B":
        their twins, for injected duplicate cards) unless told not to.
        ``clock``: the daemon's and the in-process board's (the scenario rig's jumps ahead;
        default the machine's). ``storage``: the daemon's state folder (default
        ``workdir``/state, which a table opened again on it restores). ``settings``: config
        settings merged in (:func:`hwsim.layout.config_mapping`'s ``sections``).
        ``badge_factory``: the daemon's PC/SC readers (default none). ``logger``: a venue
        logger of the table's own (``workdir``/venue.db; a mapping: its options), online
        before the daemon starts and stopped with the table. ``config_file``: the config
        written there as TOML and the daemon loaded from that file, as ``railguard run
        --config`` loads it (``railguard sim``)."""
        layout = seats if isinstance(seats, Layout) else Layout(seats)
        workdir.mkdir(parents=True, exist_ok=True)
        board = SimBoard(layout.antennas, config=SetConfig(scan_period_ms=scan_period_ms,
                                                           heartbeat_interval_ms=200))  # fmt: skip
        symlink: Path | None = None
        if transport == "pty":
            symlink = workdir / "reader"
            await board.start_pty(symlink)
            port_path = str(symlink)
        else:
            port_path = "in-process"  # not opened: the board comes from the factory
        mapping = config_mapping(port_path, host, port, table_id, profile,
                                 storage or workdir / "state", chips or {},
                                 scan_period_ms=scan_period_ms, timing=timing, layout=layout,
                                 sections=settings)  # fmt: skip
        if config_file is not None:
            write_config(config_file, mapping)
            cfg = config.load(config_file)
        else:
            cfg = config.from_mapping(mapping)
        factory = wired_factory()
        gpio = SimGpio(factory, cfg.gpio)
        clock = clock or SystemClock()
        boards = (InProcessFactory(board, cfg.daemon_link, clock=clock.monotonic)
                  if transport == "inprocess" else None)  # fmt: skip
        daemon = Daemon(cfg, pin_factory=factory, board_factory=boards, clock=clock,
                        badge_factory=badge_factory)  # fmt: skip
        venue = Venue(host, port, f"railguard/{VENUE}/{table_id}", view, topics=topics,
                      record=record, on_message=on_message)  # fmt: skip
        table = cls(daemon, board, gpio, venue, factory, layout, transport, symlink)
        try:
            if logger:
                options = logger if isinstance(logger, Mapping) else {}
                table.logger = await start_logger(host, port, workdir, **options)
            table._task = asyncio.create_task(daemon.run(table._stop))
            await venue.start()
            await asyncio.wait_for(daemon.ready.wait(), 15)
            # ready may come without the venue link (reader.ready_timeout_s): commands need it
            await wait_until(lambda: daemon.link.connected, "the daemon's venue link", 15)
            for deck in decks if enrol else ():
                await venue.do("enrol_deck", deck_id=deck, cards=deck_cards(deck))
        except TableFailure as exc:
            detail = link_detail(daemon, venue)
            await table.close()
            raise TableFailure(f"{exc} ({detail})") from None
        except BaseException:
            await table.close()
            raise
        return table

    async def close(self) -> None:
        """Stop the daemon, the venue subscriber, the board and the table's venue logger;
        reset the pins."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 10)
            if not self._task.done():
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task
        await self.venue.stop()
        await self.board.stop()
        self.factory.reset()
        if self.logger is not None:
            await stop_logger(self.logger)
            self.logger = None

    @property
    def running(self) -> bool:
        """The daemon's task is still running (it has not stopped on its own)."""
        return self._task is not None and not self._task.done()

    # ------------------------------------------------------------------ looking

    def observe(self, *, state: bool = False) -> Observation:
        return self.daemon.observe(state=state)

    def present(self) -> dict[bytes, Any]:
        """Every tag the daemon's reader holds as present: its zone."""
        return dict(self.daemon.observe().tags)

    async def wait(self, cond: Any, what: str, timeout: float = 5.0) -> None:
        await wait_until(cond, what, timeout, poll=self.poll)

    async def handled(self, timeout: float = 5.0) -> None:
        """The daemon has handled every event sensed so far."""
        await self.wait(lambda: self.daemon.observe().idle, "the rules core", timeout)

    def no_chips(self) -> bool:
        return not any(z.type is ZoneType.BET for z in self.daemon.observe().tags.values())

    # ------------------------------------------------------------------ doing

    def lay(self, moves: list[tuple[bytes, int]]) -> None:
        """Lay tags on antennas in one scan cycle (taking each off where it was); no wait."""
        for uid, ant in moves:
            old = self.where.get(uid)
            if old is not None:
                self.board.remove(old, uid)
            self.board.place(ant, uid)
            self.where[uid] = ant

    async def move_tags(self, moves: list[tuple[bytes, int]], timeout: float = 5.0) -> None:
        """:meth:`lay`, then wait until the daemon's reader holds each tag in its new zone."""
        self.lay(moves)
        zones = self.daemon.cfg.zones
        want = [(u, zones.zone_of(a)) for u, a in moves]
        await self.wait(lambda: _all_in(self.daemon.observe().tags, want),
                        "the tags to be read", timeout)  # fmt: skip

    def lift(self, uids: list[bytes]) -> None:
        for uid in uids:
            ant = self.where.pop(uid, None)
            if ant is None:
                raise TableFailure(f"tag {uid.hex().upper()} is not on the table")
            self.board.remove(ant, uid)

    async def remove_tags(self, uids: list[bytes], timeout: float = 5.0) -> None:
        """Take tags off the table and wait until the daemon's reader no longer holds them."""
        self.lift(uids)
        await self.wait(lambda: not any(u in self.daemon.observe().tags for u in uids),
                        "the tags to go", timeout)  # fmt: skip

    async def clear(self, timeout: float = 5.0) -> None:
        """Every tag off the table; wait until the reader sees none and the core is idle."""
        for uid, ant in self.where.items():
            self.board.remove(ant, uid)
        self.where.clear()
        await self.wait(lambda: not self.daemon.observe().tags, "a clear table", timeout)
        await self.handled(timeout)

    async def press(self, button: ConsoleButton, hold_s: float = 0.06) -> None:
        await self.gpio.press(button, hold_s)

    def set_puck(self, seat: int, present: bool) -> None:
        self.gpio.set_puck(seat, present)


class OnSimTable:
    """A rig built on a :class:`SimTable` (``self.sim``): the table's parts under their
    own names, for the scenario runner's, the daemon tests' and the fault tests' rigs."""

    sim: SimTable

    @property
    def daemon(self) -> Daemon:
        return self.sim.daemon

    @property
    def board(self) -> SimBoard:
        return self.sim.board

    @property
    def gpio(self) -> SimGpio:
        return self.sim.gpio

    @property
    def venue(self) -> Venue:
        return self.sim.venue

    @property
    def where(self) -> dict[bytes, int]:
        """Every tag on the board: its antenna."""
        return self.sim.where

    @property
    def symlink(self) -> Path | None:
        return self.sim.symlink

    @property
    def logger(self) -> VenueLogger | None:
        return self.sim.logger


def _all_in(tags: Any, want: list[tuple[bytes, Any]]) -> bool:
    return all(tags.get(u) == z for u, z in want)
