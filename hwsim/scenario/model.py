"""The parsed form of a scenario: actions (what happens at the table) and expectations (what
the controller must conclude), each with the line it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from controller.rules.errors import BadInput
from controller.rules.events import ConsoleButton

ZONES = ("hole", "board", "burn", "muck")


class ScenarioError(BadInput):
    """A malformed scenario file: the message names the file, the line and the problem."""

    def __init__(self, path: str | Path, line: int, problem: str) -> None:
        self.path, self.line, self.problem = str(path), line, problem
        super().__init__(f"{path}:{line}: {problem}")


@dataclass(frozen=True, slots=True)
class CardRef:
    """A physical card: ``card`` text ("As", "Jk") in ``deck`` ("A" the main deck, "B" a
    second registered deck), or an unregistered tag (``tag`` hex, ``card`` empty)."""

    card: str = ""
    deck: str = "A"
    tag: str = ""

    def __str__(self) -> str:
        if self.tag:
            return f"tag:{self.tag}"
        return self.card if self.deck == "A" else f"{self.deck}:{self.card}"


@dataclass(frozen=True, slots=True)
class Action:
    """One thing that happens at the table. ``verb`` is the first word of the line; the
    fields used depend on it (see docs/scenarios.md)."""

    line: int
    verb: str
    seat: int = 0
    amount: int = 0
    numbers: tuple[int, ...] = ()  # level (SB, BB, ante), chips, move's target seat
    cards: tuple[CardRef, ...] = ()
    zone: str = ""  # hole, board, burn, muck
    together: bool = False
    button: ConsoleButton | None = None
    long: bool = False
    text: str = ""  # player name, badge id, fault name, profile name
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Expect:
    """One conclusion the controller must reach at the step it follows."""

    line: int
    what: str  # alert, no-alert, instruction, no-instruction, remedy, button, sb, bb, to-act,
    #            pot, pots, pot-winners, stack, phase, street, winners, eliminated, hand,
    #            reader, refused
    code: str = ""
    severity: str = ""  # alert: its severity; no-alert: "above" this one
    seat: int | None = None
    value: int | None = None
    values: tuple[int, ...] = ()
    text: str = ""
    card: str = ""  # alert: the card it names (the daemon's side; scrubbed on MQTT)
    within: int = 1  # alert: at this step or one of the within-1 steps before it
    pots: tuple[tuple[int, tuple[int, ...]], ...] = ()  # pots: (amount, eligible seats)
    xfail: str = ""  # a known failure of the controller: the reason (see docs/scenarios.md)

    def describe(self) -> str:
        parts = [self.what]
        if self.code:
            parts.append(self.code)
        if self.severity:
            parts.append(f"{'above' if self.what == 'no-alert' else 'severity'} {self.severity}")
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        if self.card:
            parts.append(f"card {self.card}")
        if self.within > 1:
            parts.append(f"within {self.within} steps")
        parts += [f"{a}:{','.join(map(str, s))}" for a, s in self.pots]
        if self.value is not None:
            parts.append(str(self.value))
        parts += [str(v) for v in self.values]
        if self.text:
            parts.append(repr(self.text))
        return "expect " + " ".join(parts)


@dataclass(slots=True)
class Step:
    """An action and the expectations written after it (before the next action)."""

    action: Action
    expects: list[Expect] = field(default_factory=list)


@dataclass(slots=True)
class Scenario:
    path: str
    profile: str = ""
    title: str = ""
    steps: list[Step] = field(default_factory=list)
    setup: list[Expect] = field(default_factory=list)  # expectations before any action
    clauses: list[str] = field(default_factory=list)  # inventory rows whose ruling it asserts

    @property
    def name(self) -> str:
        return Path(self.path).stem

    def cards_used(self) -> set[CardRef]:
        return {c for s in self.steps for c in s.action.cards}
