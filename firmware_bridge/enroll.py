"""``railguard enroll``: enrol a deck by reading its cards one by one, in a known order.

The tags come either from the PC/SC desk reader (one UID per tap) or from one table antenna
(:func:`antenna_tag_reads` turns that antenna's snapshots into one read per card laid on it
and taken off again). The order is :data:`firmware_bridge.decks.DEFAULT_ORDER` unless given:
2c 3c … Ac, 2d … Ad, 2h … Ah, 2s … As.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence

from controller.rules.cards import Card
from controller.rules.errors import RailguardError
from firmware_bridge.decks import DEFAULT_ORDER, Deck, DeckRegistry, EnrollSession, tag_hex
from firmware_bridge.snapshots import AntennaSnapshot

Progress = Callable[[int, int, Card], None]
Notice = Callable[[str], None]


class EnrollIncomplete(RailguardError, RuntimeError):
    """The tag reads ended before every card of the deck was read."""


def _ignore(_: str) -> None:
    return None


async def run_enroll(
    tag_reads: AsyncIterator[bytes],
    registry: DeckRegistry,
    deck_name: str,
    progress: Progress,
    *,
    order: Sequence[Card] = DEFAULT_ORDER,
    back: str = "",
    notice: Notice | None = None,
) -> Deck:
    """Enrol ``deck_name`` from ``tag_reads``; returns the deck, now in ``registry``.

    ``progress(count, total, card)`` is called for each card enrolled (12, 52, Ac).
    ``notice(message)`` gets each refusal (a tag already in this deck, in another deck, a
    chip); the same tag read again straight away (still on the reader) is ignored silently.
    The registry changes only when the deck is complete: stopping early (the reads end)
    raises :class:`EnrollIncomplete` and leaves the registry as it was.
    """
    say = notice or _ignore
    session = EnrollSession(registry, deck_name, order=order, back=back)
    async for uid in tag_reads:
        step = session.offer(uid)
        if step.accepted:
            assert step.card is not None
            progress(session.count, session.total, step.card)
            if session.done:
                return session.commit()
        elif not step.repeat:
            say(step.message)
    raise EnrollIncomplete(
        f"enrolment of deck {deck_name} stopped at {session.count}/{session.total}"
    )


async def antenna_tag_reads(
    snapshots: AsyncIterator[AntennaSnapshot],
    antenna: int,
    *,
    debounce_cycles: int = 2,
    removal_cycles: int = 3,
    notice: Notice | None = None,
) -> AsyncIterator[bytes]:
    """One read per card laid on ``antenna``: a tag is yielded once it has been read
    ``debounce_cycles`` consecutive cycles, and again only after it has been off the antenna
    ``removal_cycles`` cycles. Two new tags confirmed in the same cycle (cards laid together)
    are ambiguous: nothing is yielded and ``notice`` says so. While the board flags a
    collision on the antenna nothing is confirmed (``notice`` is told once).
    """
    say = notice or _ignore
    streak: dict[bytes, int] = {}
    absent: dict[bytes, int] = {}
    present: set[bytes] = set()
    colliding = False
    async for snap in snapshots:
        if snap.antenna != antenna:
            continue
        if snap.collision != colliding:
            colliding = snap.collision
            if colliding:
                say(f"antenna {antenna} reads several cards at once: lay one card at a time")
        seen = {r.uid for r in snap.tags}
        confirmed: list[bytes] = []
        for uid in seen:
            absent.pop(uid, None)
            streak[uid] = streak.get(uid, 0) + 1
            if uid not in present and streak[uid] >= debounce_cycles and not snap.collision:
                present.add(uid)
                confirmed.append(uid)
        if not snap.collision:
            for uid in [u for u in streak if u not in seen]:
                streak[uid] = 0
                absent[uid] = absent.get(uid, 0) + 1
                if absent[uid] >= removal_cycles:
                    del streak[uid], absent[uid]
                    present.discard(uid)
        if len(confirmed) == 1:
            yield confirmed[0]
        elif confirmed:
            tags = ", ".join(sorted(tag_hex(u) for u in confirmed))
            say(f"several cards laid at once on antenna {antenna} ({tags}): lay them one by one")
