"""Record the rules' results hand by hand, and compare two recordings.

    .venv/bin/python scripts/compare_results.py record OUT.json [--jobs 2]
        [--phh-only | --scenarios-only] [--core-only]
    .venv/bin/python scripts/compare_results.py compare BEFORE.json AFTER.json

``record`` writes, into one JSON file:

* ``phh``: every hand of the shared PHH corpus (``../shared/data/phh/`` beside the checkout)
  replayed through the rules core alone (``controller.replay``: ``load_hand``,
  ``replay_core``, ``result_of``, as ``railguard replay --core-only`` does), under each of
  the six built-in profiles: whether the finishing stacks match the file's, the error if
  any, every alert (code, severity, seat), the record's actions, finishing stacks and a
  digest of the whole hand record;
* ``scenarios``: every scenario of ``scenarios/`` played by the scenario runner
  (``hwsim.scenario.runner.run_paths``: the daemon in-process, a private mosquitto) with
  an extra observer on the daemon's core: pass/fail with every failed expectation, every
  alert the core raised (code, severity, seat), the instructions, and each completed hand
  record (actions, finishing stacks, digest). Times and the table's random id are left
  out of what is compared (the daemon stamps events with the wall clock). With
  ``--core-only`` the scenarios play on the core-only table (``railguard scenario
  --core-only``), so that a recording of each compares the two paths (the scenarios that
  need the hardware path are then recorded as skipped).

``compare`` prints every difference between two recordings and exits 1 if there is any
(0: identical results).

Work is spread over ``--jobs`` processes for the corpus and tables for the scenarios
(default 2).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import dataclasses
import hashlib
import json
import logging
import multiprocessing
import sys
import time
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.rules.decisions import Alert, HandRecord  # noqa: E402

PHH = ROOT.parent / "shared" / "data" / "phh"
SCENARIOS = ROOT / "scenarios"
# left out of the records' digests: the players' display names (``SeatRecord.name``, issue
# 21: a recording made before the core kept them has none; the names a table publishes are
# compared by what it publishes, not here)
_NAMES = frozenset({"name"})
# and of the scenarios' records: times and the table's name
_TIMES = frozenset({"t", "started_t", "ended_t", "table"}) | _NAMES


# ---------------------------------------------------------------- plain values


def plain(x: Any, drop: frozenset[str] = frozenset()) -> Any:
    """A JSON value of a decision (fields named in ``drop`` left out, at every depth)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {
            f.name: plain(getattr(x, f.name), drop)
            for f in dataclasses.fields(x)
            if f.name not in drop
        }
    if isinstance(x, Enum):
        return x.value if isinstance(x.value, (str, int)) else x.name
    if isinstance(x, (tuple, list)):
        return [plain(v, drop) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)  # cards


def alert_of(a: Alert) -> list[Any]:
    return [a.code.value, a.severity.name.lower(), a.seat]


def record_of(rec: HandRecord | None, drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    if rec is None:
        return {"record": None}
    full = plain(rec, drop)
    digest = hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "actions": [
            f"{a['street']}:{a['seat']}:{a['kind']}:{a['amount']}" for a in full["actions"]
        ],
        "stacks": {str(s["seat"]): s["end_stack"] for s in full["seats"]},
        "digest": digest,
    }


# ---------------------------------------------------------------- the PHH corpus


def _phh_one(args: tuple[str, str]) -> tuple[str, dict[str, Any]]:
    from controller.replay import load_hand, replay_core, result_of
    from controller.rules.errors import BadInput
    from controller.rules.profile import builtin_profile
    from hwsim.dealer import plan_hand

    path, prof = args
    key = f"{prof}:{Path(path).relative_to(PHH)}"
    hh, skipped = load_hand(Path(path))
    if hh is None:
        assert skipped is not None
        return key, {"match": skipped.match, "error": skipped.error}
    profile = builtin_profile(prof)
    try:
        rec, alerts = replay_core(hh, profile)
        seats = plan_hand(hh, profile).seats
    except BadInput as exc:
        return key, {"match": False, "error": str(exc)}
    res = result_of(hh, rec, seats, tuple(a.code.value for a in alerts), name=path)
    out: dict[str, Any] = {"match": res.match, "error": res.error}
    out["alerts"] = [alert_of(a) for a in alerts]
    out.update(record_of(rec, _NAMES))
    return key, out


def record_phh(jobs: int) -> dict[str, Any]:
    from controller.rules.profile import builtin_profile_names
    from hwsim.phh import iter_phh_paths

    paths = sorted(str(p) for p in iter_phh_paths([str(PHH)]))
    work = [(p, prof) for prof in builtin_profile_names() for p in paths]
    with multiprocessing.Pool(jobs) as pool:
        return dict(pool.imap_unordered(_phh_one, work, chunksize=64))


# ---------------------------------------------------------------- the scenarios

_path: contextvars.ContextVar[str] = contextvars.ContextVar("scenario_path", default="")


def record_scenarios(jobs: int, core_only: bool = False) -> dict[str, Any]:
    from controller.rules.decisions import HandComplete, Instruction
    from controller.rules.engine import Step
    from controller.rules.events import Event
    from hwsim.broker import plain_broker
    from hwsim.scenario import runner
    from hwsim.scenario.checks import Watch

    seen: dict[str, dict[str, Any]] = {}
    play_file = runner.play_file

    class Recorder(Watch):
        """The runner's observer, also keeping everything the core decided."""

        def __init__(self) -> None:
            super().__init__()
            self.all: dict[str, Any] = {"alerts": [], "instructions": [], "records": []}
            seen[_path.get()] = self.all

        def __call__(self, event: Event, step: Step) -> None:
            super().__call__(event, step)
            for d in step.decisions:
                if isinstance(d, Alert):
                    self.all["alerts"].append(alert_of(d))
                elif isinstance(d, Instruction):
                    self.all["instructions"].append(d.text)
                elif isinstance(d, HandComplete):
                    self.all["records"].append(record_of(d.record, _TIMES))

    async def recorded(path: Path, host: str, port: int, workdir: Path, *,
                       core_only: bool = False) -> runner.Result:  # fmt: skip
        _path.set(str(path.relative_to(ROOT)))
        return await play_file(path, host, port, workdir, core_only=core_only)

    # the runner's module names play_file and Watch when it plays: each scenario's own
    # observer is a Recorder, and the path it records under is set as its file is played
    setattr(runner, "Watch", Recorder)  # noqa: B010
    runner.play_file = recorded
    logging.basicConfig(handlers=[logging.NullHandler()], force=True)
    try:
        with plain_broker() as b:
            results = asyncio.run(
                runner.run_paths(
                    [str(SCENARIOS)], "127.0.0.1", b.port, jobs=jobs, core_only=core_only
                )
            )
    finally:
        setattr(runner, "Watch", Watch)  # noqa: B010
        runner.play_file = play_file
    out: dict[str, Any] = {}
    for r in results:
        key = str(Path(r.path).relative_to(ROOT))
        out[key] = {"ok": r.ok, "failures": [f"{n}: {why}" for n, why in r.failures],
                    "xfails": len(r.xfails), **seen.get(key, {})}  # fmt: skip
        if r.skipped:
            out[key]["skipped"] = r.skipped
    return out


# ---------------------------------------------------------------- compare


def _diff(path: str, a: Any, b: Any) -> Iterator[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b:
                yield f"{path}.{k}: only before ({json.dumps(a[k])[:200]})"
            elif k not in a:
                yield f"{path}.{k}: only after ({json.dumps(b[k])[:200]})"
            else:
                yield from _diff(f"{path}.{k}", a[k], b[k])
    elif a != b:
        yield f"{path}: before {json.dumps(a)[:300]}, after {json.dumps(b)[:300]}"


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    n = 0
    for part in ("phh", "scenarios"):
        if part not in a or part not in b:
            print(f"{part}: not in both recordings (before: {part in a}, after: {part in b})")
            continue
        for line in _diff(part, a[part], b[part]):
            print(line)
            n += 1
        print(f"{part}: {len(a[part])} before, {len(b[part])} after")
    print(f"{n} difference(s)")
    return 1 if n else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="record the results into a JSON file")
    rec.add_argument("out", type=Path)
    rec.add_argument("--jobs", type=int, default=2)
    only = rec.add_mutually_exclusive_group()
    only.add_argument("--phh-only", action="store_true")
    only.add_argument("--scenarios-only", action="store_true")
    rec.add_argument(
        "--core-only",
        action="store_true",
        help="the scenarios on the core-only table (railguard scenario --core-only)",
    )
    cmp = sub.add_parser("compare", help="print every difference between two recordings")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "compare":
        return compare(args.before, args.after)
    out: dict[str, Any] = {}
    if not args.scenarios_only:
        t0 = time.monotonic()
        out["phh"] = record_phh(args.jobs)
        print(f"phh: {len(out['phh'])} hand replays, {time.monotonic() - t0:.0f} s", flush=True)
    if not args.phh_only:
        t0 = time.monotonic()
        out["scenarios"] = record_scenarios(args.jobs, args.core_only)
        ok = sum(s["ok"] for s in out["scenarios"].values())
        print(f"scenarios: {len(out['scenarios'])} ({ok} passed), "
              f"{time.monotonic() - t0:.0f} s", flush=True)  # fmt: skip
    args.out.write_text(json.dumps(out, sort_keys=True, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
