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
    """One regex for the secrets: a tag anywhere (any case), a card as a word. Its compile
    costs 0.1 ms for one secret to 0.8 ms for 18 (bench/redact_secrets.py), and the secrets
    change with every hole card dealt: :class:`_Secrets` does the same without a regex of
    its own when the secrets allow it, this only when they do not."""
    parts = [f"(?i:{re.escape(t)})" for t in sorted({t.upper() for t in secrets.tags if t})]
    cards = sorted({c for c in secrets.cards if c})
    if cards:
        parts.append(r"\b(?:" + "|".join(re.escape(c) for c in cards) + r")\b")
    return re.compile("|".join(parts)) if parts else None


_HEX: Final = frozenset("0123456789ABCDEF")
_HEX_RUN: Final = re.compile(r"[0-9A-Fa-f]{4,}")
_WORD: Final = re.compile(r"\w+")


class _Secrets:
    """What :func:`_secret_pattern`'s regex finds, found without compiling one: the tags
    (hex UIDs, any case) inside runs of hex digits, the cards as whole words. Used when
    every tag is hex of at least 4 digits and every card a word shorter than the shortest
    tag, so that no card word and tag can overlap and the order of the search does not
    matter (tests/link/test_redact_secrets.py checks it against the regex)."""

    __slots__ = ("cards", "tags")

    def __init__(self, tags: tuple[str, ...], cards: frozenset[str]) -> None:
        self.tags = tags  # upper case, sorted (the regex's order of alternatives)
        self.cards = cards

    @staticmethod
    def of(secrets: HoleSecrets) -> _Secrets | None:
        tags = tuple(sorted({t.upper() for t in secrets.tags if t}))
        cards = frozenset(c for c in secrets.cards if c)
        shortest = min((len(t) for t in tags), default=21)
        if any(len(t) < 4 or not _HEX.issuperset(t) for t in tags):
            return None
        if any(len(c) >= shortest or _WORD.fullmatch(c) is None for c in cards):
            return None
        return _Secrets(tags, cards)

    def search(self, text: str) -> bool:
        if self.tags:
            for run in _HEX_RUN.findall(text):
                up = run.upper()
                if any(t in up for t in self.tags):
                    return True
        if self.cards:
            return any(w in self.cards for w in _WORD.findall(text))
        return False

    def fullmatch(self, text: str) -> bool:
        return (text.isascii() and text.upper() in self.tags) or text in self.cards

    def sub(self, repl: str, text: str) -> str:
        if self.tags:
            text = _HEX_RUN.sub(lambda m: self._sub_run(repl, m.group()), text)
        if self.cards:
            cards = self.cards
            text = _WORD.sub(lambda m: repl if m.group() in cards else m.group(), text)
        return text

    def _sub_run(self, repl: str, run: str) -> str:
        """Every tag in a run of hex digits replaced, leftmost first, the first tag in
        sorted order where two start at the same place (as the regex's alternatives)."""
        up, out, i, n = run.upper(), [], 0, len(run)
        while i < n:
            for t in self.tags:
                if up.startswith(t, i):
                    out.append(repl)
                    i += len(t)
                    break
            else:
                out.append(run[i])
                i += 1
        return "".join(out)


#: the secrets' matcher: a :class:`_Secrets`, else (secrets it cannot take) the regex
Matcher = _Secrets | re.Pattern[str]


@lru_cache(maxsize=64)
def _matcher(secrets: HoleSecrets) -> Matcher | None:
    if not secrets.tags and not secrets.cards:
        return None
    fast = _Secrets.of(secrets)
    return fast if fast is not None else _secret_pattern(secrets)


def scrub_text(text: str, secrets: HoleSecrets = NO_SECRETS) -> str:
    """``text`` fit for live data: card names -> "a card", tag UIDs -> "a tag" (any
    tag-shaped hex word, and every tag of ``secrets`` wherever it appears)."""
    out = _TAG_WORD.sub("a tag", _CARD_WORD.sub("a card", text))
    secret = _matcher(secrets)
    if secret is not None:
        out = secret.sub("a card", out)
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
        _walk(payload, 0, _matcher(secrets))
    except _Leak as leak:
        path = where + "".join(reversed(leak.parts))
        raise RedactionError(f"{path}: {leak.what}") from None


def _walk(value: object, depth: int, secret: Matcher | None) -> None:
    if depth > _MAX_DEPTH:
        raise _Leak(f"nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, str):  # the most frequent: every text and code of a message
        if _CARD.fullmatch(value.strip()) is not None:
            raise _Leak("a card identity outside the board; refused")
        if secret is not None and secret.search(value):
            raise _Leak("names a live hole card or its tag; refused")
        return
    kind = type(value)
    if kind is int or kind is float or kind is bool or value is None:
        return
    if isinstance(value, dict | Mapping):  # a dict first: cheaper than the ABC's check
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


def _check_board(value: object, secret: Matcher | None) -> None:
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
