"""Shared harness of the table-command tests: a config file for a SimBoard on a pty, and the
``railguard`` command run as a real subprocess whose output lines the test reacts to."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, ROOT / "tests" / "firmware_bridge"):  # pcsc_fixtures lives there
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import pcsc_fixtures  # noqa: E402
from pcsc_fixtures import Pcscd  # noqa: E402

from firmware_bridge.protocol import SetConfig  # noqa: E402

__all__ = ["Cli", "Pcscd", "pcsc_fixtures", "run", "write_config"]

SCAN_MS = 10
FAST_BOARD = SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=200)


def write_config(
    tmp: Path, port: str, *, extra: str = "", zones: str = "", pcsc: bool = False
) -> Path:
    """A daemon config for the test table; ``zones`` and ``extra`` are raw TOML text."""
    path = tmp / "railguard.toml"
    text = f"""# table 7, test venue
[table]
id = "t7"
venue = "testvenue"

[reader]
ports = ["{port}"]
scan_period_ms = {SCAN_MS}
heartbeat_ms = 200
hello_timeout_s = 0.3
backoff_max_s = 0.3

{zones}
[mqtt]
host = "127.0.0.1"
tls = false
allow_plaintext = true

[pcsc]
enabled = {"true" if pcsc else "false"}

[storage]
path = "{tmp / "state"}"
{extra}"""
    path.write_text(text)
    return path


class Cli:
    """``railguard ARGS`` as a subprocess; ``expect`` reads its output up to a line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []

    @classmethod
    async def start(cls, *args: str) -> Cli:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller.cli", *args, cwd=ROOT, env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        return cls(proc)

    async def expect(self, pattern: str, timeout: float = 10.0) -> re.Match[str]:
        """Read lines until one matches ``pattern``; AssertionError with the output if not."""
        assert self.proc.stdout is not None
        rx = re.compile(pattern)
        try:
            async with asyncio.timeout(timeout):
                while True:
                    raw = await self.proc.stdout.readline()
                    if not raw:
                        raise AssertionError(f"output ended before {pattern!r}:\n{self.text}")
                    line = raw.decode().rstrip("\n")
                    self.lines.append(line)
                    m = rx.search(line)
                    if m is not None:
                        return m
        except TimeoutError:
            msg = f"no line matching {pattern!r} in {timeout}s:\n{self.text}"
            raise AssertionError(msg) from None

    async def finish(self, timeout: float = 10.0) -> int:
        """Read the rest of the output and wait for the exit code."""
        assert self.proc.stdout is not None
        async with asyncio.timeout(timeout):
            rest = await self.proc.stdout.read()
            self.lines.extend(rest.decode().splitlines())
            return await self.proc.wait()

    async def kill(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def run(coro: Coroutine[Any, Any, None], timeout: float = 60.0) -> None:
    async def bounded() -> None:
        async with asyncio.timeout(timeout):
            await coro

    asyncio.run(bounded())
