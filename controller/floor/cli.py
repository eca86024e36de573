"""``railguard floor``: run the console, or hash a password for the users file.

    railguard floor run --config floor.toml [--venue venue.toml]
    railguard floor hash-password            # reads the password from standard input

The config (TOML)::

    [floor]
    listen = "127.0.0.1"          # the address the console serves on
    port = 8080
    users_file = "floor-users.toml"
    db = "venue-hands.db"          # the venue logger's store (SQLite file or postgresql://)
    command_key_file = ""          # the tables' mqtt.command_key, when they require one
    cert_file = ""                 # HTTPS with cert_file + key_file
    key_file = ""
    venue_file = ""                # tables' names and numbers, room settings (floor/venue.py)

    [mqtt]                         # the venue broker, as for the venue logger
    host = "broker.venue"
    ca_file = "ca.pem"
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import getpass
import secrets
import signal
import ssl
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.floor import gc_tune
from controller.floor.app import make_app
from controller.floor.auth import Sessions, hash_password, load_users
from controller.floor.console import Console
from controller.floor.link import FloorLink
from controller.floor.room import Room
from controller.floor.venue import Venue, load_venue
from controller.link.config import BrokerConfig
from controller.rules.errors import ConfigError

_FLOOR_KEYS = {"listen", "port", "users_file", "db", "command_key_file", "cert_file", "key_file",
               "venue_file"}  # fmt: skip


@dataclass(frozen=True)
class FloorConfig:
    broker: BrokerConfig
    users_file: str
    listen: str = "127.0.0.1"
    port: int = 8080
    db: str | None = None
    command_key: bytes | None = None
    cert_file: str | None = None
    key_file: str | None = None
    venue: Venue | None = None  # names and numbers of the tables, the room's settings


def _opt(floor: dict[str, Any], key: str) -> str | None:
    v = floor.get(key, "")
    if not isinstance(v, str):
        raise ConfigError(f"floor.{key}: expected a string")
    return v or None


def parse_config(raw: dict[str, Any], base: Path) -> FloorConfig:
    floor = raw.get("floor", {})
    if not isinstance(floor, dict):
        raise ConfigError("[floor]: expected a table")
    unknown = set(floor) - _FLOOR_KEYS
    if unknown:
        raise ConfigError(f"floor: unknown key(s) {sorted(unknown)} (known: {sorted(_FLOOR_KEYS)})")
    users = _opt(floor, "users_file")
    if users is None:
        raise ConfigError("floor.users_file: required (the users and their roles)")
    port = floor.get("port", 8080)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigError("floor.port: an integer 1-65535")
    key = None
    key_file = _opt(floor, "command_key_file")
    if key_file is not None:
        try:
            key = (base / key_file).read_bytes().strip()
        except OSError as exc:
            raise ConfigError(f"floor.command_key_file: {exc}") from None
    cert, tls_key = _opt(floor, "cert_file"), _opt(floor, "key_file")
    if (cert is None) != (tls_key is None):
        raise ConfigError("floor.cert_file and floor.key_file go together")
    venue_file = _opt(floor, "venue_file")
    venue = load_venue(base / venue_file) if venue_file is not None else None
    db = _opt(floor, "db")
    if db is not None and not db.startswith(("postgresql://", "postgres://")):
        db = str(base / db)
    return FloorConfig(
        broker=BrokerConfig.from_mapping(raw.get("mqtt", {})),
        users_file=str(base / users), listen=_opt(floor, "listen") or "127.0.0.1",
        port=port, db=db, command_key=key,
        cert_file=str(base / cert) if cert else None,
        key_file=str(base / tls_key) if tls_key else None, venue=venue,
    )  # fmt: skip


def load_config(path: str | Path) -> FloorConfig:
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"floor config {path}: {exc}") from None
    return parse_config(raw, p.parent)


async def start(cfg: FloorConfig) -> tuple[web.AppRunner, Console]:
    """Start the link and the web server; returns them for :func:`stop`."""
    users = load_users(cfg.users_file)
    room = Room(cfg.venue)
    link = FloorLink(cfg.broker, room, command_key=cfg.command_key)
    console = Console(users, Sessions(secrets.token_bytes(32)), room, link, cfg.db,
                      secure_cookie=cfg.cert_file is not None)  # fmt: skip
    ctx = None
    if cfg.cert_file is not None:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            ctx.load_cert_chain(cfg.cert_file, cfg.key_file)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"floor.cert_file/key_file: {exc}") from None
    link.start()
    runner = web.AppRunner(make_app(console), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, cfg.listen, cfg.port, ssl_context=ctx).start()
    return runner, console


async def stop(runner: web.AppRunner, console: Console) -> None:
    await console.link.stop()
    await runner.cleanup()


async def _serve(cfg: FloorConfig) -> None:
    runner, console = await start(cfg)
    gc_tune.after_start()  # start-up's objects out of the collector's way (issue 23)
    loop = asyncio.get_running_loop()
    loop.call_later(gc_tune.LOADED_S, gc_tune.after_load)
    scheme = "https" if cfg.cert_file else "http"
    print(f"floor console on {scheme}://{cfg.listen}:{cfg.port}/", file=sys.stderr, flush=True)
    done = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, done.set)
    try:
        await done.wait()
    finally:
        await stop(runner, console)


def register(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="floor_command", required=True, metavar="ACTION")
    run = sub.add_parser("run", help="serve the floor console")
    run.add_argument("--config", required=True, help="the console's TOML config")
    run.add_argument("--venue", help="the venue file: tables' names and numbers (instead of"
                     " the config's floor.venue_file)")  # fmt: skip
    sub.add_parser("hash-password", help="print a scrypt hash for the users file")


def main(args: argparse.Namespace) -> int:
    try:
        if args.floor_command == "hash-password":
            pw = getpass.getpass("password: ") if sys.stdin.isatty() else sys.stdin.readline()
            print(hash_password(pw.rstrip("\n")))
            return 0
        cfg = load_config(args.config)
        if getattr(args, "venue", None):
            cfg = dataclasses.replace(cfg, venue=load_venue(args.venue))
        asyncio.run(_serve(cfg))
    except ConfigError as exc:
        print(f"railguard floor: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"railguard floor: {exc}", file=sys.stderr)
        return 1
    return 0
