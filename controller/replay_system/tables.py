"""The coordinator of the full-system replay: N table processes (:mod:`.worker`) on one
broker, the hands handed out as tables have room (a few in flight per table, so a table
deals its next hand while the last record travels), the results yielded in file order
(results that come early wait in a buffer). A table process that dies or hangs is replaced:
its unfinished hands fail with the reason and the run goes on."""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from controller.replay import ReplayResult
from controller.replay_system.worker import TableSpec, table_main

DEPTH = 3  # hands handed to a table before its first result: one dealt, the next ready
CRASHES = 3  # tables dying in a row (no result in between): the run stops


@dataclass(eq=False)  # hashed by identity: one entry per process
class _Table:
    k: int
    spec: TableSpec
    proc: BaseProcess
    conn: Connection
    sent: dict[int, str] = field(default_factory=dict)  # index -> file, no result yet
    ready: bool = False
    last_words: str = ""  # what it said before it went
    heard: float = field(default_factory=time.monotonic)  # the last message from it


class TablePool:
    """The table processes of one run."""

    def __init__(self, base: TableSpec, n: int, ids: list[str]) -> None:
        self.base, self.ids = base, ids
        self.ctx = multiprocessing.get_context("spawn")  # the parent has threads: no fork
        self.tables = [self._spawn(k, 0) for k in range(n)]
        self.ever_ready = False
        self.crashes = 0
        # a hand's steps each wait up to ``timeout``; a replaced table starts in 15 s or so
        self.hung_after = max(120.0, 12 * base.timeout)

    def _spawn(self, k: int, restarts: int) -> _Table:
        tid = self.ids[k] if not restarts else f"{self.ids[k]}-r{restarts}"
        spec = replace(self.base, table_id=tid)
        mine, theirs = self.ctx.Pipe()
        proc = self.ctx.Process(target=table_main, args=(theirs, spec),
                                name=f"railguard-replay-{tid}", daemon=True)  # fmt: skip
        proc.start()
        theirs.close()
        return _Table(k, spec, proc, mine)

    def run(self, files: list[Path]) -> Iterator[ReplayResult]:
        done: dict[int, ReplayResult] = {}
        nxt = out = 0
        restarts = [0] * len(self.tables)
        while out < len(files):
            for t in self.tables:  # hand out hands where there is room
                while nxt < len(files) and len(t.sent) < DEPTH:
                    try:
                        t.conn.send((nxt, str(files[nxt])))
                    except OSError:
                        break  # it died: seen below by its sentinel
                    t.sent[nxt] = str(files[nxt])
                    nxt += 1
            while out in done:
                yield done.pop(out)
                out += 1
            if out >= len(files):
                break
            by_conn = {t.conn: t for t in self.tables}
            by_proc = {t.proc.sentinel: t for t in self.tables}
            ready = wait([*by_conn, *by_proc], timeout=5.0)
            dead: list[_Table] = []
            for r in ready:
                if isinstance(r, int):
                    dead.append(by_proc[r])
                elif isinstance(r, Connection) and not self._receive(by_conn[r], done):
                    dead.append(by_conn[r])
            now = time.monotonic()
            for t in self.tables:
                if t.sent and now - t.heard > self.hung_after and t not in dead:
                    t.proc.kill()
                    t.proc.join(5)
                    dead.append(t)
            for t in dict.fromkeys(dead):  # once each
                self._bury(t, done, restarts)

    def _receive(self, t: _Table, done: dict[int, ReplayResult]) -> bool:
        """Every message waiting from ``t``; False when it is gone."""
        while True:
            try:
                if not t.conn.poll():
                    return True
                msg: tuple[Any, ...] = t.conn.recv()
            except (EOFError, OSError):
                return False
            t.heard = time.monotonic()
            if msg[0] == "result":
                t.sent.pop(msg[1], None)
                done[msg[1]] = msg[2]
                self.crashes = 0
            elif msg[0] == "ready":
                t.ready = self.ever_ready = True
            elif msg[0] == "fatal":
                if not self.ever_ready:  # the system does not start: say why, stop
                    raise RuntimeError(msg[1])
                t.last_words = msg[1]
            elif msg[0] == "crash":
                t.last_words = msg[1]

    def _bury(self, t: _Table, done: dict[int, ReplayResult], restarts: list[int]) -> None:
        """A table process died (or hung): its hands fail, another takes its place."""
        self._receive(t, done)  # what it said before it went
        t.proc.join(5)
        if t.proc.is_alive():
            t.proc.kill()
            t.proc.join(5)
        why = t.last_words or f"exit code {t.proc.exitcode}"
        for index, name in t.sent.items():
            done[index] = ReplayResult(name, Path(name).stem, False, None, None,
                                       error=f"table {t.spec.table_id} stopped: {why}")  # fmt: skip
        t.sent.clear()
        t.conn.close()
        self.crashes += 1
        if self.crashes >= CRASHES:
            raise RuntimeError(f"{CRASHES} tables stopped in a row; the last: {why}")
        restarts[t.k] += 1
        self.tables[t.k] = self._spawn(t.k, restarts[t.k])

    def close(self) -> None:
        """No more hands: each table finishes, stops its daemon and board, and exits."""
        for t in self.tables:
            with contextlib.suppress(OSError):
                t.conn.send(None)
        deadline = time.monotonic() + 30
        for t in self.tables:
            t.proc.join(max(0.1, deadline - time.monotonic()))
            if t.proc.is_alive():
                t.proc.kill()
                t.proc.join(5)
            t.conn.close()
