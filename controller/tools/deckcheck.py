"""``railguard deck check``: is a deck laid out on the table complete?

Reads every tag on all the board's antennas for a few scan cycles (after asking the board for
a full snapshot) and compares them with the deck in the table store
(:meth:`firmware_bridge.decks.DeckRegistry.deck_check`): missing cards, extra tags (foreign,
another deck's, chips) and duplicate faces. Exit 0 when the deck is complete, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from controller.daemon.config import DaemonConfig
from controller.rules.errors import RailguardError
from controller.tools.common import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    BoardSession,
    ToolError,
    load_config,
    load_registry,
    open_store,
    printer,
    quiet_logs,
)
from firmware_bridge.decks import DeckRegistry, DeckReport
from firmware_bridge.serial_link import ReaderLinkError


async def read_table(cfg: DaemonConfig, cycles: int, timeout: float = 10.0) -> list[bytes]:
    """Every tag read on any antenna during ``cycles`` complete scan cycles, in read order."""
    if cycles < 1:
        raise ToolError(f"--cycles {cycles}: must be at least 1")
    seen: dict[bytes, None] = {}
    async with BoardSession(cfg, online_timeout=timeout) as board:
        with contextlib.suppress(ReaderLinkError):
            await board.link.request_snapshot()
        counted: set[int] = set()
        first: int | None = None
        async for snap in board.snapshots():
            if first is None:
                first = snap.cycle  # may be a partial cycle: read, but not counted
            elif snap.cycle != first:
                counted.add(snap.cycle)
            for read in snap.tags:
                seen.setdefault(read.uid, None)
            if len(counted) > cycles:  # the first frame of the cycle after the last
                break
    return list(seen)


def check(registry: DeckRegistry, deck: str, tags: list[bytes]) -> DeckReport:
    return registry.deck_check(deck, tags)


def main(args: argparse.Namespace) -> int:
    quiet_logs()
    say = printer()
    try:
        cfg = load_config(args.config)
        store = open_store(cfg)
        try:
            registry = load_registry(store, cfg)
        finally:
            store.close()
        if args.deck not in registry.decks:
            known = ", ".join(sorted(registry.decks)) or "none"
            raise ToolError(f"deck {args.deck!r} is not enrolled (enrolled: {known})")
        tags = asyncio.run(read_table(cfg, args.cycles, args.reader_timeout))
        report = check(registry, args.deck, tags)
    except RailguardError as exc:
        say(f"railguard deck check: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        say("railguard deck check: interrupted")
        return EXIT_INTERRUPTED
    for line in report.lines():
        say(line)
    return EXIT_OK if report.ok else EXIT_FAILED
