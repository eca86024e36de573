"""Live events for the venue's events topic, derived from the rules core after each
accepted event (pure: no I/O). Never a hole card: the hand's public facts only (who posted,
acted and won, the board); completed hand records with hole cards go to the hands topic.

``hand_started``   hand_id, deal_no, button, small/big blind seats, blinds, ante, seats dealt in
``street``         street (flop, turn, river) and the board once the street's cards are out
``action``         seat, kind (post_sb, call, raise, fold ...), amount, to, street, all_in
``declaration``    seat, declaration (raise, call, check, fold, all_in, play_board), street
``actions_undone`` count, street: the dealer's "not a check" withdrew the last actions
``hand_completed`` hand_id, deal_no, board, pots (amount, winners with amounts), voided
(``alert_ack``, ``hand_interrupted`` and ``profile_changed`` come from the daemon itself.)

:func:`hole_secrets` is what the hole-card guard (``controller.link.redact``) checks every
live payload against: the tag UIDs of the live hand's hole cards and the cards they carry.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from controller.daemon.translate import system_alert
from controller.link.redact import NO_SECRETS, HoleSecrets
from controller.rules.catalogue import AlertCode
from controller.rules.decisions import Decision, HandComplete
from controller.rules.engine import TableCore
from controller.rules.events import ZoneKind
from controller.rules.phases import Phase
from controller.rules.state import TableState

if TYPE_CHECKING:
    from firmware_bridge.gpio.indicators import Indicators

log = logging.getLogger("railguard.daemon")

LiveEvent = tuple[str, dict[str, Any], int | None]  # kind, data, hand_no
_STREETS = ("preflop", "flop", "turn", "river")
_BOARD_STREET = {3: "flop", 4: "turn", 5: "river"}
_PLAYING = (Phase.DEALING, Phase.BETTING, Phase.BOARD)


def hole_secrets(core: TableCore) -> HoleSecrets:
    """The hole cards of the hand on the table (every player's, folded ones too, and any
    card on a hole spot): their tag UIDs and the cards the deck registry maps them to.
    Empty between hands (the record of a completed hand has been sent by then)."""
    h = core.hand
    tags: set[str] = set()
    if h is not None:
        for p in h.players.values():
            tags.update(p.hole)
            tags.update(p.cards)
    for tag, (zone, _) in core.where.items():
        if zone is ZoneKind.HOLE:
            tags.add(tag)
    if not tags:
        return NO_SECRETS
    cards = set()
    for tag in tags:
        card = core.card_of.get(tag)
        if card is not None and not card.is_joker:
            cards.add(str(card))
    return HoleSecrets(frozenset(tags), frozenset(cards))


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
    """Remembers what was announced; :meth:`after` returns what is new."""

    def __init__(self, venue: str, table: str) -> None:
        self.prefix = f"{venue}-{table}"
        self.withheld: set[str] = set()  # kinds the hole-card guard refused (alerted once)
        self.hand: tuple[int, int] = (0, 0)  # (hand_no, deal_no) announced
        self.actions = 0
        self.board = 0
        self.last: object = None  # the last action record announced
        self.sent: list[object] = []  # the records announced (to find what was undone)

    def hand_id(self, hand_no: int) -> str:
        return f"{self.prefix}-{hand_no}"

    def resync(self, core: TableCore) -> None:
        """After a restart: what the replayed hand already announced is not sent again."""
        h = core.hand
        if h is not None:
            self.hand = (h.hand_no, h.deal_no)
            self.actions = len(h.actions)
            self.sent = list(h.actions)
            self.last = h.actions[-1] if h.actions else None
            self.board = len(h.board)

    def after(
        self, core: TableCore, snap: TableState, decisions: tuple[Decision, ...]
    ) -> list[LiveEvent]:
        out: list[LiveEvent] = []
        h = core.hand
        if h is not None and snap.phase in _PLAYING and (h.hand_no, h.deal_no) != self.hand:
            self.hand = (h.hand_no, h.deal_no)
            self.actions = 0
            self.board = 0
            out.append(("hand_started", {
                "hand_id": self.hand_id(h.hand_no), "deal_no": h.deal_no,
                "button": snap.button or None, "small_blind_seat": snap.small_blind_seat or None,
                "big_blind_seat": snap.big_blind_seat or None, "small_blind": h.small_blind,
                "big_blind": h.big_blind, "ante": h.ante, "seats": sorted(h.players),
            }, h.hand_no))  # fmt: skip
        if h is not None and (h.hand_no, h.deal_no) == self.hand:
            acts = h.actions
            kept = min(self.actions, len(acts))
            if kept and acts[kept - 1] is not self.last:  # issue 14: "not a check" undid some
                kept = _common(self.sent, acts)
            if kept < self.actions:
                out.append(("actions_undone", {"count": self.actions - kept,
                            "street": _STREETS[min(h.street, 3)]}, h.hand_no))  # fmt: skip
            for a in acts[kept:]:
                if a.kind.startswith("declare_"):
                    out.append(("declaration", {"seat": a.seat, "declaration": a.kind[8:],
                                "street": _STREETS[min(a.street, 3)]}, h.hand_no))  # fmt: skip
                    continue
                out.append(("action", {
                    "seat": a.seat, "kind": a.kind, "amount": a.amount, "to": a.to,
                    "street": _STREETS[min(a.street, 3)], "all_in": a.all_in,
                }, h.hand_no))  # fmt: skip
            self.actions = len(acts)
            self.last = acts[-1] if acts else None
            self.sent = list(acts)
            n = len(snap.board)
            if n != self.board and snap.phase in _PLAYING:
                if n in _BOARD_STREET and n > self.board:
                    out.append(("street", {"street": _BOARD_STREET[n],
                                           "board": [str(c) for c in snap.board]},
                                h.hand_no))  # fmt: skip
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
        return out


def _common(sent: list[object], acts: list[Any]) -> int:
    """How many of the announced records are still the hand's first records."""
    n = 0
    for a, b in zip(sent, acts, strict=False):
        if a is not b:
            break
        n += 1
    return n
