"""``railguard enroll``: enrol a deck from the PC/SC desk reader or one table antenna, and
store it in the table store (the daemon loads its decks from there when it starts).

The cards are read in :data:`firmware_bridge.decks.DEFAULT_ORDER` (2c … Ac, 2d … Ad, 2h …
Ah, 2s … As). Nothing is stored unless every card was read: a reader pulled out, a board
unplugged or Ctrl-C leaves the store as it was.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncGenerator

from controller.daemon.config import DaemonConfig
from controller.rules.cards import Card
from controller.rules.errors import RailguardError
from controller.tools.common import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    BoardSession,
    Say,
    SourceLost,
    ToolError,
    load_config,
    load_registry,
    open_store,
    printer,
    quiet_logs,
    set_deck_back,
)
from firmware_bridge.decks import DEFAULT_ORDER, Deck, DeckRegistry
from firmware_bridge.enroll import EnrollIncomplete, antenna_tag_reads, run_enroll

BAR = 20


def parse_source(text: str) -> int | None:
    """None for the PC/SC reader, the antenna number for ``antenna:N``."""
    if text == "pcsc":
        return None
    kind, _, num = text.partition(":")
    if kind == "antenna" and num.isdigit() and int(num) <= 254:
        return int(num)
    raise ToolError(f"--source {text!r}: expected 'pcsc' or 'antenna:N' (N = 0..254)")


class Progress:
    """The progress line: ``[#####...............] 12/52 next: Ac``, redrawn in place on a
    terminal (other messages then start on a line of their own)."""

    def __init__(self, say: Say, order: tuple[Card, ...], tty: bool) -> None:
        self._say = say
        self.order = order
        self.tty = tty
        self.count = 0
        self._open = False  # a progress line without its newline yet

    def say(self, message: str) -> None:
        if self._open:
            print(flush=True)
            self._open = False
        self._say(message)

    def line(self, count: int) -> str:
        total = len(self.order)
        filled = BAR * count // total
        nxt = f"next: {self.order[count]}" if count < total else "complete"
        return f"[{'#' * filled}{'.' * (BAR - filled)}] {count}/{total} {nxt}"

    def __call__(self, count: int, total: int, card: Card) -> None:
        self.count = count
        if self.tty:
            self._open = count < total
            print("\r" + self.line(count), end="" if self._open else "\n", flush=True)
        else:
            self._say(self.line(count))

    def notice(self, message: str) -> None:
        self.say(f"refused: {message}" if message.startswith("tag ") else message)


async def _pcsc_reads(cfg: DaemonConfig, say: Say, timeout: float) -> AsyncGenerator[bytes, None]:
    from firmware_bridge.pcsc import PcscReader, PcscState, ReaderStatus, TagEvent, TagTap

    queue: asyncio.Queue[bytes | PcscState] = asyncio.Queue()
    ready = asyncio.Event()

    def on_tag(ev: TagEvent) -> None:
        if isinstance(ev, TagTap):
            queue.put_nowait(ev.uid)

    def on_status(state: PcscState) -> None:
        if state.status is ReaderStatus.READY:
            ready.set()
        elif ready.is_set():
            queue.put_nowait(state)

    reader = PcscReader(cfg.badges, on_tag=on_tag, on_status=on_status,
                        reader_filter=cfg.pcsc_filter, retry_s=0.5, poll_s=0.1)  # fmt: skip
    reader.start()
    try:
        try:
            await asyncio.wait_for(ready.wait(), timeout)
        except TimeoutError:
            state = reader.state
            raise ToolError(
                f"no PC/SC reader ready within {timeout:g} s ({state.status.value}:"
                f" {state.detail or 'no reader'}); plug in the desk reader and check pcscd"
            ) from None
        say(f"desk reader ready ({', '.join(reader.state.readers)}): tap each card in turn")
        while True:
            item = await queue.get()
            if isinstance(item, PcscState):
                raise SourceLost(f"the desk reader went away ({item.status.value}: {item.detail})")
            yield item
    finally:
        await asyncio.to_thread(reader.close)


async def _antenna_reads(
    board: BoardSession, antenna: int, notice: Say
) -> AsyncGenerator[bytes, None]:
    if board.antenna_count and antenna >= board.antenna_count:
        raise ToolError(
            f"--source antenna:{antenna}: the board has antennas 0..{board.antenna_count - 1}"
        )
    async for uid in antenna_tag_reads(board.snapshots(), antenna, notice=notice):
        yield uid


async def _enrol(
    args: argparse.Namespace, cfg: DaemonConfig, registry: DeckRegistry, progress: Progress
) -> Deck:
    antenna = parse_source(args.source)
    say = progress.say
    say(f"enrolling deck {args.deck}: {len(DEFAULT_ORDER)} cards in order 2c..Ac 2d..Ad"
        f" 2h..Ah 2s..As; first card: {DEFAULT_ORDER[0]}")  # fmt: skip
    if antenna is None:
        reads = _pcsc_reads(cfg, say, args.reader_timeout)
        try:
            return await run_enroll(reads, registry, args.deck, progress, back=args.back,
                                    notice=progress.notice)  # fmt: skip
        finally:
            await reads.aclose()
    async with BoardSession(cfg, online_timeout=args.reader_timeout) as board:
        say(f"reader board online: lay each card on antenna {antenna} and take it off again")
        areads = _antenna_reads(board, antenna, progress.notice)
        try:
            return await run_enroll(areads, registry, args.deck, progress, back=args.back,
                                    notice=progress.notice)  # fmt: skip
        finally:
            await areads.aclose()


def main(args: argparse.Namespace) -> int:
    quiet_logs()
    say = printer()
    try:
        parse_source(args.source)
        cfg = load_config(args.config)
        store = open_store(cfg)
    except RailguardError as exc:
        say(f"railguard enroll: {exc}")
        return EXIT_ERROR
    progress = Progress(say, DEFAULT_ORDER, sys.stdout.isatty())
    say = progress.say
    try:
        registry = load_registry(store, cfg)
        if args.deck in registry.decks:
            say(f"deck {args.deck} is already enrolled: it is replaced when this one completes")
        try:
            deck = asyncio.run(_enrol(args, cfg, registry, progress))
        except (SourceLost, EnrollIncomplete) as exc:
            nxt = DEFAULT_ORDER[progress.count] if progress.count < len(DEFAULT_ORDER) else "-"
            say(f"railguard enroll: {exc}; stopped at {progress.count}/{len(DEFAULT_ORDER)}"
                f" (next was {nxt}): deck {args.deck} NOT stored; enrol it again")  # fmt: skip
            return EXIT_FAILED
        except KeyboardInterrupt:
            say(f"railguard enroll: interrupted at {progress.count}/{len(DEFAULT_ORDER)}:"
                f" deck {args.deck} NOT stored")  # fmt: skip
            return EXIT_INTERRUPTED
        except RailguardError as exc:
            say(f"railguard enroll: {exc}; deck {args.deck} NOT stored")
            return EXIT_ERROR
        try:
            store.enrol_deck(deck.name, deck.card_tags())
            set_deck_back(store, deck.name, deck.back)
        except RailguardError as exc:
            say(f"railguard enroll: deck {deck.name} NOT stored: {exc}")
            return EXIT_FAILED
    finally:
        with contextlib.suppress(RailguardError):
            store.close()
    back = f" (back {deck.back})" if deck.back else ""
    say(f"deck {deck.name}{back}: {len(deck.cards)} cards stored in {cfg.table_db};"
        " restart the daemon to use it")  # fmt: skip
    return EXIT_OK
