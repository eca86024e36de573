"""Sub-commands of ``railguard``: each is a (register-arguments, handler) pair.

Handlers import their heavy modules lazily so that ``railguard --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

Register = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]

REGISTRY: dict[str, tuple[Register, Handler]] = {}


def command(name: str, register: Register) -> Callable[[Handler], Handler]:
    def wrap(handler: Handler) -> Handler:
        REGISTRY[name] = (register, handler)
        return handler

    return wrap


def _replay_args(p: argparse.ArgumentParser) -> None:
    from controller.tools.args import add_broker, add_logger_group

    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="PHH files, or folders searched recursively for *.phh")  # fmt: skip
    p.add_argument("--core-only", action="store_true",
                   help="through the rules core only (fast: no board, daemon, broker)")  # fmt: skip
    p.add_argument("--profile", default="tda-2024", metavar="NAME",
                   help="house-rule profile name or TOML path (default %(default)s)")  # fmt: skip
    p.add_argument("--quiet", action="store_true",
                   help="print only failures, progress and the summary")  # fmt: skip
    p.add_argument(
        "--inject",
        metavar="KIND",
        default=None,
        help="one dealer error in every hand: exposed[:N], four-card-flop, missing-burn, "
        "premature-turn, wrong-first-seat, extra-hole-card",
    )
    p.add_argument(
        "--speed",
        type=float,
        default=0.0,
        metavar="X",
        help="full system: times real dealing speed (default 0: as fast as the pipeline keeps up)",
    )
    add_broker(p, "full system")
    add_logger_group(p)
    p.add_argument(
        "--tables",
        type=int,
        default=None,
        metavar="N",
        help="full system: tables dealing at once, each a process with its own board and "
        "daemon, on one broker and one venue logger (default 12)",
    )


def _say(message: str) -> None:
    """A progress or status line, on stderr: stdout stays one JSON result per line."""
    print(message, file=sys.stderr, flush=True)


@command("replay", _replay_args)
def replay(args: argparse.Namespace) -> int:
    """Replay recorded hands (PHH) as physical dealing and compare the outcomes.

    Prints one JSON line per hand on stdout (progress on stderr), then "N passed, N failed".
    A hand fails when its stacks differ or it raised an alert above info, unless that alert
    is the profile's legitimate refusal of the hand (counted apart: "N refused").
    Exit 0 when no hand failed, 1 when one did, 2 for a bad path or option."""
    from controller.replay import ReplayResult, replay_paths
    from controller.rules.errors import ConfigError
    from controller.rules.profile import get_profile
    from hwsim.inject import InjectionError, parse_kind
    from hwsim.phh import PhhError, iter_phh_paths

    try:
        profile = get_profile(args.profile)
        if args.inject is not None:
            parse_kind(args.inject)
    except (ConfigError, InjectionError) as exc:
        print(f"railguard replay: {exc}", file=sys.stderr)
        return 2
    if args.speed < 0:
        print("railguard replay: --speed must not be negative (0: as fast as possible)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.tables is not None and args.tables < 1:
        print(f"railguard replay: --tables must be at least 1, not {args.tables}", file=sys.stderr)
        return 2
    try:
        files = [str(f) for f in iter_phh_paths(args.paths)]
    except PhhError as exc:
        print(f"railguard replay: {exc}", file=sys.stderr)
        return 2
    if not files:
        print(f"railguard replay: no *.phh files in {', '.join(args.paths)} (folders are"
              " searched recursively for files ending in .phh); nothing to replay",
              file=sys.stderr)  # fmt: skip
        return 2
    results: Iterator[ReplayResult]
    if args.core_only:
        results = replay_paths(files, profile, args.inject)
    else:
        import logging

        from controller.replay_system import DEFAULT_TABLES, system_replay

        # the daemon logs every event and warns on every alert: only its errors here
        logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s",
                            force=True)  # fmt: skip
        results = system_replay(
            files, args.profile, inject=args.inject, speed=args.speed,
            broker=args.broker.url() if args.broker else None,
            tables=args.tables or DEFAULT_TABLES, say=_say, logger_group=args.logger_group,
        )  # fmt: skip
    try:
        return _report(results, len(files), args.quiet)
    finally:  # also on Ctrl-C: the generator's finally blocks stop the tables and the broker
        close = getattr(results, "close", None)
        if close is not None:
            close()


def _report(results: Iterator[Any], total: int, quiet: bool) -> int:
    passed = failed = skipped = refused = 0
    alarms: Counter[str] = Counter()  # hands with an alert above info, by code
    every = max(1, total // 10)  # --quiet: a progress line every tenth of the run
    try:
        for done, r in enumerate(results, 1):
            alarms.update(getattr(r, "alarms", ()))
            if r.refused:  # the profile's legitimate refusal of the hand: counted apart
                refused += 1
            elif r.match is None:
                skipped += 1
            elif r.match:
                passed += 1
            else:
                failed += 1
            if not quiet or r.match is False or r.refused:
                print(r.line(), flush=True)
            if quiet and (done % every == 0) and done < total:
                _say(f"railguard replay: {done}/{total} hands ({failed} failed)")
    except BrokenPipeError:  # the reader went away (| head)
        return 1
    except Exception as exc:  # the system did not start or broke down: say why, count on
        print(f"railguard replay: {type(exc).__name__}: {exc}", flush=True)
        failed += 1
    tail = f", {refused} refused by the profile's rules" if refused else ""
    tail += f", {skipped} skipped" if skipped else ""
    try:
        if alarms:  # the false-alarm figures (a refused hand's alerts among them)
            by_code = ", ".join(f"{code} {n}" for code, n in sorted(alarms.items()))
            print(f"hands with alerts above info, by code: {by_code}", flush=True)
        print(f"{passed} passed, {failed} failed{tail}", flush=True)
    except BrokenPipeError:
        return 1
    return 1 if failed else 0


# ---------------------------------------------------------------- the daemon


def _config_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, metavar="FILE",
                   help="the daemon's TOML config file (docs/configuration.md)")  # fmt: skip


def _doctor_args(p: argparse.ArgumentParser) -> None:
    _config_arg(p)
    p.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                   help="how long each check may wait (default %(default)g)")  # fmt: skip


@command("run", _config_arg)
def run(args: argparse.Namespace) -> int:
    """Run the table daemon (reader board, GPIO, badges, rules core, venue link)."""
    import asyncio
    import logging
    import signal

    from controller.daemon.config import load
    from controller.daemon.service import run_daemon
    from controller.rules.errors import RailguardError

    try:
        cfg = load(args.config)
    except RailguardError as exc:
        print(f"railguard run: {exc}")
        return 2
    logging.basicConfig(
        level=cfg.log_level, format="%(levelname)s %(name)s: %(message)s", force=True
    )

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run_daemon(cfg, stop=stop)

    asyncio.run(main())
    return 0


@command("doctor", _doctor_args)
def doctor(args: argparse.Namespace) -> int:
    """Check the config, reader board, GPIO, badge reader and broker; say how to fix each."""
    from controller.daemon.doctor import main

    return main(args.config, args.timeout)


def _venue_log_args(p: argparse.ArgumentParser) -> None:
    from controller.venuelog.cli import register

    register(p)


@command("venue-log", _venue_log_args)
def venue_log(args: argparse.Namespace) -> int:
    """Venue logger: store and acknowledge hand records; export them as OHH or PHH."""
    from controller.venuelog.cli import main

    return main(args)


def _floor_args(p: argparse.ArgumentParser) -> None:
    from controller.floor.cli import register

    register(p)


@command("floor", _floor_args)
def floor(args: argparse.Namespace) -> int:
    """The venue floor console: every table live in a browser, alerts acknowledged."""
    from controller.floor.cli import main

    return main(args)


def _tournament_args(p: argparse.ArgumentParser) -> None:
    from controller.tournament.cli import register

    register(p)


@command("tournament", _tournament_args)
def tournament(args: argparse.Namespace) -> int:
    """A tournament at the venue: clock and levels, seat draw, balancing, standings."""
    from controller.tournament.cli import main

    return main(args)


# ---------------------------------------------------------------- the simulated-table demo


def _demo_args(p: argparse.ArgumentParser) -> None:
    from controller.demo import register

    register(p)


@command("demo", _demo_args)
def demo(args: argparse.Namespace) -> int:
    """Play hands on the simulated table (broker, daemon, reader board, GPIO) with a live view."""
    from controller.demo import run_demo

    return run_demo(args)


def _sim_args(p: argparse.ArgumentParser) -> None:
    from controller.demo.sim import register

    register(p)


@command("sim", _sim_args)
def sim(args: argparse.Namespace) -> int:
    """A simulated table (board on a pty, GPIO, broker) for a daemon run from its config."""
    from controller.demo.sim import main

    return main(args)


# ---------------------------------------------------------------- table set-up (controller.tools)


def _calibrate_args(p: argparse.ArgumentParser) -> None:
    from controller.tools import args

    args.calibrate(p)


@command("calibrate", _calibrate_args)
def calibrate(args: argparse.Namespace) -> int:
    """Find which antenna is under which zone (a card on each zone in turn); prints [zones]."""
    from controller.tools.calibrate import main

    return main(args)


def _enroll_args(p: argparse.ArgumentParser) -> None:
    from controller.tools import args

    args.enroll(p)


@command("enroll", _enroll_args)
def enroll(args: argparse.Namespace) -> int:
    """Enrol a deck: read each card in order on the desk reader or an antenna; store it."""
    from controller.tools.enroll import main

    return main(args)


def _deck_args(p: argparse.ArgumentParser) -> None:
    from controller.tools import args

    actions = p.add_subparsers(dest="deck_action", required=True)
    args.deck_check(actions.add_parser("check", help="report missing, extra and duplicate cards"))


@command("deck", _deck_args)
def deck(args: argparse.Namespace) -> int:
    """Deck tools: `railguard deck check` reads a deck laid out on the table."""
    from controller.tools.deckcheck import main

    return main(args)


# ---------------------------------------------------------------- scenarios (rules as examples)


def _scenario_args(p: argparse.ArgumentParser) -> None:
    from hwsim.scenario.cli import register

    register(p)


@command("scenario", _scenario_args)
def scenario(args: argparse.Namespace) -> int:
    """Play scenario files (docs/scenarios.md) on the simulated table; pass/fail per scenario."""
    from controller.tools.args import BrokerAddressError, parse_broker
    from hwsim.scenario.cli import main

    if args.broker:  # every form --broker takes elsewhere; hwsim's runner wants HOST:PORT
        try:
            addr = parse_broker(args.broker)
        except BrokerAddressError as exc:
            print(f"railguard scenario: {exc}", file=sys.stderr)
            return 2
        if addr.tls:
            print(f"railguard scenario: --broker {args.broker}: the simulated table talks"
                  " plain TCP (mqtt://HOST[:PORT]), not TLS", file=sys.stderr)  # fmt: skip
            return 2
        args.broker = f"{addr.host}:{addr.port_or_default()}"
    return main(args)
