"""The scenario expectations: what the venue received over MQTT (alerts, state, hand
records) and the daemon's side through its public observer list (``Daemon.watchers``: the
core's alerts with the card they name, instructions, completed hand records with their
pots' eligible seats). :func:`check` returns '' when an expectation holds, else why not.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from controller.rules.decisions import Alert, HandComplete, HandRecord, Instruction
from controller.rules.engine import Step as CoreStep
from controller.rules.events import Event
from hwsim.layout import ohh_stacks, wait_until
from hwsim.scenario.model import Expect
from hwsim.scenario.rig import DemoFailure, ScenarioTable


class Watch:
    """The daemon's side of each step, through its public observer list
    (:attr:`Daemon.watchers`): the core's alerts (with the card they name, which the venue's
    copy scrubs), instructions and completed hand records (pots with eligible seats)."""

    def __init__(self) -> None:
        self.alerts: list[Alert] = []
        self.instructions: list[str] = []
        self.records: list[HandRecord] = []

    def __call__(self, _event: Event, step: CoreStep) -> None:
        for d in step.decisions:
            if isinstance(d, Alert):
                self.alerts.append(d)
            elif isinstance(d, Instruction):
                self.instructions.append(d.text)
            elif isinstance(d, HandComplete):
                self.records.append(d.record)


@dataclass
class Seen:
    """What the venue and the daemon produced during one step."""

    alerts: list[dict[str, Any]]
    instructions: list[str]
    core_alerts: list[Alert] = field(default_factory=list)
    refused: str = ""  # the step's venue command was refused: the reason


_RANK = {"info": 0, "warning": 1, "critical": 2}


def _fmt_alerts(alerts: list[dict[str, Any]]) -> str:
    if not alerts:
        return "no alert"
    parts = [f"{a.get('code')}({a.get('severity')}, seat {a.get('seat')})" for a in alerts]
    return "alerts " + ", ".join(parts)


def _alert_holds(e: Expect, history: list[Seen]) -> str:
    steps = history[-e.within :]
    alerts = [a for s in steps for a in s.alerts]
    if e.card:  # the daemon's side: the core's alert and the card it names
        core = [a for s in steps for a in s.core_alerts]
        for c in core:
            if c.code.value.upper() != e.code or str(c.card) != e.card:
                continue
            if e.severity and c.severity.name.lower() != e.severity:
                continue
            if e.seat is not None and c.seat != e.seat:
                continue
            return ""
        named = [f"{c.code.value.upper()}(card {c.card})" for c in core] or ["none"]
        return f"the core's alerts were {', '.join(named)}"
    for a in alerts:
        if a.get("code") != e.code:
            continue
        if e.severity and a.get("severity") != e.severity:
            continue
        if e.seat is not None and a.get("seat") != e.seat:
            continue
        return ""
    return f"got {_fmt_alerts(alerts)}" + (f" in the last {len(steps)} steps" if e.within > 1
                                           else "")  # fmt: skip


def _last_record(watch: Watch) -> HandRecord | None:
    return watch.records[-1] if watch.records else None


async def check(rig: ScenarioTable, e: Expect, history: list[Seen], watch: Watch) -> str:
    """'' when the expectation holds, else why not. ``history[-1]`` is this step."""
    seen = history[-1]
    if e.what == "alert":
        return _alert_holds(e, history)
    if e.what == "no-alert":
        if e.severity:
            bad = [a for a in seen.alerts if _RANK.get(str(a.get("severity")), 2)
                   > _RANK[e.severity]]  # fmt: skip
        else:
            bad = [a for a in seen.alerts if not e.code or a.get("code") == e.code]
        return f"got {_fmt_alerts(bad)}" if bad else ""
    if e.what == "remedy":
        if any(e.text.lower() in str(a.get("remedy", "")).lower() for a in seen.alerts):
            return ""
        return f"remedies were {[a.get('remedy') for a in seen.alerts] or 'none'}"
    if e.what == "instruction":
        if any(e.text.lower() in t.lower() for t in seen.instructions):
            return ""
        return f"instructions were {seen.instructions or 'none'}"
    if e.what == "no-instruction":
        return f"instructions were {seen.instructions}" if seen.instructions else ""
    if e.what == "refused":
        if not seen.refused:
            return "the command was accepted"
        if e.text.lower() not in seen.refused.lower():
            return f"refused with {seen.refused!r}"
        return ""
    if e.what in ("pots", "eliminated"):
        rec = _last_record(watch)
        if rec is None:
            return "no hand was completed yet"
        if e.what == "pots":
            pots = tuple((p.amount, tuple(sorted(p.eligible))) for p in rec.pots)
            shown = " ".join(f"{a}:{','.join(map(str, s))}" for a, s in pots) or "none"
            return "" if pots == e.pots else f"hand {rec.hand_no}'s pots were {shown}"
        out = tuple(sorted(s.seat for s in rec.seats if s.end_stack == 0))
        return "" if out == e.values else f"hand {rec.hand_no} eliminated {list(out) or 'none'}"
    if e.what == "reader":
        try:
            await wait_until(lambda: rig.reader_status() == e.text, "the reader status", 5)
        except DemoFailure:
            return f"the reader is {rig.reader_status()}"
        return ""
    if e.what == "pot-winners":
        with contextlib.suppress(DemoFailure):  # a loaded machine: the record may be on its way
            await wait_until(lambda: bool(rig.venue.on("hands")), "a hand record over MQTT", 10)
        hands = rig.venue.on("hands")
        if not hands:
            return "no hand record was received"
        won = [
            f"{p['amount']}:"
            + ",".join(str(s) for s in sorted({int(w["player_id"]) for w in p["player_wins"]
                                               if w["win_amount"] > 0}))
            for p in hands[-1]["ohh"]["pots"]
        ]  # fmt: skip
        got = " ".join(won)
        return "" if got == e.text else f"the last hand record's pots are {got or 'none'}"
    if e.what == "winners":
        rec = _last_record(watch)
        if rec is None:
            return "no hand has completed"
        # the record of the hand the core completed last, once it has come over MQTT
        with contextlib.suppress(DemoFailure):
            await wait_until(lambda: any(h.get("hand_no") == rec.hand_no
                                         for h in rig.venue.on("hands")),
                             "the hand record over MQTT", 10)  # fmt: skip
        hands = [h for h in rig.venue.on("hands") if h.get("hand_no") == rec.hand_no]
        if not hands:
            return f"hand {rec.hand_no}'s record was not received over MQTT"
        ohh = hands[-1]["ohh"]
        winners = sorted({int(w["player_id"]) for p in ohh["pots"] for w in p["player_wins"]
                          if w["win_amount"] > 0})  # fmt: skip
        if tuple(winners) == e.values:
            return ""
        return f"the last hand record's winners are {winners}"
    got = _observed(rig, e)
    want: Any = e.text if e.what in ("phase", "street") else e.value
    return "" if got == want else f"got {got}"


def _observed(rig: ScenarioTable, e: Expect) -> Any:
    states = rig.venue.on("state")
    state: dict[str, Any] = states[-1] if states else {}
    snap = rig.snapshot()
    if e.what == "button":
        return state.get("button") or 0
    if e.what == "to-act":
        return state.get("to_act") or 0
    if e.what == "pot":
        return state.get("pot")
    if e.what == "street":
        return state.get("street")
    if e.what == "hand":
        return state.get("hand_no") or 0
    if e.what == "stack":
        seat = next((s for s in state.get("seats", []) if s["seat"] == e.seat), None)
        return None if seat is None else seat["stack"]
    if e.what == "sb":
        return snap.small_blind_seat
    if e.what == "bb":
        return snap.big_blind_seat
    if e.what == "phase":
        return snap.phase.value
    raise AssertionError(e.what)  # pragma: no cover


def records_add_up(rig: ScenarioTable, watch: Watch) -> str:
    """'' when every hand record the venue received, read as an outside reader reads it
    (starting stack - chips put in + pots won + uncalled bets returned:
    :func:`hwsim.layout.ohh_stacks`), gives each seat the finishing stack of the core's
    record; else which hand and seats do not. Checked at the end of every scenario."""
    for rec in watch.records:
        if rec.voided:
            continue  # all action void, chips returned: no pots to add up
        sent = [h for h in rig.venue.on("hands") if h.get("hand_no") == rec.hand_no]
        if not sent:
            continue
        got = ohh_stacks(sent[-1]["ohh"])
        want = {str(s.seat): s.end_stack for s in rec.seats}
        if got != want:
            wrong = ", ".join(f"seat {k}: record {got.get(k)}, table {v}"
                              for k, v in sorted(want.items()) if got.get(k) != v)  # fmt: skip
            return f"hand {rec.hand_no}'s record does not add up to the finishing stacks ({wrong})"
    return ""
