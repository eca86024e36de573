"""``railguard sim``: a simulated table for a daemon a technician runs from a config file.

    railguard sim [--seats 9] [--hands 20] [--dir sim] [--broker mqtt://HOST:PORT]
    railguard sim --board-only [--dir sim]
    railguard run --config sim/sim.toml         # (elsewhere, with --board-only)

It puts the simulated reader board on a pty (the path is printed, with a stable symlink
``DIR/reader``) and writes ``DIR/sim.toml``, a complete ``railguard run`` config for it: the
zone map of the table's seats, ``gpio.pin_factory = "mock"``, the broker (a private
mosquitto on loopback unless ``--broker``), the demo's chips. A venue logger runs here in
both modes (``DIR/venue.db``): the daemon sends hand records only while one is online.

By default the daemon then runs here, loaded from that file as ``railguard run --config``
loads it, with gpiozero's MockFactory in this process, so that the virtual dealer can press
the console buttons and move the button puck as well as lay cards and chips on the board:
it deals ``--hands`` hands and prints each one. gpiozero's mock pins exist only inside the
process that made them, which is why the dealer and the daemon share one.

With ``--board-only`` nothing else starts: start ``railguard run --config DIR/sim.toml``
yourself (or ``railguard doctor --config ...``) and it finds the board online on the pty;
its GPIO is mock pins nobody presses. Ctrl-C stops either mode cleanly (exit 0)."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from pathlib import Path
from typing import Any, TextIO

__all__ = ["main", "register"]


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seats", type=int, default=6, help="seats at the table, 2..10 (default 6)")
    p.add_argument("--hands", type=int, default=20, help="hands the dealer deals (default 20)")
    p.add_argument("--dir", default="sim", help="where sim.toml, the state and the pty "
                   "symlink go (default ./sim)")  # fmt: skip
    p.add_argument("--broker", default=None,
                   help="mqtt://HOST:PORT of a broker (default: a private mosquitto)")  # fmt: skip
    p.add_argument("--profile", default="tda-2024", help="house-rule profile name")
    p.add_argument("--seed", type=int, default=None, help="seed of the hands")
    p.add_argument(
        "--board-only",
        action="store_true",
        help="only the board and the config: run `railguard run --config` yourself",
    )
    p.add_argument("--verbose", action="store_true", help="show the daemon's log")


def main(args: argparse.Namespace, out: TextIO | None = None) -> int:
    import logging

    out = out or sys.stdout
    if not 2 <= args.seats <= 10:
        print(f"railguard sim: --seats {args.seats}: a table has 2..10 seats", file=out)
        return 2
    if args.hands < 1:
        print("railguard sim: --hands must be at least 1", file=out)
        return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL,
                        format="%(levelname)s %(name)s: %(message)s", force=True)  # fmt: skip
    try:
        return asyncio.run(_main(args, out))
    except KeyboardInterrupt:
        print("railguard sim: stopped (Ctrl-C)", file=out, flush=True)
        return 0


async def _main(args: argparse.Namespace, out: TextIO) -> int:
    from controller.demo import broker_for
    from controller.demo.hands import demo_hands, generated_hands
    from controller.demo.table import chip_table
    from controller.rules.errors import RailguardError
    from controller.rules.profile import get_profile
    from hwsim.layout import Layout

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    try:
        profile = get_profile(args.profile)
        if args.seats == 6:
            _, hands = demo_hands(random.Random(seed), args.hands, profile)
        else:
            hands = generated_hands(random.Random(seed), args.hands, profile, args.seats)
    except RailguardError as exc:
        say(f"railguard sim: {exc}")
        return 2
    layout = Layout(args.seats)
    work = Path(args.dir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    with broker_for(args.broker) as (host, port, table_id):
        return await _table(args, say, work, layout, host, port, table_id, hands,
                            chip_table(hands))  # fmt: skip


async def _table(args: argparse.Namespace, say: Any, work: Path, layout: Any, host: str,
                 port: int, table_id: str, hands: list[Any],
                 chips: dict[bytes, int]) -> int:  # fmt: skip
    from controller.demo.table import Table
    from controller.demo.view import View
    from hwsim.layout import VENUE
    from hwsim.table import SimTable

    cfg_path = work / "sim.toml"
    if args.board_only:
        return await _board_only(say, work, layout, host, port, table_id, args.profile, chips,
                                 cfg_path)  # fmt: skip
    view = View()
    view.total = len(hands)
    # the daemon loaded from the file as `railguard run --config` loads it; the venue's hand
    # logger (the daemon sends hand records only while one is online) in work/venue.db
    sim = await SimTable.open(host, port, profile=args.profile, workdir=work,
                              table_id=table_id, seats=layout, chips=chips, transport="pty",
                              view=view, enrol=False, logger=True,
                              config_file=cfg_path)  # fmt: skip
    try:
        say(f"railguard sim: {layout.seats} seats, reader board on {sim.board.path} (also "
            f"{sim.symlink}), {layout.antennas} antennas")  # fmt: skip
        say(f"  broker mqtt://{host}:{port}, table railguard/{VENUE}/{table_id}")
        say(f"  config {cfg_path}")
        say(f"  venue logger storing hand records in {work / 'venue.db'}")
        say("  daemon ready; dealing (Ctrl-C stops)")
        table = Table(sim, view, random.Random(1), 0.0)
        await table.setup()
        for i, hand in enumerate(hands):
            await table.play(i, hand)
        o = table.outcome
        # the simulated dealer makes no error: an alert above info is a false alarm
        alarms = sum(view.alarms.values())
        ok = not o.mismatches and not o.missing and not alarms
        if alarms:
            by_code = ", ".join(f"{c}={n}" for c, n in sorted(view.alarms.items()))
            say(f"railguard sim: alerts above info on clean play: {by_code}")
        say(f"railguard sim: {o.hands} hands dealt, {len(o.missing)} records missing, "
            f"{len(o.mismatches)} mismatches, {alarms} alerts above info: "
            f"{'OK' if ok else 'FAILED'}")  # fmt: skip
        return 0 if ok else 1
    finally:
        await sim.close()


async def _board_only(say: Any, work: Path, layout: Any, host: str, port: int, table_id: str,
                      profile: str, chips: dict[bytes, int], cfg_path: Path) -> int:  # fmt: skip
    """The board on a pty, its config and a venue logger, for a daemon started by hand."""
    from firmware_bridge.protocol import SetConfig
    from hwsim.board import SimBoard
    from hwsim.layout import VENUE, config_mapping
    from hwsim.table import start_logger, stop_logger, write_config

    board = SimBoard(layout.antennas, config=SetConfig(scan_period_ms=20,
                                                       heartbeat_interval_ms=200))  # fmt: skip
    link = work / "reader"
    await board.start_pty(link)
    try:
        mapping = config_mapping(str(link), host, port, table_id, profile, work / "state",
                                 chips, layout=layout)  # fmt: skip
        write_config(cfg_path, mapping)
        say(f"railguard sim: {layout.seats} seats, reader board on {board.path} (also {link}), "
            f"{layout.antennas} antennas")  # fmt: skip
        say(f"  broker mqtt://{host}:{port}, table railguard/{VENUE}/{table_id}")
        say(f"  config {cfg_path}")
        logger = await start_logger(host, port, work)
        say(f"  venue logger storing hand records in {work / 'venue.db'}")
        try:
            say(f"  start the daemon: railguard run --config {cfg_path}")
            say("  (Ctrl-C stops the board)")
            await asyncio.Event().wait()
            return 0
        finally:
            await stop_logger(logger)
    finally:
        await board.stop()
