"""Replay recorded hands (PHH) through the rules core as physical dealing, and compare the
finishing stacks with the file's."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from controller.rules.decisions import Alert, HandComplete, HandRecord
from controller.rules.engine import TableCore
from controller.rules.errors import BadInput
from controller.rules.profile import Profile
from hwsim.dealer import plan_hand
from hwsim.phh import HandHistory, UnsupportedVariant, iter_phh_paths, load_phh


@dataclass(frozen=True, slots=True)
class ReplayResult:
    file: str
    hand: str
    match: bool | None  # None: skipped (not a hold'em hand, or nothing to compare)
    expected: list[Any] | None
    got: list[int] | None
    odd_chip: bool = False
    error: str = ""
    alerts: tuple[str, ...] = ()

    def line(self) -> str:
        d: dict[str, Any] = {
            "file": self.file,
            "hand": self.hand,
            "match": self.match,
            "expected": self.expected,
            "got": self.got,
        }
        if self.odd_chip:
            d["odd_chip"] = True
        if self.error:
            d["error"] = self.error
        if self.alerts:
            d["alerts"] = list(self.alerts)
        return json.dumps(d)


def _num(x: int | Fraction) -> int | float:
    return int(x) if isinstance(x, int) or x.denominator == 1 else float(x)


def expected_stacks(hh: HandHistory) -> list[int | Fraction] | None:
    """The file's finishing stacks; else pokerkit's replay of the file."""
    if hh.finishing_stacks is not None:
        return list(hh.finishing_stacks)
    try:  # files without an outcome: pokerkit (a dev dependency) computes it
        from pokerkit import HandHistory as PkHistory
    except ImportError:
        return None
    with open(hh.source, "rb") as f:
        pk = PkHistory.load(f)
    states = list(pk)
    return [int(s) for s in states[-1].stacks] if states else None


def replay_core(
    hh: HandHistory, profile: Profile, seed: int = 0
) -> tuple[HandRecord | None, list[Alert]]:
    plan = plan_hand(hh, profile, seed)
    core = TableCore(plan.profile, table="replay")
    record: HandRecord | None = None
    alerts: list[Alert] = []
    for ev in plan.events:
        step = core.handle(ev)
        if step.rejected is not None:
            raise BadInput(f"event {ev} rejected: {step.rejected}")
        for d in step.decisions:
            if isinstance(d, HandComplete):
                record = d.record
            elif isinstance(d, Alert):
                alerts.append(d)
    return record, alerts


def _compare(
    hh: HandHistory, rec: HandRecord, seats: tuple[int, ...]
) -> tuple[bool, list[Any], list[int], bool]:
    exp = expected_stacks(hh)
    by_seat = {s.seat: s.end_stack for s in rec.seats}
    got = [by_seat[s] for s in seats]
    if exp is None:
        return False, [], got, False
    half = any(isinstance(x, Fraction) and x.denominator != 1 for x in exp)
    if half:
        # the file records a half chip; a table cannot split one: the odd-chip rule decides
        close = all(abs(Fraction(g) - Fraction(x)) < 1 for g, x in zip(got, exp, strict=True))
        ok = close and sum(got) == round(sum(exp))
        return ok, [_num(x) for x in exp], got, True
    return got == [int(x) for x in exp], [_num(x) for x in exp], got, rec.odd_chip


def replay_file(path: Path, profile: Profile) -> ReplayResult:
    name = str(path)
    try:
        hh = load_phh(path)
    except UnsupportedVariant as exc:
        return ReplayResult(name, path.stem, None, None, None, error=f"skipped: {exc}")
    except BadInput as exc:
        return ReplayResult(name, "", False, None, None, error=str(exc))
    hand = str(hh.hand) if hh.hand is not None else path.stem
    if hh.variant != "NT":
        return ReplayResult(
            name, hand, None, None, None, error=f"skipped: variant {hh.variant} is not NT"
        )
    try:
        rec, alerts = replay_core(hh, profile)
        seats = plan_hand(hh, profile).seats
    except BadInput as exc:
        return ReplayResult(name, hand, False, None, None, error=str(exc))
    if rec is None:
        return ReplayResult(name, hand, False, None, None, error="the hand never completed")
    ok, exp, got, odd = _compare(hh, rec, seats)
    return ReplayResult(name, hand, ok, exp, got, odd, alerts=tuple(a.code.value for a in alerts))


def replay_paths(paths: Iterable[str], profile: Profile) -> Iterator[ReplayResult]:
    for p in iter_phh_paths(paths):
        yield replay_file(p, profile)
