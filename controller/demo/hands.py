"""Hands for the demo: recorded Pluribus hands when the shared data folder is next to the
checkout (a seeded choice), otherwise hands generated with a seeded RNG (random legal
no-limit hold'em actions). Each comes planned as table events, with the finishing stacks
it must end with: the file's, or for a generated hand the rules core's own replay."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.errors import BadInput
from controller.rules.profile import Profile
from hwsim.dealer import PlannedHand, plan_hand
from hwsim.phh import HandHistory, load_phh, parse_phh

PLURIBUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "phh" / "pluribus"
NAMES = ("Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo")


@dataclass(frozen=True, slots=True)
class DemoHand:
    label: str
    hh: HandHistory
    plan: PlannedHand
    expected: tuple[int, ...]  # finishing stack of each PHH player (plan.seats order)


def _expected_by_core(hh: HandHistory, profile: Profile) -> tuple[int, ...]:
    from controller.replay import replay_core

    rec, _ = replay_core(hh, profile)
    if rec is None:
        raise BadInput(f"{hh.source}: the rules core never completed the hand")
    by_seat = {s.seat: s.end_stack for s in rec.seats}
    return tuple(by_seat[s] for s in plan_hand(hh, profile).seats)


def _demo_hand(label: str, hh: HandHistory, profile: Profile, max_seats: int) -> DemoHand:
    if hh.player_count > max_seats:
        raise BadInput(f"{label}: {hh.player_count} players do not fit")
    plan = plan_hand(hh, profile)
    if hh.finishing_stacks is not None:
        if any(int(x) != x for x in hh.finishing_stacks):
            raise BadInput(f"{label}: fractional finishing stacks")
        expected = tuple(int(x) for x in hh.finishing_stacks)
    else:
        expected = _expected_by_core(hh, profile)
    return DemoHand(label, hh, plan, expected)


def recorded_hands(
    rng: random.Random, count: int, profile: Profile, folder: Path = PLURIBUS, max_seats: int = 6
) -> list[DemoHand]:
    """``count`` hands drawn (seeded) from ``folder``; files a table cannot deal are skipped."""
    files = sorted(folder.rglob("*.phh"))
    if not files:
        raise BadInput(f"no PHH files under {folder}")
    out: list[DemoHand] = []
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        path = rng.choice(files)
        try:
            hh = load_phh(path)
            out.append(_demo_hand(str(path.relative_to(folder.parent)), hh, profile, max_seats))
        except BadInput:
            continue
    if len(out) < count:
        raise BadInput(f"only {len(out)} dealable hands found under {folder}")
    return out


def _generate_phh(rng: random.Random, hand_no: int, players: int) -> str:
    """One hand of random legal no-limit hold'em actions, as PHH text."""
    n = players
    sb, bb = 50, 100
    stacks = [rng.randrange(60, 161) * 100 for _ in range(n)]
    start = list(stacks)
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    holes = [(deck.pop(), deck.pop()) for _ in range(n)]
    acts = [f"d dh p{i + 1} {a}{b}" for i, (a, b) in enumerate(holes)]
    bets = [0] * n
    # PHH reverses the blinds heads-up (hwsim/phh.py): p1 posts the big blind and the
    # button, p2, the small; the button acts first before the flop, p1 first after it
    posts = ((0, bb), (1, sb)) if n == 2 else ((0, sb), (1, bb))
    for i, blind in posts:
        bets[i] = min(blind, stacks[i])
        stacks[i] -= bets[i]
    folded: set[int] = set()

    def live() -> list[int]:
        return [p for p in range(n) if p not in folded]

    def can_act() -> list[int]:
        return [p for p in live() if stacks[p] > 0]

    for street in range(4):
        if len(live()) < 2:
            break  # everyone else folded: no more board cards
        if street:
            cards: list[Card] = [deck.pop() for _ in range(3 if street == 1 else 1)]
            acts.append("d db " + "".join(str(c) for c in cards))
            bets = [0] * n
        current = max(bets)
        pending = set(can_act())
        if len(pending) <= 1 and all(bets[p] >= current or stacks[p] == 0 for p in live()):
            continue  # everyone else is all in: the board runs out
        min_raise = bb
        raises = 0
        i = (1 if n == 2 else 2) if street == 0 else 0
        while pending and len(live()) > 1:
            p = i % n
            i += 1
            if p not in pending:
                continue
            pending.discard(p)
            owe = current - bets[p]
            r = rng.random()
            max_to = bets[p] + stacks[p]
            raise_p = 0.18 / (1 + 2 * raises)
            if owe > 0 and r < 0.3:
                folded.add(p)
                acts.append(f"p{p + 1} f")
            elif r > 1 - raise_p and max_to > current and len(can_act()) > 1:
                lo = current + min_raise
                pot = sum(start) - sum(stacks)
                to = lo + 100 * rng.randrange(0, max(1, pot // 100))
                if rng.random() < 0.04:
                    to = max_to  # all in
                to = min(to, max_to)
                stacks[p] -= to - bets[p]
                bets[p] = to
                min_raise = max(to - current, min_raise)
                current = to
                raises += 1
                pending = {q for q in can_act() if q != p}
                acts.append(f"p{p + 1} cbr {to}")
            else:
                amt = min(owe, stacks[p])
                stacks[p] -= amt
                bets[p] += amt
                acts.append(f"p{p + 1} cc")
    return phh_text(start, acts, list(NAMES[:n]), (sb, bb), hand_no)


def phh_text(stacks: list[int], actions: list[str], players: list[str],
             blinds: tuple[int, int], hand_no: int = 1) -> str:  # fmt: skip
    """A no-limit hold'em hand as PHH text: no antes, the ``blinds`` posted by the first
    two players, ``stacks`` and ``actions`` (PHH's own strings) for ``players``."""
    n = len(stacks)
    sb, bb = blinds
    return "\n".join([
        "variant = 'NT'",
        "ante_trimming_status = true",
        f"antes = {[0] * n}",
        f"blinds_or_straddles = {[sb, bb] + [0] * (n - 2)}",
        f"min_bet = {bb}",
        f"starting_stacks = {stacks}",
        f"actions = {actions!r}",
        f"hand = {hand_no}",
        f"players = {players!r}",
    ]) + "\n"  # fmt: skip


def generated_hands(
    rng: random.Random, count: int, profile: Profile, players: int = 6
) -> list[DemoHand]:
    out: list[DemoHand] = []
    tries = 0
    while len(out) < count:
        tries += 1
        if tries > count * 20:
            raise BadInput("could not generate dealable hands")
        text = _generate_phh(rng, len(out) + 1, players)
        try:
            hh = parse_phh(text, f"generated-{len(out) + 1}")
            out.append(_demo_hand(f"generated #{len(out) + 1}", hh, profile, players))
        except BadInput:
            continue
    return out


def demo_hands(
    rng: random.Random, count: int, profile: Profile, source: str = "auto"
) -> tuple[str, list[DemoHand]]:
    """(where from, hands): ``source`` is auto, pluribus or generated."""
    if source == "pluribus" or (source == "auto" and PLURIBUS.is_dir()):
        return f"Pluribus hands from {PLURIBUS}", recorded_hands(rng, count, profile)
    return "generated hands (seeded random legal actions)", generated_hands(rng, count, profile)
