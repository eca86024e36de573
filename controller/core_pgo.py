"""The training run of the compiled rules core's profile-guided build.

:func:`controller.core_build.build_wheel` with ``pgo=True`` compiles the core twice: first
instrumented (gcc's ``-fprofile-generate``: every branch and call counts itself), then runs
this module on that build, then compiles again with ``-fprofile-use``, so that gcc lays out
and inlines the code for the branches a table takes. The second build is the one shipped; it
computes exactly what the first computes (the profile changes code layout, inlining and
branch order, never a result) and the tests replay the PHH corpus on it as on any build.

**What it trains on**: hands generated here with a seeded RNG (random legal no-limit hold'em
actions, controller/demo/hands.py: two to nine players, every built-in house-rule profile),
dealt as physical table events (every card pitched, burns, chips, folds) into a fresh
:class:`~controller.rules.engine.TableCore` per hand. No recorded hand: the benchmark
(bench/bench_core.py) times recorded Pluribus hands, and a build trained on the hands it is
timed on would flatter it. Functions the run never reaches (the rarer rulings) are compiled
as without a profile (``-fprofile-partial-training``), not for size.

    python -P -m controller.core_pgo [--hands N]    # with the instrumented build on PYTHONPATH
"""

from __future__ import annotations

import argparse
import random
import sys

from controller.demo.hands import DemoHand, generated_hands
from controller.rules.catalogue import Severity
from controller.rules.decisions import Alert
from controller.rules.engine import TableCore
from controller.rules.profile import builtin_profile, builtin_profile_names

HANDS = 120  # per profile and table size: about 5 s on the pure core (2-core dev machine)
SEATS = (2, 3, 6, 9)
PASSES = 3


def training_hands(hands: int = HANDS, seed: int = 2024) -> list[DemoHand]:
    """``hands`` generated hands for every built-in profile and every size in ``SEATS``."""
    rng = random.Random(seed)
    out: list[DemoHand] = []
    for name in builtin_profile_names():
        profile = builtin_profile(name)
        for players in SEATS:
            out.extend(generated_hands(rng, hands, profile, players))
    return out


def train(hands: int = HANDS) -> int:
    """Deal every training hand into a fresh core ``PASSES`` times; returns the events.

    The training is clean play, as a table's hands mostly are: a rejected event or an alert
    above info raises ``RuntimeError`` (a profile trained on a misread hand would favour the
    branches of an error)."""
    dealt = training_hands(hands)
    events = 0
    for _ in range(PASSES):
        for hand in dealt:
            plan = hand.plan
            core = TableCore(plan.profile)
            where = f"{plan.profile.name}, {len(plan.seats)} seats, {hand.label}"
            for ev in plan.events:
                step = core.handle(ev)
                if step.rejected is not None:
                    raise RuntimeError(f"{where}: {ev} rejected: {step.rejected}")
                for d in step.decisions:
                    if isinstance(d, Alert) and d.severity > Severity.INFO:
                        raise RuntimeError(f"{where}: {d.code.value} on clean play")
            events += len(hand.plan.events)
    return events


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller.core_pgo", description=__doc__)
    ap.add_argument("--hands", type=int, default=HANDS,
                    help=f"hands per profile and table size (default {HANDS})")  # fmt: skip
    args = ap.parse_args(argv)
    if args.hands < 1:
        ap.error("--hands must be at least 1")
    events = train(args.hands)
    print(f"core_pgo: {events} events dealt", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
