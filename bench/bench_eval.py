"""Hand evaluation speed: ours (controller.rules.evaluate) against pokerkit, same run, same hands.

Usage: ``.venv/bin/python bench/bench_eval.py [--hands N] [--pokerkit-hands M] [--seed S]``.
Seven-card hands from a seeded RNG; card conversion is included on our side (it is part of the
API). Prints a table, and as its last line one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.evaluate import evaluate, score, winners


def _hands(n: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(STANDARD_DECK, 7)) for _ in range(n)]


def _rate(fn: Callable[[Sequence[Card]], object], hands: list[tuple[Card, ...]]) -> float:
    start = time.perf_counter()
    for hand in hands:
        fn(hand)
    return len(hands) / (time.perf_counter() - start)


def _best_of(repeats: int, fn: Callable[[], float]) -> float:
    return max(fn() for _ in range(repeats))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--pokerkit-hands", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)

    from pokerkit import StandardHighHand
    from pokerkit import utilities as pk_utilities

    hands = _hands(args.hands, args.seed)
    pk_cards = {c: next(iter(pk_utilities.Card.parse(str(c)))) for c in STANDARD_DECK}
    pk_hands = [[pk_cards[c] for c in h] for h in hands[: args.pokerkit_hands]]

    def pk_eval(h: Sequence[object]) -> object:
        return StandardHighHand.from_game(h[:2], h[2:])

    # Warm the memo of non-flush rank multisets first: a long-running replay has it warm.
    cold = _rate(evaluate, hands[: args.pokerkit_hands])
    full = _best_of(args.repeats, lambda: _rate(evaluate, hands))
    only = _best_of(args.repeats, lambda: _rate(score, hands))
    boards = [(h[2:], {1: h[:2], 2: tuple(hands[i - 1][:2])}) for i, h in enumerate(hands)]
    boards = [(b, s) for b, s in boards if not set(s[2]) & set(b) and not set(s[2]) & set(s[1])]

    def showdowns() -> float:
        start = time.perf_counter()
        for board, seats in boards:
            winners(seats, board)
        return 2 * len(boards) / (time.perf_counter() - start)

    duel = _best_of(args.repeats, showdowns)
    pk = _best_of(args.repeats, lambda: _rate(pk_eval, pk_hands))  # type: ignore[arg-type]

    from treys import Evaluator

    from controller.rules.evaluate import to_treys

    treys_eval = Evaluator()
    treys_hands = [[to_treys(c) for c in h] for h in hands]

    def treys_rate() -> float:
        start = time.perf_counter()
        for h in treys_hands:
            treys_eval.evaluate(h[:2], h[2:])
        return len(treys_hands) / (time.perf_counter() - start)

    tr = _best_of(args.repeats, treys_rate)

    rows = [
        ("evaluate() cold memo (first hands)", cold),
        ("evaluate() -> HandValue", full),
        ("score() only", only),
        ("winners(), 2 seats, per hand", duel),
        ("treys Evaluator (ints given, no best five)", tr),
        ("pokerkit StandardHighHand.from_game", pk),
    ]
    print(f"Python {platform.python_version()} on {platform.machine()}, best of {args.repeats}")
    for name, rate in rows:
        print(f"  {name:<40} {rate:>12,.0f} evals/s")
    print(f"  ratio evaluate()/pokerkit: {full / pk:.1f}x")
    print(json.dumps({
        "bench": "eval7",
        "hands": args.hands,
        "pokerkit_hands": args.pokerkit_hands,
        "seed": args.seed,
        "ours_evaluate_per_s": round(full),
        "ours_evaluate_cold_per_s": round(cold),
        "ours_score_per_s": round(only),
        "ours_winners_hands_per_s": round(duel),
        "treys_per_s": round(tr),
        "pokerkit_per_s": round(pk),
        "ratio_evaluate_vs_pokerkit": round(full / pk, 2),
        "ratio_score_vs_pokerkit": round(only / pk, 2),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
