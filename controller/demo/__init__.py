"""``railguard demo``: the README's main job on simulated tables. A private mosquitto (or
``--broker``), ``--tables`` tables (default 3, of six, nine and eight seats: a room) each
with its daemon in-process, its reader board on a pty and MockFactory GPIO, one venue
logger; each table's virtual dealer (logged in by badge) plays ``--hands`` hands through the
simulated hardware while a live view prints the first table's hands, then a summary. The
floor console opens on the room (a supervisor's and a director's login printed). Exit 0
when every hand of every table has its record and the right finishing stacks."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import tempfile
import uuid
from collections.abc import Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from controller.demo.event import EventOutcome
    from controller.demo.view import View
    from controller.tools.args import BrokerAddress

T = TypeVar("T")

__all__ = ["broker_for", "register", "run_demo"]


def register(p: argparse.ArgumentParser) -> None:
    from controller.tools.args import add_broker, add_logger_group

    p.add_argument("--hands", type=int, default=20, metavar="N",
                   help="hands each table plays (default 20)")  # fmt: skip
    p.add_argument("--tables", type=int, default=3, metavar="N",
                   help="tables in the room, 1-10 (default 3: of 6, 9 and 8 seats)")  # fmt: skip
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="the same seed plays the same run again (default: a new one)")  # fmt: skip
    add_broker(p, "the broker the table and its venue logger use")
    add_logger_group(p)
    p.add_argument("--profile", default="tda-2024", metavar="NAME",
                   help="house-rule profile name (default %(default)s; docs/rules.md)")  # fmt: skip
    p.add_argument(
        "--source",
        choices=("auto", "pluribus", "generated"),
        default="auto",
        help="recorded Pluribus hands if present (auto), or generated ones",
    )
    p.add_argument(
        "--error-rate",
        type=float,
        default=0.2,
        metavar="RATE",
        help="share of hands with an injected dealer error (default 0.2)",
    )
    p.add_argument("--console-port", type=int, default=8080, metavar="PORT",
                   help="the floor console's port on 127.0.0.1 (default %(default)s; taken:"
                   " a free one; 0: always a free one)")  # fmt: skip
    p.add_argument("--no-console", action="store_true", help="do not open the floor console")
    p.add_argument("--event", action="store_true",
                   help="play a short tournament on the tables (3-6, default 3): the seat"
                   " draw, the clock, bust-outs, a balance and a break confirmed, hand-for-hand"
                   " on the bubble, the final table (docs/tournament.md)")  # fmt: skip
    p.add_argument("--verbose", action="store_true", help="show the daemon's log")


def _parse_broker(url: str | BrokerAddress) -> tuple[str, int]:
    """(host, port) of a plain-TCP broker in any form ``--broker`` takes (ValueError else)."""
    from controller.tools.args import parse_broker

    addr = parse_broker(url) if isinstance(url, str) else url
    if addr.tls:
        raise ValueError(f"--broker {addr.url()}: the simulated table talks plain TCP"
                         " (mqtt://HOST[:PORT]), not TLS")  # fmt: skip
    return addr.host, addr.port_or_default()


@contextlib.contextmanager
def broker_for(
    url: str | BrokerAddress | None, *, nodelay: bool = False
) -> Iterator[tuple[str, int, str]]:
    """(host, port, table id): ``url``'s broker (a fresh table id), else a private mosquitto
    (``nodelay``: with TCP_NODELAY, so small messages are not held back by Nagle)."""
    if url is not None:
        host, port = _parse_broker(url)
        yield host, port, f"demo-{uuid.uuid4().hex[:8]}"
        return
    from hwsim.broker import broker_on_free_ports, plain_broker

    if nodelay:
        with broker_on_free_ports(1, lambda ports: f"listener {ports[0]} 127.0.0.1\n"
                                  "allow_anonymous true\nset_tcp_nodelay true\n") as b:  # fmt: skip
            yield b.host, b.port, "t1"
        return
    with plain_broker() as b:
        yield b.host, b.port, "t1"


_broker = broker_for  # the demo's older name


async def _with_console(
    play: Coroutine[Any, Any, T],
    room: tuple[str, int, int] | None,
    workdir: Path,
    view: View,
    tables: Sequence[tuple[str, int]] = (),
) -> T:
    """``play`` with the floor console open on the demo's broker (``room``: broker host,
    port, the console's port; None: no console), its address and logins printed first. The
    console searches the hands the demo's venue logger stores (``workdir``/venue.db) and
    names the ``tables`` ((id, seats), in the room's order) "Table 1 (6 seats)" and on."""
    if room is None:
        return await play
    from controller.demo.console import open_console

    try:
        console = await open_console(room[0], room[1], workdir / "console", room[2],
                                     db=workdir / "venue.db", tables=tables)  # fmt: skip
    except BaseException:
        play.close()
        raise
    view.line(f"  floor console {console.url} (user {console.user}, password"
              f" {console.password}): the room, live in a browser")  # fmt: skip
    view.line(f"  director login: user {console.director}, password"
              f" {console.director_password} (the room's level, a table's profile)")  # fmt: skip
    try:
        return await play
    finally:
        await console.close()


def run_demo(args: argparse.Namespace) -> int:
    from controller.demo.hands import demo_hands
    from controller.demo.room import plans, run_room, table_ids
    from controller.demo.table import DemoFailure
    from controller.demo.view import View
    from controller.rules.errors import RailguardError
    from controller.rules.profile import get_profile

    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL,
                        format="%(levelname)s %(name)s: %(message)s", force=True)  # fmt: skip
    if getattr(args, "event", False):
        return run_event_demo(args)
    if args.hands < 1:
        print("railguard demo: --hands must be at least 1")
        return 2
    if not 1 <= args.tables <= 10:
        print("railguard demo: --tables must be 1-10")
        return 2
    if not 0 <= args.console_port < 65536:
        print("railguard demo: --console-port must be 0-65535")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    view = View()
    try:
        profile = get_profile(args.profile)
        dealt = [demo_hands(random.Random(seed if i == 0 else f"{seed}-table-{i}"), args.hands,
                            profile, args.source) for i in range(args.tables)]  # fmt: skip
    except RailguardError as exc:
        print(f"railguard demo: {exc}")
        return 2
    where = dealt[0][0]
    hands = [h for _, h in dealt]
    n_hands = sum(len(h) for h in hands)
    view.banner(f"railguard demo: {args.tables} table{'s' if args.tables > 1 else ''},"
                f" {len(hands[0])} hands each, seed {seed}, profile {profile.name}")  # fmt: skip
    view.line(f"  {where}")
    try:
        with broker_for(args.broker) as (host, port, table_id), \
                tempfile.TemporaryDirectory(prefix="railguard-demo-") as tmp:  # fmt: skip
            # on a venue's broker, a share group (and client id) of its own: the venue's
            # logger keeps every hand of the venue's tables (docs/cli.md)
            group = args.logger_group or (table_id if args.broker else "venuelog")
            room_plan = plans(table_ids(table_id, args.tables), hands, view)
            names = ", ".join(f"{p.table_id} ({p.seats} seats, dealer {p.dealers[0]})"
                              for p in room_plan)  # fmt: skip
            view.line(f"  broker mqtt://{host}:{port}, venue logger share group {group}")
            view.line(f"  tables railguard/v1/: {names}; the hands of {room_plan[0].table_id}"
                      " are shown")  # fmt: skip
            play = run_room(
                room_plan, host=host, port=port, profile=args.profile, seed=seed,
                error_rate=args.error_rate, workdir=Path(tmp), logger_group=group,
                logger_instance=table_id if args.broker else "main",
            )  # fmt: skip
            room = None if args.no_console else (host, port, args.console_port)
            seats = [(p.table_id, p.seats) for p in room_plan]
            stored = asyncio.run(_with_console(play, room, Path(tmp), view, seats))
    except (DemoFailure, RailguardError, RuntimeError, ValueError, OSError) as exc:
        print(f"railguard demo: failed: {exc}")
        return 1
    view.line()
    view.banner("summary")
    by_code: dict[str, int] = {}
    for p in room_plan:
        for code, n in p.view.by_code.items():
            by_code[code] = by_code.get(code, 0) + n
    alerts = ", ".join(f"{c}={n}" for c, n in sorted(by_code.items())) or "none"
    injected = sum(p.outcome.errors_injected for p in room_plan)
    view.line(f"  dealer errors injected: {injected}; alerts: {alerts}")
    counts = {"daemon": sum(p.records for p in room_plan),
              "mqtt": sum(p.over_mqtt for p in room_plan), "logger": stored}  # fmt: skip
    view.line(f"  hand records: daemon {counts['daemon']}, over MQTT {counts['mqtt']}, "
              f"stored by the venue logger {counts['logger']}")  # fmt: skip
    if len(room_plan) > 1:
        for p in room_plan:
            o = p.outcome
            view.line(f"  table {p.table_id} ({p.seats} seats, dealers {p.dealers[0]} and"
                      f" {p.dealers[1]}): {o.hands} hands played, {len(o.missing)} records"
                      f" missing, {len(o.mismatches)} mismatches")  # fmt: skip
    mismatches = [m for p in room_plan for m in p.outcome.mismatches]
    missing_labels = [m for p in room_plan for m in p.outcome.missing]
    for m in missing_labels:
        view.line(f"  MISSING record: {m}")
    for m in mismatches:
        view.line(f"  MISMATCH {m}")
    missing = len(missing_labels) + max(0, n_hands - min(counts.values()))
    # with no dealer error injected, an alert above info is a false alarm: the demo fails
    alarm_codes: dict[str, int] = {}
    for p in room_plan:
        for code, n in p.view.alarms.items():
            alarm_codes[code] = alarm_codes.get(code, 0) + n
    false_alarms = injected == 0 and bool(alarm_codes)
    if false_alarms:
        listed = ", ".join(f"{c}={n}" for c, n in sorted(alarm_codes.items()))
        view.line(f"  FALSE ALARMS (no dealer error was made): {listed}")
    ok = not mismatches and missing == 0 and not false_alarms
    verdict = "OK" if ok else "FAILED"
    played = sum(p.outcome.hands for p in room_plan)
    view.line(
        f"demo: {played} hands played, {missing} records missing, "
        f"{len(mismatches)} mismatches, seed {seed}: {verdict}"
    )
    view.next_steps()
    return 0 if ok else 1


async def _run_event(host: str, port: int, workdir: Path, tables: int, view: View,
                     seed: int) -> EventOutcome:  # fmt: skip
    from controller.demo.event import event_room, play_event

    async with event_room(host, port, workdir, tables, view, seed) as room:
        return await play_event(room)


def run_event_demo(args: argparse.Namespace) -> int:
    """``railguard demo --event`` (docs/cli.md): the demo event (:mod:`controller.demo.event`)
    with the console open on the room, each step printed, then the standings. Exit 0 when
    the event reached its final table with no alert above info and every hand right."""
    from controller.demo.event import EVENT
    from controller.demo.view import View
    from controller.rules.errors import RailguardError
    from hwsim.layout import TableFailure

    if not 3 <= args.tables <= 6:
        print("railguard demo --event: --tables must be 3-6")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    view = View()
    view.banner(f"railguard demo --event: {args.tables} tables of 4 seats,"
                f" {4 * args.tables - 1} entrants, seed {seed}")  # fmt: skip
    try:
        with broker_for(args.broker) as (host, port, _), \
                tempfile.TemporaryDirectory(prefix="railguard-event-") as tmp:  # fmt: skip
            view.line(f"  broker mqtt://{host}:{port}; the event's topics"
                      f" railguard/_event/{EVENT}/")  # fmt: skip
            room = None if args.no_console else (host, port, args.console_port)
            seats = [(f"t{i}", 4) for i in range(1, args.tables + 1)]
            if room is not None:
                view.line(f"  in the console: /event?event={EVENT} (director) and"
                          f" /clock?event={EVENT} (the players' screen)")  # fmt: skip
            play = _run_event(host, port, Path(tmp), args.tables, view, seed)
            out = asyncio.run(_with_console(play, room, Path(tmp), view, seats))
    except (TableFailure, RailguardError, RuntimeError, ValueError, OSError) as exc:
        print(f"railguard demo --event: failed: {exc}")
        return 1
    view.line()
    view.banner("standings")
    st = out.standings
    for p in st.get("players", []):
        view.line(f"  {p['name']:<10} {p['table']} seat {p['seat']}: {p['stack']:,}")
    for e in st.get("eliminated", []):
        view.line(f"  {e['place']:>2}. {e['name']:<10} out at {e['table']} ({e['hand_id']},"
                  f" started the hand with {e['start_stack']:,})")  # fmt: skip
    alarms = ", ".join(f"{k}={n}" for k, n in sorted(out.alarms.items())) or "none"
    view.line(f"  hands {out.hands}; proposals confirmed: {', '.join(out.confirmed)};"
              f" alerts above info: {alarms}; mismatches: {len(out.mismatches)}")  # fmt: skip
    for m in out.mismatches:
        view.line(f"  MISMATCH {m}")
    view.line(f"demo event: seed {seed}: {'OK' if out.ok else 'FAILED'}")
    return 0 if out.ok else 1
