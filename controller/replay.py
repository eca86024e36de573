"""Replay recorded hands (PHH) through the rules core as physical dealing, and compare the
finishing stacks with the file's.

A recorded hand is clean play: a hand that raises any alert above info fails (a false alarm),
unless the alert is its profile's legitimate refusal of the hand (``REFUSALS``: the rulebook
forbids what the players did, e.g. 004's fourth raise); such a hand says so and is counted
apart, neither passed nor failed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

from controller.rules.decisions import Alert, HandComplete, HandRecord, Severity
from controller.rules.engine import TableCore
from controller.rules.errors import BadInput
from controller.rules.profile import Profile
from hwsim.dealer import plan_hand
from hwsim.inject import Injection, parse_kind
from hwsim.phh import HandHistory, UnsupportedVariant, iter_phh_paths, load_phh

# The alert with which a profile legitimately refuses a real hand, per profile (by its name),
# with the rulebook clause that makes the recorded play illegal there. A hand that raises one
# of them is "refused": reported per hand and counted apart; the alerts that follow it in the
# same hand (the capped raiser's chips left pending ...) are the refusal's consequences.
REFUSALS: Final[dict[str, dict[str, str]]] = {
    "shaved-dog-004": {
        "raise_limit": '004 AR-9 [L59]: "There is a three-raise limit per betting round."',
    },
}


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
    inject: str = ""  # the dealer error injected (--inject), '' for none
    injected: bool = False  # the hand had a place for it
    remedy: str = ""
    alarms: tuple[str, ...] = ()  # the codes of the alerts above info, each once, in order
    refused: str = ""  # the alert that is the profile's legitimate refusal of the hand
    clause: str = ""  # the rulebook clause of that refusal

    @property
    def failed(self) -> bool:
        return self.match is False and not self.refused

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
        if self.alarms:
            d["alarms"] = list(self.alarms)
        if self.refused:
            d["refused"] = self.refused
            d["clause"] = self.clause
        if self.inject:
            d["inject"] = self.inject
            d["injected"] = self.injected
            if self.remedy:
                d["remedy"] = self.remedy
        return json.dumps(d)


def alarms_of(alerts: Iterable[tuple[str, int]]) -> tuple[str, ...]:
    """The codes of the alerts above info, each once, in order, of (code, severity) pairs."""
    out: dict[str, None] = {}
    for code, severity in alerts:
        if severity > Severity.INFO:
            out.setdefault(code.lower(), None)
    return tuple(out)


def judged(r: ReplayResult, profile_name: str) -> ReplayResult:
    """``r`` judged by its alarms: a hand with an alert above info fails (a recorded hand is
    clean play), unless the alert is the profile's legitimate refusal (``REFUSALS``)."""
    if r.match is None or not r.alarms:
        return r
    own = REFUSALS.get(profile_name, {})
    refusal = next((c for c in r.alarms if c in own), "")
    if refusal:
        return replace(r, refused=refusal, clause=own[refusal])
    why = f"alerts above info on clean play: {', '.join(r.alarms)}"
    return replace(r, match=False, error=f"{r.error}; {why}" if r.error else why)


class Rejected(BadInput):
    """The core rejected an event of the replayed hand; ``alerts`` are those raised before."""

    def __init__(self, message: str, alerts: list[Alert]) -> None:
        super().__init__(message)
        self.alerts = alerts


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
            raise Rejected(f"event {ev} rejected: {step.rejected}", alerts)
        for d in step.decisions:
            if isinstance(d, HandComplete):
                record = d.record
            elif isinstance(d, Alert):
                alerts.append(d)
    return record, alerts


def replay_core_injected(
    hh: HandHistory, profile: Profile, injection: str, seed: int = 0
) -> tuple[HandRecord | None, list[Alert], Injection]:
    """The hand through the rules core with one dealer error and its remedy."""
    kind, n = parse_kind(injection)
    plan = plan_hand(hh, profile, seed)
    inj = Injection(plan, kind, n, seed)
    core = TableCore(plan.profile, table="replay")
    record: HandRecord | None = None
    alerts: list[Alert] = []
    gen = inj.events()
    ev = next(gen, None)
    while ev is not None:
        step = core.handle(ev)
        if step.rejected is not None:
            raise BadInput(f"event {ev} rejected: {step.rejected}")
        raised: list[tuple[str, str]] = []
        for d in step.decisions:
            if isinstance(d, HandComplete):
                record = d.record
            elif isinstance(d, Alert):
                alerts.append(d)
                raised.append((d.code.value, d.severity.name.lower()))
        try:
            ev = gen.send(tuple(raised)) if inj.awaiting else next(gen)
        except StopIteration:
            ev = None
    return record, alerts, inj


def compare_stacks(
    hh: HandHistory, got: list[int], odd_chip: bool = False
) -> tuple[bool, list[Any], bool]:
    """(match, the file's stacks, odd chip) for the finishing stacks ``got`` (PHH order)."""
    exp = expected_stacks(hh)
    if exp is None:
        return False, [], False
    half = any(isinstance(x, Fraction) and x.denominator != 1 for x in exp)
    if half:
        # the file records a half chip; a table cannot split one: the odd-chip rule decides
        close = all(abs(Fraction(g) - Fraction(x)) < 1 for g, x in zip(got, exp, strict=True))
        ok = close and sum(got) == round(sum(exp))
        return ok, [_num(x) for x in exp], True
    return got == [int(x) for x in exp], [_num(x) for x in exp], odd_chip


def _compare(
    hh: HandHistory, rec: HandRecord, seats: tuple[int, ...]
) -> tuple[bool, list[Any], list[int], bool]:
    by_seat = {s.seat: s.end_stack for s in rec.seats}
    got = [by_seat[s] for s in seats]
    ok, exp, odd = compare_stacks(hh, got, rec.odd_chip)
    return ok, exp, got, odd


def load_hand(path: Path) -> tuple[HandHistory | None, ReplayResult | None]:
    """The hand of ``path``, or the result that reports why it cannot be replayed."""
    name = str(path)
    try:
        hh = load_phh(path)
    except UnsupportedVariant as exc:
        return None, ReplayResult(name, path.stem, None, None, None, error=f"skipped: {exc}")
    except BadInput as exc:
        return None, ReplayResult(name, "", False, None, None, error=str(exc))
    hand = str(hh.hand) if hh.hand is not None else path.stem
    if hh.variant != "NT":
        return None, ReplayResult(
            name, hand, None, None, None, error=f"skipped: variant {hh.variant} is not NT"
        )
    if hh.finishing_stacks is None and not _pokerkit_available():
        return None, ReplayResult(
            name, hand, None, None, None,
            error="skipped: no finishing_stacks in the file, and pokerkit (the dev extra) is "
                  "not installed to compute them",
        )  # fmt: skip
    return hh, None


def _pokerkit_available() -> bool:
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        return False
    return True


def result_of(
    hh: HandHistory,
    rec: HandRecord | None,
    seats: tuple[int, ...],
    alerts: tuple[str, ...],
    inj: Injection | None = None,
    name: str = "",
) -> ReplayResult:
    """Compare a replayed hand's record with the file's finishing stacks."""
    name = name or str(hh.source)
    hand = str(hh.hand) if hh.hand is not None else Path(name).stem
    extra: dict[str, Any] = {}
    if inj is not None:
        extra = {"inject": inj.label, "injected": inj.applied, "remedy": inj.remedy}
    if rec is None:
        return ReplayResult(name, hand, False, None, None, error="the hand never completed",
                            alerts=alerts, **extra)  # fmt: skip
    ok, exp, got, odd = _compare(hh, rec, seats)
    problem = inj.problem() if inj is not None else ""
    return ReplayResult(name, hand, ok and not problem, exp, got, odd, error=problem,
                        alerts=alerts, **extra)  # fmt: skip


def replay_file(path: Path, profile: Profile, inject: str | None = None) -> ReplayResult:
    if inject is not None:
        hh, skipped = load_hand(path)
        if hh is None:
            assert skipped is not None
            return skipped
        try:
            rec, alerts, inj = replay_core_injected(hh, profile, inject)
            seats = plan_hand(hh, profile).seats
        except BadInput as exc:
            return ReplayResult(str(path), str(hh.hand or path.stem), False, None, None,
                                error=str(exc), inject=inject)  # fmt: skip
        return result_of(hh, rec, seats, tuple(a.code.value for a in alerts), inj, str(path))

    name = str(path)
    hh, skipped = load_hand(path)
    if hh is None:
        assert skipped is not None
        return skipped
    hand = str(hh.hand) if hh.hand is not None else path.stem
    try:
        rec, alerts = replay_core(hh, profile)
        seats = plan_hand(hh, profile).seats
    except Rejected as exc:
        return judged(ReplayResult(name, hand, False, None, None, error=str(exc),
                                   alarms=_alarms(exc.alerts)), profile.name)  # fmt: skip
    except BadInput as exc:
        return ReplayResult(name, hand, False, None, None, error=str(exc))
    codes = tuple(a.code.value for a in alerts)
    if rec is None:
        return judged(ReplayResult(name, hand, False, None, None, alerts=codes,
                                   error="the hand never completed", alarms=_alarms(alerts)),
                      profile.name)  # fmt: skip
    ok, exp, got, odd = _compare(hh, rec, seats)
    return judged(ReplayResult(name, hand, ok, exp, got, odd, alerts=codes,
                               alarms=_alarms(alerts)), profile.name)  # fmt: skip


def _alarms(alerts: list[Alert]) -> tuple[str, ...]:
    return alarms_of((a.code.value, a.severity) for a in alerts)


def replay_paths(
    paths: Iterable[str], profile: Profile, inject: str | None = None
) -> Iterator[ReplayResult]:
    for p in iter_phh_paths(paths):
        yield replay_file(p, profile, inject)
