"""House-rule profiles: one venue's remedies as data.

A profile is a TOML file a venue copies and edits. :func:`load_profile` validates it and
names the bad key in the error. The packaged profiles live in ``controller/rules/profiles``.
Every setting cites where it comes from in the TOML file itself.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any, get_type_hints

from controller.rules.errors import ConfigError


class ButtonRule(Enum):
    DEAD = "dead"  # TDA 32: BB advances one player; SB and button follow, even to empty seats
    DEAD_003 = "dead-003"  # 003: SB eliminated -> button stays; BB eliminated -> no SB
    # 004 TG-22: as DEAD, but the button stays in front of the same player rather than go
    # to an empty seat ("the button may stay in front of the same player for two hands")
    DEAD_KEEP_PLAYER = "dead-keep-player"


class DrawRule(Enum):
    HIGH_CARD = "high-card"  # highest rank, suits spades > hearts > diamonds > clubs (G4)
    FIRST_ACE = "first-ace"  # deal round the table until the first ace (003, G7)


class NewPlayerWait(Enum):
    SB_TO_BUTTON = "sb-to-button"  # TDA / 002: not dealt in between the SB and the button
    BB_TO_BUTTON = "bb-to-button"  # 000 / Robert's: not between the BB and the button
    SB_OR_BUTTON_SEAT = "sb-or-button-seat"  # 004: at once, unless in the SB or button seat
    NONE = "none"  # dealt in at once


class MisdealWindow(Enum):
    TWO_AFTER_BLINDS = "two-after-blinds"  # 000: two players after the blinds have acted
    SUBSTANTIAL_ACTION = "substantial-action"  # 002 / TDA 36: 2 actions with chips, or any 3
    TWO_PLAYERS_ACT = "two-players-act"  # 003: before two players act
    UNTIL_FLOP = "until-flop"  # 004 states no cutoff: open until the flop


class ExposedMisdeal(Enum):
    FIRST_OR_SECOND = "first-or-second"  # 000: 1st or 2nd card exposed
    FIRST = "first"  # 004 / Robert's: only the first card
    FIRST_TWO_BOTH = "first-two-both"  # 002 a): more than one of the first two cards
    ANY = "any"  # 003: any hole card exposed by dealer error


class SequenceRule(Enum):
    MISDEAL = "misdeal"  # 000-S3-misdeal-1f
    WARN = "warn"  # 003: order described, no remedy stated
    NOTE = "note"  # 004: silent (no misdeal for it): a note for the dealer (info)


class ExtraCardRule(Enum):
    FIRST_PLAYER_BURN = "first-player-burn"  # 000 Irreg 2, 004 AR-5a: becomes the flop burn
    MISDEAL = "misdeal"  # 003 / TDA: any wrong count is a misdeal


class WrongCountAfterWindow(Enum):
    DEAD_HAND = "dead-hand"  # 000-S3-dead-1b, 003 count-b: that hand is dead, no refund


class FourCardFlop(Enum):
    RESHUFFLE = "reshuffle"  # 000 / 003 / 004: board into the stub, burn stays, no new burn
    FOURTH_IS_BURN = "fourth-is-burn"  # 002 / TDA 39-A: known order -> 4th is the burn, else draw


class PrematureTurn(Enum):
    WOULD_BE_RIVER = "would-be-river"  # 000 irreg-13, 004 AR-4, Robert's
    RESHUFFLE_NO_BURN = "reshuffle-no-burn"  # 002 / 003 / TDA: reshuffle, new card, no burn


class WrongFirstSeat(Enum):
    MISDEAL = "misdeal"  # 000 MISDEALS bullet 8 [L115], 002 Misdeals c), TDA 35-A
    FLOOR = "floor"  # 003 names no remedy: the floor decides (floor.py)
    NOTE = "note"  # 004 is silent: no misdeal, no hold; a note (info), dealt on from there


class EntitlementError(Enum):
    """A card to a seat not entitled to a hand (a new player waiting for the button), or an
    entitled seat (an absent player) dealt out."""

    MISDEAL = "misdeal"  # 000 MISDEALS bullets 9-10 [L116-117], 002 Misdeals d)-e)
    FLOOR = "floor"  # 004 TG-3/9/23 [L91, L103, L131] entitle, AR Misdeals name no remedy


class ForeignCard(Enum):
    VOID = "void"  # 000 IRREGULARITIES 4 [L136]: all action void, chips returned
    FLOOR = "floor"  # 003 names no foreign-card rule (the joker only): the floor decides


class BurnError(Enum):
    CORRECT_BEFORE_ACTION = "correct-before-action"  # 000 irreg-12a: then the board stands
    CORRECT = "correct"  # 004 AR-16: corrected if at all possible
    RESHUFFLE_STREET = "reshuffle-street"  # 003: the street's board cards are reshuffled


class JokerRule(Enum):
    REPLACE_AFTER_DEAL = "replace-after-deal"  # 003 joker-a
    MISDEAL = "misdeal"  # TDA 35-A: non-standard card before substantial action


class InterruptedHand(Enum):
    MISDEAL = "misdeal"  # railguard: a hand cut by a controller restart is re-dealt (G1)
    RESUME = "resume"  # the stored events are replayed and the hand plays on


class AnteStyle(Enum):
    BIG_BLIND = "big-blind"  # the big blind posts the table's ante (BBA)
    EACH = "each"  # every dealt-in player antes


class OutOfTurnRule(Enum):
    """Chips (or a call) out of turn, judged when the turn reaches the seat (wagers.py)."""

    BINDING_IF_UNCHANGED = "binding-if-unchanged"  # 002 [L129], TDA: stands unless it changed
    CHECK_OR_CALL = "check-or-call"  # 000 [L156]-[L158]: a bet is a check, a raise a call
    FLOOR = "floor-decides"  # 003 [L61]: "may be binding"; the floor rules (ACK: it stands)
    TAKE_BACK = "take-back"  # 004 AR-13: taken back at once, unless the next seat acted


class AnteOrder(Enum):
    """A big blind who cannot cover both the blind and the big blind ante posts ..."""

    BLIND_FIRST = "blind-first"  # the blind, then what is left as the ante (TDA 2024, G10)
    ANTE_FIRST = "ante-first"  # the ante, then what is left as the blind (the older practice)


class MuckedHand(Enum):
    # 000 DEAD HANDS 2. [L126]: the director may retrieve a clearly identifiable hand
    RETRIEVABLE = "retrievable"
    # 002 Accidentally Killed / Fouled Hands [L169]: no redress; an uncalled bet is returned
    NO_REDRESS = "no-redress"


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str
    rulebook: str
    max_seats: int = 10
    button_rule: ButtonRule = ButtonRule.DEAD
    draw_rule: DrawRule = DrawRule.HIGH_CARD
    new_player_wait: NewPlayerWait = NewPlayerWait.SB_TO_BUTTON
    misdeal_window: MisdealWindow = MisdealWindow.SUBSTANTIAL_ACTION
    exposed_misdeal: ExposedMisdeal = ExposedMisdeal.FIRST_OR_SECOND
    exposed_misdeal_count: int = 2  # this many exposed hole cards in one deal is a misdeal
    boxed_misdeal_count: int = 2
    boxed_counts_with_exposed: bool = False  # 002 b): "two or more exposed or boxed"
    out_of_sequence: SequenceRule = SequenceRule.MISDEAL
    wrong_first_seat: WrongFirstSeat = WrongFirstSeat.MISDEAL
    foreign_card: ForeignCard = ForeignCard.VOID
    entitlement_error: EntitlementError = EntitlementError.MISDEAL
    button_two_consecutive: bool = False  # 002 / TDA: the button may get two in a row
    extra_card: ExtraCardRule = ExtraCardRule.MISDEAL
    four_card_flop: FourCardFlop = FourCardFlop.RESHUFFLE
    premature_turn: PrematureTurn = PrematureTurn.RESHUFFLE_NO_BURN
    burn_error: BurnError = BurnError.CORRECT_BEFORE_ACTION
    sweep_before_burn: bool = False  # 003 SidePots-sweep
    raise_limit: int = 0  # raises per betting round (0 = unlimited); 004 AR-9: 3
    short_raise_completion: bool = False  # 002 Raises-2: >= 50% of a raise must be completed
    oversized_chip_is_call: bool = True  # 000-S3-bet-9, 002-Oversize-a
    multiple_chip_rule: bool = False  # 002-MultiChip-1
    rabbit_hunt_alert: bool = False  # 002-Rabbit-1, 003-Dealer-rabbit
    joker: JokerRule = JokerRule.MISDEAL
    ante_style: AnteStyle = AnteStyle.BIG_BLIND
    bb_ante_order: AnteOrder = AnteOrder.BLIND_FIRST  # G10: a short big blind's two posts
    # issue 22, the floor's level check: an ante of at most this many big blinds (no rulebook
    # asks for more; a recorded structure may: WSOP 2023 #43 posts 1.5 big blinds)
    max_ante_big_blinds: float = 1.0
    smallest_chip: int = 1  # split pots and odd chips are paid in this chip (002 [L63])
    # the showdown: a hand mucked without being tabled has no claim (000 [L166], 002 [L51],
    # 004 AR-6); the pot waits until every losing hand is killed (003 [L63])
    untabled_muck_relinquishes: bool = True
    # 004 AR-6: a seat that declared it plays the board keeps its claim when it throws its
    # cards away (the cards are read from the tags)
    declared_board_keeps_claim: bool = False
    kill_losers_before_award: bool = False
    # 000 [L167]: players hold their cards until the winner is declared: the best hand read
    # going to the muck untabled is a warning, not a note (its claim is gone, [L166], unless
    # the director retrieves it, [L126])
    hold_cards_until_winner: bool = False
    # 004 HE-10 [L31]: "every remaining player shows": any hand mucked unshown at the showdown
    # is HAND_NOT_TABLED (a note), not only the best one read
    every_hand_shows: bool = False
    clock_seconds: float = 60.0  # G8: the clock of 002 in every profile
    clock_countdown_seconds: float = 10.0
    heads_up_bb_first_card: bool = True  # 002 HeadsUp-3, product decision
    # 003 Opening Deal [L89]: pre-flop, with no raise, the big blind's option is open until
    # the dealer ACKs his check (or he raises); a burn, board or sweep does not check for him
    bb_option_ack: bool = False
    interrupted_hand: InterruptedHand = InterruptedHand.MISDEAL  # after a controller restart
    # wagers as players make them (issue 14, wagers.py; docs/rules.md "Wagers")
    out_of_turn: OutOfTurnRule = OutOfTurnRule.BINDING_IF_UNCHANGED
    string_bet_is_call: bool = True  # 000 [L159], 002 [L133] [L153], 003 [L59]
    declared_raise_motions: int = 0  # motions a declared raise may take (0: any number)
    short_call_stays_call: bool = False  # 000 [L162]: a call brought up may not become a raise
    chips_in_turn_stay: bool = False  # 002 [L125]: chips placed in turn stay in the pot
    nonstandard_fold_alert: bool = False  # 002 [L161]: a fold facing no bet is flagged
    # a folded hand brought to the floor (retrieve.py): retrieved at the director's word,
    # or (002) no redress, an uncalled bet returned
    mucked_hand: MuckedHand = MuckedHand.RETRIEVABLE

    @property
    def misdeal_on_exposed_first(self) -> bool:
        return self.exposed_misdeal is not ExposedMisdeal.FIRST_TWO_BOTH

    def __reduce__(self) -> tuple[type[Profile], tuple[Any, ...]]:
        """Copied and pickled as a call of the class with every field. The compiled core
        (mypyc, setup.py) makes Profile a native class, whose default pickling sets each
        attribute and so meets the frozen dataclass's ``__setattr__``; this way both builds
        copy it alike."""
        return (Profile, tuple(getattr(self, f.name) for f in fields(self)))


def _coerce(key: str, kind: Any, value: Any, source: str) -> Any:
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(value)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in kind)
            raise ConfigError(f"{source}: key {key!r}: {value!r} is not one of {allowed}") from None
    types: dict[str, type | tuple[type, ...]] = {
        "int": int,
        "float": (int, float),
        "bool": bool,
        "str": str,
    }
    want = types[kind]
    if isinstance(value, bool) and kind != "bool":
        raise ConfigError(f"{source}: key {key!r}: expected {kind}, got a boolean")
    if not isinstance(value, want):
        raise ConfigError(f"{source}: key {key!r}: expected {kind}, got {type(value).__name__}")
    if kind == "float" and isinstance(value, int | float):
        value = float(value)
    if kind in ("int", "float") and value < 0:
        raise ConfigError(f"{source}: key {key!r}: must not be negative")
    return value


def _field_types() -> dict[str, Any]:
    """Field name -> Enum class, or the name of the plain type ("int", "bool" ...)."""
    hints = get_type_hints(Profile)
    out: dict[str, Any] = {}
    for f in fields(Profile):
        t: type = hints[f.name]
        out[f.name] = t if issubclass(t, Enum) else t.__name__
    return out


def profile_from_dict(data: dict[str, Any], source: str = "<profile>") -> Profile:
    """Validate a parsed profile table; every error names the key."""
    types = _field_types()
    body = data.get("profile", data)
    if not isinstance(body, dict):
        raise ConfigError(f"{source}: [profile] must be a table")
    kwargs: dict[str, Any] = {}
    for key, value in body.items():
        if key == "notes":
            continue
        if key not in types:
            raise ConfigError(f"{source}: unknown key {key!r}")
        kwargs[key] = _coerce(key, types[key], value, source)
    for required in ("name", "title", "rulebook"):
        if required not in kwargs:
            raise ConfigError(f"{source}: missing key {required!r}")
    prof = Profile(**kwargs)
    if not 2 <= prof.max_seats <= 10:
        raise ConfigError(f"{source}: key 'max_seats': must be between 2 and 10")
    if prof.max_ante_big_blinds <= 0:
        raise ConfigError(f"{source}: key 'max_ante_big_blinds': must be above 0")
    if prof.smallest_chip < 1:
        raise ConfigError(f"{source}: key 'smallest_chip': must be at least 1")
    if prof.exposed_misdeal_count < 1 or prof.boxed_misdeal_count < 1:
        raise ConfigError(f"{source}: key 'exposed_misdeal_count': must be at least 1")
    return prof


def load_profile(path: str | Path) -> Profile:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read profile: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from exc
    return profile_from_dict(data, str(p))


def builtin_profile_names() -> list[str]:
    root = resources.files("controller.rules") / "profiles"
    return sorted(e.name[:-5] for e in root.iterdir() if e.name.endswith(".toml"))


def builtin_profile(name: str) -> Profile:
    """A packaged profile by name (``tda-2024``, ``roberts-rules``, ``a2c-000`` ...)."""
    if name not in builtin_profile_names():
        known = ", ".join(builtin_profile_names())
        raise ConfigError(f"unknown profile {name!r}; packaged profiles: {known}")
    res = resources.files("controller.rules") / "profiles" / f"{name}.toml"
    return profile_from_dict(tomllib.loads(res.read_text(encoding="utf-8")), f"{name}.toml")


def get_profile(name_or_path: str) -> Profile:
    """A packaged profile name, or the path of a venue's own TOML file."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return load_profile(name_or_path)
    return builtin_profile(name_or_path)
