"""Play scenarios on the simulated table and check what the controller concludes.

    results = asyncio.run(run_paths(["scenarios/"], host, port))

Each scenario gets a fresh daemon, board and GPIO (one broker serves them all). Actions are
done physically (tags on antennas, pins on the MockFactory, venue commands over MQTT); after
each one the runner waits until the daemon has handled what was sensed and the venue has
received every alert, hand record and the current state, then checks the expectations
written after the action: alerts, state and hand records as the venue received them over
MQTT, positions and phase from the daemon's core snapshot; instructions, the card an alert
names and the pots of a completed hand (with their eligible seats) from the daemon's public
observer list (``Daemon.watchers``). Every failed expectation is recorded and the scenario
goes on; an action that cannot be done ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules.decisions import Alert, HandComplete, HandRecord, Instruction
from controller.rules.engine import Step as CoreStep
from controller.rules.events import (
    BadgeTap,
    ConsoleButton,
    Declaration,
    Declare,
    Event,
    SetDealer,
    Tick,
)
from hwsim.layout import split_chips, wait_until
from hwsim.scenario.model import Action, Expect, Scenario, ScenarioError
from hwsim.scenario.parse import VENUE_VERBS, parse_file, scenario_files
from hwsim.scenario.rig import (
    BET,
    HOLE,
    ZONE_ANTENNA,
    DemoFailure,
    Rig,
    close_rig,
    open_rig,
    tag_of,
    transport_for,
)

SCENARIO_TIMEOUT = 90.0


class StepFailed(Exception):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = line, reason


@dataclass
class Result:
    """One scenario's outcome: ``failures`` holds every failed expectation (line, why), in
    order; an action that could not be done ends the scenario and is the last one."""

    path: str
    ok: bool
    line: int = 0
    reason: str = ""
    xfails: list[str] = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0
    profile: str = ""
    clauses: list[str] = field(default_factory=list)
    failures: list[tuple[int, str]] = field(default_factory=list)

    def fail(self, line: int, reason: str) -> None:
        if not self.failures:
            self.line, self.reason = line, reason
        self.failures.append((line, reason))
        self.ok = False

    def report(self) -> str:
        if self.ok:
            extra = f", {len(self.xfails)} xfail" if self.xfails else ""
            return f"PASS {self.path} ({self.steps} steps{extra}, {self.seconds:.1f}s)"
        more = "".join(f"\n     also {self.path}:{n}: {why}" for n, why in self.failures[1:])
        return f"FAIL {self.path}:{self.line}: {self.reason}{more}"


# ---------------------------------------------------------------- actions


async def _cards(rig: Rig, a: Action) -> None:
    if a.verb == "take":
        uids = [tag_of(c) for c in a.cards]
        for c, u in zip(a.cards, uids, strict=True):
            if u not in rig.where:
                raise DemoFailure(f"card {c} is not on the table")
        if a.together:
            await rig.remove_tags(uids)
        else:
            for u in uids:
                await rig.remove_tags([u])
                await rig.settled()
        return
    ant = HOLE[a.seat] if a.zone == "hole" else ZONE_ANTENNA[a.zone]
    moves = [(tag_of(c), ant) for c in a.cards]
    if a.together:
        await rig.move_tags(moves)
        return
    for m in moves:
        await rig.move_tags([m])
        await rig.settled()


def _zone_total(rig: Rig, seat: int) -> int:
    bank = _bank()
    return sum(bank[u] for u in rig.chips_on.get(seat, []))


async def _chips(rig: Rig, a: Action) -> None:
    if a.verb == "zone":  # the zone's total becomes a.amount: chips added or taken back
        now = _zone_total(rig, a.seat)
        if a.amount == now:
            return
        if a.amount > now:
            a = Action(a.line, "bet", seat=a.seat, amount=a.amount - now)
        elif a.amount == 0:
            a = Action(a.line, "takeback", seat=a.seat)
        else:
            a = Action(a.line, "takeback", seat=a.seat, amount=now - a.amount)
    if a.verb == "bet":
        values = list(a.numbers) or split_chips(a.amount)
        uids = [rig.take_chips(v) for v in values]
        rig.chips_on.setdefault(a.seat, []).extend(uids)
        await rig.move_tags([(u, BET[a.seat]) for u in uids])
        return
    if a.verb == "takeback":
        on = rig.chips_on.get(a.seat, [])
        if not on:
            raise DemoFailure(f"no chips in the betting zone of seat {a.seat}")
        bank = {u: v for u, v in _bank().items() if u in on}
        chosen = list(on) if not a.amount else _pick(on, bank, a.amount)
        if chosen is None:
            vals = sorted((bank[u] for u in on), reverse=True)
            raise DemoFailure(f"chips {vals} of seat {a.seat} cannot make {a.amount}")
        for u in chosen:
            on.remove(u)
        await rig.remove_tags(chosen)
        rig.return_chips(chosen)
        return
    # sweep: every betting zone emptied in one scan cycle
    uids = [u for on in rig.chips_on.values() for u in on]
    rig.chips_on.clear()
    if uids:
        await rig.remove_tags(uids)
        rig.return_chips(uids)


def _bank() -> dict[bytes, int]:
    from hwsim.scenario.rig import chip_bank

    return chip_bank()


def _pick(on: list[bytes], bank: dict[bytes, int], amount: int) -> list[bytes] | None:
    """Chips of ``on`` worth exactly ``amount`` (largest first; None if impossible)."""
    best: list[bytes] | None = None

    def search(i: int, left: int, chosen: list[bytes]) -> bool:
        nonlocal best
        if left == 0:
            best = list(chosen)
            return True
        if i >= len(order) or left < 0:
            return False
        return search(i + 1, left - bank[order[i]], [*chosen, order[i]]) or search(
            i + 1, left, chosen
        )

    order = sorted(on, key=lambda u: -bank[u])[:40]
    search(0, amount, [])
    return best


async def _fault(rig: Rig, a: Action) -> None:
    b = rig.board
    kind = a.text
    if kind == "garbage":
        b.faults.garbage(bytes((i * 37 + 11) % 255 + 1 for i in range(a.amount)))
    elif kind == "bitflip":
        b.faults.flip_bits(a.amount)
    elif kind == "reboot":
        b.reboot()
    elif kind == "unplug":
        b.unplug()
    elif kind == "replug":
        b.replug(rig.symlink)
    elif kind == "stall":
        b.stall()
    elif kind == "heartbeat-stall":
        b.stall_heartbeats()
    elif kind == "resume":
        b.resume()
    elif kind == "bounce":
        assert a.button is not None
        before = rig.events_handled()
        await rig.gpio.bouncy_press(a.button, hold_s=0.08)
        await wait_until(lambda: rig.events_handled() > before, "the button press")
    await asyncio.sleep(0.1)


async def _press(rig: Rig, a: Action) -> None:
    assert a.button is not None
    before = rig.events_handled()
    if a.long:
        await rig.gpio.long_press(a.button)
    else:
        await rig.gpio.press(a.button, 0.06)
    await wait_until(lambda: rig.events_handled() > before, f"the {a.button.value} press")


async def _declare(rig: Rig, a: Action) -> None:
    """The dealer records a declaration on the console (DECLARE, then the second key) for
    the seat in turn; for any other seat (the console cannot say who) the runner puts the
    ``Declare`` on the daemon's input queue, as it does badge taps."""
    word = Declaration(a.text)
    before = rig.events_handled()
    in_turn = rig.phase() not in ("idle", "draw") and rig.snapshot().to_act == a.seat
    if in_turn or word is Declaration.NOT_A_CHECK:
        await rig.gpio.declare(word)
    else:
        rig.put(Declare(rig.now(), word, a.seat), "gpio")
    await wait_until(lambda: rig.events_handled() > before, f"the declaration {a.text}")


async def _showdown(rig: Rig) -> None:
    """Every hand still to show is tabled in the order the table prompts (the dealer's ACK for
    each prompted seat); where the profile awards only once the losing hands are killed (003
    [L63]), the dealer then mucks each hand a ``LOSING_HAND_LIVE`` alert names. Until the pot
    is pushed; nothing happens outside a showdown."""
    for _ in range(20):  # at most ten hands to table and ten to kill
        if rig.phase() != "showdown":
            return
        if rig.snapshot().show_next:
            await _press(rig, Action(0, "press", button=ConsoleButton.ACK))
            continue

        def losing() -> list[int]:
            live = {a.get("seat") for a in rig.venue.on("alerts")
                    if a.get("code") == "LOSING_HAND_LIVE"}  # fmt: skip
            return [s for s in sorted(s for s in live if isinstance(s, int))
                    if any(ant == HOLE[s] for ant in rig.where.values())]  # fmt: skip

        with contextlib.suppress(DemoFailure):  # the alert (or the push) may be on its way
            await wait_until(lambda: bool(losing()) or rig.phase() != "showdown",
                             "a losing hand's alert", 5)  # fmt: skip
        if rig.phase() != "showdown":
            return
        kill = losing()
        if not kill:
            codes = [a.get("code") for a in rig.venue.on("alerts")][-6:]
            raise DemoFailure("showdown: no seat is prompted to show and no losing hand is"
                              f" live (last alerts {codes})")  # fmt: skip
        for seat in kill:
            hole = [u for u, ant in rig.where.items() if ant == HOLE[seat]]
            await rig.move_tags([(u, ZONE_ANTENNA["muck"]) for u in hole])
        await rig.settled()
    raise DemoFailure("showdown: every hand tabled or killed and the pot is still not pushed")


async def _show(rig: Rig, a: Action) -> None:
    """Seat N tables its hand: the dealer's ACK, which tables the seat the table prompts."""
    prompted = rig.snapshot().show_next
    if prompted != a.seat:
        where = f"seat {prompted} is" if prompted else "no seat is"
        raise DemoFailure(f"show {a.seat}: {where} prompted to show (phase {rig.phase()})")
    await _press(rig, Action(a.line, "press", button=ConsoleButton.ACK))


async def _button(rig: Rig, seat: int) -> None:
    before = rig.events_handled()
    if rig.puck is not None:
        rig.gpio.set_puck(rig.puck, False)
        await asyncio.sleep(0.2)  # longer than the sensor's settle time
    rig.gpio.set_puck(seat, True)
    rig.puck = seat
    await wait_until(lambda: rig.events_handled() > before, f"the button puck at seat {seat}")


async def _next_hand(rig: Rig) -> None:
    cards = [u for u, ant in rig.where.items() if ant not in BET.values()]
    if cards:
        await rig.remove_tags(cards)
    await rig.settled()
    try:
        await wait_until(lambda: rig.phase() == "idle", "the table to reset", 3)
    except DemoFailure:
        raise DemoFailure(
            f"the table did not get ready for the next hand (phase {rig.phase()})"
        ) from None


async def _command(rig: Rig, a: Action) -> str:
    """A venue command over MQTT: '' when accepted, else the daemon's reason."""
    v = rig.venue
    if a.verb == "seat":
        cmd, args = "seat", {"seat": a.seat, "player_id": f"p{a.seat}",
                             "name": a.text or f"p{a.seat}", "stack": a.amount}  # fmt: skip
    elif a.verb == "unseat":
        cmd, args = "unseat", {"seat": a.seat}
    elif a.verb == "move":
        cmd, args = "move", {"from_seat": a.seat, "to_seat": a.numbers[0]}
    elif a.verb == "level":
        sb, bb, ante = a.numbers
        cmd, args = "set_level", {"level": rig.level_no + 1, "small_blind": sb,
                                  "big_blind": bb, "ante": ante}  # fmt: skip
    elif a.verb == "set-profile":
        cmd, args = "set_profile", {"profile": a.text}
    else:
        cmd, args = "button_draw", {}
    try:
        await v.do(cmd, **args)
    except DemoFailure as exc:
        prefix = f"command {cmd} refused: "
        if not str(exc).startswith(prefix):
            raise
        return str(exc)[len(prefix) :] or "refused"
    if a.verb == "level":
        rig.level_no += 1
    return ""


async def do_action(rig: Rig, a: Action) -> str:
    """Do ``a`` at the table; a venue command's refusal is returned (else '')."""
    refused = ""
    if a.verb in VENUE_VERBS:
        refused = await _command(rig, a)
    elif a.verb == "button":
        await _button(rig, a.seat)
    elif a.verb == "next-hand":
        await _next_hand(rig)
    elif a.verb in ("hole", "board", "burn", "muck", "take"):
        await _cards(rig, a)
    elif a.verb == "fold":
        hole = [u for u, ant in rig.where.items() if ant == HOLE[a.seat]]
        if not hole:
            raise DemoFailure(f"seat {a.seat} has no cards to muck")
        await rig.move_tags([(u, ZONE_ANTENNA["muck"]) for u in hole])
    elif a.verb in ("bet", "takeback", "sweep", "zone"):
        await _chips(rig, a)
    elif a.verb == "press":
        await _press(rig, a)
    elif a.verb == "ruling":  # a director's ruling: the supervisor's badge, then a button
        rig.put(BadgeTap(rig.now(), a.text, supervisor=True), "pcsc")
        await rig.settled()
        if a.button is not None:
            await _press(rig, a)
    elif a.verb == "badge":
        t = rig.now()
        rig.put(BadgeTap(t, a.text, supervisor=a.long), "pcsc")
        if not a.long:
            rig.put(SetDealer(t, a.text), "pcsc")
    elif a.verb == "wait":
        rig.clock.offset += a.seconds
        rig.put(Tick(rig.now()), "timer")
    elif a.verb == "fault":
        await _fault(rig, a)
    elif a.verb == "declare":
        await _declare(rig, a)
    elif a.verb == "showdown":
        await _showdown(rig)
    elif a.verb == "show":
        await _show(rig, a)
    else:  # pragma: no cover - the parser knows every verb
        raise DemoFailure(f"unknown action {a.verb}")
    await rig.settled()
    return refused


# ---------------------------------------------------------------- expectations


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


async def check(rig: Rig, e: Expect, history: list[Seen], watch: Watch) -> str:
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


def _observed(rig: Rig, e: Expect) -> Any:
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


async def _expectations(rig: Rig, expects: list[Expect], history: list[Seen], watch: Watch,
                        res: Result) -> None:  # fmt: skip
    """Check every expectation of the step; each failure is recorded, none stops the run."""
    for e in expects:
        problem = await check(rig, e, history, watch)
        if e.xfail:
            if not problem:
                res.fail(e.line, f"{e.describe()}: passed, but it is marked xfail "
                         f"({e.xfail}); remove the xfail")  # fmt: skip
            else:
                res.xfails.append(f"line {e.line}: {e.describe()}: {problem} (xfail: {e.xfail})")
        elif problem:
            res.fail(e.line, f"{e.describe()}: {problem}")


# ---------------------------------------------------------------- scenarios


async def play(sc: Scenario, host: str, port: int, workdir: Path) -> Result:
    started = time.monotonic()
    res = Result(sc.path, ok=False, steps=len(sc.steps), profile=sc.profile,
                 clauses=list(sc.clauses))  # fmt: skip
    decks = {"B" for c in sc.cards_used() if c.deck == "B"}
    if any(c.card == "Jk" for c in sc.cards_used()):
        decks.add("JK")
    table_id = f"scn-{uuid.uuid4().hex[:8]}"
    try:
        rig = await open_rig(host, port, sc.profile, workdir, table_id, decks=decks,
                             transport=transport_for(sc))  # fmt: skip
    except Exception as exc:
        res.fail(1, f"the simulated table did not start: {exc}")
        return res
    watch = Watch()
    rig.daemon.watchers.append(watch)
    _line = 1
    try:
        history = [Seen([], [])]
        await _expectations(rig, sc.setup, history, watch, res)
        for step in sc.steps:
            _line = step.action.line
            n_alerts, n_core = len(rig.venue.on("alerts")), len(watch.alerts)
            n_instr = len(watch.instructions)
            try:
                refused = await do_action(rig, step.action)
            except DemoFailure as exc:
                raise StepFailed(step.action.line, f"{step.action.verb}: {exc}") from None
            if refused and not any(e.what == "refused" for e in step.expects):
                raise StepFailed(step.action.line, f"{step.action.verb}: the venue command "
                                 f"was refused: {refused} (expect refused, if meant)")  # fmt: skip
            history.append(Seen(rig.venue.on("alerts")[n_alerts:], watch.instructions[n_instr:],
                                watch.alerts[n_core:], refused))  # fmt: skip
            await _expectations(rig, step.expects, history, watch, res)
        res.ok = not res.failures
    except StepFailed as exc:
        res.fail(exc.line, exc.reason)
    except DemoFailure as exc:  # settling after setup
        res.fail(1, str(exc))
    except Exception as exc:  # a bug of the runner or the table: report it, go on
        res.fail(_line, f"internal error: {type(exc).__name__}: {exc}")
    finally:
        await close_rig(rig)
        res.seconds = time.monotonic() - started
    return res


async def play_file(path: Path, host: str, port: int, workdir: Path) -> Result:
    try:
        sc = parse_file(path)
    except ScenarioError as exc:
        res = Result(str(path), ok=False, profile=path.parent.name)
        res.fail(exc.line, exc.problem)
        return res
    try:
        return await asyncio.wait_for(play(sc, host, port, workdir), SCENARIO_TIMEOUT)
    except TimeoutError:
        res = Result(str(path), ok=False, profile=sc.profile)
        res.fail(1, f"did not finish within {SCENARIO_TIMEOUT:g} s")
        return res


async def run_paths(paths: list[str], host: str, port: int,
                    on_result: Callable[[Result], None] | None = None, *,
                    stop: asyncio.Event | None = None, jobs: int = 1) -> list[Result]:  # fmt: skip
    """Every scenario under ``paths``, each on a fresh table, up to ``jobs`` tables at once
    (a scenario mostly waits on the table's scan timing, not on the CPU), then those with
    board faults one at a time (their board is on a pty and their timing is the point);
    results in the order of ``paths``, ``on_result`` as each finishes. Once ``stop`` is set,
    no further scenario starts (those being played finish)."""
    files = list(_files(paths))
    results: list[Result | None] = [None] * len(files)
    alone = [i for i, f in enumerate(files) if jobs > 1 and _on_the_wire(f)]
    gate = asyncio.Semaphore(max(1, jobs))
    with tempfile.TemporaryDirectory(prefix="railguard-scn-") as tmp:

        async def one(i: int) -> None:
            if stop is not None and stop.is_set():
                return
            r = await play_file(files[i], host, port, Path(tmp) / str(i))
            results[i] = r
            if on_result is not None:
                on_result(r)

        async def gated(i: int) -> None:
            async with gate:
                await one(i)

        async with asyncio.TaskGroup() as tg:
            for i in range(len(files)):
                if i not in alone:
                    tg.create_task(gated(i), name=f"scenario {files[i].name}")
        for i in alone:
            await one(i)
    return [r for r in results if r is not None]


def _on_the_wire(path: Path) -> bool:
    """Whether the scenario's board goes on a pty (board faults); unreadable files are not."""
    try:
        return transport_for(parse_file(path)) == "pty"
    except ScenarioError:
        return False


def _files(paths: list[str]) -> Iterator[Path]:
    yield from scenario_files(paths)
