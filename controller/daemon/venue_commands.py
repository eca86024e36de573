"""Venue commands the daemon handles (the link answers ``rebirth`` and ``replay`` itself).

Each command becomes rules-core events on the daemon's one queue (so the core sees them in
order with the sensors), then the table store is updated; the answer is ok or an error
naming what is wrong. ``set_profile`` takes a packaged profile name: applied at once between
hands, else from the next hand; persisted in the table store. After a command that changes
the table (seat, unseat, move, level) the redacted state is republished. ``button_draw``
starts the button draw (as a long press of the console ACK button between hands does).
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import TYPE_CHECKING

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
from controller.link.commands import ButtonDraw
from controller.link.store import LevelRecord
from controller.rules.cards import Card
from controller.rules.errors import RailguardError
from controller.rules.events import SeatPlayer, SetLevel, StartButtonDraw, UnseatPlayer
from controller.rules.phases import Phase
from controller.rules.profile import builtin_profile, builtin_profile_names
from firmware_bridge.decks import Deck, parse_tag

if TYPE_CHECKING:
    from controller.daemon.service import Daemon

log = logging.getLogger("railguard.daemon")


async def handle_command(d: Daemon, cmd: Command) -> CommandResult:
    d.stats.commands += 1
    t = time.monotonic()
    seating = d.store.seating()
    if isinstance(cmd, SeatCmd):
        taken = seating.get(cmd.seat)
        if taken is not None and taken.player_id != cmd.player_id:
            return CommandResult.error(f"seat {cmd.seat} is taken by {taken.player_id}")
        step = await d.submit(SeatPlayer(t, cmd.seat, cmd.player_id, cmd.stack))
        if step.rejected is not None:
            return CommandResult.error(str(step.rejected))
        if taken is not None:
            d.store.unseat_player(cmd.seat)
        d.store.seat_player(cmd.seat, cmd.player_id, cmd.name, cmd.stack)
        d.names[cmd.seat] = cmd.name
        d.publish_state()
        return CommandResult.success(seat=cmd.seat)
    if isinstance(cmd, UnseatCmd):
        step = await d.submit(UnseatPlayer(t, cmd.seat))
        if step.rejected is not None:
            return CommandResult.error(str(step.rejected))
        if cmd.seat in seating:
            d.store.unseat_player(cmd.seat)
        d.names.pop(cmd.seat, None)
        d.publish_state()
        return CommandResult.success(seat=cmd.seat)
    if isinstance(cmd, MovePlayer):
        return await _move(d, cmd, t)
    if isinstance(cmd, LevelCmd):
        step = await d.submit(SetLevel(t, cmd.small_blind, cmd.big_blind, cmd.ante))
        if step.rejected is not None:
            return CommandResult.error(str(step.rejected))
        d.level_no = cmd.level
        d.store.set_level(LevelRecord(cmd.level, cmd.small_blind, cmd.big_blind, cmd.ante,
                                      cmd.big_blind_ante))  # fmt: skip
        d.publish_state()
        return CommandResult.success(level=cmd.level)
    if isinstance(cmd, EnrolDeck):
        try:
            cards = {parse_tag(uid): Card.parse(c) for c, uid in cmd.cards}
            deck = Deck(cmd.deck_id, "", dict(cards))
            deck.add_jokers(cmd.jokers)
            old = d.registry.decks.get(cmd.deck_id)
            d.registry.put_deck(deck)
            try:
                d.store.enrol_deck(cmd.deck_id, dict(cmd.cards), cmd.jokers)
            except RailguardError:
                d.registry.remove_deck(cmd.deck_id)  # nothing changed: the old deck back
                if old is not None:
                    d.registry.put_deck(old)
                raise
        except RailguardError as exc:
            return CommandResult.error(str(exc))
        log.info("deck %s enrolled (%d cards, %d jokers)", cmd.deck_id, len(cards),
                 len(cmd.jokers))  # fmt: skip
        return CommandResult.success(deck_id=cmd.deck_id, cards=len(cards),
                                     jokers=len(cmd.jokers))  # fmt: skip
    if isinstance(cmd, ButtonDraw):
        step = await d.submit(StartButtonDraw(t))
        if step.rejected is not None:
            return CommandResult.error(str(step.rejected))
        return CommandResult.success(draw_rule=d.core.profile.draw_rule.value)
    if isinstance(cmd, AckAlert):
        d.acknowledge([cmd.alert_id], by=cmd.by or "venue", publish=False)
        return CommandResult.success()
    if isinstance(cmd, SetProfile):
        return set_profile(d, cmd.profile)
    return CommandResult.error("not handled by this table")


def set_profile(d: Daemon, name: str) -> CommandResult:
    """Validate a packaged profile; apply now between hands, else from the next hand."""
    if name not in builtin_profile_names():
        known = ", ".join(builtin_profile_names())
        return CommandResult.error(f"profile {name!r} is not a packaged profile ({known})")
    try:
        prof = builtin_profile(name)
    except RailguardError as exc:
        return CommandResult.error(f"profile {name!r}: {exc}")
    too_far = [s for s in d.core.seats if s > prof.max_seats]
    if too_far:
        return CommandResult.error(
            f"profile {name!r} has {prof.max_seats} seats; seats {too_far} are occupied"
        )
    try:
        d.store.put("runtime_profile", {"name": name, "config": d.cfg.profile.name}, durable=True)
    except RailguardError as exc:
        return CommandResult.error(f"profile not stored: {exc}")
    if prof.name == d.core.profile.name:
        d.pending_profile = None
        return CommandResult.success(profile=name, applies="now")
    d.pending_profile = prof
    applied = d.apply_pending_profile()
    return CommandResult.success(profile=name, applies="now" if applied else "next hand")


async def _move(d: Daemon, cmd: MovePlayer, t: float) -> CommandResult:
    seat = d.core.seats.get(cmd.from_seat)
    if seat is None:
        return CommandResult.error(f"seat {cmd.from_seat} is empty")
    if cmd.to_seat in d.core.seats:
        return CommandResult.error(f"seat {cmd.to_seat} is taken")
    if d.core.hand is not None and d.core.phase is not Phase.COMPLETE:
        return CommandResult.error("players move between hands")
    step = await d.submit(UnseatPlayer(t, cmd.from_seat))
    if step.rejected is not None:
        return CommandResult.error(str(step.rejected))
    step = await d.submit(SeatPlayer(t, cmd.to_seat, seat.player, seat.stack))
    if step.rejected is not None:
        await d.submit(SeatPlayer(t, cmd.from_seat, seat.player, seat.stack))
        return CommandResult.error(str(step.rejected))
    with contextlib.suppress(RailguardError):
        d.store.move_player(cmd.from_seat, cmd.to_seat)
    d.names[cmd.to_seat] = d.names.pop(cmd.from_seat, seat.player)
    d.publish_state()
    return CommandResult.success(seat=cmd.to_seat)
