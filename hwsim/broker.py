"""A private mosquitto for the simulated table: a free loopback port, its own config file in
a temporary directory, stopped (and killed if need be) on exit. Never touches the system
mosquitto on 1883.

    with plain_broker() as b:      # anonymous, plain TCP on 127.0.0.1
        ... b.port ...
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Broker",
    "broker_on_free_ports",
    "broker_with_config",
    "free_port",
    "mosquitto_path",
    "plain_broker",
]


def mosquitto_path() -> str:
    return shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"mosquitto exited with {proc.returncode}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                # the port answers, but it may be another process's listener that took the
                # port first: mosquitto then exits at once (address in use)
                time.sleep(0.05)
                if proc.poll() is not None:
                    raise RuntimeError(f"mosquitto exited with {proc.returncode}")
                return
        time.sleep(0.02)
    raise RuntimeError(f"mosquitto did not listen on {port} within {timeout} s")


@dataclass
class Broker:
    """One private mosquitto process; restartable on the same ports."""

    directory: Path
    config: Path
    ports: list[int]
    host: str = "127.0.0.1"
    proc: subprocess.Popen[bytes] | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return self.ports[0]

    @property
    def log(self) -> str:
        p = self.directory / "mosquitto.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        exe = mosquitto_path()
        if not os.path.exists(exe):
            raise RuntimeError("mosquitto is not installed (scripts/setup.sh installs it)")
        logf = (self.directory / "mosquitto.log").open("ab")
        self.proc = subprocess.Popen(
            [exe, "-c", str(self.config)],
            stdout=logf,
            stderr=subprocess.STDOUT,
            cwd=self.directory,
            # out of the terminal's process group: a Ctrl-C meant for the command must not
            # take its broker away while the command shuts its tables down; stop() ends it
            start_new_session=True,
        )
        logf.close()
        try:
            for port in self.ports:
                _wait_listening(port, self.proc)
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def kill(self) -> None:
        """Stop abruptly (SIGKILL): no clean disconnects, wills of clients not sent."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


def _user_line() -> str:
    # As root, mosquitto drops privileges to "mosquitto", which cannot read our 0600 files.
    return "user root\n" if os.geteuid() == 0 else ""


@contextlib.contextmanager
def broker_with_config(
    body: str, ports: list[int], files: Mapping[str, str] | None = None
) -> Iterator[Broker]:
    """Start mosquitto with ``body`` (``{dir}`` is replaced by the temp dir) plus ``files``."""
    with tempfile.TemporaryDirectory(prefix="rg-mosq-") as tmp:
        d = Path(tmp)
        for name, text in (files or {}).items():
            (d / name).write_text(text)
            os.chmod(d / name, 0o600)
        conf = d / "mosquitto.conf"
        conf.write_text(
            "persistence false\nlog_dest stdout\nlog_type error\nlog_type warning\n"
            "log_type notice\nlog_type information\nlog_timestamp false\n"
            + _user_line()
            + body.replace("{dir}", str(d))
        )
        broker = Broker(d, conf, ports)
        try:
            broker.start()
            yield broker
        finally:
            broker.stop()


@contextlib.contextmanager
def broker_on_free_ports(
    count: int, body_for: Callable[[list[int]], str], files: Mapping[str, str] | None = None
) -> Iterator[Broker]:
    """:func:`broker_with_config` on ``count`` free loopback ports, ``body_for(ports)`` its
    config. A port is free when chosen and bound by mosquitto a moment later: if another
    process (a parallel test worker) took one in between, mosquitto exits, and other ports
    are tried (five times in all)."""
    for attempt in range(5):
        ports = [free_port() for _ in range(count)]
        stack = contextlib.ExitStack()
        try:
            b = stack.enter_context(broker_with_config(body_for(ports), ports, files))
        except RuntimeError as exc:
            stack.close()
            if attempt == 4 or "exited" not in str(exc):
                raise
            continue
        with stack:
            yield b
        return


@contextlib.contextmanager
def plain_broker() -> Iterator[Broker]:
    """Anonymous plain-TCP broker on a free loopback port (another if the port is taken)."""
    with broker_on_free_ports(
        1, lambda ports: f"listener {ports[0]} 127.0.0.1\nallow_anonymous true\n"
    ) as b:
        yield b
