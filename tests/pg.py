"""A private PostgreSQL server for tests, from Debian's package, as tests/brokers.py does with
mosquitto: ``initdb`` into a temporary directory, ``postgres`` listening on a free loopback
port (and a Unix socket in that directory), a superuser with a random password, stopped and
removed on exit. Never the machine's own server on 5432.

    with postgres_server() as pg:
        url = pg.create_database()      # a fresh database: postgresql://...:PORT/rg_...
        ... open_store(url) ...

PostgreSQL refuses to run as root: as root the server runs as the ``postgres`` system user
(``nobody`` if there is none), and the temporary directory is owned by it. Missing server
binaries are an error (``scripts/setup.sh`` installs the ``postgresql`` package), never a skip.
The ``pg_server`` / ``pg_url`` fixtures in tests/conftest.py wrap this for any test folder.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwsim.broker import free_port

__all__ = ["PgServer", "PostgresMissing", "pg_bindir", "postgres_server"]


class PostgresMissing(RuntimeError):
    """Debian's PostgreSQL server binaries (initdb, postgres) are not installed."""


def pg_bindir() -> Path:
    """The newest ``/usr/lib/postgresql/<major>/bin`` holding initdb and postgres."""
    found = [
        Path(d)
        for d in glob.glob("/usr/lib/postgresql/*/bin")
        if (Path(d) / "initdb").exists() and (Path(d) / "postgres").exists()
    ]
    if not found:
        raise PostgresMissing(
            "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb and postgres):"
            " install Debian's 'postgresql' package (scripts/setup.sh does)"
        )

    def major(d: Path) -> int:
        name = d.parent.name
        return int(name) if name.isdigit() else 0

    return max(found, key=major)


def _run_as() -> dict[str, Any]:
    """Popen arguments that drop root to the postgres (or nobody) user; {} when not root."""
    if os.geteuid() != 0:
        return {}
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pw = pwd.getpwnam(name)
            return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    raise PostgresMissing("running as root and there is no 'postgres' or 'nobody' user")


@dataclass
class PgServer:
    """One private PostgreSQL server."""

    directory: Path
    port: int
    password: str
    proc: subprocess.Popen[bytes] | None = None
    user: str = "postgres"
    host: str = "127.0.0.1"
    databases: list[str] = field(default_factory=list)
    argv: list[str] = field(default_factory=list)
    run_as: dict[str, Any] = field(default_factory=dict)

    def start(self) -> None:
        """Start the server on its data directory and port (again, after :meth:`stop`)."""
        with (self.directory / "postgres.log").open("ab") as logf:
            self.proc = subprocess.Popen(self.argv, stdout=logf, stderr=subprocess.STDOUT,
                                         cwd=self.directory, **self.run_as)  # fmt: skip
        _wait_ready(self)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{database}"

    @property
    def log(self) -> str:
        p = self.directory / "postgres.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def connect(self, database: str = "postgres") -> Any:
        import psycopg

        return psycopg.connect(self.url(database), autocommit=True, connect_timeout=5)

    def create_database(self) -> str:
        """A new, empty database; its URL."""
        name = "rg_" + uuid.uuid4().hex[:12]
        with self.connect() as con:
            con.execute(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        return self.url(name)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(2)  # SIGINT: PostgreSQL's "fast" shutdown
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _wait_ready(server: PgServer, timeout: float = 20.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        assert server.proc is not None
        if server.proc.poll() is not None:
            raise RuntimeError(
                f"postgres exited with {server.proc.returncode}:\n{server.log[-2000:]}"
            )
        try:
            server.connect().close()
            return
        except psycopg.OperationalError as exc:
            last = exc
            time.sleep(0.1)
    raise RuntimeError(f"postgres did not accept connections within {timeout} s: {last}")


@contextlib.contextmanager
def postgres_server() -> Iterator[PgServer]:
    """Start a private server (see the module docstring); stop it and remove its files."""
    bindir = pg_bindir()
    run_as = _run_as()
    tmp = Path(tempfile.mkdtemp(prefix="rg-pg-"))
    try:
        if run_as:
            os.chown(tmp, run_as["user"], run_as["group"])
        os.chmod(tmp, 0o700)
        password = secrets.token_hex(16)
        pwfile = tmp / "pwfile"
        pwfile.write_text(password + "\n")
        if run_as:
            os.chown(pwfile, run_as["user"], run_as["group"])
        os.chmod(pwfile, 0o600)
        data = tmp / "data"
        init = subprocess.run(
            [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--pwfile", str(pwfile),
             "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"],
            check=False, capture_output=True, timeout=120, cwd=tmp, **run_as,
        )  # fmt: skip
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed ({init.returncode}): {init.stderr.decode()[-2000:]}")
        pwfile.unlink()
        port = free_port()
        argv = [str(bindir / "postgres"), "-D", str(data), "-p", str(port),
                "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={tmp}",
                "-c", "fsync=off", "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off"]  # fmt: skip
        server = PgServer(tmp, port, password, argv=argv, run_as=run_as)
        try:
            server.start()
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
