"""Side pots against a reference layering, for any contributions and any seats still in.

``pots.build_pots`` has a shortcut for the most common end of a hand (one seat left: every
chip is one pot for it); the reference below layers every hand the long way.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.pots import Pot, build_pots


def reference(contrib: dict[int, int], live: set[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Layer by layer: each level of a live seat's contribution makes a pot of what every
    seat put in up to it, won by the live seats that reached it; chips above the highest
    live level (folded seats only) are dead money for the last pot."""
    pots: list[tuple[int, tuple[int, ...]]] = []
    prev = 0
    for level in sorted({c for s, c in contrib.items() if s in live and c > 0}):
        amount = sum(min(c, level) - min(c, prev) for c in contrib.values())
        eligible = tuple(sorted(s for s in live if contrib.get(s, 0) >= level))
        if amount and pots and pots[-1][1] == eligible:
            pots[-1] = (pots[-1][0] + amount, eligible)
        elif amount:
            pots.append((amount, eligible))
        prev = level
    rest = sum(c - prev for s, c in contrib.items() if s not in live and c > prev)
    if rest and pots:
        pots[-1] = (pots[-1][0] + rest, pots[-1][1])
    elif rest:
        pots.append((rest, tuple(sorted(live))))
    return pots


hands = st.dictionaries(st.integers(1, 10), st.integers(0, 5000), min_size=2, max_size=10).flatmap(
    lambda contrib: st.tuples(
        st.just(contrib),
        st.sets(st.sampled_from(sorted(contrib)), min_size=1, max_size=len(contrib)),
    )
)


def _plain(pots: list[Pot]) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, p.eligible) for p in pots]


@settings(max_examples=600, deadline=None)
@given(hands)
def test_pots_match_the_reference_and_hold_every_chip(
    hand: tuple[dict[int, int], set[int]],
) -> None:
    contrib, live = hand
    pots = build_pots(contrib, live)
    assert _plain(pots) == reference(contrib, live)
    assert sum(p.amount for p in pots) == sum(contrib.values())
    assert all(set(p.eligible) <= live for p in pots)


def test_one_seat_left_takes_every_chip_as_one_pot() -> None:
    # seat 4 bet 300 and everyone folded, one of them after putting in more (a call short
    # of a raise it then folded to): one pot, seat 4's alone
    assert _plain(build_pots({1: 50, 2: 100, 3: 450, 4: 300}, {4})) == [(900, (4,))]
    assert _plain(build_pots({1: 0, 2: 0}, {1})) == []
    # the seat left put nothing in (an uncalled walk): still one pot for it
    assert _plain(build_pots({1: 0, 2: 100}, {1})) == [(100, (1,))]
