"""The fleet's logger lag alone, with what it is made of (issue 23): ``bench/fleet.py``'s
``run()`` (N tables' venue links in this process, one ``railguard venue-log run`` on SQLite,
a private mosquitto; what ``bench/run.py`` reports as the fleet), plus:

- ``fsync``: a 4 KiB write + ``fsync`` timed 100 times in the work directory just before the
  run (the disk's latency at that moment: the logger and the tables' outboxes commit with
  ``synchronous=FULL``);
- ``loop_late``: how late a 10 ms sleep wakes on the event loop the tables share (a table
  committing on the loop holds every other table's link);
- ``commit``: the time each table's record took to commit to its outbox (on the loop with
  ``--inline-commit``, as the bench did before issue 23; else on a thread, as the daemon's
  outbox lane does);
- ``--profile-logger``: the logger runs under ``cProfile`` and its top functions by
  cumulative time are printed to standard error.

``--workdir`` on a tmpfs (``/dev/shm/...``) takes the disk out (``fsync`` returns at once).
Prints one JSON object.

    .venv/bin/python bench/fleet_lag.py --tables 100 --seconds 45
    .venv/bin/python bench/fleet_lag.py --tables 100 --seconds 45 --inline-commit
    .venv/bin/python bench/fleet_lag.py --tables 100 --seconds 45 --workdir /dev/shm/fleet-lag
    .venv/bin/python bench/fleet_lag.py --tables 100 --seconds 60 --profile-logger
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import fleet  # noqa: E402
from bench.procs import pct  # noqa: E402
from controller.link import VenueLink  # noqa: E402
from controller.link.outbox import Outbox  # noqa: E402


def fsync_ms(directory: Path, n: int = 100) -> dict[str, float]:
    """p50/p99/max of a 4 KiB write + fsync in ``directory``, ms."""
    path = directory / "fsync-probe.bin"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    out = []
    try:
        for i in range(n):
            os.pwrite(fd, os.urandom(4096), (i % 16) * 4096)
            t = time.perf_counter()
            os.fsync(fd)
            out.append(time.perf_counter() - t)
    finally:
        os.close(fd)
        path.unlink()
    return _ms(out)


def _ms(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {"p50_ms": round(statistics.median(values) * 1e3, 2),
            "p99_ms": round(pct(values, 0.99) * 1e3, 2),
            "max_ms": round(max(values) * 1e3, 2)}  # fmt: skip


def _timed(fn: Callable[..., Any], into: list[float]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - t)

    return wrapper


async def _watch(stop: asyncio.Event, lates: list[float]) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        lates.append(time.perf_counter() - t - 0.01)


async def measure(port: int, a: argparse.Namespace, work: Path) -> dict[str, Any]:
    commits: list[float] = []
    lates: list[float] = []
    # the commit: submit_hand (on the loop, Outbox.add inside it) or the lane's Outbox.add
    patched: list[tuple[type, str]] = [(VenueLink, "submit_hand")] if a.inline_commit else [
        (Outbox, "add")]  # fmt: skip
    saved = [getattr(cls, name) for cls, name in patched]
    argv = fleet.railguard_argv
    if a.profile_logger:
        prof = work / "logger.prof"
        me = str(ROOT / "bench" / "fleet_lag.py")
        fleet.railguard_argv = lambda: [sys.executable, "-m", "cProfile", "-o", str(prof), me,
                                        "--as-cli"]  # fmt: skip
    for cls, name in patched:
        setattr(cls, name, _timed(getattr(cls, name), commits))
    stop = asyncio.Event()
    watch = asyncio.create_task(_watch(stop, lates))
    try:
        r = await fleet.run(port, a.tables, a.seconds, work / "run", inline_commit=a.inline_commit)
    finally:
        stop.set()
        await watch
        for (cls, name), fn in zip(patched, saved, strict=True):
            setattr(cls, name, fn)
        fleet.railguard_argv = argv
    r.update(commit=_ms(commits), loop_late=_ms(lates), inline_commit=a.inline_commit)
    return r


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--as-cli"]:  # the logger under cProfile: railguard's own command line
        from controller.cli import main as cli

        sys.argv = ["railguard", *args[1:]]
        return cli()
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--tables", type=int, default=100, help="tables (default 100)")
    ap.add_argument("--seconds", type=float, default=45.0, help="dealing time (default 45)")
    ap.add_argument("--inline-commit", action="store_true",
                    help="commit each record on the event loop (submit_hand)")  # fmt: skip
    ap.add_argument("--profile-logger", action="store_true", help="cProfile the logger")
    ap.add_argument("--workdir", type=Path, help="work here (default: a temporary directory)")
    a = ap.parse_args(args)
    if a.tables < 1 or a.seconds <= 0:
        ap.error("--tables and --seconds must be positive")
    from hwsim.broker import plain_broker

    if a.workdir is not None:
        a.workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="railguard-fleet-lag-", dir=a.workdir) as tmp:
        work = Path(tmp)
        probe = fsync_ms(work)
        with plain_broker() as b:
            r = asyncio.run(measure(b.port, a, work))
        r["fsync"] = probe
        r["workdir"] = str(a.workdir or Path(tempfile.gettempdir()))
        r["loadavg"] = [round(x, 2) for x in os.getloadavg()]
        print(json.dumps(r))
        if a.profile_logger and (work / "logger.prof").exists():
            import pstats

            pstats.Stats(str(work / "logger.prof"), stream=sys.stderr).sort_stats(
                "cumulative"
            ).print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
