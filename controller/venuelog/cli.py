"""``railguard venue-log``: run the venue logger, or export stored hands.

    railguard venue-log run --broker mqtts://broker --ca-file ca.pem --username venuelog \\
        --password-file pw --db venue.db            # or --db postgresql://...
    railguard venue-log export --db venue.db --format ohh|ohh-array|phh [--out FILE]

Registered in ``controller.commands.REGISTRY`` (which imports it when the command runs).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.link.config import BrokerConfig
    from controller.venuelog.logger import VenueLogger


def default_instance(hostname: str | None = None) -> str:
    """The host's name as a logger instance id (1-32 letters, digits or '-'), else "main".

    Two loggers with the same instance share an MQTT client id, and the broker keeps only
    the newer connection: named by host, loggers on different hosts never collide; a second
    logger on the same host needs its own ``--instance``."""
    name = (socket.gethostname() if hostname is None else hostname).split(".")[0]
    name = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-")[:32].strip("-")
    return name or "main"


def register(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="venue_log_command", required=True, metavar="ACTION")
    run = sub.add_parser(
        "run", help="store and acknowledge every table's hand records",
        description="Subscribe to every table's hand records on the venue broker, store each"
        " one and acknowledge it (the table re-sends until it is acknowledged). Runs until"
        " Ctrl-C or SIGTERM.",
    )  # fmt: skip
    run.add_argument("--db", default="venue-hands.db",
                     help="where to store the hands: an SQLite file (created if missing) or a"
                          " postgresql:// URL (default %(default)s)")  # fmt: skip
    run.add_argument("--broker", "--host", dest="host", default="localhost", metavar="BROKER",
                     help="the venue broker: HOST, HOST:PORT, mqtts://HOST[:PORT] (TLS) or"
                          " mqtt://HOST[:PORT] (plain TCP, needs --allow-plaintext); default"
                          " %(default)s, TLS")  # fmt: skip
    run.add_argument("--port", type=int,
                     help="the broker's port, if not in --broker (default 8883 with TLS, 1883"
                          " without)")  # fmt: skip
    run.add_argument("--ca-file", help="CA certificate (PEM) that signed the broker's certificate"
                     " (default: the system's CAs)")  # fmt: skip
    run.add_argument("--cert-file", help="this logger's client certificate (PEM), if the broker"
                     " asks for one")  # fmt: skip
    run.add_argument("--key-file", help="the private key (PEM) of --cert-file")
    run.add_argument("--username", help="MQTT user name (the broker's ACL gives it the hands)")
    run.add_argument("--password-file", type=Path,
                     help="file holding the MQTT password (kept off the command line)")  # fmt: skip
    run.add_argument(
        "--allow-plaintext", action="store_true", help="connect without TLS (lab brokers only)"
    )
    run.add_argument("--instance", default=default_instance(),
                     help="this logger's name, distinct for every logger on the broker: it is "
                          "in its MQTT client id and status topic (default: the host name, "
                          "%(default)s)")  # fmt: skip
    run.add_argument("--group", default="venuelog",
                     help="MQTT share group: loggers in one group split the hands between them,"
                          " each group gets every hand (default %(default)s)")  # fmt: skip
    exp = sub.add_parser(
        "export", help="write stored hands as OHH or PHH",
        description="Read an existing venue-log database (read-only) and write its hands to"
        " standard output or --out; the count goes to standard error.",
    )  # fmt: skip
    exp.add_argument("--db", default="venue-hands.db",
                     help="the database 'venue-log run' wrote: SQLite file or postgresql:// URL"
                          " (default %(default)s; it must exist)")  # fmt: skip
    exp.add_argument("--format", choices=["ohh", "ohh-array", "phh"], default="ohh",
                     help="ohh: one OHH JSON object per line; ohh-array: one JSON array;"
                          " phh: a .phhs stream of [hand_id] tables (default: ohh)")  # fmt: skip
    exp.add_argument("--venue", help="only this venue's hands")
    exp.add_argument("--table", help="only this table's hands")
    exp.add_argument("--out", type=Path,
                     help="file to write (default: standard output); with --format phh, a "
                          "folder to write one <hand_id>.phh per hand in, or a .phhs file "
                          "(standard output: a .phhs stream)")  # fmt: skip


def _safe(db: str) -> str:
    """The store for a log line: a PostgreSQL URL without its password."""
    from urllib.parse import urlsplit, urlunsplit

    if not db.startswith(("postgresql://", "postgres://")):
        return f"SQLite {db}"
    parts = urlsplit(db)
    host = parts.hostname or ""
    netloc = (f"{parts.username}@" if parts.username else "") + host
    netloc += f":{parts.port}" if parts.port else ""
    return "PostgreSQL " + urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def broker_address(args: argparse.Namespace) -> tuple[str, int | None, bool]:
    """(host, port, tls) of ``run``'s --broker/--port/--allow-plaintext (BrokerAddressError)."""
    from controller.tools.args import BrokerAddressError, parse_broker

    addr = parse_broker(args.host)
    tls = addr.tls if addr.tls is not None else not args.allow_plaintext
    if addr.tls is False and not args.allow_plaintext:
        raise BrokerAddressError(f"--broker {args.host}: mqtt:// is plain TCP: add"
                                 " --allow-plaintext (lab brokers) or use mqtts://")  # fmt: skip
    if addr.tls and args.allow_plaintext:
        raise BrokerAddressError(f"--broker {args.host}: mqtts:// is TLS, but --allow-plaintext"
                                 " was given; drop one of them")  # fmt: skip
    if args.port is not None and addr.port is not None and args.port != addr.port:
        raise BrokerAddressError(f"--broker {args.host} names port {addr.port}, --port"
                                 f" {args.port}: give the port once")  # fmt: skip
    return addr.host, args.port if args.port is not None else addr.port, tls


def broker_config(args: argparse.Namespace) -> BrokerConfig:
    """The broker of ``run``'s --broker/--port/--allow-plaintext, --ca-file, --cert-file,
    --key-file, --username and --password-file (BrokerAddressError, OSError)."""
    from controller.link.config import BrokerConfig

    host, port, tls = broker_address(args)
    password = args.password_file.read_text().strip() if args.password_file else None
    return BrokerConfig(
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


async def _serve(logger: VenueLogger) -> None:
    """Run until Ctrl-C (asyncio.run cancels the task) or SIGTERM (systemd's stop, the same
    cancel): either way the logger publishes its retained "offline" before it disconnects."""
    task = asyncio.current_task()
    assert task is not None
    with contextlib.suppress(NotImplementedError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await logger.run()


def main(args: argparse.Namespace) -> int:
    """Venue logger: store and acknowledge hand records; export them as OHH or PHH."""
    from controller.rules.errors import RailguardError
    from controller.venuelog.export import export_ohh, export_phh, export_phh_dir
    from controller.venuelog.logger import VenueLogger
    from controller.venuelog.store import open_for_export, open_store

    try:
        if args.venue_log_command == "export":
            store = open_for_export(args.db)
            hands = store.hands(args.venue, args.table)
            if args.format == "phh" and args.out and args.out.suffix != ".phhs":
                n = export_phh_dir(hands, args.out)
                print(f"venue-log: exported {n} hands to {args.out}/", file=sys.stderr)
                return 0
            out = args.out.open("w") if args.out else sys.stdout
            try:
                if args.format == "phh":
                    n = export_phh(hands, out)
                else:
                    n = export_ohh(hands, out, array=args.format == "ohh-array")
            finally:
                if args.out:
                    out.close()
            print(f"venue-log: exported {n} hands", file=sys.stderr)
            return 0
        broker = broker_config(args)
        store = open_store(args.db)
        import logging

        logging.basicConfig(level=logging.INFO, format="venue-log: %(message)s", force=True)
        logger = VenueLogger(
            broker, store, instance=args.instance, group=args.group, store_name=_safe(args.db)
        )
        try:
            asyncio.run(_serve(logger))
        except KeyboardInterrupt:
            return 0
        return 0
    except (RailguardError, OSError) as exc:
        print(f"venue-log: {exc}", file=sys.stderr)
        return 2
