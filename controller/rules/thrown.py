"""Cards thrown into another player's hand (000 SECTION 3 DEAD HANDS 3. [L127], 000-S3-dead-3):
"Cards thrown into another player's hand are dead". The thrower's hand is dead; the seat they
landed on keeps its own two cards, known by their tags.

Telling a throw from a read artefact (L5). A hole card of seat m reported at seat n has
already been judged by the reader layer (``firmware_bridge.antennas``): seat m's antenna
missed it ``removal_cycles`` scans running and seat n's read it ``debounce_cycles`` scans
running; a tag is present on one antenna only. What is left is crosstalk while a player
lifts his cards: the lifted card drops out of his own antenna's field and, now and then, the
antenna next to it reads it. Crosstalk reaches the antennas next to a seat's, never one
further away (docs/hardware.md: seats around the table, the dealer between the first and
the last seat). So:

* seat n is not next to seat m: the card was carried there; a throw, ruled at once;
* seat n is next to seat m: a throw only once *both* of seat m's cards are read at seat n
  (a lifted card read by the neighbour is one card, and the lifted hand is still over seat
  m's antenna); one card alone is left to the reader layer, as before (the card comes back
  to seat m, or reaches the muck: a fold).

Every profile: 000 rules it; 002, 003 and 004 are silent (clause inventory K5), and the
product applies 000's ruling everywhere rather than leave a seat holding four cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import betting, clock, misdeal, player, rounds
from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ZoneKind

if TYPE_CHECKING:
    from controller.rules.engine import TableCore
    from controller.rules.hand import Hand, Player

CLAUSE: Final = "000 SECTION 3 DEAD HANDS 3. [L127] (002/003/004 silent: the same ruling)"


def neighbours(a: int, b: int) -> bool:
    """Seats whose hole-card antennas are side by side (no wrap: the dealer sits between the
    first seat and the last)."""
    return a - b == 1 or b - a == 1


def card_at_other_seat(core: TableCore, h: Hand, m: Player, n: Player, tag: str) -> None:
    """Seat ``m``'s hole card ``tag`` is read at seat ``n`` after the deal."""
    if not m.live:
        if m.dead:
            core.instruct(
                f"Seat {n.seat}: remove {core.card_name(tag)} (seat {m.seat}'s dead hand)",
                n.seat,
                tag,
            )
        return
    if not n.live:
        return  # no hand there to throw into: the cards lie on a folded seat's spot
    at_n = [t for t in m.hole if core.where.get(t) == (ZoneKind.HOLE, n.seat)]
    if neighbours(m.seat, n.seat) and len(at_n) < len(m.hole):
        return  # one card beside its own antenna: a neighbour's read (L5)
    _dead(core, h, m, n, at_n)


def _dead(core: TableCore, h: Hand, m: Player, n: Player, at_n: list[str]) -> None:
    player.dead(m)
    clock.stop(core, h, m.seat)
    rounds.drop_oot(h, m.seat)
    misdeal.no_replacement(h, m.seat)
    cards = " and ".join(core.card_name(t) for t in at_n)
    rest = [t for t in m.hole if t not in at_n and core.where.get(t) == (ZoneKind.HOLE, m.seat)]
    also = f"; muck seat {m.seat}'s other card" if rest else ""
    own = " and ".join(core.card_name(t) for t in n.hole)
    core.alert(
        AlertCode.DEAD_HAND,
        Severity.WARNING,
        CLAUSE,
        f"Seat {m.seat}'s cards were thrown into seat {n.seat}'s hand: seat {m.seat}'s hand "
        f"is dead (its chips stay in the pot). Remove {cards} from seat {n.seat}; seat "
        f"{n.seat} keeps its own two ({own}){also}",
        m.seat,
        at_n[0] if at_n else "",
    )
    rounds.record(core, h, m.seat, "fold", 0)
    betting.after_change(core)
