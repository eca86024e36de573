"""``railguard demo --tables N --event``: a short tournament on N simulated tables (3-6,
default 3), from the seat draw to the final table, run by the tournament service
(:mod:`controller.tournament`) on the demo's broker with the tables' own data.

The event (:func:`event_text`): N tables of four seats, 4N-1 entrants with 4,500 chips, a
clock of five-minute levels, the room kept within one player, a final table of four. The
script, each step printed:

1. the seat draw (``seat`` commands to the tables) and the clock started (``set_level``);
2. a hand at the first table during which the director moves the clock on a level: the
   table shows it pending and its next hand posts the new blinds (G11);
3. a hand that busts all but one player at the shortest table: the standings place them
   (000 [L53]) and the service proposes a balancing move (000 [L40], 004 [L111]); the floor
   confirms it (``unseat`` at one table, ``seat`` at the other, the stack kept);
4. single bust-outs at the fullest table until two tables are left: each table break
   proposed (000 [L38], 004 [L109]) and confirmed;
5. the bubble: hand-for-hand on; the first table to complete its hand is held
   (``hold_deal``: its state shows ``deal_hold``) until the other completes, then both are
   released at once; the bust-outs of that round are placed together;
6. the final table: the redraw proposed (002 [L35]) and confirmed; one hand there.

Each hand is dealt through the simulated hardware by the demo's dealer, built for the
table as it is (its seats and stacks from its live state, the button moved on by the puck,
the blinds of the level it shows), so the tables judge clean play: no alert above info. The
floor's commands go over MQTT as the console's do; ``confirm`` may be given (the browser
test confirms in the console's event page instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import io
import json
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiomqtt

from controller.demo.hands import DemoHand, _demo_hand, phh_text
from controller.demo.table import Table
from controller.demo.view import View
from controller.link import schemas
from controller.link.config import BrokerConfig
from controller.link.errors import SchemaViolation
from controller.rules.events import CardPlaced, ChipsIn, Event, SetButton, ZoneKind
from controller.rules.profile import get_profile
from controller.tournament.link import EventLink
from controller.tournament.service import EventService
from controller.tournament.store import Journal
from hwsim.layout import Layout, TableFailure, chip_uid, split_chips, wait_until
from hwsim.phh import parse_phh
from hwsim.table import SimTable, venue_logger

EVENT: Final = "demo"
PROFILE: Final = "tda-2024"
SEATS: Final = 4  # each table's seats in the event (the simulated table has six)
STACK: Final = 4500
LEVELS: Final = ((25, 50), (50, 100), (75, 150), (100, 200), (150, 300))
#: hole cards: the winner's, then the others' (none of them beats trip aces on BOARD)
WINNER_CARDS: Final = "AsAh"
OTHER_CARDS: Final = ("3c4d", "5h6d", "JcTs", "7c7d", "Qd2h")
BOARD: Final = ("AdKc8h", "2c", "9s")
#: what the demo does with a proposal: confirm it (the floor's command, or a browser)
Confirm = Callable[[dict[str, Any]], Awaitable[None]]


def event_text(tables: int) -> str:
    """The demo's event file (docs/tournament.md "The event file")."""
    head = (
        f'[event]\nname = "{EVENT}"\nvenue = "v1"\nprofile = "{PROFILE}"\n'
        f"starting_stack = {STACK}\nbalance_within = 1\nbalance_within_small = 1\n"
        f"final_table = {SEATS}\n"
    )
    levels = "".join(
        f"\n[[levels]]\nminutes = 5\nsmall_blind = {sb}\nbig_blind = {bb}\n" for sb, bb in LEVELS
    )
    tabs = "".join(f'\n[[tables]]\nid = "t{i}"\nseats = {SEATS}\n' for i in range(1, tables + 1))
    names = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gil", "Hal", "Ivy", "Jon", "Kim", "Lea")
    ents = "".join(
        f'\n[[entrants]]\nid = "e{i}"\nname = "{names[(i - 1) % len(names)]} {i}"\n'
        for i in range(1, SEATS * tables)
    )
    return head + levels + tabs + ents


# ---------------------------------------------------------------------------- the hands


def scripted_hand(
    label: str,
    seats: dict[int, tuple[str, int]],
    button: int,
    blinds: tuple[int, int],
    winner: int = 0,
    victims: frozenset[int] = frozenset(),
) -> DemoHand:
    """A hand for the table as it is: ``seats`` (seat -> player, stack), the ``button``
    seat, the level's ``blinds``. No ``winner``: everyone folds to the big blind. Else the
    ``winner`` (the largest stack) and the ``victims`` limp, the others fold; on the flop
    the winner moves all in, the victims call all in and lose to trip aces."""
    ring = sorted(seats)
    if len(ring) < 3:
        raise ValueError(f"{label}: a demo hand needs three players, not {len(ring)}")
    i = ring.index(button)
    order = ring[i + 1 :] + ring[: i + 1]  # small blind first, the button last
    n = len(order)
    bb = blinds[1]
    stacks = [seats[s][1] for s in order]
    involved = {winner, *victims} if winner else set()
    others = iter(OTHER_CARDS)
    acts = [f"d dh p{k + 1} {WINNER_CARDS if s == winner else next(others)}"
            for k, s in enumerate(order)]  # fmt: skip
    pre = [*range(2, n), 0, 1]  # preflop: under the gun first, the blinds last
    for k in pre:
        s = order[k]
        if k == 1 and not winner:
            break  # everyone folded to the big blind
        acts.append(f"p{k + 1} cc" if s in involved or (k == 1 and winner) else f"p{k + 1} f")
    if winner:
        live = [k for k in range(n) if order[k] in involved or k == 1]
        w = order.index(winner)
        acts.append(f"d db {BOARD[0]}")
        acts += [f"p{k + 1} cc" for k in live if k < w]
        acts.append(f"p{w + 1} cbr {stacks[w] - bb}")  # all in: the limp is in the pot
        after = [k for k in live if k > w] + [k for k in live if k < w]
        acts += [f"p{k + 1} {'cc' if order[k] in involved else 'f'}" for k in after]
        acts += [f"d db {BOARD[1]}", f"d db {BOARD[2]}"]
    text = phh_text(stacks, acts, [seats[s][0] for s in order], blinds)
    hand = _demo_hand(label, parse_phh(text, label), get_profile(PROFILE), 10)
    to_seat = {k + 1: s for k, s in enumerate(order)}

    def remap(e: Event) -> Event:
        seat = getattr(e, "seat", 0)
        return dataclasses.replace(e, seat=to_seat[seat]) if seat else e  # type: ignore[arg-type]

    plan = dataclasses.replace(
        hand.plan,
        events=tuple(remap(e) for e in hand.plan.events),
        seats=tuple(to_seat[s] for s in hand.plan.seats),
    )
    return dataclasses.replace(hand, plan=plan)


class EventDealer(Table):
    """The demo's dealer at an event table: the venue seats the players and sets the level;
    the dealer moves the puck to the hand's button, and may run ``mid_hand`` once, when the
    hand's last hole card is dealt (the director's clock during a hand)."""

    mid_hand: Callable[[], Awaitable[None]] | None = None
    _holes = 0

    async def _table_setup(self, hand: DemoHand) -> None:
        button = next(e.seat for e in hand.plan.events if isinstance(e, SetButton))
        if self.button is not None:
            self.gpio.set_puck(self.button, False)
            await asyncio.sleep(0.3)
        self.gpio.set_puck(button, True)
        self.button = button
        self._holes = 2 * len(hand.plan.seats)
        await wait_until(lambda: self.daemon.observe().button_set, "the button puck")

    async def _do(self, ev: Event) -> None:
        await super()._do(ev)
        if isinstance(ev, CardPlaced) and ev.zone is ZoneKind.HOLE:
            self._holes -= 1
            if self._holes == 0 and self.mid_hand is not None:
                hook, self.mid_hand = self.mid_hand, None
                await self._settled()
                await hook()


# ---------------------------------------------------------------------------- the room


@dataclass
class EventOutcome:
    """What the demo event did: the lines it printed, the standings at the end, the
    proposals confirmed (kind), the hands dealt, the alerts above info, the hand-for-hand
    hold seen, the level each table's hands were dealt at."""

    steps: list[str] = field(default_factory=list)
    standings: dict[str, Any] = field(default_factory=dict)
    confirmed: list[str] = field(default_factory=list)
    hands: int = 0
    mismatches: list[str] = field(default_factory=list)
    alarms: dict[str, int] = field(default_factory=dict)
    held: list[tuple[str, int]] = field(default_factory=list)
    g11: tuple[int, int, int] = (0, 0, 0)  # big blind: before, of the hand, of the next hand
    state: Any = None  # the service's TournamentState at the end

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.alarms and self.standings.get("players_left") == 4


class Floor:
    """The floor's MQTT side of an event (``event``: its name): commands (as the console
    sends them) and the latest clock, standings and proposal. ``check``: each message the
    service publishes is checked against its schema, a violation kept in ``violations``."""

    def __init__(self, client: aiomqtt.Client, event: str = EVENT, check: bool = False) -> None:
        self.client = client
        self.event = event
        self.check = check
        self.last: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, dict[str, Any]] = {}
        self.violations: list[str] = []

    async def read(self) -> None:
        async for m in self.client.messages:
            body = json.loads(m.payload if isinstance(m.payload, bytes) else b"{}")
            kind = m.topic.value.split("/", 3)[3]
            if kind == "cmd/response":
                self.answers[body.get("request_id")] = body
            elif kind != "cmd":  # not the floor's own commands
                if self.check:
                    try:
                        schemas.validate(f"event_{kind}", body)
                    except SchemaViolation as exc:
                        self.violations.append(f"{kind}: {exc}")
                self.last[kind] = body

    async def ask(self, command: str, **args: Any) -> dict[str, Any]:
        """The service's answer to ``command``, accepted or refused."""
        rid = f"demo-{uuid.uuid4().hex[:12]}"
        body = {"request_id": rid, "ts": time.time(), "command": command, "args": args,
                "issuer": "director"}  # fmt: skip
        await self.client.publish(f"railguard/_event/{self.event}/cmd", json.dumps(body), qos=1)
        await wait_until(lambda: rid in self.answers, f"the answer to {command}", 40)
        return self.answers.pop(rid)

    async def do(self, command: str, **args: Any) -> dict[str, Any]:
        """:meth:`ask`; TableFailure if the service refused it."""
        answer = await self.ask(command, **args)
        if not answer.get("ok"):
            raise TableFailure(f"event command {command} refused: {answer.get('reason')}")
        return answer

    def proposal(self) -> dict[str, Any] | None:
        p = (self.last.get("proposal") or {}).get("proposal")
        return p if isinstance(p, dict) else None


class EventRoom:
    """The tables, the service and the floor of one demo event (:func:`event_room`)."""

    def __init__(self, sims: dict[str, SimTable], service: EventService, floor: Floor,
                 view: View, confirm: Confirm | None) -> None:  # fmt: skip
        self.sims, self.service, self.floor, self.view = sims, service, floor, view
        self.confirm_by = confirm
        self.dealers: dict[str, EventDealer] = {}
        self.index: dict[str, int] = dict.fromkeys(sims, 0)
        self.buttons: dict[str, int] = {}
        self.out = EventOutcome()

    def say(self, text: str) -> None:
        self.out.steps.append(text)
        self.view.line(f"  {text}")

    def state(self, table: str) -> dict[str, Any]:
        return dict(self.sims[table].observe(state=True).published_state or {})

    def seats(self, table: str) -> dict[int, tuple[str, int]]:
        return {s["seat"]: (s["player_id"], s["stack"])
                for s in self.state(table).get("seats", []) if s.get("player_id")}  # fmt: skip

    def live(self) -> dict[str, int]:
        """The event's tables with players, and how many."""
        return {t: len(s) for t, s in self.service.state.occupied().items() if s}

    async def settled(self) -> None:
        """Every table shows the seats the event has for it (the moves arrived)."""
        for t in self.sims:
            await wait_until(functools.partial(self._seated_as_event, t),
                             f"{t}: the event's seats", 20)  # fmt: skip

    def _seated_as_event(self, table: str) -> bool:
        want = dict(self.service.state.occupied().get(table, {}))
        return {s: p for s, (p, _) in self.seats(table).items()} == want

    async def dealer(self, table: str) -> EventDealer:
        if table not in self.dealers:
            sim = self.sims[table]
            d = EventDealer(sim, View(io.StringIO(), colour=False), random.Random(0), 0.0)
            await d.setup()
            self.dealers[table] = d
        return self.dealers[table]

    def blinds(self, table: str) -> tuple[int, int]:
        st = self.state(table)
        lv = st.get("pending_level") or st.get("level") or {}
        return int(lv.get("small_blind", LEVELS[0][0])), int(lv.get("big_blind", LEVELS[0][1]))

    async def play(self, table: str, busts: int = 0, mid_hand: Callable[[], Awaitable[None]]
                   | None = None) -> int:  # fmt: skip
        """One hand at ``table``: ``busts`` players all in against the largest stack; the
        big blind it was dealt at."""
        seats = self.seats(table)
        ring = sorted(seats)
        last = self.buttons.get(table, ring[-1])
        button = next((s for s in ring if s > last), ring[0])
        self.buttons[table] = button
        winner, victims = 0, frozenset[int]()
        if busts:
            winner = max(ring, key=lambda s: (seats[s][1], -s))
            victims = frozenset(sorted((s for s in ring if s != winner),
                                       key=lambda s: (seats[s][1], s))[:busts])  # fmt: skip
        i = self.index[table]
        self.index[table] += 1
        blinds = self.blinds(table)
        hand = scripted_hand(f"{table} hand {i + 1}", seats, button, blinds, winner, victims)
        sim, dealer = self.sims[table], await self.dealer(table)
        k = 0  # the chips' tags of this hand, registered as the demo's chip_table does
        for e in hand.plan.events:
            if isinstance(e, ChipsIn):
                for value in split_chips(e.amount or 0):
                    sim.daemon.registry.add_chip(chip_uid(i, k), value)
                    k += 1
        dealer.mid_hand = mid_hand
        before = len(sim.venue.on("hands"))
        await dealer.play(i, hand)
        self.out.hands += 1
        self.out.mismatches += dealer.outcome.mismatches
        dealer.outcome.mismatches = []
        hand_id = sim.venue.on("hands")[before]["hand_id"]
        await wait_until(lambda: hand_id in self.service.state.hands_seen.get(table, ()),
                         f"{table}: the service applied {hand_id}", 20)  # fmt: skip
        gone = [seats[s][0] for s in sorted(victims)]
        sb, bb = blinds
        self.say(f"{table}: {hand_id} dealt at {sb}/{bb}"
                 + (f": {', '.join(gone)} all in and out" if gone else ""))  # fmt: skip
        return bb

    async def confirm(self, kind: str) -> None:
        """The pending proposal (of ``kind``) confirmed, and the moves at the tables."""
        await wait_until(lambda: self.floor.proposal() is not None, f"a {kind} proposal", 20)
        p = self.floor.proposal()
        assert p is not None
        if p["kind"] != kind:
            raise TableFailure(f"expected a {kind} proposal, got {p['kind']}: {p['reason']}")
        moves = "; ".join(f"{m['name']} {m['from_table']}/{m['from_seat']} -> {m['to_table']}/"
                          f"{m['to_seat']}" for m in p["moves"])  # fmt: skip
        self.say(f"proposal {p['id']} ({kind}): {p['reason']}: {moves}")
        if self.confirm_by is not None:
            await self.confirm_by(p)
            await wait_until(lambda: self.service.state.proposal is None
                             or self.service.state.proposal.id != p["id"],
                             "the floor's confirm", 60)  # fmt: skip
        else:
            await self.floor.do("confirm", proposal=p["id"])
        self.out.confirmed.append(kind)
        await self.settled()
        self.say(f"confirmed: tables {self.live()}")


def _at(room: EventRoom, table: str, level: tuple[int, int]) -> bool:
    return room.blinds(table) == level


async def _script(room: EventRoom) -> None:
    floor, service = room.floor, room.service
    await floor.do("draw")
    await room.settled()
    room.say(f"seat draw: {service.state.counts()} players by table")
    await floor.do("clock", op="start")
    first = service.state.event.tables[0].id
    for t in room.live():
        await wait_until(functools.partial(_at, room, t, LEVELS[0]), f"{t}: level 1", 20)
    room.say(f"clock started: level 1 ({LEVELS[0][0]}/{LEVELS[0][1]}) at every table")

    # G11: the director moves the clock on while the first table's hand is dealt
    async def next_level() -> None:
        left = int(room.floor.last.get("clock", {}).get("seconds_left", 300))
        await floor.do("clock", op="adjust", seconds=left + 1)
        await wait_until(lambda: (room.state(first).get("pending_level") or {}).get("big_blind")
                         == LEVELS[1][1], "the level pending at the first table", 20)  # fmt: skip
        room.say(f"{first}: level 2 pushed mid-hand: pending until the next hand (G11)")

    room.out.g11 = (LEVELS[0][1], await room.play(first, mid_hand=next_level),
                    await room.play(first))  # fmt: skip
    # a balance: the shortest table loses all but one player
    live = room.live()
    short = min(sorted(live, reverse=True), key=lambda t: live[t])
    await room.play(short, busts=live[short] - 1)
    await room.confirm("balance")
    # breaks: one bust-out at a time at the fullest table, until two tables are left
    while len(room.live()) > 2:
        live = room.live()
        full = max(sorted(live), key=lambda t: live[t])
        await room.play(full, busts=1)
        if room.floor.proposal() is not None or service.state.proposal is not None:
            kind = service.state.proposal.kind.value if service.state.proposal else "break"
            await room.confirm(kind)
    # the bubble: hand-for-hand; both tables play, the first is held until the second
    left = len(service.state.playing())
    await floor.do("hand_for_hand", on=True)
    rnd = service.state.h4h.round
    room.say(f"hand-for-hand on (round {rnd}): {left} players, final table of {SEATS}")
    counts = room.live()
    a, b = sorted(counts)
    need = left - SEATS
    at_a = min(need // 2, counts[a] - 1)
    await room.play(a, busts=at_a)
    await wait_until(lambda: room.state(a).get("deal_hold") == rnd, f"{a} held", 20)
    room.out.held.append((a, rnd))
    room.say(f"{a} completed the round's hand: held (its state: deal_hold {rnd})")
    await room.play(b, busts=need - at_a)
    await wait_until(lambda: all(room.state(t).get("deal_hold") is None for t in (a, b)),
                     "the release", 20)  # fmt: skip
    room.say(f"{b} completed it: every table released at once; round {service.state.h4h.round}")
    await floor.do("hand_for_hand", on=False)
    await room.confirm("final")
    final = next(iter(room.live()))
    await room.play(final)
    room.say(f"final table at {final}: {room.seats(final)}")


@contextlib.asynccontextmanager
async def event_room(
    host: str, port: int, workdir: Path, tables: int, view: View, seed: int,
    confirm: Confirm | None = None,
) -> AsyncIterator[EventRoom]:  # fmt: skip
    """The room of a demo event: a venue logger (``workdir``/venue.db), ``tables`` simulated
    tables, the tournament service (journal ``workdir``/event.db) and the floor's client."""
    broker = BrokerConfig(host=host, port=port, tls=False, allow_plaintext=True)
    async with venue_logger(host, port, workdir):
        sims: dict[str, SimTable] = {}
        journal = Journal(workdir / "event.db")
        running: asyncio.Task[None] | None = None
        reading: asyncio.Task[None] | None = None
        try:
            for i in range(1, tables + 1):
                t = f"t{i}"
                sims[t] = await SimTable.open(
                    host, port, profile=PROFILE, workdir=workdir / t, table_id=t,
                    seats=Layout(6), chips={}, transport="pty",
                    view=View(io.StringIO(), colour=False), enrol=False)  # fmt: skip
            link = EventLink(broker)
            service = EventService(journal.open_event(event_text(tables), "demo-event.toml"),
                                   journal, random.Random(seed), time.time, link.send,
                                   link.publish)  # fmt: skip
            running = asyncio.create_task(link.run(service), name="tournament")
            async with aiomqtt.Client(host, port, identifier=f"demo-floor-{uuid.uuid4().hex[:6]}"
                                      ) as client:  # fmt: skip
                await client.subscribe(f"railguard/_event/{EVENT}/#", qos=1)
                floor = Floor(client)
                reading = asyncio.create_task(floor.read(), name="floor")
                await asyncio.wait_for(link.connected.wait(), 15)
                yield EventRoom(sims, service, floor, view, confirm)
        finally:
            for task in (reading, running):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(BaseException):
                        await task
            journal.close()
            for sim in sims.values():
                await sim.close()


async def play_event(room: EventRoom) -> EventOutcome:
    """The script (module docstring) in ``room``; the outcome (alarms: every table's
    alerts above info)."""
    await _script(room)
    await wait_until(lambda: room.floor.last.get("standings", {}).get("players_left") == SEATS,
                     "the standings of the final table", 20)  # fmt: skip
    room.out.standings = room.floor.last["standings"]
    room.out.state = room.service.state
    for t, sim in room.sims.items():
        for a in sim.venue.on("alerts"):
            if a.get("severity") != "info":
                key = f"{t}:{a.get('code')}"
                room.out.alarms[key] = room.out.alarms.get(key, 0) + 1
    return room.out
