"""The hole-card guard: live payloads (state, events, alerts) never carry card identities.

Hole cards leave the table only inside completed hand records. :func:`redact_state` builds
the state payload from what the rules core hands over and refuses (raises
:class:`RedactionError`) if anything in it could identify a hole card: a card outside the
board, a key that names hole cards, or an RFID tag id (which the deck registry maps to a card).

The guard is structural, and it knows the secrets: the caller passes :class:`HoleSecrets`,
the tag UIDs of the live hand's hole cards and the cards they carry (the daemon reads them
from the rules core at each publication). A payload naming one of them anywhere (free text
included: an alert's remedy, an instruction) is refused, as is a card-shaped value outside the
board. Venue-supplied text the table only echoes back (a player's name or id, who
acknowledged an alert; :data:`VENUE_TEXT_KEYS`) is not read as cards: a player called "Ah"
reveals nothing. The refusal names where, never the value (it is logged and alerted).
:func:`scrub_text` is what the table's own free text goes through before it is published:
card names become "a card", tag-UID-shaped words "a tag".
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from controller.link.errors import RedactionError

# "As", "td", "10h": the forms controller.rules.cards parses.
_CARD = re.compile(r"(?:[2-9TJQKAtjqka]|10)[cdhsCDHS]")
_FORBIDDEN_KEYS = frozenset(
    {
        "hole",
        "holes",
        "hole_cards",
        "holecards",
        "hand_cards",
        "pocket",
        "cards",
        "card",
        "uid",
        "uids",
        "tag",
        "tags",
        "tag_id",
        "rfid",
    }
)
#: keys whose string values are the venue's own words echoed back (never read as cards)
VENUE_TEXT_KEYS: Final = frozenset(
    {"name", "player_id", "by", "dealer", "dealer_id", "issuer", "deck_id", "alert_id"}
)
_CARD_WORD: Final = re.compile(r"\b(?:10|[2-9TJQKA])[cdhs]\b")
#: a tag UID as shown (upper-case hex, 4 to 10 bytes; lower case too) with at least one digit
_TAG_WORD: Final = re.compile(r"\b(?=[0-9A-Fa-f]*[0-9])[0-9A-Fa-f]{8,20}\b")


@dataclass(frozen=True, slots=True)
class HoleSecrets:
    """The live hand's hole cards: their tag UIDs (hex as shown, any case) and card texts."""

    tags: frozenset[str] = frozenset()
    cards: frozenset[str] = frozenset()


NO_SECRETS: Final = HoleSecrets()


@lru_cache(maxsize=64)
def _secret_pattern(secrets: HoleSecrets) -> re.Pattern[str] | None:
    """One regex for the secrets: a tag anywhere (any case), a card as a word."""
    parts = [f"(?i:{re.escape(t)})" for t in sorted({t.upper() for t in secrets.tags if t})]
    cards = sorted({c for c in secrets.cards if c})
    if cards:
        parts.append(r"\b(?:" + "|".join(re.escape(c) for c in cards) + r")\b")
    return re.compile("|".join(parts)) if parts else None


def scrub_text(text: str, secrets: HoleSecrets = NO_SECRETS) -> str:
    """``text`` fit for live data: card names -> "a card", tag UIDs -> "a tag" (any
    tag-shaped hex word, and every tag of ``secrets`` wherever it appears)."""
    out = _TAG_WORD.sub("a tag", _CARD_WORD.sub("a card", text))
    pattern = _secret_pattern(secrets)
    if pattern is not None:
        out = pattern.sub("a card", out)
    return out


# Keys under which public cards may appear.
PUBLIC_CARD_KEYS = frozenset({"board", "burn_count"})
_MAX_DEPTH = 16


def _is_card(value: object) -> bool:
    return isinstance(value, str) and _CARD.fullmatch(value.strip()) is not None


class _Leak(Exception):
    """Raised inside the walk; the path is assembled only on the way out (a clean payload,
    the common case, builds no path strings)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what
        self.parts: list[str] = []  # innermost first


def check_no_hole_cards(
    payload: object, where: str = "payload", secrets: HoleSecrets = NO_SECRETS
) -> None:
    """Raise RedactionError if ``payload`` could reveal a hole card.

    Cards are allowed only as items of a ``board`` list of at most five (never one of the
    ``secrets``); no string but the venue's own (:data:`VENUE_TEXT_KEYS`) may contain a
    secret tag or card. The message names the place, not the value.
    """
    try:
        _walk(payload, 0, _secret_pattern(secrets))
    except _Leak as leak:
        path = where + "".join(reversed(leak.parts))
        raise RedactionError(f"{path}: {leak.what}") from None


def _walk(value: object, depth: int, secret: re.Pattern[str] | None) -> None:
    if depth > _MAX_DEPTH:
        raise _Leak(f"nested deeper than {_MAX_DEPTH} levels")
    kind = type(value)
    if kind is int or kind is float or kind is bool or value is None:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Leak(f"non-string key {key!r}")
            try:
                if key.lower() in _FORBIDDEN_KEYS:
                    raise _Leak("key names hole cards or tag ids; refused")
                if key == "board":
                    _check_board(item, secret)
                elif key in VENUE_TEXT_KEYS and (item is None or isinstance(item, str)):
                    continue
                else:
                    _walk(item, depth + 1, secret)
            except _Leak as leak:
                leak.parts.append(f".{key}")
                raise
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            try:
                _walk(item, depth + 1, secret)
            except _Leak as leak:
                leak.parts.append(f"[{i}]")
                raise
    elif _is_card(value):
        raise _Leak("a card identity outside the board; refused")
    elif secret is not None and isinstance(value, str) and secret.search(value):
        raise _Leak("names a live hole card or its tag; refused")


def _check_board(value: object, secret: re.Pattern[str] | None) -> None:
    if not isinstance(value, list | tuple) or len(value) > 5:
        raise _Leak("the board is a list of at most 5 cards")
    for i, card in enumerate(value):
        what = ""
        if not _is_card(card):
            what = "not a card"
        elif secret is not None and secret.fullmatch(str(card).strip()):
            what = "a live hole card on the board; refused"
        if what:
            leak = _Leak(what)
            leak.parts.append(f"[{i}]")
            raise leak


def _copy(value: Any) -> Any:
    """A deep copy of a JSON-like value (what copy.deepcopy gives, several times faster)."""
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}
    if kind is list:
        return [_copy(v) for v in value]
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    return copy.deepcopy(value)


def redact_state(state: Mapping[str, Any], secrets: HoleSecrets = NO_SECRETS) -> dict[str, Any]:
    """A deep copy of ``state`` fit for the retained live-state topic, or RedactionError.

    The rules core passes street, board, pot, button, to_act, level and per-seat
    ``cards_held`` counts. Hole-card identities (under any key, or as card strings anywhere
    but the board) are refused, not silently dropped: a leak is a bug to fix at its source.
    """
    if not isinstance(state, Mapping):
        raise RedactionError("state: expected a mapping")
    check_no_hole_cards(state, "state", secrets)
    return {k: _copy(v) for k, v in state.items()}
