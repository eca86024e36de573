"""Sub-commands of ``railguard``: each is a (register-arguments, handler) pair.

Handlers import their heavy modules lazily so that ``railguard --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

Register = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]

REGISTRY: dict[str, tuple[Register, Handler]] = {}


def command(name: str, register: Register) -> Callable[[Handler], Handler]:
    def wrap(handler: Handler) -> Handler:
        REGISTRY[name] = (register, handler)
        return handler

    return wrap


def _replay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", help="PHH files or folders")
    p.add_argument("--core-only", action="store_true", help="straight through the rules core")
    p.add_argument("--profile", default="tda-2024", help="profile name or TOML path")
    p.add_argument("--quiet", action="store_true", help="print only failures and the summary")
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
        help="full system: times real dealing speed (default 0: as fast as the pipeline keeps up)",
    )
    p.add_argument(
        "--broker",
        default=None,
        help="full system: mqtt://HOST:PORT of an existing broker (default: a private mosquitto)",
    )
    p.add_argument(
        "--tables",
        type=int,
        default=None,
        help="full system: tables dealing at once, each a process with its own board and "
        "daemon, on one broker and one venue logger (default 12)",
    )


@command("replay", _replay_args)
def replay(args: argparse.Namespace) -> int:
    """Replay recorded hands (PHH) as physical dealing and compare the outcomes."""
    from collections.abc import Iterator

    from controller.replay import ReplayResult, replay_paths
    from controller.rules.errors import ConfigError
    from controller.rules.profile import get_profile
    from hwsim.inject import InjectionError, parse_kind

    try:
        profile = get_profile(args.profile)
        if args.inject is not None:
            parse_kind(args.inject)
    except (ConfigError, InjectionError) as exc:
        print(f"railguard replay: {exc}")
        return 2
    if args.speed < 0:
        print("railguard replay: --speed must not be negative (0: as fast as possible)")
        return 2
    if args.tables is not None and args.tables < 1:
        print(f"railguard replay: --tables must be at least 1, not {args.tables}")
        return 2
    if args.broker is not None:
        from controller.demo import _parse_broker

        try:
            _parse_broker(args.broker)
        except ValueError as exc:
            print(f"railguard replay: {exc}")
            return 2
    results: Iterator[ReplayResult]
    if args.core_only:
        results = replay_paths(args.paths, profile, args.inject)
    else:
        import logging

        from controller.replay_system import system_replay

        # the daemon logs every event and warns on every alert: only its errors here
        logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s",
                            force=True)  # fmt: skip

        from controller.replay_system import DEFAULT_TABLES

        results = system_replay(
            args.paths, args.profile, inject=args.inject, speed=args.speed, broker=args.broker,
            tables=args.tables or DEFAULT_TABLES,
        )  # fmt: skip
    passed = failed = skipped = 0
    try:
        for r in results:
            if r.match is None:
                skipped += 1
            elif r.match:
                passed += 1
            else:
                failed += 1
            if not args.quiet or r.match is False:
                print(r.line(), flush=True)
    except BrokenPipeError:  # the reader went away (| head)
        return 1
    except Exception as exc:  # the system did not start or broke down: say why, count on
        print(f"railguard replay: {type(exc).__name__}: {exc}", flush=True)
        failed += 1
    tail = f", {skipped} skipped" if skipped else ""
    try:
        print(f"{passed} passed, {failed} failed{tail}", flush=True)
    except BrokenPipeError:
        return 1
    return 1 if failed else 0


# ---------------------------------------------------------------- the daemon


def _config_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the daemon's TOML config file")


def _doctor_args(p: argparse.ArgumentParser) -> None:
    _config_arg(p)
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per check")


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
    from hwsim.scenario.cli import main

    return main(args)
