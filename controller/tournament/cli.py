"""``railguard tournament``: run an event at the venue, or check an event file.

    railguard tournament check --event sunday.toml
    railguard tournament run --event sunday.toml --broker mqtts://broker.venue --ca-file ca.pem \\
        --username tournament --password-file tournament.pw [--state sunday.db]

docs/tournament.md describes the event file, the commands and the topics.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import signal
import sys
import time
from pathlib import Path


def register(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="tournament_command", required=True, metavar="ACTION")
    check = sub.add_parser("check", help="check an event file and print what it says")
    check.add_argument("--event", required=True, type=Path, metavar="FILE", help="the event file")
    run = sub.add_parser(
        "run",
        help="run the event: clock, seat draw, balancing, standings",
        description="Subscribe to the event's tables, keep its state (the journal, --state),"
        " push the levels, publish the clock, standings and proposals and carry out the"
        " floor's confirmations. Runs until Ctrl-C or SIGTERM; a restart resumes the event.",
    )
    run.add_argument("--event", required=True, type=Path, metavar="FILE", help="the event file")
    run.add_argument(
        "--state",
        type=Path,
        metavar="FILE",
        help="the event's journal (SQLite; default: FILE with .db beside it)",
    )
    run.add_argument(
        "--hands-db",
        metavar="DB",
        help="the venue logger's store (its SQLite file or postgresql:// URL): at start, the"
        " hands stored while this service was down are applied",
    )
    run.add_argument(
        "--command-key-file",
        type=Path,
        metavar="FILE",
        help="the tables' mqtt.command_key: table and event commands are signed",
    )
    # the broker, as for the venue logger (docs/cli.md)
    run.add_argument("--broker", "--host", dest="host", default="localhost", metavar="BROKER",
                     help="the venue broker: HOST, HOST:PORT, mqtts://HOST[:PORT] (TLS) or"
                          " mqtt://HOST[:PORT] (plain TCP, needs --allow-plaintext)")  # fmt: skip
    run.add_argument("--port", type=int, help="the broker's port, if not in --broker")
    run.add_argument("--ca-file", help="CA certificate (PEM) of the broker's certificate")
    run.add_argument("--cert-file", help="this service's client certificate (PEM)")
    run.add_argument("--key-file", help="the private key (PEM) of --cert-file")
    run.add_argument("--username", help="MQTT user name")
    run.add_argument("--password-file", type=Path, help="file holding the MQTT password")
    run.add_argument("--allow-plaintext", action="store_true",
                     help="connect without TLS (lab brokers only)")  # fmt: skip


def main(args: argparse.Namespace) -> int:
    """Run a tournament at the venue: clock, seat draw, balancing, standings."""
    import logging

    from controller.link.config import BrokerConfig
    from controller.rules.errors import RailguardError
    from controller.tournament.event import load_event_text
    from controller.tournament.link import EventLink
    from controller.tournament.service import EventService
    from controller.tournament.store import Journal
    from controller.venuelog.cli import broker_address

    try:
        text = args.event.read_text(encoding="utf-8")
        if args.tournament_command == "check":
            ev = load_event_text(text)
            print(
                f"event {ev.name} at {ev.venue} under {ev.profile}: {len(ev.tables)} tables,"
                f" {len(ev.entrants)} entrants, starting stack {ev.starting_stack}"
                + (f" (+{ev.bonus} bonus)" if ev.bonus else "")
                + f", {len(ev.levels)} levels; final table {ev.final_table_size}"
            )
            for lv in ev.levels:
                print(f"  {lv.minutes:3d} min  {lv.label()}")
            return 0
        host, port, tls = broker_address(args)
        password = args.password_file.read_text().strip() if args.password_file else None
        key = args.command_key_file.read_bytes().strip() if args.command_key_file else None
        broker = BrokerConfig(
            host=host,
            port=port,
            tls=tls,
            allow_plaintext=args.allow_plaintext,
            ca_file=args.ca_file,
            cert_file=args.cert_file,
            key_file=args.key_file,
            username=args.username,
            password=password,
        )
        journal = Journal(args.state or args.event.with_suffix(".db"))
        state = journal.open_event(text, str(args.event))
    except (RailguardError, OSError, UnicodeDecodeError) as exc:
        print(f"tournament: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="tournament: %(message)s", force=True)
    link = EventLink(broker, command_key=key)
    service = EventService(
        state, journal, secrets.SystemRandom(), time.time, link.send, link.publish
    )
    if args.hands_db:
        from controller.venuelog.store import open_for_export

        try:
            store = open_for_export(args.hands_db)
            try:
                applied = service.catch_up(store)
            finally:
                store.close()
        except RailguardError as exc:
            print(f"tournament: --hands-db: {exc}", file=sys.stderr)
            journal.close()
            return 2
        print(f"tournament: {applied} stored hand(s) applied", file=sys.stderr)

    async def serve() -> None:
        task = asyncio.current_task()
        assert task is not None
        with contextlib.suppress(NotImplementedError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await link.run(service)

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    finally:
        journal.close()
    return 0
