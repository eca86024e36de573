"""Replay recorded hands (PHH) through the whole system: the virtual dealer places card and
chip tags on the simulated reader board (pty), moves the button puck and presses console
buttons (MockFactory GPIO); the daemon runs in the table's process; hand records come back
over a real MQTT broker (a private mosquitto, or ``--broker``) with a venue logger online;
each record's finishing stacks are compared with the file's.

Several tables deal at once, as in a venue: each table is a process of its own (its board on
its own pty, its daemon, its table id), all on one broker with one venue logger; the hands
are handed out to the tables as they have room and the results come out in file order. At a
table, hands are dealt back to back, the players re-seated and the puck moved between hands.
Time is compressed: the board's scan period, the tag debounce, the GPIO settle times and the
dealer's pace all scale with ``speed`` (0: as fast as the pipeline keeps up - the dealer
waits on conditions, never on fixed delays)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from controller.link.config import BrokerConfig
from controller.replay import ReplayResult
from controller.replay_system.shared import Pace
from controller.rules.profile import get_profile
from controller.venuelog import SqliteHandStore, VenueLogger
from hwsim.inject import parse_kind
from hwsim.phh import iter_phh_paths

__all__ = ["DEFAULT_TABLES", "Pace", "system_replay"]

log = logging.getLogger(__name__)

DEFAULT_TABLES = 12  # tables dealing at once (see docs/replay.md, figures)


def system_replay(
    paths: Iterable[str],
    profile: str,
    *,
    inject: str | None = None,
    speed: float = 0.0,
    broker: str | None = None,
    timeout: float = 10.0,
    tables: int = DEFAULT_TABLES,
    say: Callable[[str], None] | None = None,
    logger_group: str | None = None,
) -> Iterator[ReplayResult]:
    """Results in file order, as the hands complete, dealt at ``tables`` tables at once
    (each a process of its own; fewer when there are fewer files). ``say`` hears what is
    being started (the broker, the logger, the tables) before the first result comes; the
    run's venue logger uses ``logger_group`` (default: a share group of its own, so that a
    venue's logger on a shared ``broker`` keeps every hand of its own tables)."""
    get_profile(profile)  # a bad profile is refused before anything starts
    if inject is not None:
        parse_kind(inject)
    if tables < 1:
        raise ValueError(f"tables must be at least 1, not {tables}")
    files = list(iter_phh_paths(paths))
    if not files:
        return
    from controller.demo import broker_for
    from controller.replay_system.tables import TablePool
    from controller.replay_system.worker import TableSpec

    n = min(tables, len(files))
    tell = say or (lambda _m: None)
    shm = Path("/dev/shm")
    tmp_root = str(shm) if shm.is_dir() else None  # the daemon's stores: fsync costs nothing
    workdir = tempfile.TemporaryDirectory(prefix="railguard-replay-", dir=tmp_root)
    tell(
        f"railguard replay: {len(files)} hand{'s' if len(files) != 1 else ''}; starting "
        + (f"on the broker {broker}" if broker else "a private mosquitto on 127.0.0.1")
    )
    with broker_for(broker, nodelay=True) as (host, port, table_id), workdir as tmp:
        group = logger_group or (table_id if broker else "venuelog")
        instance = table_id if broker else "main"
        tell(
            f"railguard replay: broker mqtt://{host}:{port}; starting the venue logger"
            f" (share group {group})"
        )
        with _venue_logger(host, port, Path(tmp) / "venue.db", group, instance):
            if table_id == "t1":  # the private broker: t1, t2 ...
                ids = [f"t{k + 1}" for k in range(n)]
            else:  # a fresh id on a shared broker: ID-1, ID-2 ...
                ids = [f"{table_id}-{k + 1}" for k in range(n)]
            spec = TableSpec(host, port, ids[0], profile, inject, Pace.of(speed), timeout, tmp,
                             logging.getLogger().getEffectiveLevel())  # fmt: skip
            tell(
                f"railguard replay: starting {n} table{'s' if n != 1 else ''} ({', '.join(ids)}),"
                " each a process with its board, GPIO and daemon; the first result follows"
                " when they are up"
            )
            with _sigint_ignored():  # Ctrl-C is the parent's: the tables are stopped by it
                pool = TablePool(spec, n, ids)
            try:
                yield from pool.run(files)
            finally:
                pool.close()


@contextlib.contextmanager
def _venue_logger(
    host: str, port: int, db: Path, group: str = "venuelog", instance: str = "main"
) -> Iterator[VenueLogger]:
    """The run's venue logger (every table's records), online before the first hand, on an
    event loop of its own in a thread."""
    broker = BrokerConfig(host=host, port=port, tls=False, allow_plaintext=True)
    logger = VenueLogger(broker, SqliteHandStore(db), instance=instance, group=group)
    loop = asyncio.new_event_loop()
    th = threading.Thread(target=loop.run_forever, name="railguard-replay-logger", daemon=True)
    th.start()

    async def up() -> None:
        logger.start()
        await logger.wait_connected(15)

    try:
        try:
            asyncio.run_coroutine_threadsafe(up(), loop).result(20)
        except TimeoutError:
            raise RuntimeError(f"the venue logger could not connect to {host}:{port}") from None
        yield logger
    finally:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(logger.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        th.join(10)
        if not th.is_alive():
            loop.close()


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while the table processes start: they inherit it (Python keeps an
    ignored SIGINT), so a Ctrl-C at the terminal, which reaches the whole process group, stops
    the run through the parent (its finally blocks) instead of a traceback from each table."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
