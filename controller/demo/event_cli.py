"""``railguard demo --event``: the demo event (:mod:`controller.demo.event`) from the
command line: a private mosquitto (or ``--broker``), the floor console open on the room
(``/event?event=demo`` and ``/clock?event=demo``; the logins printed), each step printed,
then the standings. Exit 0 when the event reached its final table with no alert above info
and every hand's finishing stacks right."""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from pathlib import Path

from controller.demo import _with_console, broker_for
from controller.demo.event import EVENT, EventOutcome, event_room, play_event
from controller.demo.view import View
from controller.rules.errors import RailguardError
from hwsim.layout import TableFailure


async def _run(host: str, port: int, workdir: Path, tables: int, view: View,
               seed: int) -> EventOutcome:  # fmt: skip
    async with event_room(host, port, workdir, tables, view, seed) as room:
        return await play_event(room)


def run_event_demo(args: argparse.Namespace) -> int:
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
            out = asyncio.run(_with_console(_run(host, port, Path(tmp), args.tables, view, seed),
                                            room, Path(tmp), view, seats))  # fmt: skip
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
