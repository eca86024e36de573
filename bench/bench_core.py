"""Rules core vs pokerkit: hands per second replaying the same PHH hands, in one run.

The core replays each hand as physical dealing (every card pitched, burns, chips, sweeps,
folds into the muck) and judges it; pokerkit replays the same file's actions as a game
state. Both include reading the hand from its already-parsed form, not file I/O.
Prints a table and, last, one JSON line. Target: ratio >= 20.

``--compiled`` also builds a mypyc-compiled wheel of the current sources (4-7 minutes;
controller/core_build.py; needs mypy, setuptools >= 77, gcc, the Python headers), or
reuses the one cached for the same core sources (``~/.cache/railguard/core-wheels``, keyed
by their hash; ``--no-cache`` builds afresh into a temporary directory), unpacks it and
times the compiled core in a worker process whose PYTHONPATH is the unpacked wheel (the
worker checks that its engine is the ``.so``; the checkout comes last on its path, for the
test data only). Each pass times the hands in ``--slices`` slices, the arms in turn slice by
slice: in this process the pure core, pokerkit and the dispatch floor; in the worker the
compiled core and pokerkit again, so the compiled ratio is of two figures taken in one
process at the same moments (a shared VM's speed moves by the second, and one process can
run a third slower than the next: docs/performance.md). The JSON line then also carries
the compiled figures (``compiled_pokerkit_hands_per_s``: pokerkit in the worker;
``compiled_vs_pokerkit_across``: the compiled core against this process's pokerkit, the
measure before 2026-12-04) and the compile time (null: cached).
``--wheel W`` reuses an already built compiled wheel. The build is the profile-guided one
(``build_wheel(pgo=True)``: trained on generated hands, never on the hands timed here;
controller/core_pgo.py), as scripts/install-pi.sh installs; ``--no-pgo`` times a plain one.

    .venv/bin/python bench/bench_core.py [--hands N] [--repeat R] [--compiled [--wheel W]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    # Run as a script: the checkout's packages first, except in the compiled worker, whose
    # PYTHONPATH starts with the unpacked compiled wheel: there the checkout goes last, so
    # controller and hwsim come from the wheel and only the test data (tests.shared) from it.
    _checkout = str(Path(__file__).resolve().parents[1])
    if "--worker" in sys.argv:
        sys.path.append(_checkout)
    else:
        sys.path.insert(0, _checkout)

from controller.rules.engine import TableCore
from controller.rules.profile import builtin_profile
from hwsim.dealer import PlannedHand, plan_hand
from hwsim.phh import iter_phh_paths, load_phh
from tests import shared

ROOT = Path(__file__).resolve().parents[1]
PHH = shared.PHH / "pluribus"  # ../shared beside the checkout


def load_plans(phh: str, hands: int) -> tuple[list[Path], list[PlannedHand]]:
    paths = list(iter_phh_paths([phh]))[:hands]
    profile = builtin_profile("tda-2024")
    return paths, [plan_hand(load_phh(p), profile) for p in paths]


def clock() -> float:
    """CPU seconds of this process: a shared machine's other processes taking the CPU away
    (the dev machine is shared by several helpers' tests) do not count, as they do in wall
    time, so the ratios of one run hold better. One process, one thread: nothing else
    counts."""
    return time.process_time()


def run_core(plans: list[PlannedHand]) -> float:
    t0 = clock()
    for plan in plans:
        core = TableCore(plan.profile)
        for ev in plan.events:
            core.handle(ev)
    return clock() - t0


def slices(n: int, count: int) -> list[slice]:
    """``count`` consecutive slices of ``range(n)``, as even as they can be (none empty)."""
    count = max(1, min(count, n))
    return [slice(n * i // count, n * (i + 1) // count) for i in range(count)]


def load_pokerkit(paths: list[Path]) -> list[Any]:
    from pokerkit import HandHistory as PkHistory

    hands = []
    for p in paths:
        with open(p, "rb") as f:
            hands.append(PkHistory.load(f))
    return hands


def run_pokerkit(pk_hands: list[Any]) -> float:
    t0 = clock()
    for hh in pk_hands:
        for _state in hh:
            pass
    return clock() - t0


class _DispatchOnly:
    """The floor under any core fed these events: a new table per hand, each event's time
    kept and the event dispatched on its type to a method that judges nothing."""

    def __init__(self, kinds: frozenset[type]) -> None:
        self.t = 0.0
        self.handlers = dict.fromkeys(kinds, self._judge)

    def _judge(self, event: object) -> None:
        return None

    def handle(self, event: Any) -> None:
        self.t = event.t
        self.handlers[type(event)](event)


def run_floor(plans: list[PlannedHand]) -> float:
    kinds = frozenset(type(ev) for plan in plans for ev in plan.events)
    t0 = clock()
    for plan in plans:
        table = _DispatchOnly(kinds)
        for ev in plan.events:
            table.handle(ev)
    return clock() - t0


def worker(args: argparse.Namespace) -> int:
    """The compiled side: started with PYTHONPATH at an unpacked compiled wheel. Says
    ``ready N ENGINE_FILE``, then answers each ``run`` line on stdin with one pass over the
    hands: the compiled core's CPU seconds and pokerkit's on the same hands, in this same
    process, slice by slice in turn (so both see the same machine and the same process)."""
    from controller.core_build import COMPILED, core_build
    from controller.rules import engine

    if core_build() != COMPILED:
        print(f"error: the worker's engine is {engine.__file__}, not a compiled module")
        return 1
    paths, plans = load_plans(args.phh, args.hands)
    pk_hands = load_pokerkit(paths)
    parts = slices(len(plans), args.slices)
    print(f"ready {len(plans)} {engine.__file__}", flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        comp = pk = 0.0
        for part in parts:
            comp += run_core(plans[part])
            pk += run_pokerkit(pk_hands[part])
        print(f"{comp!r} {pk!r}", flush=True)
    return 0


class Compiled:
    """A compiled wheel of the current sources, unpacked, and its worker process."""

    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        from controller.core_build import build_wheel, cached_wheel, unpack_wheel

        self.compile_s: float | None = None
        if args.wheel:
            wheel = Path(args.wheel)
        else:
            pgo = not args.no_pgo
            kind = "profile-guided" if pgo else "plain"
            print(f"the compiled core (mypyc, {kind}): cached or built ...", file=sys.stderr,
                  flush=True)  # fmt: skip
            t0 = time.perf_counter()
            if args.no_cache:
                wheel, built = build_wheel(ROOT, tmp / "wheel", pgo=pgo), True
            else:
                wheel, built = cached_wheel(ROOT, pgo=pgo)
            if built:
                self.compile_s = time.perf_counter() - t0
        site = unpack_wheel(wheel, tmp / "site")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--hands", str(args.hands), "--phh", args.phh,
             "--slices", str(args.slices)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp,
        )  # fmt: skip
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        ready = self.stdout.readline().split(maxsplit=2)
        if len(ready) != 3 or ready[0] != "ready":
            self.close()
            raise RuntimeError(f"compiled worker did not start: {' '.join(ready)!r}")
        self.hands, self.engine = int(ready[1]), ready[2].strip()

    def run(self) -> tuple[float, float]:
        """One pass in the worker: (the compiled core's seconds, pokerkit's seconds)."""
        self.stdin.write("run\n")
        self.stdin.flush()
        comp, pk = self.stdout.readline().split()
        return float(comp), float(pk)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--phh", default=str(PHH))
    ap.add_argument("--slices", type=int, default=10,
                    help="each pass times the hands in slices, the arms in turn")  # fmt: skip
    ap.add_argument("--compiled", action="store_true",
                    help="also build and time the mypyc-compiled core")  # fmt: skip
    ap.add_argument("--wheel", default=None, help="with --compiled: use this compiled wheel")
    ap.add_argument("--no-cache", action="store_true",
                    help="with --compiled: build afresh, not from the cache")  # fmt: skip
    ap.add_argument("--no-pgo", action="store_true",
                    help="with --compiled: a plain build, not the profile-guided one a Pi "
                    "installs (controller/core_pgo.py)")  # fmt: skip
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.slices < 1:
        ap.error(f"--slices must be at least 1, not {args.slices}")
    if args.worker:
        return worker(args)
    with tempfile.TemporaryDirectory(prefix="railguard-bench-core-") as tmp:
        return measure(args, Path(tmp))


def measure(args: argparse.Namespace, tmp: Path) -> int:
    paths, plans = load_plans(args.phh, args.hands)
    pk_hands = load_pokerkit(paths)
    parts = slices(len(plans), args.slices)

    compiled = Compiled(args, tmp) if args.compiled else None
    try:
        if compiled and compiled.hands != len(plans):
            raise RuntimeError(f"compiled worker has {compiled.hands} hands, not {len(plans)}")
        core_t, pk_t, floor_t, comp_t, comp_pk_t = [], [], [], [], []
        for _ in range(args.repeat):
            # interleaved slice by slice, so all see the same machine noise (it varies by the
            # second on a shared VM); the compiled worker then makes its own pass, pairing
            # the compiled core with pokerkit in its process the same way
            core = pk = floor = 0.0
            for part in parts:
                core += run_core(plans[part])
                pk += run_pokerkit(pk_hands[part])
                floor += run_floor(plans[part])
            core_t.append(core)
            pk_t.append(pk)
            floor_t.append(floor)
            if compiled:
                comp, comp_pk = compiled.run()
                comp_t.append(comp)
                comp_pk_t.append(comp_pk)
    finally:
        if compiled:
            compiled.close()
    n = len(plans)
    core_hps = n / statistics.median(core_t)
    pk_hps = n / statistics.median(pk_t)
    ratio = core_hps / pk_hps
    print(f"hands: {n}, repeats: {args.repeat} (medians)")
    print(f"rules core : {core_hps:10.0f} hands/s (pure Python: the developers' editable install)")
    print(f"pokerkit   : {pk_hps:10.0f} hands/s")
    print(f"ratio      : {ratio:10.1f} (target >= 20 is for the compiled core; see --compiled)")
    floor_hps = n / statistics.median(floor_t)
    events = sum(len(plan.events) for plan in plans) / n
    print(f"dispatch floor (same events, nothing judged): {floor_hps:.0f} hands/s, "
          f"{floor_hps / pk_hps:.0f}x pokerkit; the core: "
          f"{1e6 / core_hps / events:.2f} us per event ({events:.1f} events a hand)")  # fmt: skip
    result: dict[str, object] = {
        "core_hands_per_s": round(core_hps),
        "pokerkit_hands_per_s": round(pk_hps),
        "core_vs_pokerkit": round(ratio, 2),
        "hands": n,
        "dispatch_floor_vs_pokerkit": round(floor_hps / pk_hps, 1),
        "core_us_per_event": round(1e6 / core_hps / events, 2),
    }
    if compiled:
        comp_hps = n / statistics.median(comp_t)
        comp_pk_hps = n / statistics.median(comp_pk_t)
        comp_ratio = comp_hps / comp_pk_hps  # both from the worker's process
        met = "met" if comp_ratio >= 20 else "NOT met"
        print(f"compiled   : {comp_hps:10.0f} hands/s ({compiled.engine})")
        print(f"pokerkit   : {comp_pk_hps:10.0f} hands/s (in the compiled worker's process)")
        print(f"compiled vs pokerkit : {comp_ratio:6.1f} (target >= 20: {met}; the core a Pi "
              "install runs, scripts/install-pi.sh; both timed in the worker)")  # fmt: skip
        print(f"compiled vs pure core: {comp_hps / core_hps:6.2f} (across the two processes)")
        print(f"compiled vs pokerkit of this process: {comp_hps / pk_hps:6.1f} (across the two "
              "processes: the measure before 2026-12-04's tenth pass)")  # fmt: skip
        if compiled.compile_s is not None:
            print(f"compile (pip wheel)  : {compiled.compile_s:6.1f} s")
        else:
            print("compile (pip wheel)  : cached wheel of the same sources")
        result.update({
            "compiled_hands_per_s": round(comp_hps),
            "compiled_pokerkit_hands_per_s": round(comp_pk_hps),
            "compiled_vs_pokerkit": round(comp_ratio, 2),
            "compiled_vs_pokerkit_across": round(comp_hps / pk_hps, 2),
            "compiled_vs_pure": round(comp_hps / core_hps, 2),
            "compile_s": None if compiled.compile_s is None else round(compiled.compile_s, 1),
        })  # fmt: skip
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
