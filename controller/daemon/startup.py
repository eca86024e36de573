"""What the daemon does at start-up, before its tasks run, and once it is ready.

:func:`stored_profile` picks the house-rule profile the core starts with; :func:`restore`
rebuilds the table from the table store (decks, chips, the core's level state, seating
with the players' names, button) and then the hand that was in progress, under the
profile it started with (a profile set during it pending again)
(:func:`restore_hand`, through :mod:`controller.daemon.recovery`); :func:`flag_interrupted`,
called once the daemon is ready, tells the dealer and the venue about a hand a restart cut
and hands a full disk lost. Each is given what it needs through :class:`StartupHost`
(``service.Daemon`` is one).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from controller.daemon import core_loop, house_profiles, recovery, storage
from controller.daemon.clock import Clock, utc
from controller.daemon.config import DaemonConfig
from controller.daemon.live import LiveEvents
from controller.daemon.table_store import TableStore
from controller.daemon.translate import system_alert
from controller.rules.cards import Card
from controller.rules.catalogue import AlertCode
from controller.rules.decisions import HandComplete, HandRecord
from controller.rules.engine import TableCore
from controller.rules.events import Event, SeatPlayer, SetDealer
from controller.rules.profile import InterruptedHand, Profile
from firmware_bridge.decks import Deck, DeckRegistry, parse_tag
from firmware_bridge.gpio import Indicators

log = logging.getLogger("railguard.daemon")


class StartupHost(Protocol):
    """What start-up needs of the daemon (``service.Daemon`` is one)."""

    cfg: DaemonConfig
    clock: Clock
    store: TableStore
    registry: DeckRegistry
    hand_slot: storage.HandSlot
    hands: asyncio.Queue[tuple[HandRecord, datetime]]
    hand_start: dict[int, datetime]
    positions_saved: Any
    levels_saved: Any
    seating_saved: Any  # the seating as the table store has it (core_loop.save_seating)
    dealer_saved: str  # the dealer on duty as the table store has it
    live: LiveEvents
    lost: list[int]  # hands a full disk and a restart lost (flagged once ready)
    interrupted: list[int]  # the hand a restart cut (flagged once ready)
    interrupt_outcome: str

    @property
    def core(self) -> TableCore: ...  # changed only through handle() and restore()

    @property
    def indicators(self) -> Indicators: ...

    def hand_id(self, hand_no: int) -> str: ...

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None: ...

    def event(self, kind: str, data: dict[str, Any], hand_no: int | None = None) -> None: ...

    def publish_alert(self, payload: dict[str, Any]) -> None: ...

    def publish_state(self) -> None: ...


def stored_profile(store: TableStore, cfg: DaemonConfig) -> Profile:
    """The profile a venue set at runtime (``set_profile``) wins over table.profile,
    unless table.profile was changed in the config since."""
    raw = store.get("runtime_profile")
    if isinstance(raw, dict) and raw.get("config") == cfg.profile.name:
        return house_profiles.resolve(store, str(raw.get("name")), cfg.profile)
    return cfg.profile


def restore(d: StartupHost) -> None:
    """Seating, stacks, level, hand counter, button and decks from the table store;
    then the hand that was in progress (see :mod:`controller.daemon.recovery`)."""
    t = d.clock.monotonic()
    for deck_id in d.store.decks():
        cards = {parse_tag(uid): Card.parse(c) for c, uid in d.store.deck(deck_id).items()}
        deck = Deck(deck_id, "", cards)
        deck.add_jokers(d.store.deck_jokers(deck_id))
        d.registry.put_deck(deck)
    for uid, value in d.cfg.chips.items():
        d.registry.add_chip(uid, value)
    # the core's level state as the core loop last wrote it (its numbers included)
    d.levels_saved = d.store.get("levels")
    recovery.apply_levels(d.core, _with_old_numbers(d.store, d.levels_saved))
    stored = d.store.seating()
    for seat, rec in stored.items():
        _apply(d.core, SeatPlayer(t, seat, rec.player_id, rec.stack, name=rec.name))
    d.seating_saved = tuple((n, r.player_id, r.name, r.stack) for n, r in stored.items())
    d.positions_saved = d.store.get("positions")
    recovery.apply_positions(d.core, d.positions_saved)
    dealer = d.store.get("dealer")  # logged in by badge before the restart (health.py)
    if isinstance(dealer, str) and dealer:
        _apply(d.core, SetDealer(t, dealer))
        d.dealer_saved = dealer
    restore_hand(d, t)
    # the store's copy is the restored core's (a seat it refused, a hand replayed to its end)
    core_loop.save_seating(d)
    log.info(
        "restored table=%s hand_counter=%d seats=%d button=%s decks=%d chips=%d "
        "interrupted=%s",
        d.cfg.table, d.core.hand_no, len(d.core.seats),
        d.core.positions.button if d.core.positions else None,
        len(d.registry.decks), len(d.registry.chips),
        [d.hand_id(n) for n in d.interrupted],
    )  # fmt: skip


def _with_old_numbers(store: TableStore, levels: Any) -> Any:
    """A ``levels`` record written before the core owned the level numbers, with the numbers
    the daemon kept then (``level_numbers``, a table.db of an earlier version)."""
    old = store.get("level_numbers")
    if not isinstance(levels, dict) or "number" in levels or not isinstance(old, dict):
        return levels
    in_force, pending = old.get("in_force"), old.get("pending")
    return {**levels, "number": in_force if isinstance(in_force, int) else 0,
            "pending_number": pending if isinstance(pending, int) else 0}  # fmt: skip


def restore_hand(d: StartupHost, now: float) -> None:
    """The open hand's event log replayed (its profile first); older logs whose record
    was not stored are queued again (:func:`storage.stale_record`) or dropped; a hand
    still live is flagged as interrupted and the profile's policy decides its outcome."""
    core = d.core
    hands = sorted(d.store.open_hands())
    d.lost = d.hand_slot.lost(hands)
    for old in hands[:-1]:  # kept while their record was not stored, or stale
        if not storage.stale_record(d, old, d.store.hand_events(old), now):
            log.warning("hand=%s: stale hand log dropped", d.hand_id(old))
            d.store.clear_hand_events(old)
    if not hands:
        return
    n = hands[-1]
    entries = d.store.hand_events(n)
    if entries and entries[0].get("type") == recovery.START:
        # the hand is rebuilt under the profile it started with; the runtime profile set
        # during it is the core's pending profile again (profile_switch.py)
        name = str(entries[0].get("profile", ""))
        current = core.profile
        started = house_profiles.resolve(d.store, name, current, d.cfg.profile)
        if started != current:
            core.restore(dataclasses.replace(core.export(), profile=started,
                                             pending_profile=current))  # fmt: skip
    else:  # a log without its start record (an older version): nothing to rebuild
        log.error("hand=%s: hand log without a start record; not replayed", d.hand_id(n))
        d.store.clear_hand_events(n)
        d.interrupted, d.interrupt_outcome = [n], "misdeal"
        return
    hid = d.hand_id(n)
    res = recovery.replay_hand(core, entries, now, hand_id=hid)
    log.info("hand=%s replayed %d events (%d rejected) phase=%s", hid, res.events,
             res.rejected, core.phase.value)  # fmt: skip
    if res.started_at:
        with contextlib.suppress(ValueError):
            d.hand_start[n] = datetime.fromisoformat(res.started_at)
    for x in res.decisions:
        if isinstance(x, HandComplete):  # completed before the stop, record not queued
            start = d.hand_start.pop(x.record.hand_no, utc(d.clock))
            d.hands.put_nowait((x.record, start))
    if core.phase in recovery.LIVE:
        d.interrupted = [n]
        policy = core.profile.interrupted_hand
        if policy is InterruptedHand.MISDEAL and recovery.rule_misdeal(core):
            d.store.append_hand_event(n, {"type": recovery.MISDEAL_MARK})
            d.interrupt_outcome = "misdeal"
        elif core.phase in recovery.PLAYING:
            d.interrupt_outcome = "resume"
        else:
            d.interrupt_outcome = core.phase.value  # a misdeal/void being cleared
    elif core.hand is None and not core.redeal_pending:
        d.store.clear_hand_events(n)
    d.live.resync(core.snapshot())


def _apply(core: TableCore, ev: Event) -> None:
    step = core.handle(ev)
    if step.rejected is not None:
        log.warning("restore: %s rejected: %s", type(ev).__name__, step.rejected)


def flag_interrupted(d: StartupHost) -> None:
    """Tell the dealer (alert LED, buzzer) and the venue (alert, event) about a hand
    that a restart cut; the profile already decided how it goes on."""
    storage.flag_lost(d, d.lost)
    d.lost = []
    for hand_no in d.interrupted:
        hid = d.hand_id(hand_no)
        outcome = d.interrupt_outcome
        log.error("hand=%s interrupted by a restart; outcome=%s", hid, outcome)
        d.indicators.alert("critical")
        remedy = recovery.interrupted_remedy(hand_no, outcome)
        d.publish_alert(system_alert(AlertCode.HAND_INTERRUPTED, remedy, hand_no=hand_no or None))
        d.event("hand_interrupted", {"hand_id": hid, "outcome": outcome}, hand_no)
    d.interrupted = []
    d.publish_state()
