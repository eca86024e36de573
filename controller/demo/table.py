"""The simulated table of ``railguard demo``: the daemon in-process, the reader board on a
pty, MockFactory GPIO, a venue subscriber (live view) and a venue logger on one broker; the
virtual dealer plays each hand through the antennas, the chip zones and the button puck."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from controller.daemon import Daemon, config
from controller.demo.hands import DemoHand
from controller.demo.view import View
from controller.link.config import BrokerConfig
from controller.rules.cards import STANDARD_DECK, Card
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
from controller.venuelog import SqliteHandStore, VenueLogger
from firmware_bridge.protocol import SetConfig
from firmware_bridge.zones import ZoneType
from hwsim.board import SimBoard
from hwsim.gpio import SimGpio, wired_factory
from hwsim.inject import FOREIGN_PREFIX, KINDS, TWIN_DECK, Feedback, Injection

SEATS = 6
HOLE = {s: s - 1 for s in range(1, SEATS + 1)}
BOARD, BURN, MUCK = 6, 7, 8
BET = {s: 8 + s for s in range(1, SEATS + 1)}
PUCK = {1: 4, 2: 17, 3: 27, 4: 22, 5: 10, 6: 9}
VENUE = "v1"
STEP_TIMEOUT = 5.0


class DemoFailure(Exception):
    """The simulated table did not do what the dealer expected."""


def card_uid(c: Card) -> bytes:
    return bytes([0xC0, 0xA0, int(c.suit), c.rank])


def twin_uid(c: Card) -> bytes:
    """The tag of ``c`` in the second deck (hwsim.inject's duplicate-card twin)."""
    return bytes([0xD0, 0xA0, int(c.suit), c.rank])


def tag_uid(tag: str) -> bytes:
    """The uid of a simulated tag: ``A-Ks`` (hwsim.dealer.tag_of), ``B-Ks`` (the twin deck
    of hwsim.inject), ``X-123`` (a foreign card: in no registered deck)."""
    deck, _, rest = tag.partition("-")
    if f"{deck}-" == FOREIGN_PREFIX:
        n = int(rest)
        return bytes([0xF0, 0x0F, (n >> 8) & 0xFF, n & 0xFF])
    card = Card.parse(rest)
    return twin_uid(card) if deck == TWIN_DECK else card_uid(card)


async def enrol_decks(venue: Venue) -> None:
    """Deck A (the one dealt) and deck B (its twins, for injected duplicate cards)."""
    await venue.do("enrol_deck", deck_id="A",
                   cards={str(c): card_uid(c).hex().upper() for c in STANDARD_DECK})  # fmt: skip
    await venue.do("enrol_deck", deck_id=TWIN_DECK,
                   cards={str(c): twin_uid(c).hex().upper() for c in STANDARD_DECK})  # fmt: skip


def antenna_of(ev: CardPlaced) -> int:
    """The antenna under the zone a planned card goes to."""
    if ev.zone is ZoneKind.HOLE:
        return HOLE.get(ev.seat, 0)
    return {ZoneKind.BOARD: BOARD, ZoneKind.BURN: BURN, ZoneKind.MUCK: MUCK}[ev.zone]


def chip_uid(hand: int, i: int) -> bytes:
    return bytes([0xC1, 0, hand >> 8 & 0xFF, hand & 0xFF, 0, i >> 8 & 0xFF, i & 0xFF])


DENOMINATIONS = (5000, 1000, 500, 100, 25, 5, 1)


def split_chips(amount: int, denominations: tuple[int, ...] = DENOMINATIONS) -> list[int]:
    """The chips a player pushes for ``amount``: largest first, never one chip nor all of one
    denomination when smaller ones exist (so a raise is not read as an oversized-chip call
    or under the multiple-chip rule)."""
    chips: list[int] = []
    left = amount
    for d in denominations:
        chips += [d] * (left // d)
        left %= d
    while len(set(chips)) < 2 and chips[0] > 1:
        big = chips.pop(0)
        smaller = [d for d in denominations if d < big]
        part: list[int] = []
        rest = big
        for d in smaller:
            part += [d] * (rest // d)
            rest %= d
        chips = sorted(chips + part, reverse=True)
    return chips


def chip_table(hands: list[DemoHand]) -> dict[bytes, int]:
    """A chip tag for each chip of each ChipsIn of each hand."""
    out: dict[bytes, int] = {}
    for h, hand in enumerate(hands):
        i = 0
        for e in hand.plan.events:
            if isinstance(e, ChipsIn):
                for value in split_chips(e.amount or 0):
                    out[chip_uid(h, i)] = value
                    i += 1
    return out


def daemon_config(
    port_path: str,
    host: str,
    mqtt_port: int,
    table: str,
    profile: str,
    storage: Path,
    chips: dict[bytes, int],
    *,
    scan_period_ms: int = 20,
    timing: dict[str, Any] | None = None,
) -> Any:
    """The daemon's config for the simulated table. ``timing``: extra ``reader`` settings
    (debounce_cycles, removal_cycles) and ``gpio`` ones (sensor_settle_s, button_debounce_s)
    for compressed time."""
    timing = timing or {}
    reader_extra = {k: v for k, v in timing.items() if k.endswith("_cycles")}
    gpio_extra = {k: v for k, v in timing.items() if k.endswith("_s")}
    return config.from_mapping({
        "table": {"id": table, "venue": VENUE, "profile": profile},
        # the simulated board's pty carries frames at memory speed, not at a UART's 115200
        # baud: say so, or the daemon waits for a full scan's worth of UART time before it
        # closes each scan cycle (921600 is a standard rate; a USB reader is faster still)
        "reader": {"ports": [port_path], "scan_period_ms": scan_period_ms, "heartbeat_ms": 200,
                   "ready_timeout_s": 10.0, "baudrate": 921600, **reader_extra},
        "zones": {"seats": SEATS, "hole": {str(s): a for s, a in HOLE.items()},
                  "board": BOARD, "burn": BURN, "muck": MUCK,
                  "bet": {str(s): a for s, a in BET.items()}},
        "gpio": {"pin_factory": "mock", "chip_sensors": {},
                 "puck_sensors": {str(s): p for s, p in PUCK.items()}, **gpio_extra},
        "mqtt": {"host": host, "port": mqtt_port, "tls": False,
                 "allow_plaintext": True, "keepalive": 5},
        "storage": {"path": str(storage)},
        "chips": {uid.hex(): v for uid, v in chips.items() if v},
    })  # fmt: skip


async def wait_until(
    cond: Callable[[], bool], what: str, timeout: float = STEP_TIMEOUT, poll: float = 0.01
) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise DemoFailure(f"timed out waiting for {what}")
        await asyncio.sleep(poll)


def command_payload(cmd: str, **args: Any) -> tuple[str, bytes]:
    """A venue command as it goes on the wire: (request id, JSON payload)."""
    rid = uuid.uuid4().hex[:16]
    body = {"request_id": rid, "ts": time.time(), "command": cmd, "args": args}
    return rid, json.dumps(body).encode()


class Venue:
    """Subscribes to the table's topics (the live view) and sends venue commands."""

    def __init__(
        self,
        host: str,
        port: int,
        base: str,
        view: View | None = None,
        *,
        topics: tuple[str, ...] = ("#",),
        record: bool = True,
        on_message: Callable[[str, Any], None] | None = None,
    ) -> None:
        self.host, self.port, self.base, self.view = host, port, base, view
        self.topics, self.record, self.on_message = topics, record, on_message
        self.messages: list[tuple[str, Any]] = []  # every message (when ``record``)
        self.responses: dict[str, dict[str, Any]] = {}  # command responses by request id
        self.client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._up = asyncio.Event()

    async def _run(self) -> None:
        ident = f"demo-venue-{uuid.uuid4().hex[:6]}"
        async with aiomqtt.Client(self.host, self.port, identifier=ident) as c:
            self.client = c
            for t in self.topics:
                await c.subscribe(f"{self.base}/{t}", qos=1)
            self._up.set()
            async for m in c.messages:
                raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                try:
                    body = json.loads(raw)
                except (ValueError, RecursionError):  # anyone may publish anything
                    continue
                topic = m.topic.value
                if self.record:
                    self.messages.append((topic, body))
                suffix = topic[len(self.base) + 1 :]
                if suffix == "cmd/response" and isinstance(body, dict):
                    self.responses[str(body.get("request_id"))] = body
                if self.on_message is not None:
                    self.on_message(suffix, body)
                if self.view is None or not isinstance(body, dict):
                    continue
                if suffix == "state":
                    self.view.state(body)
                elif suffix == "alerts":
                    self.view.alert(body)

    async def start(self) -> None:
        self._up.clear()  # restartable: wait for the new connection, not the old one
        self._task = asyncio.create_task(self._run())
        done, _ = await asyncio.wait(
            [self._task, asyncio.create_task(self._up.wait())], timeout=5,
            return_when=asyncio.FIRST_COMPLETED,
        )  # fmt: skip
        if self._task in done:
            self._task.result()  # raises the connection error
        if not self._up.is_set():
            raise DemoFailure(f"venue subscriber could not connect to {self.host}:{self.port}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task

    def on(self, suffix: str) -> list[Any]:
        return [b for t, b in self.messages if t == f"{self.base}/{suffix}"]

    async def send(self, payload: bytes, rid: str | None, what: str = "") -> dict[str, Any]:
        """Publish a raw command payload and wait for the response carrying ``rid``."""
        assert self.client is not None
        await self.client.publish(f"{self.base}/cmd", payload, qos=1)
        key = str(rid)
        await wait_until(
            lambda: key in self.responses, what or f"the response to {rid}", poll=0.002
        )
        return self.responses.pop(key)

    async def do(self, cmd: str, **args: Any) -> dict[str, Any]:
        rid, payload = command_payload(cmd, **args)
        resp = await self.send(payload, rid, f"the response to {cmd}")
        if not resp.get("ok"):
            raise DemoFailure(f"command {cmd} refused: {resp.get('reason')}")
        return resp


@dataclass
class Outcome:
    hands: int = 0
    records: int = 0
    mismatches: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    errors_injected: int = 0


def ohh_stacks(ohh: dict[str, Any]) -> dict[str, int]:
    """Each player's finishing stack from an OHH record (start - put in + won)."""
    stacks = {p["id"]: p["starting_stack"] for p in ohh["players"]}
    for r in ohh["rounds"]:
        for a in r["actions"]:
            if a["action"] != "Dealt Cards":
                stacks[a["player_id"]] -= a.get("amount", 0)
    for pot in ohh["pots"]:
        for w in pot["player_wins"]:
            stacks[w["player_id"]] += w["win_amount"]
    return {str(k): int(v) for k, v in stacks.items()}


class Table:
    """The running simulated table; :meth:`play` deals one :class:`DemoHand`."""

    def __init__(self, daemon: Daemon, board: SimBoard, gpio: SimGpio, venue: Venue,
                 view: View, rng: random.Random, error_rate: float) -> None:  # fmt: skip
        self.daemon, self.board, self.gpio, self.venue = daemon, board, gpio, venue
        self.view, self.rng, self.error_rate = view, rng, error_rate
        self.kinds: tuple[str, ...] = ()  # given: hand i's dealer error is kinds[i % n]
        self.where: dict[bytes, int] = {}  # every tag on the board: antenna
        self.button: int | None = None
        self.level: tuple[int, int, int] | None = None
        self.seated: set[int] = set()
        self.outcome = Outcome()
        # an injected hand's chips (_do): the hand's index, the next chip, those in the zones
        self.hand_index = 0
        self.chip_i = 0
        self.chips_on: list[bytes] = []

    async def setup(self) -> None:
        await enrol_decks(self.venue)

    async def _settled(self) -> None:
        await wait_until(self.daemon.queue.empty, "the rules core")
        await asyncio.sleep(0.02)

    def _all_present(self, uids: list[bytes]) -> bool:
        present = self.daemon.tracker.present()
        return all(u in present for u in uids)

    def _no_chips(self) -> bool:
        return not any(z.type is ZoneType.BET for z in self.daemon.tracker.present().values())

    async def _place(self, ant: int, uid: bytes) -> None:
        if uid in self.where:
            self.board.remove(self.where[uid], uid)
        self.board.place(ant, uid)
        self.where[uid] = ant
        zone = self.daemon.cfg.zones.zone_of(ant)
        await wait_until(lambda: self.daemon.tracker.present().get(uid) == zone, "a tag read")

    async def _clear_table(self) -> None:
        for uid, ant in self.where.items():
            self.board.remove(ant, uid)
        self.where.clear()
        await wait_until(lambda: not self.daemon.tracker.present(), "a clear table")
        await self._settled()
        await wait_until(lambda: self.daemon.core.phase.value == "idle", "the table to reset")

    async def _table_setup(self, hand: DemoHand) -> None:
        seats = {}
        button = 0
        for ev in hand.plan.events:
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
        for s in sorted(self.seated - set(seats)):
            await self.venue.do("unseat", seat=s)
        for s, ev in sorted(seats.items()):
            await self.venue.do("seat", seat=s, player_id=f"p{s}", name=ev.player, stack=ev.stack)
        self.seated = set(seats)
        await self._settled()
        if self.button is not None:  # the puck leaves the last button seat...
            self.gpio.set_puck(self.button, False)
            await asyncio.sleep(0.3)
        self.gpio.set_puck(button, True)  # ...and arrives at this hand's
        self.button = button
        await wait_until(lambda: self.daemon.core.button_set, "the button puck")

    async def play(self, index: int, hand: DemoHand) -> None:
        d = self.daemon
        self.view.hand_start(index, hand)
        await self._table_setup(hand)
        # a dealer error in this hand? one of hwsim.inject's kinds, each with its remedy
        if self.kinds:
            kind = self.kinds[index % len(self.kinds)]
        else:
            kind = self.rng.choice(sorted(KINDS)) if self.rng.random() < self.error_rate else ""
        inject = kind == "wrong-first-seat"
        records_before = len(d.records)
        self.hand_index, self.chip_i, self.chips_on = index, 0, []
        if kind and not inject:
            await self._deal_injected(Injection(hand.plan, kind, seed=self.rng.randrange(2**31)))
        else:
            physical = [e for e in hand.plan.events if isinstance(e, ChipsIn | CardPlaced | Sweep)]
            for ev in physical:
                if inject and isinstance(ev, CardPlaced):
                    # dealer error: the first card to the wrong seat, then a re-deal
                    inject = False
                    assert ev.card is not None
                    await self._misdeal(ev.seat, card_uid(ev.card))
                await self._do(ev)
                await self._settled()
        await self._ack_checks(records_before)
        await self._end_hand(hand, records_before)

    async def _ack_checks(self, records_before: int) -> None:
        """A checked-through last round leaves no trace: the dealer confirms each check."""
        await self._settled()
        for _ in range(SEATS * 2):
            if len(self.daemon.records) > records_before or self.daemon.core.hand is None:
                break
            await self.gpio.press(ConsoleButton.ACK, 0.06)
            await asyncio.sleep(0.08)

    async def _end_hand(self, hand: DemoHand, records_before: int) -> None:
        d = self.daemon
        try:
            await wait_until(lambda: len(d.records) > records_before, "the hand record")
        except DemoFailure:
            self.outcome.missing.append(hand.label)
            self.view.result(hand, None, "record missing")
            await self._clear_table()
            return
        self.outcome.hands += 1
        got_by_id = ohh_stacks(d.records[-1])
        got = tuple(got_by_id.get(str(s), -1) for s in hand.plan.seats)
        problem = "" if got == hand.expected else f"expected {list(hand.expected)}"
        if problem:
            self.outcome.mismatches.append(f"{hand.label}: got {list(got)}, {problem}")
        self.view.result(hand, got, problem)
        await self._clear_table()

    async def _deal_injected(self, inj: Injection) -> None:
        """The hand as hwsim.inject's dealer plays it with one error and its remedy: each
        event through the simulated hardware, the alerts it raised sent back to the dealer."""
        gen = inj.events()
        ev: Event | None = next(gen, None)
        while ev is not None:
            since = len(self.view.alerts)
            await self._do(ev)
            await self._settled()
            feedback: Feedback | None = None
            if inj.awaiting:
                self.outcome.errors_injected += 1
                what = KINDS[inj.kind][1].replace("the Nth card", f"card {inj.n} of the deal")
                self.view.note(f"dealer error: {what}")
                fired = functools.partial(self._alert_since, inj.expected.upper(), since)
                with contextlib.suppress(DemoFailure):
                    await wait_until(fired, "the alert", 3.0)
                await self._settled()
                feedback = tuple((str(a["code"]).lower(), str(a["severity"]))
                                 for a in self.view.alerts[since:])  # fmt: skip
            try:
                ev = gen.send(feedback) if feedback is not None else next(gen)
            except StopIteration:
                ev = None
        if inj.remedy:
            self.view.note(f"remedy: {inj.remedy}")

    def _alert_since(self, code: str, since: int) -> bool:
        return any(a.get("code") == code for a in self.view.alerts[since:])

    async def _do(self, ev: Event) -> None:
        """One physical event of the dealer's through the board or the console (table
        set-up events are the venue's commands, done by _table_setup: skipped here)."""
        if isinstance(ev, ChipsIn):  # every chip of the action lands in one scan
            uids = []
            for _ in split_chips(ev.amount or 0):  # the order chip_table registered them in
                uids.append(chip_uid(self.hand_index, self.chip_i))
                self.chip_i += 1
            for uid in uids:
                self.board.place(BET[ev.seat], uid)
                self.where[uid] = BET[ev.seat]
                self.chips_on.append(uid)
            await wait_until(functools.partial(self._all_present, uids), "chips read")
        elif isinstance(ev, Sweep):
            if self.chips_on:
                for u in self.chips_on:
                    self.board.remove(self.where.pop(u), u)
                self.chips_on = []
                await wait_until(self._no_chips, "a sweep")
            if self.daemon.core.redeal_pending:
                # a void hand's bets went back: it is posted and dealt again from its
                # first chip (hwsim.inject's duplicate-card / foreign-card remedy)
                self.chip_i = 0
        elif isinstance(ev, CardPlaced):
            await self._place(antenna_of(ev), tag_uid(ev.tag))
        elif isinstance(ev, CardRemoved):
            uid = tag_uid(ev.tag)
            if uid in self.where:
                self.board.remove(self.where.pop(uid), uid)
            await wait_until(lambda: uid not in self.daemon.tracker.present(), "a tag to leave")
        elif isinstance(ev, ButtonPress):
            await self.gpio.press(ev.button, 0.06)

    async def _misdeal(self, seat: int, uid: bytes) -> None:
        d = self.daemon
        self.outcome.errors_injected += 1
        wrong = seat % SEATS + 1
        self.view.note(f"dealer error: first card pitched to seat {wrong} instead of seat {seat}")
        n_alerts = len(self.view.alerts)
        self.board.place(HOLE[wrong], uid)
        self.where[uid] = HOLE[wrong]
        await wait_until(lambda: len(self.view.alerts) > n_alerts, "the misdeal alert")
        self.board.remove(HOLE[wrong], uid)
        del self.where[uid]
        await wait_until(lambda: uid not in d.tracker.present(), "the card to leave")
        await self._settled()
        await wait_until(lambda: d.core.phase.value == "idle", "the re-deal")
        self.view.note("card gathered; the dealer deals again")


async def run_table(
    hands: list[DemoHand],
    *,
    host: str,
    port: int,
    profile: str,
    seed: int,
    error_rate: float,
    workdir: Path,
    view: View,
    table_id: str = "t1",
    kinds: tuple[str, ...] = (),
) -> tuple[Outcome, dict[str, int]]:
    """Play ``hands`` on a fresh simulated table; (outcome, counts of records received).
    ``kinds``: the dealer error of each hand in turn (hwsim.inject's kinds, "" for none),
    instead of ``error_rate``'s random draw."""
    rng = random.Random(f"{seed}-errors")
    board = SimBoard(16, config=SetConfig(scan_period_ms=20, heartbeat_interval_ms=200))
    pty = await board.start_pty()
    cfg = daemon_config(pty, host, port, table_id, profile, workdir / "state", chip_table(hands))
    factory = wired_factory()
    gpio = SimGpio(factory, cfg.gpio)
    daemon = Daemon(cfg, pin_factory=factory)
    stop = asyncio.Event()
    base = f"railguard/{VENUE}/{table_id}"
    venue = Venue(host, port, base, view)
    logger = VenueLogger(BrokerConfig(host=host, port=port, tls=False, allow_plaintext=True),
                         SqliteHandStore(workdir / "venue.db"))  # fmt: skip
    run = asyncio.create_task(daemon.run(stop))
    table = Table(daemon, board, gpio, venue, view, rng, error_rate)
    table.kinds = kinds
    try:
        logger.start()
        await venue.start()
        await wait_until(lambda: logger.stats.connects > 0, "the venue logger")
        await asyncio.wait_for(daemon.ready.wait(), 15)
        await table.setup()
        for i, hand in enumerate(hands):
            await table.play(i, hand)
        n = len(daemon.records)
        with contextlib.suppress(DemoFailure):
            await wait_until(lambda: len(venue.on("hands")) >= n, "hands over MQTT", 10)
        with contextlib.suppress(DemoFailure):
            await wait_until(lambda: logger.stats.stored >= n, "the venue logger", 10)
        table.outcome.records = n
        counts = {"daemon": n, "mqtt": len(venue.on("hands")), "logger": logger.stats.stored}
        return table.outcome, counts
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(run, 10)
        await venue.stop()
        with contextlib.suppress(Exception):
            await logger.stop()
        await board.stop()
        factory.reset()
