"""The table's daemon as a child process: ``railguard run --config FILE`` with the simulated
table's config written as TOML (:func:`write_config`), started, stopped with SIGTERM (then
SIGKILL), killed, and always reaped, its output kept in a log file that failure messages
quote (:class:`DaemonChild`). :class:`hwsim.table.SimTable` opens one with ``process=True``;
``railguard sim`` and the fault tests' table process use :func:`write_config` and
:func:`railguard_argv`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.daemon import config
from hwsim.layout import TableFailure

CONFIG_HEADER = (
    "# the simulated table's config for `railguard run --config`\n"
    "# (written by hwsim.table; the board is the pty behind reader.ports)\n\n"
)
ROOT = Path(__file__).resolve().parents[1]
LOG_TAIL = 3000  # characters of a daemon process's log in a failure message


def write_config(path: Path, mapping: Mapping[str, Any]) -> None:
    """The simulated table's config (:func:`hwsim.layout.config_mapping`) as the TOML file
    ``railguard run --config`` reads (``controller.daemon.config.dumps``)."""
    path.write_text(CONFIG_HEADER + config.dumps(mapping))


def railguard_argv() -> list[str]:
    """The command that runs ``railguard``: the virtualenv's console script, or (not
    installed) the CLI module through this interpreter."""
    exe = Path(sys.executable).parent / "railguard"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())"]


class DaemonChild:
    """``railguard run --config FILE`` as a child process (its own CPU, its own pid), its
    stdout and stderr appended to ``log``, which is kept (failure messages quote its end).

    :meth:`start` starts it (again, after a stop or a kill, on the same config);
    :meth:`stop` sends SIGTERM, waits ``timeout`` s for the daemon's clean stop, then
    SIGKILL; :meth:`kill` sends a signal and waits for the exit. Every stop and kill waits
    for the process and reaps it; ``returncode`` is the last exit's (negative: the signal)."""

    def __init__(self, config_file: Path, log: Path, env: Mapping[str, str] | None = None) -> None:
        self.config_file, self.logfile = config_file, log
        self.env = dict(env or {})  # variables set for the daemon on top of this process's
        self.argv = [*railguard_argv(), "run", "--config", str(config_file)]
        self.proc: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None
        self.starts = 0

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise TableFailure("the daemon process is not running")
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        if self.alive():
            raise TableFailure("the daemon process is already running")
        env = {**os.environ, **self.env}
        if self.argv[0] == sys.executable:  # not installed: the checkout's packages
            env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(ROOT)) if p)
        self.starts += 1
        self.logfile.parent.mkdir(parents=True, exist_ok=True)
        with self.logfile.open("ab") as out:
            out.write(f"--- hwsim.table: start {self.starts}: {' '.join(self.argv)}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, env=env)  # fmt: skip
        self.returncode = None

    async def _exited(self, proc: subprocess.Popen[bytes], timeout: float) -> bool:
        """Poll (and so reap) ``proc`` until it exits or ``timeout`` s pass; the event loop
        (the board on its pty, the venue subscriber) runs meanwhile."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while proc.poll() is None:
            if loop.time() > deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    async def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM (the daemon's clean stop), then SIGKILL after ``timeout`` s; the exit
        code (None: it was not started)."""
        proc = self.proc
        if proc is None:
            return self.returncode
        try:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                if not await self._exited(proc, timeout):
                    self._note(f"did not stop {timeout} s after SIGTERM: SIGKILL")
                    proc.kill()
        finally:  # cancelled while waiting, or killed: never left running nor unreaped
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        return self._ended(proc)

    async def kill(self, sig: int = signal.SIGKILL, timeout: float = 10.0) -> int:
        """Send ``sig`` (default SIGKILL: a power cut of the daemon alone) and wait until
        the process has exited; its exit code."""
        proc = self.proc
        if proc is None:
            raise TableFailure("the daemon process is not running")
        if proc.poll() is None:
            proc.send_signal(sig)
            if not await self._exited(proc, timeout):
                raise TableFailure(f"the daemon process did not exit {timeout} s after signal"
                                   f" {sig} (close() stops it){self.tail()}")  # fmt: skip
        return self._ended(proc)

    def _ended(self, proc: subprocess.Popen[bytes]) -> int:
        self.proc = None
        self.returncode = proc.returncode
        self._note(f"exit code {proc.returncode}")
        return proc.returncode

    def _note(self, text: str) -> None:
        with self.logfile.open("a") as out:
            out.write(f"--- hwsim.table: {text}\n")

    def log(self) -> str:
        """The daemon's log, every start of it."""
        return self.logfile.read_text(errors="replace") if self.logfile.exists() else ""

    def tail(self, chars: int = LOG_TAIL) -> str:
        """The end of the log, for a failure message (empty if there is none)."""
        text = self.log()[-chars:]
        return f"; the end of its log {self.logfile}:\n{text}" if text else ""
