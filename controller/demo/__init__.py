"""``railguard demo``: the README's main job on the simulated table. A private mosquitto (or
``--broker``), the daemon in-process, the reader board on a pty and MockFactory GPIO; the
virtual dealer plays N hands through the simulated hardware while a live view prints each
hand, then a summary. Exit 0 when every hand has its record and the right finishing stacks."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["broker_for", "register", "run_demo"]


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hands", type=int, default=20, help="hands to play (default 20)")
    p.add_argument("--seed", type=int, default=None, help="seed: the same run again")
    p.add_argument(
        "--broker",
        default=None,
        help="mqtt://HOST:PORT of an existing broker (default: a private mosquitto)",
    )
    p.add_argument("--profile", default="tda-2024", help="house-rule profile name")
    p.add_argument(
        "--source",
        choices=("auto", "pluribus", "generated"),
        default="auto",
        help="recorded Pluribus hands if present (auto), or generated ones",
    )
    p.add_argument(
        "--error-rate",
        type=float,
        default=0.2,
        help="share of hands with an injected dealer error (default 0.2)",
    )
    p.add_argument("--verbose", action="store_true", help="show the daemon's log")


def _parse_broker(url: str) -> tuple[str, int]:
    u = urlsplit(url if "://" in url else f"mqtt://{url}")
    if u.scheme not in ("mqtt", "tcp") or not u.hostname:
        raise ValueError(f"--broker {url!r}: expected mqtt://HOST[:PORT] (plain TCP)")
    return u.hostname, u.port or 1883


@contextlib.contextmanager
def broker_for(url: str | None, *, nodelay: bool = False) -> Iterator[tuple[str, int, str]]:
    """(host, port, table id): ``url``'s broker (a fresh table id), else a private mosquitto
    (``nodelay``: with TCP_NODELAY, so small messages are not held back by Nagle)."""
    if url is not None:
        host, port = _parse_broker(url)
        yield host, port, f"demo-{uuid.uuid4().hex[:8]}"
        return
    from hwsim.broker import broker_with_config, free_port, plain_broker

    if nodelay:
        port = free_port()
        body = f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        with broker_with_config(body, [port]) as b:
            yield b.host, b.port, "t1"
        return
    with plain_broker() as b:
        yield b.host, b.port, "t1"


_broker = broker_for  # the demo's older name


def run_demo(args: argparse.Namespace) -> int:
    from controller.demo.hands import demo_hands
    from controller.demo.table import DemoFailure, run_table
    from controller.demo.view import View
    from controller.rules.errors import RailguardError
    from controller.rules.profile import get_profile

    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL,
                        format="%(levelname)s %(name)s: %(message)s", force=True)  # fmt: skip
    if args.hands < 1:
        print("railguard demo: --hands must be at least 1")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    view = View()
    try:
        profile = get_profile(args.profile)
        where, hands = demo_hands(random.Random(seed), args.hands, profile, args.source)
    except RailguardError as exc:
        print(f"railguard demo: {exc}")
        return 2
    view.total = len(hands)
    view.banner(f"railguard demo: {len(hands)} hands, seed {seed}, profile {profile.name}")
    view.line(f"  {where}")
    try:
        with broker_for(args.broker) as (host, port, table_id), \
                tempfile.TemporaryDirectory(prefix="railguard-demo-") as tmp:  # fmt: skip
            view.line(f"  broker mqtt://{host}:{port}, table railguard/v1/{table_id}")
            outcome, counts = asyncio.run(run_table(
                hands, host=host, port=port, profile=args.profile, seed=seed,
                error_rate=args.error_rate, workdir=Path(tmp), view=view, table_id=table_id,
            ))  # fmt: skip
    except (DemoFailure, RailguardError, RuntimeError, ValueError, OSError) as exc:
        print(f"railguard demo: failed: {exc}")
        return 1
    view.line()
    view.banner("summary")
    alerts = ", ".join(f"{c}={n}" for c, n in sorted(view.by_code.items())) or "none"
    view.line(f"  dealer errors injected: {outcome.errors_injected}; alerts: {alerts}")
    view.line(f"  hand records: daemon {counts['daemon']}, over MQTT {counts['mqtt']}, "
              f"stored by the venue logger {counts['logger']}")  # fmt: skip
    for m in outcome.missing:
        view.line(f"  MISSING record: {m}")
    for m in outcome.mismatches:
        view.line(f"  MISMATCH {m}")
    missing = len(outcome.missing) + max(0, len(hands) - min(counts.values()))
    ok = not outcome.mismatches and missing == 0
    verdict = "OK" if ok else "FAILED"
    view.line(
        f"demo: {outcome.hands} hands played, {missing} records missing, "
        f"{len(outcome.mismatches)} mismatches, seed {seed}: {verdict}"
    )
    return 0 if ok else 1
