"""``railguard venue-log``: run the venue logger, or export stored hands.

    railguard venue-log run --host broker --ca-file ca.pem --username venuelog \\
        --password-file pw --db venue.db            # or --db postgresql://...
    railguard venue-log export --db venue.db --format ohh|ohh-array|phh [--out FILE]

Registered in ``controller.commands.REGISTRY`` when this module is imported.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import socket
import sys
from pathlib import Path

from controller.commands import command


def default_instance(hostname: str | None = None) -> str:
    """The host's name as a logger instance id (1-32 letters, digits or '-'), else "main".

    Two loggers with the same instance share an MQTT client id, and the broker keeps only
    the newer connection: named by host, loggers on different hosts never collide; a second
    logger on the same host needs its own ``--instance``."""
    name = (socket.gethostname() if hostname is None else hostname).split(".")[0]
    name = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-")[:32].strip("-")
    return name or "main"


def register(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="venue_log_command", required=True)
    run = sub.add_parser("run", help="store and acknowledge every table's hand records")
    run.add_argument("--db", default="venue-hands.db", help="SQLite path or postgresql:// URL")
    run.add_argument("--host", default="localhost")
    run.add_argument("--port", type=int)
    run.add_argument("--ca-file")
    run.add_argument("--cert-file")
    run.add_argument("--key-file")
    run.add_argument("--username")
    run.add_argument("--password-file", type=Path)
    run.add_argument(
        "--allow-plaintext", action="store_true", help="connect without TLS (lab brokers only)"
    )
    run.add_argument("--instance", default=default_instance(),
                     help="this logger's name, distinct for every logger on the broker: it is "
                          "in its MQTT client id and status topic (default: the host name, "
                          "%(default)s)")  # fmt: skip
    run.add_argument("--group", default="venuelog")
    exp = sub.add_parser("export", help="write stored hands as OHH or PHH")
    exp.add_argument("--db", default="venue-hands.db")
    exp.add_argument("--format", choices=["ohh", "ohh-array", "phh"], default="ohh")
    exp.add_argument("--venue")
    exp.add_argument("--table")
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


@command("venue-log", register)
def main(args: argparse.Namespace) -> int:
    """Venue logger: store and acknowledge hand records; export them as OHH or PHH."""
    from controller.link.config import BrokerConfig
    from controller.rules.errors import RailguardError
    from controller.venuelog.export import export_ohh, export_phh, export_phh_dir
    from controller.venuelog.logger import VenueLogger
    from controller.venuelog.store import open_store

    try:
        store = open_store(args.db)
        if args.venue_log_command == "export":
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
        password = args.password_file.read_text().strip() if args.password_file else None
        broker = BrokerConfig(
            host=args.host,
            port=args.port,
            tls=not args.allow_plaintext,
            allow_plaintext=args.allow_plaintext,
            ca_file=args.ca_file,
            cert_file=args.cert_file,
            key_file=args.key_file,
            username=args.username,
            password=password,
        )
        import logging

        logging.basicConfig(level=logging.INFO, format="venue-log: %(message)s", force=True)
        logger = VenueLogger(
            broker, store, instance=args.instance, group=args.group, store_name=_safe(args.db)
        )
        try:
            asyncio.run(logger.run())
        except KeyboardInterrupt:
            return 0
        return 0
    except (RailguardError, OSError) as exc:
        print(f"venue-log: {exc}", file=sys.stderr)
        return 2
