"""Live events for the venue's events topic, derived from the rules core after each
accepted event (pure: no I/O). Never a hole card: the hand's public facts only (who posted,
acted and won, the board); completed hand records with hole cards go to the hands topic.

``hand_started``   hand_id, deal_no, button, small/big blind seats, blinds, ante, seats dealt in
``street``         street (flop, turn, river) and the board once the street's cards are out
``action``         seat, kind (post_sb, call, raise, fold ...), amount, to, street, all_in
``declaration``    seat, declaration (raise, call, check, fold, all_in, play_board), street
``actions_undone`` count, street: the dealer's "not a check" withdrew the last actions
``hand_completed`` hand_id, deal_no, board, pots (amount, winners with amounts), voided
``profile_changed`` profile, previous, from_hand: the venue's ``set_profile`` took effect
(``alert_ack`` and ``hand_interrupted`` come from the daemon itself.)

:func:`hole_secrets` is what the hole-card guard (``controller.link.redact``) checks every
live payload against: the tag UIDs of the live hand's hole cards and the cards they carry.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from controller.daemon.translate import system_alert
from controller.link.redact import NO_SECRETS, HoleSecrets
from controller.rules.catalogue import AlertCode
from controller.rules.decisions import (
    ActionRecord,
    ActionsStruck,
    ActionTaken,
    Decision,
    HandComplete,
    HandStarted,
    ProfileChanged,
    StreetDealt,
)
from controller.rules.engine import TableCore
from controller.rules.phases import Phase
from controller.rules.state import TableState

if TYPE_CHECKING:
    from firmware_bridge.gpio.indicators import Indicators

log = logging.getLogger("railguard.daemon")

LiveEvent = tuple[str, dict[str, Any], int | None]  # kind, data, hand_no
_STREETS = ("preflop", "flop", "turn", "river")
_BOARD_STREET = {3: "flop", 4: "turn", 5: "river"}
_PLAYING = (Phase.DEALING, Phase.BETTING, Phase.BOARD)


def hole_secrets(snap: TableState) -> HoleSecrets:
    """The hole cards of the hand on the table (every player's, folded ones too, and any
    card on a hole spot), from the core's snapshot (``TableState.hole_tags``): their tag UIDs
    and the cards the deck registry maps them to. Empty between hands (the record of a
    completed hand has been sent by then). The core loop keeps the current ones in
    ``LiveEvents.secrets`` (set after every step, before anything of it is published)."""
    if not snap.hole_tags:
        return NO_SECRETS
    tags = frozenset(t for t, _ in snap.hole_tags)
    cards = frozenset(str(c) for _, c in snap.hole_tags if c is not None and not c.is_joker)
    return HoleSecrets(tags, cards)


class GuardHost(Protocol):
    """What :func:`withheld` needs of the daemon."""

    live: LiveEvents

    @property
    def indicators(self) -> Indicators: ...

    core: TableCore

    def publish_alert(self, payload: dict[str, Any]) -> None: ...


def withheld(d: GuardHost, what: str, reason: str) -> None:
    """The hole-card guard refused a live payload (``what``: "state", "event street", ...).
    Never silent: logged, and the first refusal of each kind raises a critical alert to the
    dealer and the venue until that kind is published again (the reason names where in the
    payload, never the value). The table plays on; the hand record is unaffected."""
    log.error("hole-card guard withheld the %s: %s", what, reason)
    if what in d.live.withheld:
        return
    d.live.withheld.add(what)
    d.indicators.alert("critical")
    hand_no = d.core.hand_no if d.core.hand is not None else 0
    remedy = (
        f"The table withheld its live {what} ({reason[:300]}); play on, the hand "
        "record is kept; report it to the technician"
    )
    d.publish_alert(system_alert(AlertCode.LIVE_DATA_WITHHELD, remedy, hand_no=hand_no or None))


class LiveEvents:
    """The live events of each step, from the facts the core decided (``decisions.py``:
    ``HandStarted``, ``ActionTaken``, ``ActionsStruck``, ``StreetDealt``, ``HandComplete``)
    and the step's snapshot; it never reads the core's hand. A hand is announced once the
    table is playing it at the end of a step (a deal ruled a misdeal in the step that started
    it is not announced, nor its posts); a street once the table plays on after it. Within a
    step the events go out in this order: ``hand_started``, ``actions_undone``, ``action`` /
    ``declaration`` (in the order taken), ``street`` (the board after the step), then
    ``hand_completed`` and ``profile_changed`` (``ProfileChanged``)."""

    def __init__(self, venue: str, table: str) -> None:
        self.prefix = f"{venue}-{table}"
        self.withheld: set[str] = set()  # kinds the hole-card guard refused (alerted once)
        # the hole-card guard's secrets as of the last step (hole_secrets of its snapshot)
        self.secrets: HoleSecrets = NO_SECRETS
        self.hand: tuple[int, int] = (0, 0)  # (hand_no, deal_no) announced
        self.board = 0  # board cards announced with the last street
        self._started: HandStarted | None = None  # a deal started, not announced yet
        self._held: list[ActionRecord] = []  # its actions meanwhile (the forced bets)

    def hand_id(self, hand_no: int) -> str:
        return f"{self.prefix}-{hand_no}"

    def resync(self, snap: TableState) -> None:
        """After a restart: the replayed hand counts as announced (its events were sent
        before the stop), with the board it has; the guard's secrets are the table's."""
        self.secrets = hole_secrets(snap)
        if snap.phase in _PLAYING or snap.phase in (Phase.SHOWDOWN, Phase.COMPLETE):
            self.hand = (snap.hand_no, snap.deal_no)
            self.board = len(snap.board)

    def after(self, snap: TableState, decisions: tuple[Decision, ...]) -> list[LiveEvent]:
        out: list[LiveEvent] = []
        undone: list[ActionsStruck] = []
        acts: list[ActionRecord] = []
        dealt: StreetDealt | None = None
        for d in decisions:
            if isinstance(d, HandStarted):
                self._started, self._held = d, []
                acts, undone, dealt = [], [], None  # a new deal: the last one's are moot
            elif isinstance(d, ActionTaken):
                (self._held if self._started is not None else acts).append(d.action)
            elif isinstance(d, ActionsStruck):
                if self._started is not None:
                    del self._held[max(0, len(self._held) - d.count) :]
                else:
                    undone.append(d)
            elif isinstance(d, StreetDealt):
                dealt = d
        hand_no, _deal = self.hand
        started = self._started
        if started is not None and snap.phase in _PLAYING:
            self.hand = (started.hand_no, started.deal_no)
            self.board = 0
            hand_no = started.hand_no
            out.append(("hand_started", {
                "hand_id": self.hand_id(hand_no), "deal_no": started.deal_no,
                "button": started.button or None,
                "small_blind_seat": started.small_blind_seat or None,
                "big_blind_seat": started.big_blind_seat or None,
                "small_blind": snap.small_blind, "big_blind": snap.big_blind, "ante": snap.ante,
                "seats": sorted(s for s, _ in started.seats),
            }, hand_no))  # fmt: skip
            acts = [*self._held, *acts]
            self._started, self._held = None, []
        if started is None or self._started is None:  # the hand announced is the table's
            for u in undone:
                out.append(("actions_undone", {"count": u.count,
                            "street": _STREETS[min(u.street, 3)]}, hand_no))  # fmt: skip
            for a in acts:
                if a.kind.startswith("declare_"):
                    out.append(("declaration", {"seat": a.seat, "declaration": a.kind[8:],
                                "street": _STREETS[min(a.street, 3)]}, hand_no))  # fmt: skip
                    continue
                out.append(("action", {
                    "seat": a.seat, "kind": a.kind, "amount": a.amount, "to": a.to,
                    "street": _STREETS[min(a.street, 3)], "all_in": a.all_in,
                }, hand_no))  # fmt: skip
            n = len(snap.board)
            if snap.phase in _PLAYING and n != self.board:
                if dealt is not None and n in _BOARD_STREET and n > self.board:
                    out.append(("street", {"street": _BOARD_STREET[n],
                                           "board": [str(c) for c in snap.board]},
                                hand_no))  # fmt: skip
                self.board = n
        for d in decisions:
            if isinstance(d, HandComplete):
                rec = d.record
                out.append(("hand_completed", {
                    "hand_id": self.hand_id(rec.hand_no), "deal_no": rec.deal_no,
                    "board": [str(c) for c in rec.board][:5], "voided": rec.voided,
                    "pots": [{"amount": p.amount,
                              "winners": [{"seat": s, "amount": a} for s, a in p.shares]}
                             for p in rec.pots],
                }, rec.hand_no))  # fmt: skip
            elif isinstance(d, ProfileChanged):
                out.append(("profile_changed", {"profile": d.profile, "previous": d.previous,
                                                "from_hand": d.from_hand}, None))  # fmt: skip
        return out
