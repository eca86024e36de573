"""Venue commands the daemon handles (the link answers ``rebirth`` and ``replay`` itself).

Each command is checked, then becomes one rules-core event on the daemon's one queue (so
the core sees them in order with the sensors): ``seat`` a ``SeatPlayer`` carrying the
player's name (the core owns names), ``unseat`` an ``UnseatPlayer``, ``move`` a
``MovePlayer``, ``set_level`` a ``SetLevel`` carrying the level number (the core owns the
level state), ``set_profile`` a ``SetProfile`` carrying the loaded profile (the core owns
the pending one). The table store is written only from what the core holds once it has
accepted the event: the seating (players, names, stacks) and the level state by the core
loop after every accepted event that changed them (``core_loop.save_seating``,
``save_positions``), the runtime profile by the ``accepted`` callback the core loop runs
before it publishes the state. A refused command changes nothing, so nothing is undone; a
store write that fails after the core accepted is the storage lane's to retry
(``storage.table_write``, the STORAGE_FAULT alert meanwhile). The answer is ok or an
error naming what is wrong; each is logged (accepted at INFO, refused at WARNING with the
reason). ``ack_alert`` names an open alert; ``enrol_deck`` re-enrols a deck only between
hands; ``set_level`` takes effect from the next hand once hands are played (G11), and the
live state shows it as ``pending_level`` until then. ``set_profile`` takes a packaged
profile name: applied by the core at once between hands, else once the hand in play is over
(``controller.rules.profile_switch``); persisted in the table store. After a command that
changes the table (seat, unseat, move, level) the redacted state is republished.
``button_draw`` starts the button draw (as a long press of the console ACK button between
hands does). ``hold_deal`` and ``release_deal`` are hand-for-hand's (the tournament
service's): the core holds the next deal until the release. ``set_profile`` with a
``document`` instead of a name is a venue's own house profile
(:mod:`controller.daemon.house_profiles`); ``unseat`` answers with the player who left and
the stack they took (the console moves them to another table).

Before anything else, ``seat``, ``unseat``, ``move`` and ``set_level`` pass the floor's sense
checks (:mod:`controller.link.command_checks`, the same the floor console runs before it
sends): against the seats this table really has (its zone map, within the profile's
``max_seats``; published in the live state as ``table_seats``) and who sits where, and the
level's blinds and ante against each other and the profile. A refusal is a sentence the
floor reads ("Seat 7 does not exist at this table: it has seats 1-6.").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from controller.daemon import house_profiles
from controller.daemon.clock import Clock
from controller.daemon.config import DaemonConfig
from controller.daemon.table_store import TableStore, check_text
from controller.link import (
    AckAlert,
    Command,
    CommandResult,
    EnrolDeck,
    MovePlayer,
    SetProfile,
)
from controller.link import SeatPlayer as SeatCmd
from controller.link import SetLevel as LevelCmd
from controller.link import UnseatPlayer as UnseatCmd
from controller.link import command_checks as checks
from controller.link.commands import (
    ButtonDraw,
    HoldDeal,
    ReleaseDeal,
    SetHouseProfile,
    command_name,
)
from controller.rules import events as core_events
from controller.rules.cards import Card
from controller.rules.engine import Step, TableCore
from controller.rules.errors import RailguardError
from controller.rules.events import Event, SeatPlayer, SetLevel, StartButtonDraw, UnseatPlayer
from controller.rules.events import MovePlayer as MoveEvent
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile, builtin_profile_names
from firmware_bridge.decks import Deck, DeckRegistry, parse_tag

log = logging.getLogger("railguard.daemon")


class _Commands(Protocol):
    commands: int


class CommandHost(Protocol):
    """What the venue commands need of the daemon (``service.Daemon`` is one): the table
    store, the deck registry, the open alerts; every change of the table goes to the rules
    core through ``submit`` (the core loop's queue)."""

    cfg: DaemonConfig
    clock: Clock  # the events' time
    store: TableStore
    registry: DeckRegistry
    open_alerts: list[str]

    @property
    def core(self) -> TableCore: ...  # read only

    @property
    def stats(self) -> _Commands: ...

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None: ...

    async def submit(self, ev: Event, accepted: Callable[[], None] | None = None) -> Step: ...

    def acknowledge(self, alert_ids: list[str], *, by: str, publish: bool = True) -> None: ...

    def publish_state(self) -> None: ...


async def handle_command(d: CommandHost, cmd: Command) -> CommandResult:
    """Run one venue command; log it (accepted at INFO, refused with its reason)."""
    d.stats.commands += 1
    result = await _handle(d, cmd)
    name, rid = command_name(cmd), cmd.meta.request_id
    seat = getattr(cmd, "seat", None) or getattr(cmd, "to_seat", None)
    where = f" seat={seat}" if seat is not None else ""
    if result.ok:
        log.info("command %s request_id=%s%s accepted", name, rid, where)
    else:
        log.warning("command %s request_id=%s%s refused: %r", name, rid, where, result.reason)
    return result


def table_seats(d: CommandHost) -> tuple[int, ...]:
    """The seats this table has: its zone map's, up to the profile's ``max_seats``."""
    return tuple(s for s in d.cfg.zones.seats if s <= d.core.profile.max_seats)


def _occupied(d: CommandHost) -> dict[int, str]:
    return {s: st.player for s, st in d.core.seats.items()}


def sense(d: CommandHost, cmd: Command) -> str | None:
    """The floor's sense checks of ``cmd`` at this table (None: it makes sense)."""
    if isinstance(cmd, SeatCmd):
        return checks.check_seat(cmd.seat, cmd.player_id, table_seats(d), _occupied(d))
    if isinstance(cmd, UnseatCmd):
        return checks.check_unseat(cmd.seat, table_seats(d), _occupied(d))
    if isinstance(cmd, MovePlayer):
        return checks.check_move(cmd.from_seat, cmd.to_seat, table_seats(d), _occupied(d))
    if isinstance(cmd, LevelCmd):
        prof = d.core.profile
        return checks.check_level(cmd.small_blind, cmd.big_blind, cmd.ante, cmd.big_blind_ante,
                                  ante_style=prof.ante_style.value, profile=prof.name,
                                  max_ante_bb=prof.max_ante_big_blinds)  # fmt: skip
    return None


async def _handle(d: CommandHost, cmd: Command) -> CommandResult:
    """Every check before the rules core sees the command; the table store written only
    once the core accepted it. A refused command leaves the core's state and the store as
    they were."""
    t = d.clock.monotonic()
    problem = sense(d, cmd)
    if problem is not None:
        return CommandResult.error(problem)
    if isinstance(cmd, SeatCmd):
        return await _seat(d, cmd, t)
    if isinstance(cmd, UnseatCmd):
        return await unseat_reporting(d, cmd, t)
    if isinstance(cmd, MovePlayer):
        return await _move(d, cmd, t)
    if isinstance(cmd, LevelCmd):
        return await _level(d, cmd, t)
    if isinstance(cmd, EnrolDeck):
        return _enrol(d, cmd)
    if isinstance(cmd, ButtonDraw):
        step = await d.submit(StartButtonDraw(t))
        if step.rejected is not None:
            return CommandResult.error(str(step.rejected))
        return CommandResult.success(draw_rule=d.core.profile.draw_rule.value)
    if isinstance(cmd, HoldDeal | ReleaseDeal):
        return await _hand_for_hand(d, cmd, t)
    if isinstance(cmd, AckAlert):
        if cmd.alert_id not in d.open_alerts:
            return CommandResult.error(
                f"alert {cmd.alert_id} is not an open alert of this table"
                " (unknown, or acknowledged already)"
            )
        d.acknowledge([cmd.alert_id], by=cmd.by or "venue", publish=False)
        return CommandResult.success()
    if isinstance(cmd, SetProfile):
        return await set_profile(d, cmd.profile)
    if isinstance(cmd, SetHouseProfile):
        return await house_profiles.set_house_profile(d, cmd.document)
    return CommandResult.error("not handled by this table")


async def _hand_for_hand(d: CommandHost, cmd: HoldDeal | ReleaseDeal, t: float) -> CommandResult:
    """Hand-for-hand (docs/tournament.md): the tournament service holds this table's next
    deal once it has completed the round's hand, and releases every table at once. The core
    keeps the hold (a card dealt while held is DEALT_WHILE_HELD); the state shows it."""
    ev: Event = (
        core_events.HoldDeal(t, cmd.round)
        if isinstance(cmd, HoldDeal)
        else core_events.ReleaseDeal(t)
    )
    step = await d.submit(ev)
    if step.rejected is not None:
        return CommandResult.error(str(step.rejected))
    d.publish_state()
    return CommandResult.success(held=d.core.deal_hold or None)


async def _seat(d: CommandHost, cmd: SeatCmd, t: float) -> CommandResult:
    # the seating is the core's (the store holds its copy, written by the core loop once
    # the core accepted the event: core_loop.save_seating)
    for s, st in d.core.seats.items():
        if st.player == cmd.player_id and s != cmd.seat:
            return CommandResult.error(f"player {cmd.player_id} already sits in seat {s}")
    try:
        check_text(player_id=cmd.player_id, name=cmd.name)
    except RailguardError as exc:
        return CommandResult.error(f"not seated: {exc}")
    ev = SeatPlayer(t, cmd.seat, cmd.player_id, cmd.stack, name=cmd.name)
    step = await d.submit(ev)
    if step.rejected is not None:
        return CommandResult.error(str(step.rejected))
    d.publish_state()
    return CommandResult.success(seat=cmd.seat)


async def _unseat(d: CommandHost, cmd: UnseatCmd, t: float) -> CommandResult:
    if cmd.seat not in d.core.seats:
        return CommandResult.error(f"seat {cmd.seat} is empty")
    step = await d.submit(UnseatPlayer(t, cmd.seat))
    if step.rejected is not None:
        return CommandResult.error(str(step.rejected))
    d.publish_state()
    return CommandResult.success(seat=cmd.seat)


async def unseat_reporting(d: CommandHost, cmd: UnseatCmd, t: float) -> CommandResult:
    """``unseat``, whose answer also says who left with what (``player_id``, ``name``,
    ``stack``): what the floor console seats at another table when it moves a player."""
    seat = d.core.seats.get(cmd.seat)
    who = None if seat is None else (seat.player, seat.name, seat.stack)
    result = await _unseat(d, cmd, t)
    if not result.ok or who is None:
        return result
    return CommandResult.success(**result.data, player_id=who[0], name=who[1], stack=who[2])


async def _level(d: CommandHost, cmd: LevelCmd, t: float) -> CommandResult:
    """G11: a level set while hands are being played applies from the next hand; the live
    state shows the level in force and the pending one (``pending_level``)."""
    # the core keeps the level, its number included; the core loop stores its level state
    # once the core accepted the event (``core_loop.save_positions``)
    step = await d.submit(SetLevel(t, cmd.small_blind, cmd.big_blind, cmd.ante, cmd.level))
    if step.rejected is not None:
        return CommandResult.error(str(step.rejected))
    d.publish_state()
    applies = "now" if d.core.pending_level is None else "next hand"
    return CommandResult.success(level=cmd.level, applies=applies)


def level_fields(core: TableCore) -> dict[str, Any]:
    """``level`` and ``pending_level`` of :func:`controller.daemon.translate.state_payload`,
    from the core's level state (the number in force: 1 before any level was set)."""
    number = core.level.number or 1
    pend = core.pending_level
    pending = None
    if pend is not None:
        pending = (pend.number or number + 1, pend.small_blind, pend.big_blind, pend.ante)
    return {"level": number, "pending_level": pending}


def _hand_running(d: CommandHost) -> bool:
    core = d.core
    return (core.hand is not None and core.phase is not Phase.COMPLETE) or core.redeal_pending


def _enrol(d: CommandHost, cmd: EnrolDeck) -> CommandResult:
    if _hand_running(d):
        on_table = {tag for tag, _, _ in d.core.snapshot().tags}
        if cmd.deck_id in d.registry.decks:
            return CommandResult.error(
                f"deck {cmd.deck_id} is registered and a hand is running: enrol it between hands"
            )
        uids = {uid.upper() for _, uid in cmd.cards} | {u.upper() for u in cmd.jokers}
        if uids & on_table:
            return CommandResult.error(
                f"deck {cmd.deck_id} has tags on the table: enrol it between hands"
            )
    try:
        cards = {parse_tag(uid): Card.parse(c) for c, uid in cmd.cards}
        deck = Deck(cmd.deck_id, "", dict(cards))
        deck.add_jokers(cmd.jokers)
        d.registry.put_deck(deck)  # the registry refuses a tag of another deck or chip
    except RailguardError as exc:
        return CommandResult.error(str(exc))
    # stored once the registry took it (every tag the store holds is in the registry)
    d.table_write(lambda st: st.enrol_deck(cmd.deck_id, dict(cmd.cards), cmd.jokers),
                  f"deck {cmd.deck_id}")  # fmt: skip
    log.info("deck %s enrolled (%d cards, %d jokers)", cmd.deck_id, len(cards),
             len(cmd.jokers))  # fmt: skip
    return CommandResult.success(deck_id=cmd.deck_id, cards=len(cards),
                                 jokers=len(cmd.jokers))  # fmt: skip


async def set_profile(d: CommandHost, name: str) -> CommandResult:
    """A packaged profile, loaded and handed to the core (:func:`house_profiles.submit`):
    applied at once between hands, else from the next hand."""
    if name not in builtin_profile_names():
        known = ", ".join(builtin_profile_names())
        return CommandResult.error(f"profile {name!r} is not a packaged profile ({known})")
    try:
        prof = builtin_profile(name)
    except RailguardError as exc:
        return CommandResult.error(f"profile {name!r}: {exc}")
    return await house_profiles.submit(d, prof, {"profile": name})


async def _move(d: CommandHost, cmd: MovePlayer, t: float) -> CommandResult:
    seat = d.core.seats.get(cmd.from_seat)
    if seat is None:
        return CommandResult.error(f"seat {cmd.from_seat} is empty")
    if cmd.to_seat in d.core.seats:
        return CommandResult.error(f"seat {cmd.to_seat} is taken")
    if not 1 <= cmd.to_seat <= d.core.max_seats:
        return CommandResult.error(f"seat {cmd.to_seat} is not 1..{d.core.max_seats}")
    if d.core.hand is not None and d.core.phase is not Phase.COMPLETE:
        return CommandResult.error("players move between hands")
    # one core event: refused, the player is still in his seat and nothing was written
    step = await d.submit(MoveEvent(t, cmd.from_seat, cmd.to_seat))
    if step.rejected is not None:
        return CommandResult.error(str(step.rejected))
    d.publish_state()
    return CommandResult.success(seat=cmd.to_seat)
