#!/usr/bin/env python3
"""The round trip of recorded hands into hand records a tracking tool reads (docs/replay.md).

    # the export of a venue logger fed by `railguard replay --broker ...`, against the sources
    .venv/bin/python scripts/phh_roundtrip.py check EXPORT_DIR ../shared/data/phh
    # the same chain without processes: each source dealt through the rules core, written
    # as OHH, exported as PHH
    .venv/bin/python scripts/phh_roundtrip.py core ../shared/data/phh

Each exported hand must load and play in pokerkit (no repair), with the source's deal and
actions (a flop's card order aside: the reader senses the three cards in one scan) and the
source's finishing stacks (a half chip the source splits goes by the table's odd-chip rule),
and its own ``finishing_stacks`` must be pokerkit's. Prints one line per failure and the
counts; exit 1 on any failure.
"""

from __future__ import annotations

import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from pokerkit import HandHistory as PkHistory

from controller.ohh import to_ohh
from controller.replay import compare_stacks, load_hand, replay_core
from controller.rules.profile import get_profile
from controller.venuelog.export import phh_text
from hwsim.phh import HandHistory, iter_phh_paths


def _norm(action: str) -> str:
    if action.startswith("d db "):
        cards = action[5:]
        return "d db " + "".join(sorted(cards[i : i + 2] for i in range(0, len(cards), 2)))
    return action


def _moves(actions: list[str] | tuple[str, ...]) -> list[str]:
    return [_norm(a) for a in actions if " sm" not in a and not a.startswith("#")]


def _same(got: list[str], want: list[str]) -> bool:
    """The same actions; hole cards the source does not know (``????``) are the ones the
    virtual dealer drew for them."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want, strict=True):
        if "????" in w:
            if g[: w.index("????")] != w[: w.index("????")]:
                return False
        elif g != w:
            return False
    return True


def _key(actions: list[str] | tuple[str, ...]) -> frozenset[str]:
    """A hand's known cards: its hole cards (those the source knows) and its board."""
    return frozenset(
        _norm(a) for a in actions if a.startswith(("d dh", "d db")) and "????" not in a
    )


def judge(text: str, hh: HandHistory) -> str:
    """'' if the exported hand ``text`` plays as its source ``hh``, else what is wrong."""
    try:
        exported = PkHistory.loads(text)
        states = list(exported)
    except Exception as exc:  # pokerkit refuses: the record is not a playable hand
        return f"pokerkit: {exc}"
    with open(hh.source, "rb") as f:
        source = PkHistory.load(f)
    if not _same(_moves(exported.actions), _moves(source.actions)):
        return "the actions differ from the source's"
    played = [int(x) for x in states[-1].stacks]
    ok, expected, _ = compare_stacks(hh, played, odd_chip=True)
    if not ok:
        return f"pokerkit ends {played}, the source {expected}"
    if exported.finishing_stacks is not None and list(exported.finishing_stacks) != played:
        return f"the record's finishing stacks {list(exported.finishing_stacks)} are not {played}"
    return ""


def _sources(paths: list[str]) -> list[HandHistory]:
    out = []
    for path in iter_phh_paths(paths):
        hh, _ = load_hand(path)
        if hh is not None:
            out.append(hh)
    return out


def core(paths: list[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    prof = get_profile("tda-2024")
    for hh in _sources(paths):
        rec, _ = replay_core(hh, prof)
        if rec is None:
            counts["not completed"] += 1
            continue
        ohh = to_ohh(rec, datetime.now(UTC), table_size=prof.max_seats)
        why = judge(phh_text(ohh), hh)
        counts["failed" if why else "passed"] += 1
        if why:
            print(f"{hh.source}: {why}")
    return counts


def check(export: str, paths: list[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    by_card: dict[str, list[tuple[frozenset[str], HandHistory]]] = {}
    left = 0
    for hh in _sources(paths):
        with open(hh.source, "rb") as f:
            key = _key(PkHistory.load(f).actions)
        for line in key:
            by_card.setdefault(line, []).append((key, hh))
        left += 1
    used: set[str] = set()
    for path in sorted(Path(export).glob("*.phh")):
        text = path.read_text(encoding="utf-8")
        try:
            cards = _key(PkHistory.loads(text).actions)
        except Exception as exc:
            counts["failed"] += 1
            print(f"{path}: pokerkit: {exc}")
            continue
        found = [
            hh for line in cards for key, hh in by_card.get(line, ())
            if key <= cards and hh.source not in used
        ]  # fmt: skip
        if not found:
            counts["unmatched"] += 1
            print(f"{path}: no source hand with these cards")
            continue
        hh = found[0]
        used.add(hh.source)
        left -= 1
        why = judge(text, hh)
        counts["failed" if why else "passed"] += 1
        if why:
            print(f"{path} ({hh.source}): {why}")
    if left:
        counts["sources without a record"] = left
    return counts


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "core":
        counts = core(argv[1:])
    elif len(argv) >= 3 and argv[0] == "check":
        counts = check(argv[1], argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(", ".join(f"{n} {what}" for what, n in sorted(counts.items())))
    bad = sum(n for what, n in counts.items() if what != "passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
