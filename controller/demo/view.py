"""The demo's live terminal view: plain lines, ANSI colours when the output is a terminal."""

from __future__ import annotations

import sys
from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from controller.demo.hands import DemoHand


class View:
    def __init__(self, out: TextIO | None = None, colour: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.colour = self.out.isatty() if colour is None else colour
        self.alerts: list[dict[str, Any]] = []
        self.by_code: Counter[str] = Counter()
        self._last: tuple[Any, ...] | None = None
        self.total = 0

    def _c(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def line(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def banner(self, text: str) -> None:
        self.line(self._c("1", text))

    def note(self, text: str) -> None:
        self.line("    " + self._c("33", text))

    def hand_start(self, index: int, hand: DemoHand) -> None:
        self._last = None
        self.line()
        self.line(self._c("1;36", f"== hand {index + 1}/{self.total or '?'}: {hand.label}"))
        names = dict(zip(hand.plan.seats, hand.hh.players or (), strict=False))
        for seat, stack in zip(hand.plan.seats, hand.plan.starting, strict=True):
            self.line(f"    seat {seat}  {names.get(seat, f'p{seat}'):<10} {stack:>7}")

    def state(self, s: dict[str, Any]) -> None:
        if not s.get("hand_no"):
            return
        key = (s.get("hand_no"), s.get("street"), tuple(s.get("board") or ()), s.get("to_act"),
               s.get("pot"))  # fmt: skip
        if key == self._last:
            return
        self._last = key
        board = " ".join(s.get("board") or ()) or "-"
        bets = " ".join(f"{x['seat']}:{x['bet']}" for x in s.get("seats", []) if x.get("bet"))
        to_act = s.get("to_act")
        turn = f"to act: seat {to_act}" if to_act else "no one to act"
        self.line(f"    {s.get('street', '?'):<8} board [{board}]  pot {s.get('pot', 0):>6}"
                  f"  {turn}" + (f"  bets {bets}" if bets else ""))  # fmt: skip

    def alert(self, a: dict[str, Any]) -> None:
        self.alerts.append(a)
        code = str(a.get("code", "?"))
        self.by_code[code] += 1
        seat = f" seat {a['seat']}" if a.get("seat") else ""
        self.line("    " + self._c("1;31", f"ALERT {code}{seat}: {a.get('remedy', '')}"))

    def result(self, hand: DemoHand, got: tuple[int, ...] | None, problem: str) -> None:
        if got is None:
            self.line("    " + self._c("1;31", f"FAILED: {problem}"))
            return
        stacks = " ".join(f"{s}:{v}" for s, v in zip(hand.plan.seats, got, strict=True))
        mark = self._c("32", "stacks match") if not problem else self._c("1;31", problem)
        self.line(f"    finishing stacks {stacks}  ({mark})")
