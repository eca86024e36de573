"""Completed hand records as Open Hand History 1.4 (hh-specs.handhistory.org).

:func:`to_ohh` turns the rules core's :class:`~controller.rules.decisions.HandRecord` into the
``ohh`` object the venue link submits (``controller/link/schemas/ohh.json``).

Conventions (the spec leaves them to the site):

- ``players[].id`` is the seat number (stable within a hand, never reused by two players);
  ``name`` is the player's name (from the table's seating; else the player id), and two
  fields the spec leaves to the site: ``player_ref``, the venue's player id, and
  ``final_stack``, the chips the player finished the hand with.
- ``amount`` of an action is the chips that action put in (a raise from 100 to 300 after a
  blind of 100 is ``amount = 200``), so the actions of a hand add up to its pots.
- ``Dealt Cards`` actions open the pre-flop round, one per player whose cards were read.
- ``pots`` are the core's main and side pots in order; ``win_amount`` is what each winner
  took from that pot (an odd chip included). A bet nobody called is not a pot won: it is in
  ``uncalled_bets`` (``player_id``, ``amount``), given back to the player.
- A hand that reached a showdown ends with a ``Showdown`` round: ``Shows Cards`` (with the
  cards) or ``Mucks Cards`` per player, in the order shown (002 [L47]).
- A voided hand has ``flags = ["Voided"]`` and no pots.
- ``alerts`` (railguard's field; OHH 1.4 has none) are the alerts the rules core raised in
  the hand, in order: ``code`` and ``severity`` as on the alerts topic, ``clause``,
  ``remedy``, ``seat`` (null: none), ``street`` and ``after_action`` (the ``action_number``
  of the last action taken at or before it; 0 before any). ``street`` is that action's
  street, or the next street's when the alert came after it (the next cards were being
  dealt), ``Showdown`` for the showdown's own codes. The alerts of a deal cleared by a
  misdeal come first, before any action (the re-deal is the same hand).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from controller.rules.cards import Card
from controller.rules.decisions import SEVERITY_NAMES, ActionRecord, Alert, AlertCode, HandRecord

SPEC_VERSION = "1.4.7"
SITE_NAME = "railguard"
STREETS = ("Preflop", "Flop", "Turn", "River")
_BOARD_SLICE = ((0, 0), (0, 3), (3, 4), (4, 5))
_SHOWDOWN_CODES = frozenset(
    {AlertCode.WINNING_HAND_MUCKED, AlertCode.LOSING_HAND_LIVE, AlertCode.HAND_NOT_TABLED}
)
_ACTIONS = {
    "post_sb": "Post SB",
    "post_bb": "Post BB",
    "post_ante": "Post Ante",
    "post_dead": "Post Dead",
    "straddle": "Straddle",
    "fold": "Fold",
    "check": "Check",
    "call": "Call",
    "bet": "Bet",
    "raise": "Raise",
}


def _card(c: Card) -> str:
    return str(c)


def _utc(when: datetime) -> str:
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def game_number(rec: HandRecord) -> str:
    """The hand's number at the site: table, hand number and (after a misdeal) deal number."""
    base = f"{rec.table}-{rec.hand_no}"
    return base if rec.deal_no <= 1 else f"{base}.{rec.deal_no}"


def action_name(kind: str) -> str:
    try:
        return _ACTIONS[kind]
    except KeyError:
        raise ValueError(f"action kind {kind!r} has no OHH action") from None


def _action(n: int, a: ActionRecord) -> dict[str, Any]:
    out: dict[str, Any] = {
        "action_number": n,
        "player_id": a.seat,
        "action": action_name(a.kind),
    }
    if a.kind not in ("fold", "check"):
        out["amount"] = a.amount
    out["is_allin"] = bool(a.all_in)
    return out


def to_ohh(
    rec: HandRecord,
    start: datetime,
    *,
    table_name: str | None = None,
    table_size: int = 10,
    tournament: bool = True,
) -> dict[str, Any]:
    """The OHH 1.4 ``ohh`` object of one completed hand. ``start`` is wall-clock time; the
    players' names are the record's (the core's seats at the hand's end)."""
    players = []
    for s in rec.seats:
        player: dict[str, Any] = {
            "id": s.seat,
            "seat": s.seat,
            "name": s.name or s.player or f"seat {s.seat}",
            "starting_stack": s.start_stack,
        }
        if s.player:
            player["player_ref"] = s.player
        player["final_stack"] = s.end_stack
        players.append(player)
    rounds: list[dict[str, Any]] = []
    timeline: list[tuple[float, int, int]] = []  # (time, action_number, street) per action
    n = 0
    by_street: dict[int, list[ActionRecord]] = {}
    for a in rec.actions:
        by_street.setdefault(a.street, []).append(a)
    last_street = max([0, *by_street], key=int)
    board = [_card(c) for c in rec.board]
    last_street = max(last_street, {0: 0, 3: 1, 4: 2, 5: 3}.get(len(board), 3))
    for street in range(last_street + 1):
        actions: list[dict[str, Any]] = []
        if street == 0:
            for s in rec.seats:
                if s.hole:
                    n += 1
                    actions.append(
                        {
                            "action_number": n,
                            "player_id": s.seat,
                            "action": "Dealt Cards",
                            "cards": [_card(c) for c in s.hole],
                        }
                    )
        said: dict[int, str] = {}  # seat -> its declaration, carried by its next action
        for a in by_street.get(street, []):
            if a.kind.startswith("declare_"):
                said[a.seat] = a.kind[len("declare_") :]
                continue
            n += 1
            act = _action(n, a)
            timeline.append((a.t, n, street))
            if a.seat in said:
                act["declaration"] = said.pop(a.seat)  # railguard's field (issue 14)
            actions.append(act)
        rnd: dict[str, Any] = {"id": street, "street": STREETS[street], "actions": actions}
        lo, hi = _BOARD_SLICE[street]
        if street and board[lo:hi]:
            rnd["cards"] = board[lo:hi]
        rounds.append(rnd)
    if rec.showdown and not rec.voided:
        shown: list[dict[str, Any]] = []
        for sh in rec.showdown:
            n += 1
            sa: dict[str, Any] = {"action_number": n, "player_id": sh.seat}
            if sh.shown:
                sa["action"] = "Shows Cards"
                sa["cards"] = [_card(c) for c in sh.cards]
            else:
                sa["action"] = "Mucks Cards"
            shown.append(sa)
        rounds.append({"id": len(rounds), "street": "Showdown", "actions": shown})
    pots = []
    if not rec.voided:
        for i, p in enumerate(rec.pots):
            pots.append(
                {
                    "number": i,
                    "amount": p.amount,
                    "rake": 0,
                    "player_wins": [
                        {"player_id": seat, "win_amount": won} for seat, won in p.shares if won
                    ],
                }
            )
    ohh: dict[str, Any] = {
        "spec_version": SPEC_VERSION,
        "site_name": SITE_NAME,
        "internal_version": "railguard",
        "tournament": tournament,
        "game_number": game_number(rec),
        "start_date_utc": _utc(start),
        "table_name": table_name or rec.table,
        "game_type": "Holdem",
        "bet_limit": {"bet_type": "NL", "bet_cap": 0},
        "table_size": table_size,
        "dealer_seat": rec.button,
        "small_blind_amount": rec.small_blind,
        "big_blind_amount": rec.big_blind,
        "ante_amount": rec.ante,
        "players": players,
        "rounds": rounds,
        "pots": pots,
    }
    if rec.returned and not rec.voided:
        ohh["uncalled_bets"] = [{"player_id": s, "amount": a} for s, a in rec.returned]
    ohh["alerts"] = [_alert(a, timeline, last_street, bool(rec.showdown)) for a in rec.alerts]
    flags = []
    if rec.voided:
        flags.append("Voided")
    if flags:
        ohh["flags"] = flags
    return ohh


def _alert(
    a: Alert, timeline: list[tuple[float, int, int]], last_street: int, showdown: bool
) -> dict[str, Any]:
    """One alert of the hand, placed after the last action taken at or before it; one raised
    after a street's last action and before the next street's first (or after the last action
    while more board came) is the next street's: that street's cards were being dealt."""
    after, street, i = 0, 0, -1
    for k, (t, number, st) in enumerate(timeline):
        if t > a.t:
            break
        after, street, i = number, st, k
    if i >= 0 and a.t > timeline[i][0]:
        nxt = timeline[i + 1][2] if i + 1 < len(timeline) else last_street
        street = min(street + 1, nxt) if nxt > street else street
    return {
        "code": a.code.value.upper(),
        "severity": SEVERITY_NAMES[a.severity],
        "clause": a.clause,
        "remedy": a.remedy,
        "seat": a.seat or None,
        "street": "Showdown" if showdown and a.code in _SHOWDOWN_CODES else STREETS[street],
        "after_action": after,
    }


def totals(ohh: dict[str, Any]) -> tuple[int, int, int]:
    """(chips put in by actions and not given back as uncalled, chips in pots, chips won) -
    equal in a consistent record."""
    put = sum(
        int(a.get("amount", 0))
        for r in ohh["rounds"]
        for a in r["actions"]
        if a["action"] not in ("Dealt Cards", "Shows Cards", "Mucks Cards")
    ) - sum(int(u["amount"]) for u in ohh.get("uncalled_bets", ()))
    pots = sum(int(p["amount"]) for p in ohh["pots"])
    won = sum(int(w["win_amount"]) for p in ohh["pots"] for w in p["player_wins"])
    return put, pots, won
