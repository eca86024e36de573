"""Pure translations between the rules core and the outside world (no I/O):

- :func:`state_payload`: a :class:`TableState` as the redacted live-state message (street,
  board, pot, stacks, to_act, card *counts*; never which hole cards);
- :func:`alert_payload`: an :class:`Alert` as the venue alert message (card names scrubbed:
  an alert is live data);
- :class:`ReaderInput`: tracker output as core events, with the two things the tracker cannot
  know: a card moved between zones in one cycle is one placement (the core treats a placement
  as implying the removal), and all betting zones emptied at once is the dealer's sweep;
- :func:`encode_event` (the core's hand-log codec, ``controller.rules.handlog``, re-exported).
"""

from __future__ import annotations

from typing import Any

from controller.link.redact import NO_SECRETS, HoleSecrets, scrub_text
from controller.rules.catalogue import CATALOGUE, AlertCode
from controller.rules.decisions import SEVERITY_NAMES, Alert
from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut, Event, Sweep
from controller.rules.handlog import encode_event
from controller.rules.phases import Phase
from controller.rules.state import TableState

__all__ = ["ReaderInput", "alert_payload", "encode_event", "scrub", "state_payload"]
_IDLE = (Phase.IDLE, Phase.DRAW, Phase.MISDEAL, Phase.VOID)


def scrub(text: str, secrets: HoleSecrets = NO_SECRETS) -> str:
    """Card names in free text -> "a card", tag UIDs -> "a tag" (alerts, events and logs
    are live data; ``secrets``: the live hole cards, see controller.link.redact)."""
    return scrub_text(text, secrets)


def street_name(state: TableState) -> str:
    if state.phase in _IDLE or state.street is None:
        return "idle"
    if state.phase is Phase.COMPLETE or state.phase is Phase.SHOWDOWN:
        return "showdown"
    return state.street.name.lower()


def state_payload(
    state: TableState,
    *,
    level: int = 1,
    pending_level: tuple[int, int, int, int] | None = None,
) -> dict[str, Any]:
    """The redacted live state of the table (schema ``state.json`` without seq/bdseq/ts).
    ``level``: the number of the level in force (its blinds are the state's);
    ``pending_level``: (number, small blind, big blind, ante) of a level set for the next
    hand (G11), shown as ``pending_level``."""
    seats = []
    for s in state.seats:
        if s.folded:
            status = "folded"
        elif s.all_in:
            status = "all_in"
        elif not s.present:
            status = "sitting_out"
        else:
            status = "active"
        seats.append(
            {
                "seat": s.seat,
                "player_id": s.player[:64] or None,
                "name": (s.name or s.player)[:64] or None,  # the core's (Seat.name)
                "stack": s.stack,
                "bet": s.bet,
                "cards_held": min(s.card_count, 7),
                "status": status,
            }
        )
    live = state.phase not in _IDLE
    return {
        "hand_no": state.hand_no or None,
        "street": street_name(state),
        "board": [str(c) for c in state.board][:5] if live else [],
        "pot": state.pot,
        "button": state.button or None,
        "to_act": state.to_act or None,
        "level": {
            "level": max(1, level),
            "small_blind": state.small_blind,
            "big_blind": state.big_blind,
            "ante": state.ante,
        },
        "pending_level": None
        if pending_level is None
        else dict(zip(("level", "small_blind", "big_blind", "ante"), pending_level, strict=True)),
        "profile": state.profile[:64],
        "seats": seats,
        # hand-for-hand: the round this table is held for (no next deal until the release)
        "deal_hold": state.deal_hold or None,
    }


def alert_payload(alert: Alert, hand_no: int, secrets: HoleSecrets = NO_SECRETS) -> dict[str, Any]:
    """The venue alert message (schema ``alert.json`` without seq/bdseq/ts/alert_id)."""
    return {
        "code": alert.code.value.upper()[:48],
        "severity": SEVERITY_NAMES[alert.severity],
        "clause": scrub(alert.clause, secrets)[:64] or "railguard",
        "remedy": scrub(alert.remedy, secrets)[:500] or "see the dealer console",
        "seat": alert.seat or None,
        "hand_no": hand_no or None,
    }


def system_alert(
    code: AlertCode,
    remedy: str,
    *,
    seat: int | None = None,
    hand_no: int | None = None,
    message: str | None = None,
) -> dict[str, Any]:
    """The venue alert message of one of the daemon's own alerts (schema ``alert.json``
    without seq/bdseq/ts/alert_id): its code, severity and clause are the catalogue's."""
    e = CATALOGUE[code]
    out: dict[str, Any] = {
        "code": e.wire,
        "severity": SEVERITY_NAMES[max(e.severities)],
        "clause": e.clauses[0],
        "remedy": remedy,
        "seat": seat,
        "hand_no": hand_no,
    }
    if message is not None:
        out["message"] = message
    return out


class ReaderInput:
    """Tracker events of one batch (one cycle) -> rules-core events."""

    def __init__(self) -> None:
        self.tag_chips: dict[int, int] = {}  # seat -> chip value on its betting zone (tags)
        self.sensor_chips: dict[int, bool] = {}  # seat -> chip sensor says chips present
        self.sweeps = 0

    def zones_empty(self) -> bool:
        return not any(self.tag_chips.values()) and not any(self.sensor_chips.values())

    def batch(self, events: list[CardPlaced | CardRemoved | ChipsIn | ChipsOut]) -> list[Event]:
        placed_later = {e.tag for e in events if isinstance(e, CardPlaced)}
        out: list[Event] = []
        chips_out_t: float | None = None
        first_out = -1  # where the first chips left a zone in ``out``
        for i, e in enumerate(events):
            if isinstance(e, CardRemoved):
                later = any(isinstance(x, CardPlaced) and x.tag == e.tag for x in events[i + 1 :])
                if later and e.tag in placed_later:
                    continue  # a move within one cycle: the placement implies the removal
            elif isinstance(e, ChipsIn):
                self.tag_chips[e.seat] = self.tag_chips.get(e.seat, 0) + (e.amount or 0)
            elif isinstance(e, ChipsOut):
                left = self.tag_chips.get(e.seat, 0) - (e.amount or 0)
                self.tag_chips[e.seat] = max(0, left)
                chips_out_t = e.t
                if first_out < 0:
                    first_out = len(out)
            out.append(e)
        if chips_out_t is not None and self.zones_empty():
            # every zone emptied in one cycle: the dealer swept the bets into the pot. The
            # core hears the sweep before the chips leaving each zone, so that it takes them
            # as the sweep and not as a player taking chips back (issue 24: a limped pot
            # under 002 [L125] drew CHIPS_TAKEN_BACK for every limper on the sweep, the big
            # blind's check not being sensed until the dealer moves on)
            self.sweeps += 1
            t = max(ev.t for ev in out[: first_out + 1])
            out.insert(first_out, Sweep(t))
        return out

    def sensor(self, ev: ChipsIn | ChipsOut) -> list[Event]:
        """A chip-sensor (GPIO) event: presence only."""
        if isinstance(ev, ChipsIn):
            self.sensor_chips[ev.seat] = True
            return [ev]
        self.sensor_chips[ev.seat] = False
        if self.zones_empty():
            self.sweeps += 1
            return [Sweep(ev.t), ev]  # the sweep first, as in batch()
        return [ev]
