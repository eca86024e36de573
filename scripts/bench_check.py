"""Before merging: the rules core's speed against its stored baseline, as ratios to pokerkit.

Runs bench/bench_core.py (the pure-Python core, pokerkit and, unless ``--no-compiled``,
the mypyc-compiled core of the current sources, from the build cache when the core's sources
have not changed: controller/core_build.py), interleaved on the same PHH hands, and
compares ``core_vs_pokerkit`` and ``compiled_vs_pokerkit`` with ``bench/baseline.json``.
Ratios, not seconds: both sides of a ratio are timed in the same run, so a loaded machine
moves them much less than it moves hands per second. Each figure is the median of its
``--runs`` runs: noise slows either side of a ratio, pokerkit's as well as the core's (on
the 2026-12-04 VM six runs of the same code gave the compiled core 14.8-27.3× pokerkit, and
the best of two had stored 24.96), so the best run overstated the ratio. Fails (exit 1)
when a ratio is more than 10 % (``--tolerance``) below its baseline; ``--update`` stores
this run's figures as the new baseline (after a change that is meant to make the core
slower, or faster, or on a new machine: the ratios are the CPU's too).

    .venv/bin/python scripts/bench_check.py                # about a minute (cached build)
    .venv/bin/python scripts/bench_check.py --no-compiled  # the pure core only
    .venv/bin/python scripts/bench_check.py --update       # store the figures as the baseline
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "bench" / "baseline.json"
RATIOS = ("core_vs_pokerkit", "compiled_vs_pokerkit")


def interpreter() -> str:
    """Which CPython build runs: its version, build date and compiler."""
    built = platform.python_build()[1]
    return f"{platform.python_version()} ({built}, {platform.python_compiler()})"


def bench(hands: int, repeat: int, compiled: bool) -> dict[str, Any]:
    cmd = [sys.executable, str(ROOT / "bench" / "bench_core.py"), "--hands", str(hands),
           "--repeat", str(repeat)]  # fmt: skip
    if compiled:
        cmd.append("--compiled")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench/bench_core.py failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def compare(
    now: dict[str, float], base: dict[str, float], tolerance: float
) -> tuple[bool, list[str]]:
    """Each ratio of ``base`` found in ``now``: a line, and whether none fell more than
    ``tolerance`` (a fraction) below its baseline."""
    ok, lines = True, []
    for key in RATIOS:
        if key not in base or key not in now:
            continue
        floor = base[key] * (1 - tolerance)
        good = now[key] >= floor
        ok &= good
        change = now[key] / base[key] - 1
        lines.append(f"{'ok  ' if good else 'FAIL'} {key:22s} {now[key]:7.2f} (baseline "
                     f"{base[key]:.2f}, {change:+.1%}; fails below {floor:.2f})")  # fmt: skip
    return ok, lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5, help="repeats per run (medians)")
    ap.add_argument("--runs", type=int, default=7, help="runs; the median ratio of each counts")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--no-compiled", action="store_true", help="the pure core only")
    ap.add_argument("--update", action="store_true", help="store the figures as the baseline")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    args = ap.parse_args(argv)
    compiled = not args.no_compiled
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    seen: dict[str, list[float]] = {}
    for i in range(args.runs):
        r = bench(args.hands, args.repeat, compiled)
        figures = ", ".join(f"{k} {r[k]}" for k in RATIOS if k in r)
        print(f"run {i + 1}: {figures}", flush=True)
        for key in RATIOS:
            if key in r:
                seen.setdefault(key, []).append(float(r[key]))
    now = {key: round(statistics.median(values), 2) for key, values in seen.items()}
    if args.update:
        stored = {
            **now,
            "hands": args.hands,
            "repeat": args.repeat,
            "runs": args.runs,
            "python": interpreter(),
            "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        }
        args.baseline.write_text(json.dumps(stored, indent=2) + "\n")
        print(f"stored in {args.baseline}")
        return 0
    base = json.loads(args.baseline.read_text())
    here = interpreter()
    if base.get("python") not in (None, here):
        # pokerkit is interpreted and the compiled core mostly not: an interpreter built with
        # PGO/LTO (Debian's) runs pokerkit ~1.3x faster and moves the ratios (docs/performance.md)
        print(f"note: the baseline was measured with {base['python']}, this run uses {here}")
    ok, lines = compare(now, base, args.tolerance)
    print("\n".join(lines))
    if not ok:
        print(f"the rules core is more than {args.tolerance:.0%} slower, relative to pokerkit, "
              f"than its baseline ({args.baseline.name}, {base.get('measured', '?')})")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
