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


@command("replay", _replay_args)
def replay(args: argparse.Namespace) -> int:
    """Replay recorded hands (PHH) as physical dealing and compare the outcomes."""
    from controller.replay import replay_paths
    from controller.rules.errors import ConfigError
    from controller.rules.profile import get_profile

    try:
        profile = get_profile(args.profile)
    except ConfigError as exc:
        print(f"railguard replay: {exc}")
        return 2
    if not args.core_only:
        print("railguard replay: the full-system replay needs the daemon; use --core-only")
        return 2
    passed = failed = skipped = 0
    for r in replay_paths(args.paths, profile):
        if r.match is None:
            skipped += 1
        elif r.match:
            passed += 1
        else:
            failed += 1
        if not args.quiet or r.match is False:
            print(r.line(), flush=True)
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
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


if "venue-log" not in REGISTRY:  # the venue logger registers itself when imported
    import controller.venuelog.cli  # noqa: F401


# ---------------------------------------------------------------- the simulated-table demo


def _demo_args(p: argparse.ArgumentParser) -> None:
    from controller.demo import register

    register(p)


@command("demo", _demo_args)
def demo(args: argparse.Namespace) -> int:
    """Play hands on the simulated table (broker, daemon, reader board, GPIO) with a live view."""
    from controller.demo import run_demo

    return run_demo(args)
