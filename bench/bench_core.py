"""Rules core vs pokerkit: hands per second replaying the same PHH hands, in one run.

The core replays each hand as physical dealing (every card pitched, burns, chips, sweeps,
folds into the muck) and judges it; pokerkit replays the same file's actions as a game
state. Both include reading the hand from its already-parsed form, not file I/O.
Prints a table and, last, one JSON line. Target: ratio >= 20.

    .venv/bin/python bench/bench_core.py [--hands N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from controller.rules.engine import TableCore
from controller.rules.profile import builtin_profile
from hwsim.dealer import plan_hand
from hwsim.phh import iter_phh_paths, load_phh

PHH = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "phh" / "pluribus"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--phh", default=str(PHH))
    args = ap.parse_args()

    from pokerkit import HandHistory as PkHistory

    paths = list(iter_phh_paths([args.phh]))[: args.hands]
    profile = builtin_profile("tda-2024")
    plans = [plan_hand(load_phh(p), profile) for p in paths]
    pk_hands = []
    for p in paths:
        with open(p, "rb") as f:
            pk_hands.append(PkHistory.load(f))

    def run_core() -> float:
        t0 = time.perf_counter()
        for plan in plans:
            core = TableCore(plan.profile)
            for ev in plan.events:
                core.handle(ev)
        return time.perf_counter() - t0

    def run_pokerkit() -> float:
        t0 = time.perf_counter()
        for hh in pk_hands:
            for _state in hh:
                pass
        return time.perf_counter() - t0

    core_t, pk_t = [], []
    for _ in range(args.repeat):  # interleaved, so both see the same machine noise
        core_t.append(run_core())
        pk_t.append(run_pokerkit())
    n = len(plans)
    core_hps = n / statistics.median(core_t)
    pk_hps = n / statistics.median(pk_t)
    ratio = core_hps / pk_hps
    print(f"hands: {n}, repeats: {args.repeat} (medians)")
    print(f"rules core : {core_hps:10.0f} hands/s")
    print(f"pokerkit   : {pk_hps:10.0f} hands/s")
    print(f"ratio      : {ratio:10.1f} (target >= 20)")
    print(
        json.dumps(
            {
                "core_hands_per_s": round(core_hps),
                "pokerkit_hands_per_s": round(pk_hps),
                "core_vs_pokerkit": round(ratio, 2),
                "hands": n,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
