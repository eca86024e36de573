"""The demo opens the room: the floor console (``controller.floor``) in the demo's process,
on the demo's broker, with a user made for this run only.

:func:`open_console` writes a users file with a floor supervisor (``demo``) and a tournament
director (``director``), each with a random password, into the demo's work directory,
starts the console on ``127.0.0.1`` (the port asked for, or a free one when it is taken)
reading the demo's venue logger database (the file the demo's logger writes) for the hand
search, and returns its address and the credentials to print. The console sees the demo table as a
venue's console sees a real one: through the table's redacted live topics on the broker.
"""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.floor.console import Console
from controller.link.config import BrokerConfig

USER = "demo"
DIRECTOR = "director"


@dataclass
class DemoConsole:
    url: str
    user: str
    password: str
    runner: web.AppRunner
    console: Console
    director: str = DIRECTOR
    director_password: str = ""

    async def close(self) -> None:
        await stop(self.runner, self.console)


def _users_file(workdir: Path, password: str, director_password: str) -> Path:
    path = workdir / "floor-users.toml"
    path.write_text(
        f'[users.{USER}]\nrole = "supervisor"\npassword = "{hash_password(password)}"\n'
        f'[users.{DIRECTOR}]\nrole = "director"\n'
        f'password = "{hash_password(director_password)}"\n'
    )
    path.chmod(0o600)
    return path


def _free_or_any(port: int) -> int:
    """``port`` if nothing listens on it, else 0 (the system picks a free one)."""
    if port == 0:
        return 0
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return 0
    return port


async def open_console(host: str, port: int, workdir: Path, listen_port: int,
                       db: Path | None = None) -> DemoConsole:  # fmt: skip
    """The console on the demo's broker ``host:port``, served on ``listen_port`` (0, or that
    port taken: a free one), searching the hands of the venue logger's ``db`` (default
    ``workdir``/venue.db)."""
    workdir.mkdir(parents=True, exist_ok=True)
    password, director_password = secrets.token_urlsafe(9), secrets.token_urlsafe(9)
    users = _users_file(workdir, password, director_password)
    cfg = FloorConfig(
        broker=BrokerConfig(host=host, port=port, tls=False, allow_plaintext=True),
        users_file=str(users), listen="127.0.0.1", port=_free_or_any(listen_port),
        db=str(db if db is not None else workdir / "venue.db"),
    )  # fmt: skip
    runner, console = await start(cfg)
    bound = [a for a in runner.addresses if isinstance(a, tuple)]
    served = int(bound[0][1]) if bound else listen_port
    return DemoConsole(f"http://127.0.0.1:{served}/", USER, password, runner, console,
                       DIRECTOR, director_password)  # fmt: skip
