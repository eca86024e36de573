"""One simulated table of one to ten seats: the reader board, MockFactory GPIO, the daemon
in-process (or as its own process) and a venue subscriber on a broker. ``railguard demo``, the
system replay and the scenario runner each open one and play on it; ``railguard sim`` builds
its pieces for a daemon started by hand (:mod:`hwsim.sim`).

    table = await SimTable.open(host, port, profile="tda-2024", workdir=tmp, seats=10)
    await table.move_tags([(card_uid(ace), table.layout.hole[7])])
    await table.close()

This is the one simulated table of the project: the demo (:mod:`controller.demo.table`), the
system replay, the scenario runner (:mod:`hwsim.scenario.rig`), the daemon's and the fault
tests' rigs and the benches that time a daemon process (``bench/e2e.py``, ``bench/idle.py``)
open it, each with the options it needs (``transport``, ``seats``, ``clock``, ``timing``,
``settings`` for the config, ``badge_factory``, ``logger`` for a venue logger on the same
broker, ``process`` for the daemon as a child process). Its config comes from the one
builder, :func:`hwsim.layout.config_mapping`, written as TOML by :func:`write_config` for a
daemon that reads it from a file (``process``, ``config_file``, ``railguard sim``). The
rules core alone, with no daemon, board or broker, is :mod:`hwsim.scenario.core_rig`.

The board is in-process by default (:mod:`hwsim.inprocess`: the daemon takes the board's
snapshots as objects through its ``board_factory``); ``transport="pty"`` puts it on a pty
behind a symlink (``workdir/reader``) and the daemon opens it with pyserial, for whatever has
the serial path under test (byte faults, unplugging, a stall). Either way the table drives
the daemon only through its public inputs (the board, the GPIO pins, venue commands over
MQTT) and reads it through its published MQTT output and :meth:`Daemon.observe`.

``process=True`` runs the daemon as a child process instead, ``railguard run --config
workdir/railguard.toml`` (:class:`hwsim.daemon_process.DaemonChild`: its own CPU and pid,
its output in ``workdir/daemon.log``), the board on the pty in this process: the way a table
runs it, for the benches that time it and the tests that kill it
(:meth:`SimTable.kill_daemon`, :meth:`SimTable.start_daemon`). Its GPIO is the child's own
MockFactory, out of this process's reach (no :attr:`SimTable.gpio`), and there is no
:class:`Daemon` object to observe: the table reads it through MQTT only
(:attr:`SimTable.venue`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable, Mapping
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
from hwsim.daemon_process import DaemonChild, railguard_argv, write_config
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

__all__ = [
    "SIX", "TEN", "DaemonChild", "Layout", "OnSimTable", "SimTable", "TableFailure",
    "Transport", "railguard_argv", "venue_logger", "write_config",
]  # fmt: skip


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

    def __init__(self, daemon: Daemon | DaemonChild, board: SimBoard, gpio: SimGpio | None,
                 venue: Venue, factory: Any, layout: Layout, transport: Transport,
                 symlink: Path | None, cfg: config.DaemonConfig) -> None:  # fmt: skip
        self._daemon = daemon if isinstance(daemon, Daemon) else None
        self.child = daemon if isinstance(daemon, DaemonChild) else None  # ``process``
        self.board, self._gpio, self.venue = board, gpio, venue
        self.factory, self.layout, self.transport = factory, layout, transport
        self.symlink = symlink  # the pty's stable path (transport "pty")
        self.cfg = cfg  # the daemon's config
        self.logger: VenueLogger | None = None  # the table's own venue logger (``logger``)
        self.where: dict[bytes, int] = {}  # every tag on the board: its antenna
        self.poll = 0.002  # seconds between two looks at the daemon
        self.births = 0  # "online" statuses the venue subscriber heard (``process``)
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
        process: bool = False,
        env: Mapping[str, str] | None = None,
        board_type: type[SimBoard] = SimBoard,
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
        --config`` loads it (``railguard sim``). ``board_type``: the board's class (a
        :class:`SimBoard` that stamps its frames, ``bench/e2e.py``).

        ``process``: the daemon as a child ``railguard run --config`` process (the module
        docstring; ``transport="pty"``, no ``clock`` nor ``badge_factory``: PC/SC through
        ``settings``' ``[pcsc]`` and a pcscd), its config in ``config_file`` (default
        ``workdir``/railguard.toml), its log in ``workdir``/daemon.log, ``env`` set for it;
        "status" is added to ``topics`` (the table waits for the daemon's "online")."""
        if process and (transport != "pty" or clock is not None or badge_factory is not None):
            raise ValueError(
                "a daemon process reads the board on a pty (transport='pty'), "
                "on its own clock and PC/SC (no clock nor badge_factory)"
            )
        if env is not None and not process:
            raise ValueError("env is the daemon process's (process=True)")
        layout = seats if isinstance(seats, Layout) else Layout(seats)
        workdir.mkdir(parents=True, exist_ok=True)
        board_config = SetConfig(scan_period_ms=scan_period_ms, heartbeat_interval_ms=200)
        board = board_type(layout.antennas, config=board_config)
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
        if process:
            config_file = config_file or workdir / "railguard.toml"
            if not ("#" in topics or "status" in topics):
                topics = (*topics, "status")
        if config_file is not None:
            write_config(config_file, mapping)
            cfg = config.load(config_file)
        else:
            cfg = config.from_mapping(mapping)
        table: SimTable
        venue = Venue(host, port, f"railguard/{VENUE}/{table_id}", view, topics=topics,
                      record=record)  # fmt: skip
        if process:
            assert config_file is not None
            child = DaemonChild(config_file, workdir / "daemon.log", env)
            table = cls(child, board, None, venue, None, layout, transport, symlink, cfg)
        else:
            factory = wired_factory()
            gpio = SimGpio(factory, cfg.gpio)
            clock = clock or SystemClock()
            boards = (InProcessFactory(board, cfg.daemon_link, clock=clock.monotonic)
                      if transport == "inprocess" else None)  # fmt: skip
            daemon = Daemon(cfg, pin_factory=factory, board_factory=boards, clock=clock,
                            badge_factory=badge_factory)  # fmt: skip
            table = cls(daemon, board, gpio, venue, factory, layout, transport, symlink, cfg)
        venue.on_message = table._heard(on_message)
        try:
            if logger:
                options = logger if isinstance(logger, Mapping) else {}
                table.logger = await start_logger(host, port, workdir, **options)
            if process:
                await venue.start()
                await table._start_child()
            else:
                await table._start_inprocess()
            for deck in decks if enrol else ():
                await venue.do("enrol_deck", deck_id=deck, cards=deck_cards(deck))
        except TableFailure as exc:
            detail = table._detail()
            await table.close()
            raise TableFailure(f"{exc} ({detail})") from None
        except BaseException:
            await table.close()
            raise
        return table

    def _heard(self, on_message: Callable[[str, Any], None] | None) -> Callable[[str, Any], None]:
        """The venue subscriber's callback: counts the daemon's births, then ``on_message``."""

        def heard(suffix: str, body: Any) -> None:
            if suffix == "status" and isinstance(body, dict) and body.get("status") == "online":
                self.births += 1
            if on_message is not None:
                on_message(suffix, body)

        return heard

    async def _start_inprocess(self) -> None:
        daemon = self.daemon
        self._task = asyncio.create_task(daemon.run(self._stop))
        await self.venue.start()
        await asyncio.wait_for(daemon.ready.wait(), 15)
        # ready may come without the venue link (reader.ready_timeout_s): commands need it
        await wait_until(lambda: daemon.link.connected, "the daemon's venue link", 15)

    def _detail(self) -> str:
        """Where the daemon stands, for a wait that timed out."""
        if self._daemon is not None:
            return link_detail(self._daemon, self.venue)
        assert self.child is not None
        state = ("running" if self.child.alive()
                 else f"exited with code {self.child.returncode}")  # fmt: skip
        return f"the daemon process {state}{self.child.tail()}"

    async def close(self) -> None:
        """Stop the daemon (a daemon process: SIGTERM, SIGKILL after 10 s; its log is
        kept), the venue subscriber, the board and the table's venue logger; reset the
        pins."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 10)
            if not self._task.done():
                self._task.cancel()
                with contextlib.suppress(BaseException):
                    await self._task
        if self.child is not None:
            await self.child.stop()
        await self.venue.stop()
        await self.board.stop()
        if self.factory is not None:
            self.factory.reset()
        if self.logger is not None:
            await stop_logger(self.logger)
            self.logger = None

    @property
    def running(self) -> bool:
        """The daemon is still running (its task, or its process: it has not stopped on
        its own)."""
        if self.child is not None:
            return self.child.alive()
        return self._task is not None and not self._task.done()

    @property
    def daemon(self) -> Daemon:
        """The in-process daemon (a daemon process has none here: read its MQTT output)."""
        if self._daemon is None:
            raise TableFailure("the daemon runs as its own process (process=True): no Daemon "
                               "object to observe; read its MQTT output (table.venue)")  # fmt: skip
        return self._daemon

    @property
    def gpio(self) -> SimGpio:
        """The console's and the pucks' pins (MockFactory) of the in-process daemon."""
        if self._gpio is None:
            raise TableFailure("the daemon runs as its own process (process=True): its GPIO "
                               "is its own MockFactory, out of this process's reach")  # fmt: skip
        return self._gpio

    # ------------------------------------------------------------------ the daemon process

    def _process(self) -> DaemonChild:
        if self.child is None:
            raise TableFailure("the daemon runs in this process (open the table with process=True)")
        return self.child

    async def start_daemon(self, timeout: float = 30.0) -> None:
        """Start the daemon process (again: after :meth:`kill_daemon` or :meth:`stop_daemon`,
        on the same config and state) and wait until it is online at the broker and has
        configured the board; TableFailure with its exit code and the end of its log if it
        ends first or takes longer than ``timeout`` s."""
        try:
            await self._start_child(timeout)
        except TableFailure as exc:
            raise TableFailure(f"{exc} ({self._detail()})") from None

    async def _start_child(self, timeout: float = 30.0) -> None:
        child = self._process()
        births, configs = self.births, self._set_configs()
        child.start()
        await wait_until(lambda: not child.alive() or (self.births > births and
                                                       self._set_configs() > configs),
                         "the daemon process online and the board configured", timeout)  # fmt: skip
        if not child.alive():
            await child.stop()
            raise TableFailure("the daemon process ended before it was online")

    async def stop_daemon(self, timeout: float = 10.0) -> int | None:
        """Stop the daemon process cleanly (SIGTERM; SIGKILL after ``timeout`` s); its exit
        code. The board, the venue subscriber and the logger stay."""
        return await self._process().stop(timeout)

    async def kill_daemon(self, sig: int = signal.SIGKILL) -> int:
        """Send the daemon process ``sig`` (default SIGKILL: a power cut of the daemon alone;
        the board keeps its tags) and wait until it has exited; its exit code."""
        return await self._process().kill(sig)

    def _set_configs(self) -> int:
        """SET_CONFIG commands the board has received (each daemon start sends one)."""
        return sum(1 for f in self.board.commands if isinstance(f.message, SetConfig))

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
        zones = self.cfg.zones
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
