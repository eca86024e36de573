"""One table of the full-system replay: :class:`hwsim.table.SimTable` of ten seats (the
simulated reader board in-process, MockFactory GPIO, the daemon in-process and a venue
subscriber on the run's broker) (the venue logger is the run's, shared
by every table); :meth:`ReplayTable.play` deals one planned hand (with an injected dealer
error if asked) physically and hands its result to ``out`` when its record comes back over
MQTT (results of one table may come out of order: the caller orders them)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections import defaultdict, deque
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any, Protocol

from controller.daemon.observe import Observation
from controller.daemon.service import Daemon
from controller.replay import ReplayResult, alarms_of, compare_stacks, judged
from controller.replay_system.shared import Pace, Pending, failed_result
from controller.rules.decisions import SEVERITY_NAMES
from controller.rules.events import (
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ConsoleButton,
    Event,
    SeatPlayer,
    SetButton,
    SetLevel,
    Sweep,
    ZoneKind,
)
from controller.rules.hand import Phase
from controller.rules.profile import AnteStyle
from hwsim.dealer import PlannedHand
from hwsim.inject import TWIN_DECK, Feedback, Injection
from hwsim.layout import TEN, TableFailure, card_uid, ohh_stacks, split_chips, tag_uid, wait_until
from hwsim.phh import HandHistory
from hwsim.table import OnSimTable, SimTable, Transport

DemoFailure = TableFailure
LAYOUT = TEN  # the replay's table seats ten: a PHH file of up to ten players deals
BET, BOARD, MUCK, SEATS = LAYOUT.bet, LAYOUT.board, LAYOUT.muck, LAYOUT.seats
antenna_of = LAYOUT.antenna_of

# tournament stacks run to millions: chips up to 5M keep a bet under the antenna's 40 tags
DENOMINATIONS = (5_000_000, 1_000_000, 500_000, 100_000, 25_000, 5000, 1000, 500, 100, 25, 5, 1)
POOL = 160  # chips of each denomination
POLL = 0.002  # seconds between two looks at the daemon's state


class Results(Protocol):
    """Where a table hands its results: (the hand's index in the run, its result)."""

    def put(self, item: tuple[int, ReplayResult], /) -> None: ...


class ChipPool:
    """Tagged chips reused hand after hand: taken for a bet, given back at the sweep."""

    def __init__(self) -> None:
        self.value: dict[bytes, int] = {}
        self.free: dict[int, list[bytes]] = {}
        for k, d in enumerate(DENOMINATIONS):
            uids = [bytes([0xC2, 0, k, 0, 0, i >> 8, i & 0xFF]) for i in range(POOL)]
            self.free[d] = uids[::-1]
            self.value.update(dict.fromkeys(uids, d))

    def take(self, amount: int) -> list[bytes]:
        out = []
        for d in split_chips(amount, DENOMINATIONS):
            if not self.free[d]:
                raise DemoFailure(f"more than {POOL} chips of {d} on the table")
            out.append(self.free[d].pop())
        return out

    def give(self, uids: list[bytes]) -> None:
        for u in uids:
            self.free[self.value[u]].append(u)


class ReplayTable(OnSimTable):
    """One table of the run (see the module docstring); its parts are its SimTable's."""

    def __init__(self, host: str, port: int, table_id: str, profile: str, pace: Pace,
                 workdir: Path, timeout: float, out: Results,
                 transport: Transport = "inprocess") -> None:  # fmt: skip
        self.host, self.port, self.table_id, self.profile = host, port, table_id, profile
        self.profile_name = profile  # the profile's name (replay.REFUSALS): set by the worker
        self.pace, self.workdir, self.timeout, self.out = pace, workdir, timeout, out
        self.pool = ChipPool()
        self.chips_on: list[bytes] = []
        self.level: tuple[int, int, int] | None = None
        self.button = 0
        self.lifted_at = 0.0
        self.alerts: list[dict[str, Any]] = []
        self.alerts_by_hand: dict[int, list[tuple[str, int]]] = defaultdict(list)
        self.records: dict[int, dict[str, Any]] = {}
        self.fifo: deque[Pending] = deque()
        self.ante_style = AnteStyle.BIG_BLIND  # of the profile the daemon runs
        self.broken = False  # a hand left the table in a state it cannot leave: replace it
        self.transport: Transport = transport

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        p = self.pace
        timing = {
            "debounce_cycles": p.debounce_cycles,
            "removal_cycles": p.removal_cycles,
            "sensor_settle_s": p.sensor_settle_s,
            "button_debounce_s": p.button_debounce_s,
        }
        self.sim = await SimTable.open(
            self.host, self.port, profile=self.profile, workdir=self.workdir,
            table_id=self.table_id, seats=LAYOUT, chips=self.pool.value,
            transport=self.transport, scan_period_ms=p.scan_ms, timing=timing,
            topics=("hands", "alerts", "cmd/response"), record=False,
            on_message=self._on_message, decks=("A", TWIN_DECK),
        )  # fmt: skip
        self.sim.poll = POLL

    async def stop(self) -> None:
        await self.sim.close()

    def _on_message(self, suffix: str, body: Any) -> None:
        if not isinstance(body, dict):
            return
        if suffix == "hands" and isinstance(body.get("ohh"), dict):
            self.records.setdefault(int(body.get("hand_no") or 0), body["ohh"])
            self._flush()
        elif suffix == "alerts":
            self.alerts.append(body)
            severity = str(body.get("severity", "info"))
            level = SEVERITY_NAMES.index(severity) if severity in SEVERITY_NAMES else 2
            self.alerts_by_hand[int(body.get("hand_no") or 0)].append(
                (str(body["code"]).lower(), level)
            )

    # ---------------------------------------------------------------- results

    def _flush(self) -> None:
        """Every hand whose result is known (its record came, or it failed) goes out."""
        left: deque[Pending] = deque()
        for p in self.fifo:
            if p.result is None:
                ohh = self.records.pop(p.hand_no, None)
                if ohh is None:
                    left.append(p)
                    continue
                p.result = self._result(p, ohh)
            self.out.put((p.index, p.result))
        self.fifo = left

    def _result(self, p: Pending, ohh: dict[str, Any]) -> ReplayResult:
        assert p.hh is not None
        by_id = ohh_stacks(ohh)
        got = [by_id.get(str(s), -1) for s in p.seats]
        raised = self.alerts_by_hand.pop(p.hand_no, [])
        alerts = tuple(code for code, _ in raised)
        ok, exp, odd = compare_stacks(p.hh, got)
        hand = str(p.hh.hand) if p.hh.hand is not None else Path(p.name).stem
        extra: dict[str, Any] = {}
        problem = ""
        if p.inj is not None:
            extra = {"inject": p.inj.label, "injected": p.inj.applied, "remedy": p.inj.remedy}
            problem = p.inj.problem()
        r = ReplayResult(p.name, hand, ok and not problem, exp, got, odd, error=problem,
                         alerts=alerts, alarms=alarms_of(raised), **extra)  # fmt: skip
        # a recorded hand is clean play: an alert above info fails it, unless it is the
        # profile's refusal (with --inject the injected error's alerts are the point)
        return r if p.inj is not None else judged(r, self.profile_name)

    @property
    def pending(self) -> bool:
        """A hand dealt whose record has not come yet."""
        return bool(self.fifo)

    async def drain(self) -> None:
        """Wait for the records still on their way; a hand without one fails."""
        want = {p.hand_no for p in self.fifo if p.result is None}
        with contextlib.suppress(DemoFailure):
            await wait_until(lambda: want <= set(self.records), "the last records", self.timeout)
        for p in self.fifo:
            if p.result is None and p.hand_no not in self.records:
                assert p.hh is not None
                p.result = failed_result(p.name, p.hh, "no hand record came over MQTT", p.inj)
        self._flush()

    # ---------------------------------------------------------------- one hand

    async def play(self, index: int, name: str, hh: HandHistory, plan: PlannedHand,
                   inj: Injection | None) -> None:  # fmt: skip
        try:
            await self._setup(plan)
            before = self.daemon.observe().records
            await self._deal(plan, inj)
            await self._finish(before)
            pending = Pending(index, name, hh, plan.seats, self.daemon.observe().hand_no, inj)
        except DemoFailure as exc:
            failed = failed_result(name, hh, str(exc), inj)
            self.fifo.append(Pending(index, name, hh, plan.seats, 0, inj, failed))
            await self._recover()
        else:
            self.fifo.append(pending)
            await self._clear_table()
        self._flush()

    async def _setup(self, plan: PlannedHand) -> None:
        seats: dict[int, SeatPlayer] = {}
        for ev in plan.events:
            if isinstance(ev, SetLevel):
                lvl = (ev.small_blind, ev.big_blind, ev.ante)
                if lvl != self.level:
                    await self.venue.do("set_level", level=1, small_blind=lvl[0],
                                        big_blind=lvl[1], ante=lvl[2])  # fmt: skip
                    self.level = lvl
            elif isinstance(ev, SeatPlayer):
                seats[ev.seat] = ev
            elif isinstance(ev, SetButton):
                button = ev.seat
        # the commands go out together; the daemon answers each in order
        published = self.daemon.observe(state=True).published_state or {}
        now_seated = {int(x["seat"]): x for x in published.get("seats", [])}
        todo = [self.venue.do("unseat", seat=s) for s in sorted(set(now_seated) - set(seats))]
        for s, ev in sorted(seats.items()):
            now = now_seated.get(s)
            name = ev.player or f"p{s}"  # a file may name no players
            if now is None or now["stack"] != ev.stack or now["name"] != name[:64]:
                todo.append(self.venue.do("seat", seat=s, player_id=f"p{s}", name=name,
                                          stack=ev.stack))  # fmt: skip
        await asyncio.gather(*todo)
        wait = self.lifted_at + 2 * self.pace.sensor_settle_s - time.monotonic()
        if wait > 0:  # the puck was lifted at the end of the last hand
            await asyncio.sleep(wait)
        self.gpio.set_puck(button, True)
        self.button = button
        await self._wait(lambda: self.daemon.observe().button_set, "the button puck")

    async def _deal(self, plan: PlannedHand, inj: Injection | None) -> None:
        if inj is None:
            for batch in _batches(plan.events):
                await self._pace()
                await self._do_all(batch)
            return
        gen: Generator[Event, Feedback | None, None] = inj.events()
        ev: Event | None = next(gen, None)
        while ev is not None:
            await self._pace()
            since = len(self.alerts)
            await self._do(ev)
            try:
                ev = gen.send(await self._feedback(inj, since)) if inj.awaiting else next(gen)
            except StopIteration:
                ev = None

    async def _pace(self) -> None:
        if self.pace.pitch_s:
            await asyncio.sleep(self.pace.pitch_s)

    async def _wait(self, cond: Any, what: str) -> None:
        await wait_until(cond, what, self.timeout, poll=POLL)

    def _present(self) -> Mapping[bytes, Any]:
        return self.daemon.observe().tags

    async def _do(self, ev: Event) -> None:
        if isinstance(ev, ChipsIn):  # every chip of the action lands in one scan
            uids = self.pool.take(ev.amount or 0)
            for u in uids:
                self.board.place(BET[ev.seat], u)
                self.where[u] = BET[ev.seat]
            self.chips_on += uids
            await self._wait(lambda: all(u in self._present() for u in uids), "chips read")
        elif isinstance(ev, Sweep):
            if self.chips_on:
                for u in self.chips_on:
                    self.board.remove(self.where.pop(u), u)
                self.pool.give(self.chips_on)
                self.chips_on = []
                await self._wait(self._no_chips, "a sweep")
        elif isinstance(ev, CardPlaced):
            uid = tag_uid(ev.tag)
            ant = antenna_of(ev)
            if uid in self.where:  # a move (a fold): off the old antenna in the same scan
                self.board.remove(self.where[uid], uid)
            self.board.place(ant, uid)
            self.where[uid] = ant
            zone = self.daemon.cfg.zones.zone_of(ant)
            await self._wait(lambda: self._present().get(uid) == zone, "a tag read")
        elif isinstance(ev, CardRemoved):
            uid = tag_uid(ev.tag)
            if uid in self.where:
                self.board.remove(self.where.pop(uid), uid)
            await self._wait(lambda: uid not in self._present(), "a tag to leave")
        elif isinstance(ev, ButtonPress):
            # the next press (a showdown's ACKs follow each other) only once the daemon has
            # taken this one: presses closer than the debounce would merge into one
            before = self.daemon.stats.events
            await self.gpio.press(ev.button, 2 * self.pace.button_debounce_s + 0.005)
            await self._wait(lambda: self.daemon.stats.events > before, "a console press")
            await asyncio.sleep(2 * self.pace.button_debounce_s)

    async def _do_all(self, batch: list[Event]) -> None:
        """Card placements read in one scan (their order does not matter)."""
        if len(batch) == 1:
            await self._do(batch[0])
            return
        uids = []
        for ev in batch:
            assert isinstance(ev, CardPlaced) and ev.card is not None
            uid = card_uid(ev.card)
            ant = MUCK if ev.zone is ZoneKind.MUCK else BOARD
            if uid in self.where:
                self.board.remove(self.where[uid], uid)
            self.board.place(ant, uid)
            self.where[uid] = ant
            uids.append((uid, self.daemon.cfg.zones.zone_of(ant)))
        present = self._present
        await self._wait(lambda: all(present().get(u) == z for u, z in uids), "tags read")

    def _no_chips(self) -> bool:
        return self.sim.no_chips()

    async def _settled(self) -> None:
        await self._wait(lambda: self.daemon.observe().idle, "the rules core")

    async def _feedback(self, inj: Injection, since: int) -> Feedback:
        """The alerts the injected error raised, as they came over MQTT."""
        code = inj.expected.upper()
        with contextlib.suppress(DemoFailure):
            await wait_until(lambda: any(a.get("code") == code for a in self.alerts[since:]),
                             "the alert", min(self.timeout, 3.0), poll=POLL)  # fmt: skip
        await self._settled()
        await asyncio.sleep(self.pace.scan_ms / 1000)  # alerts of the same step, in flight
        return tuple((str(a["code"]).lower(), str(a["severity"])) for a in self.alerts[since:])

    async def _finish(self, before: int) -> None:
        d = self.daemon
        await self._settled()
        if d.observe().records > before:
            return
        # a checked-through last round: the dealer confirms each check with ACK
        for _ in range(2 * SEATS):
            seen = d.observe()
            if seen.records > before or not seen.hand_open:
                break
            await self.gpio.press(ConsoleButton.ACK, 2 * self.pace.button_debounce_s + 0.005)
            moved = functools.partial(_moved, d, seen)
            with contextlib.suppress(DemoFailure):
                await wait_until(moved, "an ACK", 0.5, poll=POLL)
        await self._wait(lambda: d.observe().records > before, "the hand record")

    async def _clear_table(self) -> None:
        if self.button:
            self.gpio.set_puck(self.button, False)  # the puck leaves with the pot
        self.lifted_at = time.monotonic()
        for uid, ant in self.where.items():
            self.board.remove(ant, uid)
        self.where.clear()
        self.pool.give(self.chips_on)
        self.chips_on = []
        await self._wait(lambda: not self._present(), "a clear table")
        await self._settled()
        await self._wait(lambda: self.daemon.observe().phase is Phase.IDLE, "the table to reset")

    async def _recover(self) -> None:
        """After a failed hand: clear the table; if a hand is still open, the table is
        replaced (the run goes on at a fresh one)."""
        try:
            await self._clear_table()
        except DemoFailure:
            self.broken = True


def _batches(events: tuple[Event, ...]) -> list[list[Event]]:
    """The planned events in scan-sized groups: a fold's two cards go to the muck together
    and the three flop cards are spread at once; every other event has its own scan."""
    out: list[list[Event]] = []
    for e in events:
        last = out[-1] if out else None
        if (
            last is not None
            and isinstance(e, CardPlaced)
            and e.zone in (ZoneKind.MUCK, ZoneKind.BOARD)
            and all(isinstance(x, CardPlaced) and x.zone is e.zone for x in last)
            and len(last) < (2 if e.zone is ZoneKind.MUCK else 3)
            and not (e.zone is ZoneKind.BOARD and _burned_before(out))
        ):
            last.append(e)
        else:
            out.append([e])
    return out


def _burned_before(groups: list[list[Event]]) -> bool:
    """The board group under way is not the flop (a flop follows the first burn only)."""
    burns = [x for g in groups for x in g if isinstance(x, CardPlaced) and x.zone is ZoneKind.BURN]
    return len(burns) > 1


def _moved(d: Daemon, before: Observation) -> bool:
    """The ACK was taken: the record came, the hand ended, or the turn moved on."""
    now = d.observe()
    return (now.records > before.records or not now.hand_open
            or now.hand_no != before.hand_no or now.to_act != before.to_act)  # fmt: skip
