"""The hole-card guard's first look at new secrets: what each hole card dealt costs the
next live message (controller/link/redact.py).

The live secrets (the hand's hole-card tags and cards) change with every card dealt, and the
guard checks every state, event and alert against them. Its regex of the secrets
(``_secret_pattern``) was compiled on the first message after each change; the matcher
(``_Secrets``) is built from the same secrets without a regex. For 1, 2, 6 and 18 secrets
(a heads-up deal's first card to a nine-handed deal's last), each row times the guard's
first check of a state payload under fresh secrets, through the regex as before and through
the matcher, and gives their ratio (both in this run; the same payload; the caches cleared
between rounds so that every check is a first look).

    .venv/bin/python bench/redact_secrets.py [--rounds 300]

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.link import redact
from controller.link.redact import HoleSecrets

CARDS = ("As", "Kd", "Qh", "Js", "Tc", "9d", "8h", "7s", "6c", "5d", "4h", "3s", "2c", "Ah",
         "Kc", "Qd", "Jh", "Ts")  # fmt: skip
STATE = {
    "street": "preflop", "board": [], "pot": 150, "button": 3, "to_act": 5,
    "seats": [{"seat": n, "stack": 1000 * n, "cards_held": 2, "status": "active",
               "name": f"player {n}"} for n in range(1, 10)],
    "remedy": "Seat 5 acts next",
}  # fmt: skip


def _regex(secrets: HoleSecrets) -> re.Pattern[str] | redact._Secrets | None:
    return redact._secret_pattern(secrets)


def _time(matcher: Callable[[HoleSecrets], object], k: int, rounds: int) -> float:
    """Seconds per first check of STATE under fresh secrets of ``k`` tags and cards."""
    count = itertools.count()
    saved = redact._matcher
    redact._matcher = matcher  # type: ignore[assignment]
    try:
        best = float("inf")
        for _ in range(3):
            fresh = []
            for _ in range(rounds):
                i = next(count)
                fresh.append(HoleSecrets(
                    frozenset(f"E0{i:06X}{j:02X}001122" for j in range(k)),
                    frozenset(CARDS[:k])))  # fmt: skip
            redact._secret_pattern.cache_clear()
            t0 = time.perf_counter()
            for s in fresh:
                redact.check_no_hole_cards(STATE, "state", s)
            best = min(best, (time.perf_counter() - t0) / rounds)
        return best
    finally:
        redact._matcher = saved


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300, help="fresh secrets per measurement")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    out: dict[str, object] = {"rounds": args.rounds}
    print(f"{'secrets':>8} {'regex µs':>10} {'matcher µs':>11} {'ratio':>7}", file=sys.stderr)
    for k in (1, 2, 6, 18):
        before = _time(_regex, k, args.rounds)
        after = _time(redact._Secrets.of, k, args.rounds)
        ratio = round(before / after, 1)
        out[f"k{k}"] = {"regex_us": round(before * 1e6, 1), "matcher_us": round(after * 1e6, 1),
                        "regex_vs_matcher": ratio}  # fmt: skip
        print(f"{k:>8} {before * 1e6:>10.1f} {after * 1e6:>11.1f} {ratio:>6.1f}×",
              file=sys.stderr)  # fmt: skip
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
