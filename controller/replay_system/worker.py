"""One table of the full-system replay in a process of its own (``multiprocessing``, spawn):
its board on its own pty, its daemon, its venue subscriber, its table id, on the run's
broker. The coordinator (:mod:`controller.replay_system.tables`) sends ``(index, path)`` over
a pipe (``None``: no more hands); the worker answers ``("ready",)`` once its table is up,
``("result", index, ReplayResult)`` for each hand, in the order the results are known, and
``("fatal", message)`` when its table cannot start."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from controller.replay import ReplayResult, load_hand
from controller.replay_system.shared import Pace, failed_result, profile_variant
from controller.rules.errors import BadInput
from controller.rules.profile import AnteStyle, get_profile
from hwsim.dealer import plan_hand
from hwsim.inject import Injection, parse_kind


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What a table process needs to know (pickled to it)."""

    host: str
    port: int
    table_id: str
    profile: str
    inject: str | None
    pace: Pace
    timeout: float
    workdir: str
    log_level: int


class _Sink:
    """A table's results, straight to the coordinator."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def put(self, item: tuple[int, ReplayResult], /) -> None:
        self.conn.send(("result", item[0], item[1]))


def table_main(conn: Connection, spec: TableSpec) -> None:
    """The process's entry point."""
    logging.basicConfig(level=spec.log_level, format="%(levelname)s %(name)s: %(message)s",
                        force=True)  # fmt: skip
    try:
        asyncio.run(_serve(conn, spec))
    except KeyboardInterrupt:
        pass
    except BaseException:  # the coordinator fails this table's hands and starts another
        with contextlib.suppress(OSError):
            conn.send(("crash", traceback.format_exc(limit=-3).strip()))
        raise SystemExit(1) from None


async def _serve(conn: Connection, spec: TableSpec) -> None:
    from controller.replay_system.table import ReplayTable

    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue()

    def readable() -> None:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            msg = None  # the coordinator is gone: finish up
        if msg is None:
            loop.remove_reader(conn.fileno())
        inbox.put_nowait(msg)

    loop.add_reader(conn.fileno(), readable)
    prof = get_profile(spec.profile)
    sink = _Sink(conn)
    made = 0

    async def fresh(style: AnteStyle) -> ReplayTable:
        """A new table (daemon, board, GPIO, subscriber) whose profile antes ``style``."""
        nonlocal made
        made += 1
        where = Path(spec.workdir) / f"{spec.table_id}-{made}"
        where.mkdir(parents=True)
        name = profile_variant(spec.profile, style, where)  # the recorded antes, uncapped
        tid = spec.table_id if made == 1 else f"{spec.table_id}-{made}"
        t = ReplayTable(spec.host, spec.port, tid, name, spec.pace, where, spec.timeout, sink)
        t.ante_style = style
        t.profile_name = prof.name  # the refusals are the profile's, whatever its ante style
        await t.start()
        return t

    try:
        table: ReplayTable | None = await fresh(prof.ante_style)
    except Exception as exc:
        conn.send(("fatal", f"table {spec.table_id} did not start: {type(exc).__name__}: {exc}"))
        return
    conn.send(("ready",))
    try:
        while True:
            try:  # a record still on its way after a while: wait for it, or fail its hand
                async with asyncio.timeout(spec.timeout):  # not wait_for: gh-86296
                    item = await inbox.get()
            except TimeoutError:
                if table is not None and table.pending:
                    await table.drain()
                continue
            if item is None:
                break
            index, path = item
            hh, early = load_hand(Path(path))
            plan = None
            if hh is not None:
                try:
                    plan = plan_hand(hh, prof)
                except BadInput as exc:
                    early = failed_result(path, hh, str(exc))
            if plan is None or hh is None:
                assert early is not None
                sink.put((index, early))
                continue
            style = plan.profile.ante_style
            if table is not None and (table.broken or table.ante_style is not style):
                await table.drain()
                await table.stop()
                table = None
            if table is None:
                table = await fresh(style)
            inj = None
            if spec.inject is not None:
                kind, n = parse_kind(spec.inject)
                inj = Injection(plan, kind, n)
            await table.play(index, path, hh, plan, inj)
        if table is not None:
            await table.drain()
    finally:
        if table is not None:
            await table.stop()
