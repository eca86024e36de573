"""The daemon's ``core`` task: the only consumer of the input queue.

Each :class:`Item` (an event and the name of its source; a venue command's carries the
future its answer waits on) goes to :meth:`TableCore.handle`; what the core decides goes
out: alerts (scrubbed of hole cards) to the dealer's lights and the venue, instructions to
the venue, completed hands to the outbox task's queue, the hand's events to the table
store's event log (for a restart), the live events and the redacted state to the venue.
While a player is on the clock and nothing else happens, a :class:`Tick` every
``tick_interval`` seconds lets the core rule on the countdown.

The loop is given what it needs through :class:`CoreHost` (``service.Daemon`` is one); it
never sees the reader, the inputs or the venue link.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from controller.daemon import recovery
from controller.daemon.clock import Clock, utc
from controller.daemon.live import LiveEvents, hole_secrets
from controller.daemon.storage import HandSlot
from controller.daemon.table_store import TableStore
from controller.daemon.trace import StageTrace, now_ns
from controller.daemon.translate import alert_payload, scrub
from controller.rules.catalogue import CATALOGUE
from controller.rules.decisions import (
    SEVERITY_NAMES,
    Alert,
    AlertCode,
    HandComplete,
    HandRecord,
    Instruction,
    ProfileChanged,
)
from controller.rules.engine import Step, TableCore
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    Event,
    Tick,
)
from controller.rules.handlog import encode_event, encode_start
from controller.rules.phases import ClockState, Phase
from controller.rules.state import TableState
from controller.rules.tabledata import TableData
from firmware_bridge.gpio import Indicators

log = logging.getLogger("railguard.daemon")

#: the events a sensor or a button makes (logged for a restart while a hand is live)
PHYSICAL = (CardPlaced, CardRemoved, ChipsIn, ChipsOut, ButtonPress, BadgeTap)
#: the phases in which a sensor's event may start a hand
BETWEEN_HANDS = (Phase.IDLE, Phase.COMPLETE)


@dataclass
class Item:
    """One event on the queue: where it came from, and the future a command waits on."""

    event: Event
    source: str
    reply: asyncio.Future[Step] | None = None
    stamps: list[int] | None = None  # RAILGUARD_STAGE_TRACE only (trace.py)
    # a venue command's own writes (the table store, the seat's name), run once the core has
    # accepted the event and before the state is published: nothing is written for an event
    # the core refuses, so nothing is undone
    accepted: Callable[[], None] | None = None


class _Counts(Protocol):
    events: int
    rejected: int
    alerts: int


class CoreHost(Protocol):
    """What the core loop needs of the daemon (``service.Daemon`` is one)."""

    queue: asyncio.Queue[Item]
    clock: Clock  # events' times (the clock's Ticks), hands' start
    hands: asyncio.Queue[tuple[HandRecord, datetime]]  # completed hands, to the outbox task
    hand_slot: HandSlot
    hand_start: dict[int, datetime]  # hand number -> when it started (the record's start)
    positions_saved: Any  # the button and level state last written (written when changed)
    levels_saved: Any
    seating_saved: Any  # the seating last written (recovery.seating_data)
    dealer_saved: str  # the dealer on duty last written (written when a badge changed it)
    # the table's export while no hand is on, and the core's revision it was taken at
    # (table_before): kept at the end of an event, off the next event's path
    table_kept: tuple[int, TableData] | None
    live: LiveEvents
    tick_interval: float
    # called with every handled event and its step; one that raises is logged and dropped
    watchers: list[Callable[[Event, Step], None]]
    trace: StageTrace | None  # RAILGUARD_STAGE_TRACE only (bench/e2e.py)
    # the core task's wait while it waits on the empty queue (offer: the direct path)
    core_wait: asyncio.Timeout | None

    @property
    def core(self) -> TableCore: ...  # handle() and read-only attributes

    @property
    def stats(self) -> _Counts: ...

    @property
    def indicators(self) -> Indicators: ...

    def hand_id(self, hand_no: int) -> str: ...

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None: ...

    def event(self, kind: str, data: dict[str, Any], hand_no: int | None = None) -> None: ...

    def publish_alert(self, payload: dict[str, Any]) -> None: ...

    def publish_state(self, snap: TableState | None = None) -> None: ...


def clock_running(core: TableCore) -> bool:
    """A player is on the clock (the loop then ticks every ``tick_interval``)."""
    h = core.hand
    return h is not None and h.clock_state is not ClockState.OFF


async def core_task(d: CoreHost) -> None:
    """The queue's only consumer. While a player is on the clock and nothing else
    happens, a :class:`Tick` every ``tick_interval`` seconds lets the core rule on the
    countdown and the clock running out on time.

    The task waits on the queue itself (``Queue.get`` under ``asyncio.timeout``, none while
    no clock runs): an event put on the queue wakes it on the loop's next turn (a getter
    task under ``asyncio.wait`` took three turns, each a trip through the selector, on every
    alert's path: bench/e2e.py, docs/performance.md). A timeout leaves the queue as it was:
    ``Queue.get`` takes an item off only when it resumes. Nothing cancels this task but the
    daemon's stop, so its cancel count is 0 and ``asyncio.timeout`` on 3.11 turns its own
    cancel into ``TimeoutError``."""
    d.publish_state()
    while True:
        try:
            async with asyncio.timeout(d.tick_interval if clock_running(d.core) else None) as wait:
                d.core_wait = wait  # idle: offer() may serve an event at once
                try:
                    item = await d.queue.get()
                finally:
                    d.core_wait = None
        except TimeoutError:
            serve(d, Item(Tick(d.clock.monotonic()), "clock"))
            continue
        serve(d, item)


def offer(d: CoreHost, item: Item) -> bool:
    """The direct path: an input's event served at once, in the caller's callback on the
    loop, when the core task is idle (waiting on an empty queue, so nothing comes before
    this event and nothing is being served); False: put it on the queue. It saves the
    queue's hop (the core task wakes a loop turn later: a trip through the selector) on
    every alert's path. The task's tick deadline is set again as if the event had come
    through the queue: a tick ``tick_interval`` after it while a clock runs, none
    otherwise. Never from inside a serve (the flag ``core_wait`` is cleared during one)."""
    wait = d.core_wait
    if wait is None or not d.queue.empty():
        return False
    d.core_wait = None  # serving: an input put meanwhile queues behind this event
    try:
        serve(d, item)
    finally:
        d.core_wait = wait
    if not wait.expired():  # (an expired wait ticks next anyway)
        ticking = clock_running(d.core)
        wait.reschedule(asyncio.get_running_loop().time() + d.tick_interval if ticking else None)
    return True


def serve(d: CoreHost, item: Item) -> None:
    """One item: handled, the watchers told, the command's future answered. An event
    whose handling raises is logged (the table plays on) and fails only its own future."""
    tr = d.trace
    if tr is not None:
        tr.event = [*(item.stamps or (0, 0)), now_ns()]
    try:
        step = handle(d, item)
    except Exception as exc:  # never let one event kill the table
        hid = d.hand_id(d.core.hand_no) if d.core.hand is not None else "-"
        log.exception("hand=%s core: %s from %s failed", hid, type(item.event).__name__,
                      item.source)  # fmt: skip
        if item.reply is not None and not item.reply.done():
            item.reply.set_exception(exc)
        return
    finally:
        if tr is not None:
            tr.handled()
    for watch in list(d.watchers):
        try:
            watch(item.event, step)
        except Exception:
            log.exception("watcher %r failed; dropped", watch)
            d.watchers.remove(watch)
    if item.reply is not None and not item.reply.done():
        item.reply.set_result(step)


def handle(d: CoreHost, item: Item) -> Step:
    """The core's step for one event, and everything it decided sent on its way."""
    core = d.core
    ev = item.event
    if ev.t < core.t:  # a reading confirmed after a later command: keep time monotonic
        ev = replace(ev, t=core.t)
    before = core.hand_no
    # the table before an event that may start a hand, for the hand's first log entry
    # (what recovery.capture encodes; kept since the last event, table_before), encoded only
    # if a hand did start (most such events start none)
    pre: tuple[TableData, float] | None = None
    if core.phase in BETWEEN_HANDS and isinstance(ev, PHYSICAL):
        pre = table_before(d), d.clock.wall()
    tr = d.trace
    if tr is not None and tr.event is not None:
        tr.event.append(now_ns())
        step = core.handle(ev)
        tr.event.append(now_ns())
    else:
        step = core.handle(ev)
    d.stats.events += 1
    hid = d.hand_id(core.hand_no) if core.hand_no else "-"
    if step.rejected is not None:
        # the rejection's traceback holds the rules core's frames, and through their
        # callers' this frame and serve()'s, whose locals hold the step that holds the
        # rejection: a reference cycle only the garbage collector frees, about 20 objects a
        # rejection, so a gen-0 collection of 0.2-0.3 ms on the daemon's loop every dozen
        # rejected events (docs/performance.md). Nothing reads the traceback.
        step.rejected.__traceback__ = None
        d.stats.rejected += 1
        what = f"event={type(ev).__name__} source={item.source} rejected={step.rejected.code}"
        if isinstance(ev, PHYSICAL):  # one log line, the alert's (bench/e2e.py)
            refused = CATALOGUE[AlertCode.REJECTED]  # its severity and clause
            alert(d, Alert(refused.code, max(refused.severities), refused.clauses[0],
                           f"Not accepted now: {step.rejected}", 0, None, ev.t),
                  what)  # fmt: skip
        else:
            log.warning("hand=%s %s: %s", hid, what,
                        scrub(str(step.rejected), d.live.secrets))  # fmt: skip
        if not step.decisions:
            return step
        # the time that passed ran a clock out before the rejected event: the ruling
        # stands (logged as a Tick so that a restart replays it)
        ev = Tick(ev.t)
    elif item.accepted is not None:
        item.accepted()
    if isinstance(ev, Tick):
        if not step.decisions:
            return step
        if core.phase in recovery.LIVE or any(isinstance(x, HandComplete) for x in step.decisions):
            log_event(d, core.hand_no, encode_event(ev))
    # every accepted event, at DEBUG: a busy table makes a few a second, and the events
    # themselves are kept (SQLite event log, hand records); decisions are logged at INFO
    log.debug("hand=%s event=%s source=%s phase=%s", hid, type(ev).__name__, item.source,
              step.phase.value)  # fmt: skip
    completed = any(isinstance(x, HandComplete) for x in step.decisions)
    snap = core.snapshot()
    d.live.secrets = hole_secrets(snap)  # the hole-card guard's, before anything goes out
    if core.hand_no != before:
        d.hand_start[core.hand_no] = utc(d.clock)
        n = core.hand_no
        d.hand_slot.hand_started(n)  # in place, durable even on a full disk
        d.table_write(lambda st: st.put("hand_counter", n, durable=True),
                      f"hand={hid} hand counter")  # fmt: skip
        if pre is not None:
            started = datetime.fromtimestamp(pre[1], UTC).isoformat()  # as utc(d.clock)
            log_event(d, n, encode_start(pre[0], started))
    if isinstance(ev, PHYSICAL) and (
        core.phase in recovery.LIVE or completed or core.redeal_pending
    ):
        log_event(d, core.hand_no, encode_event(ev))
    for x in step.decisions:
        if isinstance(x, Alert):
            alert(d, x)
        elif isinstance(x, Instruction):
            instruction(d, x, hid)
        elif isinstance(x, HandComplete):
            rec = x.record
            start = d.hand_start.pop(rec.hand_no, utc(d.clock))
            d.hands.put_nowait((rec, start))
        elif isinstance(x, ProfileChanged):
            log.info("hand=%s profile %s -> %s (from the next hand)",
                     d.hand_id(x.from_hand), x.previous, x.profile)  # fmt: skip
    for kind, data, hand_no in d.live.after(snap, step.decisions):
        d.event(kind, data, hand_no)
    save_seating(d)
    save_positions(d)
    save_dealer(d)
    d.publish_state(snap)
    if core.phase in BETWEEN_HANDS:
        table_before(d)  # for the next event, now that this one's messages are out
    return step


def table_before(d: CoreHost) -> TableData:
    """The table as it is, exported: the export kept by the last event while the core's
    revision says nothing changed since (a rejected event changes nothing; an accepted one,
    a restore or a profile switch counts), else a new one, kept. A sensor's event between
    hands takes it as the hand's first log entry should the event start one (most start
    none), so exporting after the last event keeps the export off the alert's path."""
    core = d.core
    kept = d.table_kept
    if kept is not None and kept[0] == core.revision:
        return kept[1]
    data = core.export()
    d.table_kept = (core.revision, data)
    return data


def instruction(d: CoreHost, x: Instruction, hid: str) -> None:
    """An instruction to the dealer, also to the venue (``instruction`` event); card
    names are scrubbed as in alerts (live data)."""
    text = scrub(x.text, d.live.secrets)
    log.info("hand=%s instruction seat=%d: %s", hid, x.seat, text)
    hand_no = d.core.hand_no if d.core.hand is not None else None
    d.event("instruction", {"text": text[:500], "seat": x.seat or None},
            hand_no or None)  # fmt: skip


def alert(d: CoreHost, a: Alert, what: str = "") -> None:
    """A core alert: the dealer's alert LED and buzzer, and the venue (scrubbed payload).
    ``what``: the rejected event behind a REJECTED alert (its one log line)."""
    d.stats.alerts += 1
    hand_no = d.core.hand_no if d.core.hand is not None else 0
    hid = d.hand_id(hand_no) if hand_no else "-"
    payload = alert_payload(a, hand_no, d.live.secrets)
    tr, aid = d.trace, ""
    stamps: dict[str, int] = {}
    if tr is not None:
        stamps["payload"] = now_ns()
        payload["alert_id"] = aid = uuid.uuid4().hex  # as the link would name it
    # the alert goes out first (the link writes it to the broker's socket at once when it
    # is idle, docs/performance.md), its log line and the dealer's lights after it
    d.publish_alert(payload)
    if tr is not None:
        stamps["checked"] = now_ns()
    log.warning("hand=%s alert=%s severity=%s seat=%d%s: %s", hid, a.code.value,
                SEVERITY_NAMES[a.severity], a.seat, f" {what}" if what else "",
                payload["remedy"])  # fmt: skip
    if tr is not None:
        stamps["logged"] = now_ns()
    d.indicators.alert(SEVERITY_NAMES[a.severity])
    if tr is not None:
        stamps["lit"] = now_ns()
        tr.alert(aid, stamps)


def log_event(d: CoreHost, hand_no: int, entry: dict[str, Any]) -> None:
    """One entry of the hand's event log (table.db), for a restart to replay."""
    d.table_write(lambda st: st.append_hand_event(hand_no, entry),
                  f"hand={d.hand_id(hand_no)} event log")  # fmt: skip


class _SeatingHost(Protocol):
    seating_saved: Any

    @property
    def core(self) -> TableCore: ...

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None: ...


def save_seating(d: _SeatingHost) -> None:
    """The seating as the core holds it (players, names, stacks), when it changed: the
    table store's one writer of its seats (a seat, unseat or move the core accepted, the
    stacks and the busted seats of a hand just over), so the store never disagrees with
    the core."""
    seating = recovery.seating_data(d.core)
    if seating != d.seating_saved:
        d.table_write(lambda st: st.put_seating(seating), "seating")
        d.seating_saved = seating


def save_positions(d: CoreHost) -> None:
    """Button position and level state, when they changed (see recovery)."""
    pos = recovery.positions_data(d.core)
    if pos != d.positions_saved:
        d.table_write(lambda st: st.put("positions", pos, durable=True), "button position")
        d.positions_saved = pos
    levels = recovery.levels_data(d.core)
    if levels != d.levels_saved:
        d.table_write(lambda st: st.put("levels", levels, durable=True), "level state")
        d.levels_saved = levels


def save_dealer(d: CoreHost) -> None:
    """The dealer on duty, when a badge changed it: a restart keeps them logged in."""
    dealer = d.core.dealer
    if dealer != d.dealer_saved:
        d.table_write(lambda st: st.put("dealer", dealer, durable=True), "dealer on duty")
        d.dealer_saved = dealer
