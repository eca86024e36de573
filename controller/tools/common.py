"""What the table commands share: the config, the table store's deck registry, and a reader
board session that turns the serial link's callbacks into an async stream of snapshots."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import TextIO

from controller.daemon.config import DaemonConfig, load
from controller.daemon.table_store import TableStore
from controller.rules.cards import Card
from controller.rules.errors import RailguardError
from firmware_bridge.decks import Deck, DeckRegistry, parse_tag
from firmware_bridge.ports import port_problem
from firmware_bridge.serial_link import LinkStatus, SerialReaderLink, StatusChange
from firmware_bridge.snapshots import AntennaSnapshot

Say = Callable[[str], None]

#: exit codes of the table commands
EXIT_OK, EXIT_FAILED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


class ToolError(RailguardError, RuntimeError):
    """A table command cannot go on; the message says why and what to do."""


class SourceLost(ToolError):
    """The reader board or desk reader went away while the command was reading."""


def printer(stream: TextIO | None = None) -> Say:
    def say(message: str) -> None:
        print(message, file=stream or sys.stdout, flush=True)

    return say


def quiet_logs() -> None:
    """Library log lines would mix with the prompts: show only errors, on stderr."""
    logging.basicConfig(level=logging.ERROR, format="railguard: %(message)s", force=True)


def load_config(path: str) -> DaemonConfig:
    return load(path)


def open_store(cfg: DaemonConfig) -> TableStore:
    """The table store the daemon reads its decks from at start."""
    try:
        cfg.storage.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToolError(f"storage.path {cfg.storage}: cannot create ({exc.strerror})") from None
    return TableStore(cfg.table_db)


def load_registry(store: TableStore, cfg: DaemonConfig) -> DeckRegistry:
    """The decks of the table store and the chips of the config, as the daemon loads them."""
    registry = DeckRegistry()
    for deck_id in store.decks():
        cards = {parse_tag(uid): Card.parse(c) for c, uid in store.deck(deck_id).items()}
        registry.put_deck(Deck(deck_id, deck_back(store, deck_id), cards))
    for uid, value in cfg.chips.items():
        registry.add_chip(uid, value)
    return registry


BACKS_KEY = "deck_backs"


def deck_back(store: TableStore, deck_id: str) -> str:
    backs = store.get(BACKS_KEY, {})
    return str(backs.get(deck_id, "")) if isinstance(backs, dict) else ""


def set_deck_back(store: TableStore, deck_id: str, back: str) -> None:
    backs = store.get(BACKS_KEY, {})
    backs = dict(backs) if isinstance(backs, dict) else {}
    if back:
        backs[deck_id] = back
    else:
        backs.pop(deck_id, None)
    store.put(BACKS_KEY, backs)


class BoardSession:
    """The reader board named by the config's ``[reader]`` section, online, as a stream.

    ``async with BoardSession(cfg) as board: async for snap in board.snapshots(): ...``.
    Entering waits until the board has said HELLO (ToolError after ``online_timeout``); the
    stream raises :class:`SourceLost` when the board goes away (unplugged, wrong protocol).
    """

    def __init__(self, cfg: DaemonConfig, *, online_timeout: float = 10.0) -> None:
        self.cfg = cfg
        self.online_timeout = online_timeout
        self._queue: asyncio.Queue[AntennaSnapshot | StatusChange] = asyncio.Queue()
        self._online = False
        self.link = SerialReaderLink(
            list(cfg.reader_ports), self._queue.put_nowait, on_status=self._status,
            config=cfg.link,
        )  # fmt: skip

    def _status(self, change: StatusChange) -> None:
        if change.status is LinkStatus.ONLINE:
            self._online = True
        elif self._online and change.status in (LinkStatus.OFFLINE, LinkStatus.VERSION_MISMATCH):
            self._queue.put_nowait(change)

    async def __aenter__(self) -> BoardSession:
        problem = port_problem(self.cfg.reader_ports)
        if problem is not None:  # at once, not after online_timeout
            raise ToolError(problem)
        await self.link.start()
        ports = ", ".join(self.cfg.reader_ports)
        try:
            await self.link.wait_status(LinkStatus.ONLINE, timeout=self.online_timeout)
        except TimeoutError:
            await self.link.stop()
            raise ToolError(
                f"no reader board answers on {ports} within {self.online_timeout:g} s"
                f" (link {self.link.status.value}); check reader.ports in the config, the cable,"
                " and that the daemon is stopped (it holds the port)"
            ) from None
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.link.stop()

    @property
    def antenna_count(self) -> int:
        info = self.link.board_info
        return info.antenna_count if info is not None else 0

    async def snapshots(self) -> AsyncIterator[AntennaSnapshot]:
        while True:
            item = await self._queue.get()
            if isinstance(item, StatusChange):
                raise SourceLost(f"the reader board went away ({item.detail})")
            yield item
