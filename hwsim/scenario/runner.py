"""Play scenarios on the simulated table and check what the controller concludes.

    results = asyncio.run(run_paths(["scenarios/"], host, port))

Each scenario gets a fresh daemon, board and GPIO (one broker serves them all). Actions are
done physically (tags on antennas, pins on the MockFactory, venue commands over MQTT); after
each one the runner waits until the daemon has handled what was sensed and the venue has
received every alert, hand record and the current state, then checks the expectations
written after the action: alerts, state and hand records as the venue received them over
MQTT, positions and phase from the daemon's core snapshot, instructions from its log.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.demo.table import BET, HOLE, DemoFailure, split_chips, wait_until
from controller.rules.events import BadgeTap, ConsoleButton, SetDealer, StartButtonDraw, Tick
from controller.rules.phases import Phase
from hwsim.scenario.model import Action, Expect, Scenario, ScenarioError
from hwsim.scenario.parse import parse_file, scenario_files
from hwsim.scenario.rig import ZONE_ANTENNA, Rig, close_rig, open_rig, tag_of

SCENARIO_TIMEOUT = 90.0


class StepFailed(Exception):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = line, reason


@dataclass
class Result:
    path: str
    ok: bool
    line: int = 0
    reason: str = ""
    xfails: list[str] = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0

    def report(self) -> str:
        if self.ok:
            extra = f", {len(self.xfails)} xfail" if self.xfails else ""
            return f"PASS {self.path} ({self.steps} steps{extra}, {self.seconds:.1f}s)"
        return f"FAIL {self.path}:{self.line}: {self.reason}"


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


async def _chips(rig: Rig, a: Action) -> None:
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
        before = rig.daemon.stats.events
        await rig.gpio.bouncy_press(a.button, hold_s=0.08)
        await wait_until(lambda: rig.daemon.stats.events > before, "the button press")
    await asyncio.sleep(0.1)


async def _press(rig: Rig, a: Action) -> None:
    assert a.button is not None
    before = rig.daemon.stats.events
    if a.long:
        await rig.gpio.long_press(a.button)
    else:
        await rig.gpio.press(a.button, 0.06)
    await wait_until(lambda: rig.daemon.stats.events > before, f"the {a.button.value} press")


async def _show(rig: Rig, a: Action) -> None:
    """Seat N tables its hand: the dealer's ACK, which tables the seat the table prompts."""
    core = rig.daemon.core
    h = core.hand
    prompted = 0
    if h is not None and core.phase is Phase.SHOWDOWN:
        prompted = next((s for s in h.show_order if s not in h.shows), 0)
    if prompted != a.seat:
        where = f"seat {prompted} is" if prompted else "no seat is"
        raise DemoFailure(f"show {a.seat}: {where} prompted to show (phase {core.phase.value})")
    await _press(rig, Action(a.line, "press", button=ConsoleButton.ACK))


async def _button(rig: Rig, seat: int) -> None:
    before = rig.daemon.stats.events
    if rig.puck is not None:
        rig.gpio.set_puck(rig.puck, False)
        await asyncio.sleep(0.2)  # longer than the sensor's settle time
    rig.gpio.set_puck(seat, True)
    rig.puck = seat
    await wait_until(lambda: rig.daemon.stats.events > before, f"the button puck at seat {seat}")


async def _next_hand(rig: Rig) -> None:
    cards = [u for u, ant in rig.where.items() if ant not in BET.values()]
    if cards:
        await rig.remove_tags(cards)
    await rig.settled()
    d = rig.daemon
    try:
        await wait_until(lambda: d.core.phase.value == "idle", "the table to reset", 3)
    except DemoFailure:
        raise DemoFailure(
            f"the table did not get ready for the next hand (phase {d.core.phase.value})"
        ) from None


async def do_action(rig: Rig, a: Action) -> None:
    v = rig.venue
    if a.verb == "seat":
        await v.do("seat", seat=a.seat, player_id=f"p{a.seat}", name=a.text or f"p{a.seat}",
                   stack=a.amount)  # fmt: skip
    elif a.verb == "unseat":
        await v.do("unseat", seat=a.seat)
    elif a.verb == "level":
        rig.level_no += 1
        sb, bb, ante = a.numbers
        await v.do("set_level", level=rig.level_no, small_blind=sb, big_blind=bb, ante=ante)
    elif a.verb == "button":
        await _button(rig, a.seat)
    elif a.verb == "draw":
        rig.put(StartButtonDraw(rig.now()), "venue")
    elif a.verb == "next-hand":
        await _next_hand(rig)
    elif a.verb in ("hole", "board", "burn", "muck", "take"):
        await _cards(rig, a)
    elif a.verb == "fold":
        hole = [u for u, ant in rig.where.items() if ant == HOLE[a.seat]]
        if not hole:
            raise DemoFailure(f"seat {a.seat} has no cards to muck")
        await rig.move_tags([(u, ZONE_ANTENNA["muck"]) for u in hole])
    elif a.verb in ("bet", "takeback", "sweep"):
        await _chips(rig, a)
    elif a.verb == "press":
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
    elif a.verb == "show":
        await _show(rig, a)
    else:  # pragma: no cover - the parser knows every verb
        raise DemoFailure(f"unknown action {a.verb}")
    await rig.settled()


# ---------------------------------------------------------------- expectations


@dataclass
class Seen:
    """What the venue and the daemon produced since the step began."""

    alerts: list[dict[str, Any]]
    instructions: list[str]


def _fmt_alerts(alerts: list[dict[str, Any]]) -> str:
    if not alerts:
        return "no alert"
    parts = [f"{a.get('code')}({a.get('severity')}, seat {a.get('seat')})" for a in alerts]
    return "alerts " + ", ".join(parts)


async def check(rig: Rig, e: Expect, seen: Seen) -> str:
    """'' when the expectation holds, else why not."""
    if e.what == "alert":
        for a in seen.alerts:
            if a.get("code") != e.code:
                continue
            if e.severity and a.get("severity") != e.severity:
                continue
            if e.seat is not None and a.get("seat") != e.seat:
                continue
            return ""
        return f"got {_fmt_alerts(seen.alerts)}"
    if e.what == "no-alert":
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
    if e.what == "reader":
        reader = rig.daemon.reader
        try:
            await wait_until(lambda: reader is not None and reader.status.value == e.text,
                             "the reader status", 5)  # fmt: skip
        except DemoFailure:
            return f"the reader is {reader.status.value if reader else 'not started'}"
        return ""
    if e.what == "pots":
        hands = rig.venue.on("hands")
        if not hands:
            return "no hand record was received"
        pots = [
            f"{p['amount']}:"
            + ",".join(str(s) for s in sorted({int(w["player_id"]) for w in p["player_wins"]
                                               if w["win_amount"] > 0}))
            for p in hands[-1]["ohh"]["pots"]
        ]  # fmt: skip
        got = " ".join(pots)
        return "" if got == e.text else f"the last hand record's pots are {got or 'none'}"
    if e.what == "winners":
        hands = rig.venue.on("hands")
        if not hands:
            return "no hand record was received"
        ohh = hands[-1]["ohh"]
        won = sorted({int(w["player_id"]) for p in ohh["pots"] for w in p["player_wins"]
                      if w["win_amount"] > 0})  # fmt: skip
        return "" if tuple(won) == e.values else f"the last hand record's winners are {won}"
    got = _observed(rig, e)
    want: Any = e.text if e.what in ("phase", "street") else e.value
    return "" if got == want else f"got {got}"


def _observed(rig: Rig, e: Expect) -> Any:
    states = rig.venue.on("state")
    state: dict[str, Any] = states[-1] if states else {}
    snap = rig.daemon.core.snapshot()
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


async def _expectations(rig: Rig, expects: list[Expect], seen: Seen, xfails: list[str]) -> None:
    for e in expects:
        problem = await check(rig, e, seen)
        if e.xfail:
            if not problem:
                raise StepFailed(e.line, f"{e.describe()}: passed, but it is marked xfail "
                                 f"({e.xfail}); remove the xfail")  # fmt: skip
            xfails.append(f"line {e.line}: {e.describe()}: {problem} (xfail: {e.xfail})")
        elif problem:
            raise StepFailed(e.line, f"{e.describe()}: {problem}")


# ---------------------------------------------------------------- scenarios


async def play(sc: Scenario, host: str, port: int, workdir: Path) -> Result:
    started = time.monotonic()
    res = Result(sc.path, ok=False, steps=len(sc.steps))
    decks = {"B" for c in sc.cards_used() if c.deck == "B"}
    if any(c.card == "Jk" for c in sc.cards_used()):
        decks.add("JK")
    table_id = f"scn-{uuid.uuid4().hex[:8]}"
    try:
        rig = await open_rig(host, port, sc.profile, workdir, table_id, decks=decks)
    except Exception as exc:
        res.line, res.reason = 1, f"the simulated table did not start: {exc}"
        return res
    _line = 1
    try:
        await _expectations(rig, sc.setup, Seen([], []), res.xfails)
        for step in sc.steps:
            _line = step.action.line
            n_alerts = len(rig.venue.on("alerts"))
            n_instr = len(rig.instructions.texts)
            try:
                await do_action(rig, step.action)
            except DemoFailure as exc:
                raise StepFailed(step.action.line, f"{step.action.verb}: {exc}") from None
            seen = Seen(rig.venue.on("alerts")[n_alerts:], rig.instructions.texts[n_instr:])
            await _expectations(rig, step.expects, seen, res.xfails)
        res.ok = True
    except StepFailed as exc:
        res.line, res.reason = exc.line, exc.reason
    except DemoFailure as exc:  # settling after setup
        res.line, res.reason = 1, str(exc)
    except Exception as exc:  # a bug of the runner or the table: report it, go on
        res.line, res.reason = _line, f"internal error: {type(exc).__name__}: {exc}"
    finally:
        await close_rig(rig)
        res.seconds = time.monotonic() - started
    return res


async def play_file(path: Path, host: str, port: int, workdir: Path) -> Result:
    try:
        sc = parse_file(path)
    except ScenarioError as exc:
        return Result(str(path), ok=False, line=exc.line, reason=exc.problem)
    try:
        return await asyncio.wait_for(play(sc, host, port, workdir), SCENARIO_TIMEOUT)
    except TimeoutError:
        return Result(str(path), ok=False, line=1,
                      reason=f"did not finish within {SCENARIO_TIMEOUT:g} s")  # fmt: skip


async def run_paths(paths: list[str], host: str, port: int,
                    on_result: Callable[[Result], None] | None = None) -> list[Result]:  # fmt: skip
    """Every scenario under ``paths``, one after the other, each on a fresh table."""
    results = []
    with tempfile.TemporaryDirectory(prefix="railguard-scn-") as tmp:
        for i, path in enumerate(_files(paths)):
            r = await play_file(path, host, port, Path(tmp) / str(i))
            results.append(r)
            if on_result is not None:
                on_result(r)
    return results


def _files(paths: list[str]) -> Iterator[Path]:
    yield from scenario_files(paths)
