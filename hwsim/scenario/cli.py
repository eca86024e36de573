"""``railguard scenario PATH...``: play scenario files (or folders of them) on the simulated
table and report pass or fail per scenario, then ``N passed, N failed``."""

from __future__ import annotations

import argparse
import asyncio
import logging

from hwsim.scenario.runner import Result, run_paths


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", help=".scn files or folders of them")
    p.add_argument("--broker", metavar="HOST:PORT",
                   help="use this mosquitto (default: start a private one)")  # fmt: skip
    p.add_argument("--verbose", action="store_true", help="print the daemon's log")
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")


def main(args: argparse.Namespace) -> int:
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    else:  # the daemon's warnings (every alert) would drown the report
        logging.basicConfig(handlers=[logging.NullHandler()], force=True)

    def show(r: Result) -> None:
        if not args.quiet or not r.ok:
            print(r.report(), flush=True)
            for x in r.xfails if not args.quiet else []:
                print(f"     xfail {x}", flush=True)

    if args.broker:
        host, _, port = args.broker.rpartition(":")
        results = asyncio.run(run_paths(args.paths, host or "127.0.0.1", int(port), show))
    else:
        from hwsim.broker import plain_broker

        with plain_broker() as b:
            results = asyncio.run(run_paths(args.paths, "127.0.0.1", b.port, show))
    passed = sum(r.ok for r in results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
