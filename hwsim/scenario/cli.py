"""``railguard scenario PATH...``: play scenario files (or folders of them) on the simulated
table. One line per scenario as it finishes (``[3/43] PASS ...``), then a summary per
profile and ``N passed, N failed``. ``--core-only``: through the rules core alone behind the
daemon's translations (no broker, no board, in seconds); a scenario that needs the hardware
path is reported ``SKIP`` with what it needs, and counted as skipped. Exit status: 0 all
passed (or skipped), 1 any failed, 2 nothing to run (a folder without ``.scn`` files, a path
that does not exist), 130 stopped by Ctrl-C (the first press lets the scenarios being played
finish; a second stops at once)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from hwsim.scenario.parse import scenario_files
from hwsim.scenario.runner import Result, run_paths


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", help=".scn files or folders of them")
    p.add_argument("--broker", metavar="HOST:PORT",
                   help="use this mosquitto (default: start a private one)")  # fmt: skip
    p.add_argument("--core-only", action="store_true",
                   help="play through the rules core alone, behind the daemon's translations of"
                        " the table's events (no broker, no board); scenarios that need the"
                        " hardware path are skipped")  # fmt: skip
    p.add_argument("--verbose", action="store_true", help="print the daemon's log")
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    p.add_argument("--jobs", type=int, default=4, metavar="N",
                   help="tables played at once (default 4; scenarios with board faults play"
                        " alone afterwards)")  # fmt: skip


def selection(paths: list[str]) -> tuple[list[Path], list[str]]:
    """The scenario files named, and what is wrong with the selection (nothing to run)."""
    problems = [f"{p}: no such file or folder" for p in paths if not Path(p).exists()]
    files = scenario_files([p for p in paths if Path(p).exists()])
    empty = [p for p in paths if Path(p).is_dir() and not any(Path(p).rglob("*.scn"))]
    problems += [f"{p}: no .scn files in this folder" for p in empty]
    return files, problems


def summary(results: list[Result]) -> list[str]:
    """One line per profile (``tda-2024: 20 passed, 1 failed, 41.2 s``), then the total."""

    def counts(rs: list[Result]) -> str:
        skipped = sum(bool(r.skipped) for r in rs)
        ok = sum(r.ok for r in rs) - skipped
        more = f", {skipped} skipped" if skipped else ""
        return f"{ok} passed, {len(rs) - ok - skipped} failed{more}"

    lines = []
    for prof in sorted({r.profile or "?" for r in results}):
        rs = [r for r in results if (r.profile or "?") == prof]
        secs = sum(r.seconds for r in rs)
        lines.append(f"  {prof}: {counts(rs)}, {secs:.1f} s")
    return [*lines, counts(results)]


async def _play(paths: list[str], host: str, port: int, show: Callable[[Result], None],
                abort: Callable[[], None], jobs: int = 1,
                core_only: bool = False) -> tuple[list[Result], bool]:  # fmt: skip
    """The scenarios, with Ctrl-C handled on the loop: the first press stops after the
    scenario being played (its table is closed as usual), a second calls ``abort``."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_sigint() -> None:
        if stop.is_set():
            abort()
        stop.set()
        print("Ctrl-C: stopping after the scenarios being played (Ctrl-C again: at once)",
              file=sys.stderr, flush=True)  # fmt: skip

    loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        results = await run_paths(paths, host, port, show, stop=stop, jobs=jobs,
                                  core_only=core_only)  # fmt: skip
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return results, stop.is_set()


def main(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        print("railguard scenario: --jobs must be at least 1", file=sys.stderr)
        return 2
    files, problems = selection(args.paths)
    if problems or not files:
        for p in problems or ["no scenario files selected"]:
            print(f"railguard scenario: {p}", file=sys.stderr)
        print("nothing was run: name .scn files or folders holding them", file=sys.stderr)
        return 2
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    else:  # the daemon's warnings (every alert) would drown the report
        logging.basicConfig(handlers=[logging.NullHandler()], force=True)
    done = 0

    def show(r: Result) -> None:
        nonlocal done
        done += 1
        if not args.quiet or not r.ok:
            print(f"[{done}/{len(files)}] {r.report()}", flush=True)
            for x in r.xfails if not args.quiet else []:
                print(f"     xfail {x}", flush=True)

    paths = [str(f) for f in files]
    stop_broker: Callable[[], None] = lambda: None  # noqa: E731

    def abort() -> None:  # the second Ctrl-C: no waiting for the table to close
        print(f"interrupted after {done} of {len(files)} scenarios", file=sys.stderr,
              flush=True)  # fmt: skip
        stop_broker()
        os._exit(130)

    if args.core_only:  # no broker
        results, stopped = asyncio.run(_play(paths, "", 0, show, abort, core_only=True))
    elif args.broker:
        host, _, port = args.broker.rpartition(":")
        results, stopped = asyncio.run(
            _play(paths, host or "127.0.0.1", int(port), show, abort, args.jobs)
        )
    else:
        from hwsim.broker import plain_broker

        with plain_broker() as b:
            stop_broker = b.stop
            results, stopped = asyncio.run(
                _play(paths, "127.0.0.1", b.port, show, abort, args.jobs)
            )
    for line in summary(results):
        print(line)
    if stopped:
        print(f"interrupted after {done} of {len(files)} scenarios", file=sys.stderr)
        return 130
    return 1 if any(not r.ok for r in results) else 0
