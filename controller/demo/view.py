"""The demo's live terminal view: plain lines, ANSI colours when the output is a terminal.

Everything it shows comes from what the venue sees: the daemon's redacted state messages
(each street as it is dealt, and each player's action, read from the change between two
states: a fold, a check, a call, a bet or a raise), its alerts, and at the end of a hand the
finishing stacks, from which the winner(s) and what each collected (the stack after the award
less the stack behind before it). A hand that ends with one player left is "won uncontested";
with two or more it went to a showdown.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from controller.demo.hands import DemoHand

#: what to try after the demo (printed at its end; docs/cli.md explains each)
NEXT_STEPS = (
    ("railguard scenario scenarios/tda-2024", "house rules as scenarios (docs/scenarios.md)"),
    ("railguard replay --core-only PATH.phh", "recorded hands through the rules core"),
    ("railguard replay PATH.phh", "the same through the whole system (docs/replay.md)"),
    ("railguard demo --error-rate 1", "a dealer error in every hand, and its remedy"),
    ("railguard --help", "every command; docs/cli.md describes the command line"),
)

_STREETS = ("preflop", "flop", "turn", "river")


@dataclass(frozen=True, slots=True)
class Action:
    """One player's action as read from two states: ``kind`` is fold, check, call, bet,
    raise or post (chips placed before anyone acts: blinds, antes); ``to`` is the street total."""

    seat: int
    kind: str
    to: int = 0
    all_in: bool = False

    def text(self, name: str) -> str:
        who = f"seat {self.seat} {name}"
        words = {"fold": "folds", "check": "checks", "call": f"calls {self.to}",
                 "bet": f"bets {self.to}", "raise": f"raises to {self.to}",
                 "post": f"posts {self.to}"}  # fmt: skip
        return f"{who:<16} {words[self.kind]}" + (" (all in)" if self.all_in else "")


def _seats(s: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {int(x["seat"]): x for x in s.get("seats", []) if isinstance(x, dict) and "seat" in x}


def actions_between(prev: dict[str, Any], cur: dict[str, Any]) -> list[Action]:
    """The actions that turn state ``prev`` into ``cur`` (the same hand and street)."""
    if prev.get("hand_no") != cur.get("hand_no"):
        return []
    before, after = _seats(prev), _seats(cur)
    high = max((int(x.get("bet") or 0) for x in before.values()), default=0)
    if prev.get("street") != cur.get("street") or cur.get("street") not in _STREETS:
        return _closing(before, after, high)
    acting = prev.get("to_act")
    out: list[Action] = []
    for seat in sorted(after):
        a, b = before.get(seat), after[seat]
        if a is None:
            continue
        if a.get("status") != "folded" and b.get("status") == "folded":
            out.append(Action(seat, "fold"))
            continue
        was, now = int(a.get("bet") or 0), int(b.get("bet") or 0)
        if now > was:
            all_in = int(b.get("stack") or 0) == 0
            if acting is None and cur.get("street") == "preflop":  # before anyone acts
                out.append(Action(seat, "post", now, all_in))
            elif now <= high:
                out.append(Action(seat, "call", now, all_in))
            else:
                out.append(Action(seat, "bet" if high == 0 else "raise", now, all_in))
                high = now
        elif seat == acting and cur.get("to_act") != seat and now == was and now >= high:
            out.append(Action(seat, "check"))
    return out


def _closing(
    before: dict[int, dict[str, Any]], after: dict[int, dict[str, Any]], high: int
) -> list[Action]:
    """The actions that closed a street, seen only in the next street's state (the bets are
    swept by then): a fold, or the call of a player who was short of the high bet and is
    still in (or gone: all in and busted at the showdown)."""
    out = []
    for seat in sorted(before):
        a, b = before[seat], after.get(seat)
        if a.get("status") not in ("active", "all_in"):
            continue
        if b is not None and b.get("status") == "folded":
            out.append(Action(seat, "fold"))
            continue
        bet, behind = int(a.get("bet") or 0), int(a.get("stack") or 0)
        if bet < high and behind > 0:
            out.append(Action(seat, "call", min(high, bet + behind), bet + behind <= high))
    return out


class View:
    def __init__(self, out: TextIO | None = None, colour: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.colour = self.out.isatty() if colour is None else colour
        self.alerts: list[dict[str, Any]] = []
        self.by_code: Counter[str] = Counter()
        self.alarms: Counter[str] = Counter()  # the alerts above info, by code
        self.total = 0
        self._prev: dict[str, Any] | None = None  # the last state of this hand
        self._before_award: dict[str, Any] | None = None  # the last state with chips in the pot
        self._behind: dict[int, int] = {}  # each seat's stack behind just before the award
        self._street: tuple[Any, ...] | None = None
        self._names: dict[int, str] = {}
        self.actions: list[Action] = []  # this hand's, as shown
        self._on_street: list[Action] = []  # this street's

    def _c(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def line(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def banner(self, text: str) -> None:
        self.line(self._c("1", text))

    def note(self, text: str) -> None:
        self.line("    " + self._c("33", text))

    def hand_start(self, index: int, hand: DemoHand) -> None:
        self._prev = self._before_award = None
        self._behind = {}
        self._street = None
        self.actions = []
        self._on_street = []
        self.line()
        self.line(self._c("1;36", f"== hand {index + 1}/{self.total or '?'}: {hand.label}"))
        names = dict(zip(hand.plan.seats, hand.hh.players or (), strict=False))
        self._names = {s: str(names.get(s, f"p{s}")) for s in hand.plan.seats}
        for seat, stack in zip(hand.plan.seats, hand.plan.starting, strict=True):
            self.line(f"    seat {seat}  {self._names[seat]:<10} {stack:>7}")

    def state(self, s: dict[str, Any]) -> None:
        if not s.get("hand_no") or s.get("street") not in (*_STREETS, "showdown"):
            return  # between hands (idle): nothing to show
        prev = self._prev
        if prev is not None and prev.get("hand_no") != s.get("hand_no"):
            prev = None
        self._prev = s
        if int(s.get("pot") or 0) > 0 or any(x.get("bet") for x in _seats(s).values()):
            self._before_award = s
            self._behind = {seat: int(x.get("stack") or 0) for seat, x in _seats(s).items()}
        street = s.get("street")
        acts: list[Action] = []
        if prev is not None:
            acts = actions_between(prev, s)
        elif street == "preflop":  # the blinds and antes already in when the view first hears
            acts = [Action(seat, "post", int(x["bet"])) for seat, x in sorted(_seats(s).items())
                    if x.get("bet")]  # fmt: skip
        if prev is not None and prev.get("street") != street:
            acts = self._checked_through(prev) + acts
            bets = {seat: int(x.get("bet") or 0) for seat, x in _seats(prev).items()}
            for act in acts:  # a call seen only now: its chips left the stack behind
                if act.kind == "call" and act.seat in self._behind:
                    self._behind[act.seat] -= act.to - bets.get(act.seat, 0)
        for act in acts:
            self.actions.append(act)
            self._on_street.append(act)
            self.line("      " + act.text(self._names.get(act.seat, f"p{act.seat}")))
        if prev is not None and prev.get("street") != street:
            self._on_street = []
        if street == "showdown":
            return  # said with the result: a showdown, or won uncontested
        board = tuple(s.get("board") or ())
        key = (s.get("hand_no"), street)
        if key != self._street and (street == "preflop" or len(board) >= 3):
            self._street = key
            shown = " ".join(board) or "-"
            self.line(self._c("1", f"    {street:<8}") + f" board [{shown}]  pot {s.get('pot', 0)}")

    def _checked_through(self, last: dict[str, Any]) -> list[Action]:
        """A street that ended with no bet: every player still in who was not seen to act
        checked (a check moves no chip; the daemon may not have said whose turn it was)."""
        if last.get("street") not in _STREETS[1:]:
            return []
        if any(a.kind in ("bet", "raise", "call") for a in self._on_street):
            return []
        seen = {a.seat for a in self._on_street}
        seats = _seats(last)
        button = int(last.get("button") or 0)
        order = sorted(seats, key=lambda seat: (seat <= button, seat))  # left of the button first
        return [
            Action(seat, "check")
            for seat in order
            if seat not in seen
            and seats[seat].get("status") != "folded"
            and int(seats[seat].get("stack") or 0) > 0
        ]

    def alert(self, a: dict[str, Any]) -> None:
        self.alerts.append(a)
        code = str(a.get("code", "?"))
        self.by_code[code] += 1
        if str(a.get("severity", "info")) != "info":
            self.alarms[code] += 1
        seat = f" seat {a['seat']}" if a.get("seat") else ""
        self.line("    " + self._c("1;31", f"ALERT {code}{seat}: {a.get('remedy', '')}"))

    def winners(self, hand: DemoHand, got: tuple[int, ...]) -> tuple[str, list[tuple[int, int]]]:
        """("showdown" or "won uncontested", [(seat, chips collected)]) of the hand that
        ended with finishing stacks ``got``, against the last state before the award."""
        last = _seats(self._before_award or {})
        final = _seats(self._prev or {})  # the folds up to the end (a busted seat is gone)
        playing = ("active", "all_in")
        in_hand = [
            s
            for s, x in last.items()
            if x.get("status") in playing and final.get(s, x).get("status") in playing
        ]
        how = "won uncontested" if len(in_hand) <= 1 else "showdown"
        won = []
        for seat, end in zip(hand.plan.seats, got, strict=True):
            behind = self._behind.get(seat)
            if behind is not None and end > behind:
                won.append((seat, end - behind))
        return how, won

    def result(self, hand: DemoHand, got: tuple[int, ...] | None, problem: str) -> None:
        if got is None:
            self.line("    " + self._c("1;31", f"FAILED: {problem}"))
            return
        how, won = self.winners(hand, got)
        if won:
            who = ", ".join(f"seat {s} {self._names.get(s, f'p{s}')} wins {n}" for s, n in won)
            self.line("    " + self._c("1;32", f"{how}: {who}"))
        stacks = " ".join(f"{s}:{v}" for s, v in zip(hand.plan.seats, got, strict=True))
        mark = self._c("32", "stacks match") if not problem else self._c("1;31", problem)
        self.line(f"    finishing stacks {stacks}  ({mark})")

    def next_steps(self) -> None:
        """What to try after the demo."""
        self.line()
        self.banner("try next")
        width = max(len(cmd) for cmd, _ in NEXT_STEPS)
        for cmd, what in NEXT_STEPS:
            self.line(f"  {cmd:<{width}}  {what}")
