"""``railguard calibrate``: the calibration wizard on the reader board named by the config.

Opens the board, asks for a card on each zone in turn (firmware_bridge.calibrate), then prints
the ``[zones]`` table, or with ``--write`` puts it into the config file in place of the old
``[zones]`` tables, keeping every other line of the file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from controller.daemon.config import loads
from controller.rules.errors import RailguardError
from controller.tools.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    BoardSession,
    Say,
    ToolError,
    load_config,
    printer,
    quiet_logs,
)
from firmware_bridge.calibrate import run_calibrate
from firmware_bridge.snapshots import AntennaSnapshot
from firmware_bridge.zones import ZoneMap

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")


def replace_zones(text: str, zone_lines: list[str]) -> str:
    """``text`` with its ``[zones]`` and ``[zones.*]`` tables replaced by ``zone_lines``
    (where the first of them stood, or appended at the end). Other lines are kept as they are;
    a blank line and comments just before the next table stay with that table."""
    lines = text.splitlines()
    out: list[str] = []
    inserted = False
    skipping = False
    held: list[str] = []  # blank and comment lines inside a skipped block
    for line in lines:
        m = _HEADER.match(line)
        if m is not None:
            name = m.group(1).strip().strip('"')
            is_zone = name == "zones" or name.startswith("zones.")
            if is_zone:
                if not inserted:
                    out.extend(zone_lines)
                    inserted = True
                skipping = True
                held = []
                continue
            if skipping:
                out.extend(held)
                skipping = False
            out.append(line)
            continue
        if skipping:
            if not line.strip() or line.lstrip().startswith("#"):
                held.append(line)
            else:
                held = []
            continue
        out.append(line)
    if skipping:
        out.extend(ln for ln in held if ln.strip())
    if not inserted:
        if out and out[-1].strip():
            out.append("")
        out.extend(zone_lines)
    return "\n".join(out) + "\n"


def write_zones(path: Path, zones: ZoneMap) -> None:
    """Put ``zones`` into the config file atomically; the result must still load."""
    old = path.read_text()
    new = replace_zones(old, zones.to_toml_lines())
    if loads(new).zones != zones:  # ConfigError (naming the key) before anything is written
        raise ToolError("the config still has zone keys outside its [zones] tables")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(new)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


async def _gated(
    snapshots: AsyncIterator[AntennaSnapshot], release: Callable[[], None]
) -> AsyncIterator[AntennaSnapshot]:
    """The snapshots; ``release()`` once the wizard has processed a whole cycle (it processes
    a cycle when the next cycle's first snapshot comes), so that the first prompt is shown
    only after the wizard has seen which cards already lie on the table."""
    cycles: list[int] = []
    async for snap in snapshots:
        yield snap
        if len(cycles) < 2 and snap.cycle not in cycles:
            cycles.append(snap.cycle)
            if len(cycles) == 2:
                release()


async def _wizard(args: argparse.Namespace, say: Say) -> ZoneMap:
    cfg = load_config(args.config)
    seats = args.seats if args.seats is not None else cfg.table_size
    held: list[str] | None = []

    def gate(message: str) -> None:
        if held is None:
            say(message)
        else:
            held.append(message)

    def release() -> None:
        nonlocal held
        for message in held or []:
            say(message)
        held = None

    async with BoardSession(cfg, online_timeout=args.reader_timeout) as board:
        say(f"reader board online ({board.antenna_count} antennas); cards already on the"
            " table are ignored until lifted")  # fmt: skip
        return await run_calibrate(
            _gated(board.snapshots(), release), gate, seats, board_antennas=args.board_antennas,
            bets=not args.no_bets, confirm_cycles=args.confirm_cycles,
        )  # fmt: skip


def main(args: argparse.Namespace) -> int:
    quiet_logs()
    say = printer()
    try:
        zones = asyncio.run(_wizard(args, say))
    except RailguardError as exc:
        say(f"railguard calibrate: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        say("railguard calibrate: interrupted; the config file is unchanged")
        return EXIT_INTERRUPTED
    if not args.write:
        say("")
        say("# the zone map: put this into the config in place of its [zones] tables")
        for line in zones.to_toml_lines():
            say(line)
        return EXIT_OK
    path = Path(args.config)
    try:
        write_zones(path, zones)
    except (OSError, RailguardError) as exc:
        say(f"railguard calibrate: {path} not written: {exc}")
        for line in zones.to_toml_lines():
            say(line)
        return EXIT_ERROR
    say(f"zone map written to {path} ([zones] replaced, the rest of the file kept)")
    return EXIT_OK
