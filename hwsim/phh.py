"""PHH (Poker Hand History) files: parse, validate and type one hand per TOML file.

Specification: uoftcprg/phh-std, ``required.rst`` and ``optional.rst``. Only variant ``NT``
(no-limit Texas hold'em) is supported; any other variant raises :class:`UnsupportedVariant`.

Conventions of the format kept here:

- Players are listed by position: ``p1`` is the small blind, the last player the button.
  Heads-up, antes and blinds are reverse-assigned (see :meth:`HandHistory.blind_amounts`).
- ``player`` fields are 0-based indices into the player list (``p1`` -> 0).
- An unknown card (``??``) is ``None``. Board cards must be known.
- ``pN sm CARDS`` shows; ``pN sm -`` shows the cards dealt to pN earlier (spec, "Card
  notation"); ``pN sm`` with no argument mucks (``Show.cards == ()``).
- Amounts are ``int``; a non-integral one (``10112.5``) is an exact :class:`~fractions.Fraction`
  and :attr:`HandHistory.fractional_chips` flags the hand. An unknown (``inf``) starting stack
  is ``None``.

Every problem raises :class:`PhhError` (a :class:`~controller.rules.errors.BadInput`) whose
message reads ``FILE:LINE: problem``; the line is that of the offending action string or key.
Betting order and amounts are not checked against the rules of the game: that is a replay's job.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

from controller.rules.cards import RANKS, Card, Suit
from controller.rules.errors import BadInput

__all__ = [
    "Action", "Amount", "BetRaise", "CheckCall", "DealBoard", "DealHole", "Fold", "HandHistory",
    "PhhError", "Show", "UnsupportedVariant", "iter_phh_paths", "load_phh", "parse_phh",
]  # fmt: skip

Amount = int | Fraction


class PhhError(BadInput):
    """A malformed PHH file. ``path``, ``line`` (1-based, or None) and ``problem`` are kept."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


class UnsupportedVariant(PhhError):
    """A well-formed hand of a variant other than ``NT``."""


# -- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealHole:
    """``d dh pN CARDS``: hole cards to a player; ``None`` for each unknown card."""

    player: int
    cards: tuple[Card | None, ...]
    line: int = field(default=0, compare=False)
    comment: str | None = field(default=None, compare=False)

    @property
    def known(self) -> bool:
        return None not in self.cards


@dataclass(frozen=True, slots=True)
class DealBoard:
    """``d db CARDS``: community cards (the flop is three, the turn and river one each)."""

    cards: tuple[Card, ...]
    line: int = field(default=0, compare=False)
    comment: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Fold:
    """``pN f``."""

    player: int
    line: int = field(default=0, compare=False)
    comment: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CheckCall:
    """``pN cc``: check, or call the largest bet."""

    player: int
    line: int = field(default=0, compare=False)
    comment: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class BetRaise:
    """``pN cbr X``: bet or raise TO a total of X on this street."""

    player: int
    to_amount: Amount
    line: int = field(default=0, compare=False)
    comment: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Show:
    """``pN sm CARDS`` shows (``None`` = a card left face down); ``pN sm`` mucks: no cards."""

    player: int
    cards: tuple[Card | None, ...]
    line: int = field(default=0, compare=False)
    comment: str | None = field(default=None, compare=False)

    @property
    def mucked(self) -> bool:
        return not self.cards


Action = DealHole | DealBoard | Fold | CheckCall | BetRaise | Show


# -- the hand ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One parsed hand. Arrays are per player, in position order (``p1`` first)."""

    variant: str
    antes: tuple[Amount, ...]
    blinds_or_straddles: tuple[Amount, ...]
    min_bet: Amount
    starting_stacks: tuple[Amount | None, ...]
    actions: tuple[Action, ...]
    players: tuple[str, ...]
    ante_trimming_status: bool = False
    finishing_stacks: tuple[Amount, ...] | None = None
    winnings: tuple[Amount, ...] | None = None
    hand: int | str | None = None
    seats: tuple[int, ...] | None = None
    seat_count: int | None = None
    table: int | str | None = None
    currency: str | None = None
    event: str | None = None
    source: str = field(default="<string>", compare=False)
    metadata: Mapping[str, Any] = field(
        default_factory=lambda: MappingProxyType({}), compare=False, hash=False
    )
    """Every other key of the file (author, city, year, time...), read-only."""

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)

    def button_index(self) -> int:
        """0-based index of the button: the last player (heads-up too, who posts the SB)."""
        return self.player_count - 1

    def _effective(self, values: tuple[Amount, ...]) -> tuple[Amount, ...]:
        return values[::-1] if self.player_count == 2 else values

    def blind_amounts(self) -> tuple[Amount, ...]:
        """Blind or straddle each player posts; heads-up the array is reversed by rule."""
        return self._effective(self.blinds_or_straddles)

    def ante_amounts(self) -> tuple[Amount, ...]:
        """Ante each player posts; heads-up the array is reversed by rule."""
        return self._effective(self.antes)

    def hole_cards(self, player: int) -> tuple[Card | None, ...] | None:
        """Cards dealt to ``player`` (0-based), completed by what a show revealed."""
        dealt: tuple[Card | None, ...] | None = None
        for a in self.actions:
            if isinstance(a, DealHole) and a.player == player:
                dealt = a.cards
            elif isinstance(a, Show) and a.player == player and a.cards and None in (dealt or ()):
                dealt = tuple(
                    d if d is not None else s for d, s in zip(dealt or (), a.cards, strict=True)
                )
        return dealt

    def board(self) -> tuple[Card, ...]:
        """All community cards in the order dealt."""
        return tuple(c for a in self.actions if isinstance(a, DealBoard) for c in a.cards)

    @property
    def fractional_chips(self) -> bool:
        """True if any amount (stack, blind, bet, finishing stack...) is not a whole chip."""
        amounts: list[Amount | None] = [
            *self.antes, *self.blinds_or_straddles, self.min_bet, *self.starting_stacks,
            *(self.finishing_stacks or ()), *(self.winnings or ()),
            *(a.to_amount for a in self.actions if isinstance(a, BetRaise)),
        ]  # fmt: skip
        return any(isinstance(x, Fraction) for x in amounts)


# -- parsing ----------------------------------------------------------------------------------

_VARIANTS = {
    "FT": "fixed-limit Texas hold 'em", "NT": "no-limit Texas hold 'em",
    "NS": "no-limit short-deck hold 'em", "PO": "pot-limit Omaha hold 'em",
    "FO/8": "fixed-limit Omaha hold 'em high/low", "F7S": "fixed-limit seven card stud",
    "F7S/8": "fixed-limit seven card stud high/low", "FR": "fixed-limit razz",
    "N2L1D": "no-limit deuce-to-seven single draw",
    "F2L3D": "fixed-limit deuce-to-seven triple draw", "FB": "fixed-limit badugi",
}  # fmt: skip
_REQUIRED = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
_NOT_IN_NT = ("bring_in", "small_bet", "big_bet")
_PER_PLAYER = ("antes", "blinds_or_straddles", "players", "finishing_stacks", "seats",
               "winnings", "time_banks")  # fmt: skip
_TYPED = {"ante_trimming_status", "finishing_stacks", "winnings", "hand", "seats", "seat_count",
          "table", "currency", "event", "players", *_REQUIRED}  # fmt: skip

_CARD_BY_TEXT: dict[str, Card | None] = {"??": None}
for _r, _ch in enumerate(RANKS, start=2):
    for _s in Suit:
        _CARD_BY_TEXT[_ch + _s.letter] = Card(_r, _s)
_PLAYER_RE = re.compile(r"p([1-9][0-9]*)")
_AMOUNT_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?")


class _Ctx:
    """Source text and path, and the lazily found lines for error messages."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self._action_lines: list[int] | None = None

    def fail(self, line: int | None, problem: str) -> PhhError:
        return PhhError(self.source, line, problem)

    def key_line(self, key: str) -> int | None:
        m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", self.text, re.M)
        return self.text.count("\n", 0, m.start()) + 1 if m else None

    def action_line(self, index: int) -> int | None:
        if self._action_lines is None:
            self._action_lines = _element_lines(self.text, "actions")
        lines = self._action_lines
        return lines[index] if index < len(lines) else self.key_line("actions")


def _element_lines(text: str, key: str) -> list[int]:
    """1-based line where each element of the top-level array ``key = [...]`` starts."""
    m = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=[ \t]*\[", text, re.M)
    if not m:
        return []
    lines: list[int] = []
    i, depth, n = m.end(), 1, len(text)
    while i < n and depth:
        ch = text[i]
        if depth == 1 and ch not in " \t\r\n,#]":
            lines.append(text.count("\n", 0, i) + 1)  # an element starts here
        if ch == "#":
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                j += 2 if ch == '"' and text[j] == "\\" else 1
            i = j + len(quote)
            continue
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif depth == 1 and ch not in " \t\r\n,":  # a bare value (number, bool): skip it
            while i + 1 < n and text[i + 1] not in " \t\r\n,#]":
                i += 1
        i += 1
    return lines


def _amount(ctx: _Ctx, key: str, value: object, *, positive: bool = False) -> Amount:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ctx.fail(ctx.key_line(key), f"{key}: expected a number, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ctx.fail(ctx.key_line(key), f"{key}: {value} is not a finite amount")
        value = int(value) if value.is_integer() else Fraction(repr(value))
    if value < 0 or (positive and value == 0):
        need = "positive" if positive else "non-negative"
        raise ctx.fail(ctx.key_line(key), f"{key}: negative amount {value}" if value < 0
                       else f"{key}: amount must be {need}, got {value}")  # fmt: skip
    return value


def _array(ctx: _Ctx, data: Mapping[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise ctx.fail(ctx.key_line(key), f"{key}: expected an array, got {value!r}")
    return value


def _amounts(ctx: _Ctx, data: Mapping[str, Any], key: str) -> tuple[Amount, ...]:
    return tuple(_amount(ctx, key, v) for v in _array(ctx, data, key))


def _cards(ctx: _Ctx, line: int | None, text: str) -> tuple[Card | None, ...]:
    if len(text) % 2:
        raise ctx.fail(line, f"bad card(s) {text!r}: odd number of characters")
    out: list[Card | None] = []
    for i in range(0, len(text), 2):
        pair = text[i : i + 2]
        if pair not in _CARD_BY_TEXT:
            raise ctx.fail(
                line, f"bad card {pair!r} in {text!r} (expected like 'As', 'Td' or '??')"
            )
        out.append(_CARD_BY_TEXT[pair])
    return tuple(out)


def _optional_scalar(ctx: _Ctx, data: Mapping[str, Any], key: str, types: tuple[type, ...]) -> Any:
    value = data.get(key)
    if value is not None and (
        (isinstance(value, bool) and bool not in types) or not isinstance(value, types)
    ):
        names = " or ".join(t.__name__ for t in types)
        raise ctx.fail(ctx.key_line(key), f"{key}: expected {names}, got {value!r}")
    return value


def parse_phh(text: str, source: str = "<string>") -> HandHistory:
    """Parse the TOML text of one PHH hand; ``source`` names it in error messages."""
    ctx = _Ctx(text, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise ctx.fail(int(m.group(1)) if m else None, f"not valid TOML: {exc}") from None
    if "variant" not in data:
        raise ctx.fail(None, "missing required key 'variant'")
    variant = data["variant"]
    if variant != "NT":
        name = _VARIANTS.get(variant, "unknown variant") if isinstance(variant, str) else "not text"
        raise UnsupportedVariant(
            source, ctx.key_line("variant"),
            f"variant {variant!r} ({name}) is not supported: only 'NT' (no-limit Texas hold 'em)",
        )  # fmt: skip
    for key in _REQUIRED:
        if key not in data:
            raise ctx.fail(None, f"missing required key {key!r}")
    for key in _NOT_IN_NT:
        if key in data:
            raise ctx.fail(
                ctx.key_line(key), f"{key!r} belongs to fixed-limit or stud games, not NT"
            )

    stacks_raw = _array(ctx, data, "starting_stacks")
    n = len(stacks_raw)
    if n < 2:
        raise ctx.fail(ctx.key_line("starting_stacks"), f"starting_stacks: {n} player(s), need 2+")
    for key in _PER_PLAYER:
        if key in data and len(_array(ctx, data, key)) != n:
            raise ctx.fail(ctx.key_line(key), f"{key}: {len(data[key])} entries for {n} players "
                           "(starting_stacks sets the player count)")  # fmt: skip
    stacks = tuple(
        None
        if isinstance(v, float) and v == math.inf
        else _amount(ctx, "starting_stacks", v, positive=True)
        for v in stacks_raw
    )
    players = tuple(_array(ctx, data, "players")) if "players" in data else ("",) * n
    if not all(isinstance(p, str) for p in players):
        raise ctx.fail(ctx.key_line("players"), "players: expected an array of strings")
    seats = tuple(_array(ctx, data, "seats")) if "seats" in data else None
    if seats is not None and not all(
        isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in seats
    ):
        raise ctx.fail(ctx.key_line("seats"), "seats: expected positive integers")
    if seats is not None and len(set(seats)) != n:
        raise ctx.fail(ctx.key_line("seats"), f"seats: duplicate seat numbers {list(seats)}")
    trimming = _optional_scalar(ctx, data, "ante_trimming_status", (bool,))
    return HandHistory(
        variant=variant,
        antes=_amounts(ctx, data, "antes"),
        blinds_or_straddles=_amounts(ctx, data, "blinds_or_straddles"),
        min_bet=_amount(ctx, "min_bet", data["min_bet"], positive=True),
        starting_stacks=stacks,
        actions=_actions(ctx, _array(ctx, data, "actions"), n),
        players=players,
        ante_trimming_status=bool(trimming),
        finishing_stacks=_amounts(ctx, data, "finishing_stacks")
        if "finishing_stacks" in data
        else None,
        winnings=_amounts(ctx, data, "winnings") if "winnings" in data else None,
        hand=_optional_scalar(ctx, data, "hand", (int, str)),
        seats=seats,
        seat_count=_optional_scalar(ctx, data, "seat_count", (int,)),
        table=_optional_scalar(ctx, data, "table", (int, str)),
        currency=_optional_scalar(ctx, data, "currency", (str,)),
        event=_optional_scalar(ctx, data, "event", (str,)),
        source=source,
        metadata=MappingProxyType({k: v for k, v in data.items() if k not in _TYPED}),
    )


def _actions(ctx: _Ctx, raw: list[Any], n: int) -> tuple[Action, ...]:
    out: list[Action] = []
    dealt: dict[int, tuple[Card | None, ...]] = {}
    seen: dict[Card, int] = {}  # known card -> index of the action that dealt it
    folded: set[int] = set()
    board = 0
    for index, entry in enumerate(raw):
        if not isinstance(entry, str):
            raise ctx.fail(
                ctx.action_line(index), f"action #{index + 1}: expected a string, got {entry!r}"
            )
        body, _, comment_text = entry.partition("#")
        comment = comment_text.strip() or None
        words = body.split()
        if not words:
            continue  # a no-op: empty or a standalone commentary
        line = ctx.action_line(index)

        def bad(problem: str, line: int | None = line, entry: str = entry) -> PhhError:
            return ctx.fail(line, f"action {entry.strip()!r}: {problem}")

        actor, code, args = words[0], words[1] if len(words) > 1 else "", words[2:]
        if actor == "d":
            if code == "dh" and len(args) == 2:
                player = _player(args[0], n, bad)
                cards = _cards(ctx, line, args[1])
                if len(cards) != 2:
                    raise bad(f"NT deals 2 hole cards, got {len(cards)}")
                if player in dealt:
                    raise bad(f"p{player + 1} already has hole cards")
                dealt[player] = cards
                action: Action = DealHole(player, cards, line or 0, comment)
            elif code == "db" and len(args) == 1:
                cards = _cards(ctx, line, args[0])
                if None in cards:
                    raise bad("unknown board cards are not supported")
                board += len(cards)
                if board > 5:
                    raise bad(f"{board} board cards: hold 'em has 5")
                action = DealBoard(tuple(c for c in cards if c is not None), line or 0, comment)
            elif code in ("dh", "db"):
                raise bad(f"'d {code}' takes {'a player and cards' if code == 'dh' else 'cards'}")
            else:
                raise bad(f"unknown dealer action {code!r} (expected 'dh' or 'db')")
            for card in cards:
                if card is not None:
                    if card in seen:
                        raise bad(f"card {card} dealt twice (first in action #{seen[card] + 1})")
                    seen[card] = index
        elif _PLAYER_RE.fullmatch(actor):
            player = _player(actor, n, bad)
            if player in folded:
                raise bad(f"p{player + 1} acts after folding")
            if code in ("f", "cc") and not args:
                action = (
                    Fold(player, line or 0, comment)
                    if code == "f"
                    else CheckCall(player, line or 0, comment)
                )
                if code == "f":
                    folded.add(player)
            elif code == "cbr" and len(args) == 1:
                if args[0].startswith("-"):
                    raise bad(f"negative amount {args[0]}")
                if not _AMOUNT_RE.fullmatch(args[0]):
                    raise bad(f"amount {args[0]!r} is not a number")
                amount = Fraction(args[0])
                if amount == 0:
                    raise bad("bet/raise to 0: the amount must be positive")
                to: Amount = int(amount) if amount.denominator == 1 else amount
                action = BetRaise(player, to, line or 0, comment)
            elif code == "sm" and len(args) <= 1:
                action = Show(
                    player, _shown(ctx, line, args, dealt.get(player), bad), line or 0, comment
                )
            elif code in ("f", "cc", "cbr", "sm"):
                raise bad(f"wrong number of arguments for {code!r}")
            elif code in ("sd", "pb"):
                raise bad(
                    f"{code!r} ({'discard' if code == 'sd' else 'bring-in'}) is not an NT action"
                )
            else:
                raise bad(f"unknown action {code!r} (expected f, cc, cbr or sm)")
        else:
            raise bad(f"unknown actor {actor!r} (expected 'd' or p1..p{n})")
        out.append(action)
    return tuple(out)


def _player(text: str, n: int, bad: Any) -> int:
    m = _PLAYER_RE.fullmatch(text)
    if not m:
        raise bad(f"expected a player like p1..p{n}, got {text!r}")
    number = int(m.group(1))
    if not 1 <= number <= n:
        raise bad(f"player index {text} out of range (p1..p{n})")
    return number - 1


def _shown(
    ctx: _Ctx, line: int | None, args: list[str], dealt: tuple[Card | None, ...] | None, bad: Any
) -> tuple[Card | None, ...]:
    if not args:
        return ()  # mucked
    if args[0] == "-":
        if dealt is None:
            raise bad("'sm -' shows dealt cards, but none were dealt to this player")
        return dealt
    cards = _cards(ctx, line, args[0])
    if len(cards) != 2:
        raise bad(f"NT shows 2 hole cards, got {len(cards)}")
    if dealt is not None:
        for d, s in zip(dealt, cards, strict=True):
            if d is not None and s is not None and d != s:
                raise bad(f"shows {args[0]} but was dealt {''.join(str(c or '??') for c in dealt)}")
    return cards


def load_phh(path: str | os.PathLike[str]) -> HandHistory:
    """Read and parse one ``.phh`` file."""
    name = os.fspath(path)
    try:
        raw = Path(name).read_bytes()
    except OSError as exc:
        raise PhhError(name, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise PhhError(name, line, f"not UTF-8 text (byte {exc.start})") from None
    return parse_phh(text, name)


def _natural_key(path: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.as_posix())]


def iter_phh_paths(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Files as given, folders expanded to their ``*.phh`` files (recursively, natural order:
    ``2.phh`` before ``10.phh``, ``100/`` before ``100b/``)."""
    for item in paths:
        path = Path(item)
        if path.is_dir():
            yield from sorted((p for p in path.rglob("*.phh") if p.is_file()), key=_natural_key)
        elif path.is_file():
            yield path
        else:
            raise PhhError(os.fspath(path), None, "no such file or folder")
