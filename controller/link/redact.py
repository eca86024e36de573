"""The hole-card guard: live payloads (state, events, alerts) never carry card identities.

Hole cards leave the table only inside completed hand records. :func:`redact_state` builds
the state payload from what the rules core hands over and refuses (raises
:class:`RedactionError`) if anything in it could identify a hole card: a card outside the
board, a key that names hole cards, or an RFID tag id (which the deck registry maps to a card).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

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


def check_no_hole_cards(payload: object, where: str = "payload") -> None:
    """Raise RedactionError if ``payload`` could reveal a hole card.

    Cards are allowed only as items of a ``board`` list of at most five.
    """
    try:
        _walk(payload, 0)
    except _Leak as leak:
        path = where + "".join(reversed(leak.parts))
        raise RedactionError(f"{path}: {leak.what}") from None


def _walk(value: object, depth: int) -> None:
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
                    _check_board(item)
                else:
                    _walk(item, depth + 1)
            except _Leak as leak:
                leak.parts.append(f".{key}")
                raise
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            try:
                _walk(item, depth + 1)
            except _Leak as leak:
                leak.parts.append(f"[{i}]")
                raise
    elif _is_card(value):
        raise _Leak(f"card identity {value!r} outside the board; refused")


def _check_board(value: object) -> None:
    if not isinstance(value, list | tuple) or len(value) > 5:
        raise _Leak("the board is a list of at most 5 cards")
    for i, card in enumerate(value):
        if not _is_card(card):
            leak = _Leak(f"{card!r} is not a card")
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


def redact_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``state`` fit for the retained live-state topic, or RedactionError.

    The rules core passes street, board, pot, button, to_act, level and per-seat
    ``cards_held`` counts. Hole-card identities (under any key, or as card strings anywhere
    but the board) are refused, not silently dropped: a leak is a bug to fix at its source.
    """
    if not isinstance(state, Mapping):
        raise RedactionError("state: expected a mapping")
    check_no_hole_cards(state, "state")
    return {k: _copy(v) for k, v in state.items()}
