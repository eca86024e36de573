"""Pots: side pots from contributions, uncalled bets, split pots and the odd chip."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(init=False, unsafe_hash=True, slots=True)
class Pot:
    """One pot (read-only; an explicit ``__init__``: see decisions.py)."""

    amount: Final[int]
    eligible: Final[tuple[int, ...]]  # seats still in the hand that contributed to every layer

    def __init__(self, amount: int, eligible: tuple[int, ...]) -> None:
        self.amount = amount
        self.eligible = eligible


def build_pots(contrib: dict[int, int], live: set[int] | frozenset[int]) -> list[Pot]:
    """Layer the pot by contribution levels. A layer only one live seat can win is an
    uncalled bet: it comes back as a pot whose only eligible seat is that seat. (``contrib``
    a dict, not any mapping: the compiled core then iterates it natively.)"""
    if len(live) == 1:
        # everyone else folded (most hands): the layers below all add up to one pot
        total = 0
        for c in contrib.values():
            total += c
        return [Pot(total, tuple(live))] if total else []
    level_set: set[int] = set()
    for s, c in contrib.items():
        if c > 0 and s in live:
            level_set.add(c)
    levels = sorted(level_set)
    pots: list[Pot] = []
    prev = 0
    for level in levels:
        amount = 0
        for c in contrib.values():
            amount += min(c, level) - min(c, prev)
        eligible = tuple(sorted([s for s in live if contrib.get(s, 0) >= level]))
        if amount:
            if pots and pots[-1].eligible == eligible:
                pots[-1] = Pot(pots[-1].amount + amount, eligible)
            else:
                pots.append(Pot(amount, eligible))
        prev = level
    # Chips of folded seats above the highest live level: dead money for the last pot (or
    # the only pot, when the seats left put nothing in - e.g. everyone else folded to them)
    rest = 0
    for s, c in contrib.items():
        if c > prev and s not in live:
            rest += c - prev
    if rest and pots:
        pots[-1] = Pot(pots[-1].amount + rest, pots[-1].eligible)
    elif rest:
        pots.append(Pot(rest, tuple(sorted(live))))
    return pots


def split(
    amount: int,
    winners: list[int],
    ring: tuple[int, ...],
    chip: int = 1,
) -> tuple[list[tuple[int, int]], bool]:
    """Divide ``amount`` among ``winners`` in ``chip``-chips (the smallest chip in play): the
    odd chips go one each from the first winner left of the button (002 [L63], TDA 20,
    Robert's): 125 in 25-chips is 75/50, not 63/62. Chips below ``chip`` that the amount
    still holds go to the next winner in that order. Returns shares and whether a chip was
    odd. ``ring``: the seats clockwise from the first left of the button (the button last;
    ``seating.clockwise``), read only for two winners or more. (A tuple, not its bound
    ``index``: getting a bound method is a Python-level attribute lookup per pot in the
    compiled core, for the one winner of most pots who needs no order.)"""
    unit = chip if chip > 0 else 1
    if len(winners) == 1:  # most pots: the whole amount, odd if it is not in whole chips
        return [(winners[0], amount)], amount % unit > 0
    ordered = sorted(winners, key=ring.index)
    n = len(ordered)
    base = amount // (n * unit) * unit
    rest = amount - base * n
    odd, small = divmod(rest, unit)
    shares = []
    for i, s in enumerate(ordered):
        won = base + (unit if i < odd else 0)
        if small and i == (odd % n):
            won += small
        shares.append((s, won))
    return shares, rest > 0
