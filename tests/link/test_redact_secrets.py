"""The hole-card guard's matcher of the live secrets (controller/link/redact.py): the one
that compiles no regex (``_Secrets``, taken because a regex compiled per set of secrets cost
0.1-0.8 ms each time a hole card was dealt) finds, in any text, exactly what the regex of
the same secrets finds: the same texts searched true, the same board cards refused, the same
text after scrubbing. Secrets it cannot take (a tag that is not hex, a card as long as a
tag) fall back to the regex."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.link.errors import RedactionError
from controller.link.redact import (
    HoleSecrets,
    _matcher,
    _secret_pattern,
    _Secrets,
    check_no_hole_cards,
    scrub_text,
)
from controller.rules.cards import STANDARD_DECK

CARDS = [str(c) for c in STANDARD_DECK]
HEX = "0123456789abcdefABCDEF"

tags = st.text(HEX, min_size=4, max_size=20)
secrets = st.builds(
    HoleSecrets,
    st.frozensets(tags, max_size=6),
    st.frozensets(st.sampled_from(CARDS), max_size=6),
)


@st.composite
def texts(draw: st.DrawFn, s: HoleSecrets) -> str:
    """Text around the secrets: tags in any case, inside longer hex runs and words, cards
    as words and inside words, punctuation, other scripts."""
    pieces = [*s.tags, *s.cards, "Ac", "10h", "ﬀ", "K", "ß", "x", " ", "-", ".", "_", "é"]
    parts = draw(st.lists(st.one_of(st.sampled_from(pieces), st.text(HEX, max_size=6),
                                    st.text(max_size=4)), max_size=12))  # fmt: skip
    out = "".join(parts)
    return draw(st.sampled_from([out, out.upper(), out.lower(), out.swapcase()]))


@settings(max_examples=600, deadline=None)
@given(data=st.data(), s=secrets)
def test_the_matcher_finds_what_the_regex_finds(data: st.DataObject, s: HoleSecrets) -> None:
    fast = _Secrets.of(s)
    regex = _secret_pattern(s)
    assert fast is not None  # hex tags of 4+ digits, cards of 2 characters: taken
    if regex is None:
        assert _matcher(s) is None
        return
    assert _matcher(s) is fast or isinstance(_matcher(s), _Secrets)
    text = data.draw(texts(s))
    assert fast.search(text) == (regex.search(text) is not None), text
    assert fast.sub("a card", text) == regex.sub("a card", text), text
    word = data.draw(st.sampled_from([*s.tags, *s.cards, text, text.strip()]))
    assert fast.fullmatch(word) == (regex.fullmatch(word) is not None), word


def test_secrets_it_cannot_take_fall_back_to_the_regex() -> None:
    for s in (
        HoleSecrets(frozenset({"not-hex-tag"})),
        HoleSecrets(frozenset({"abc"})),  # shorter than 4
        HoleSecrets(frozenset({"abcd"}), frozenset({"Kings"})),  # a card as long as a tag
    ):
        assert _Secrets.of(s) is None
        assert isinstance(_matcher(s), re.Pattern)
    s = HoleSecrets(frozenset({"not-hex-tag"}), frozenset({"As"}))
    assert scrub_text("seat 1: NOT-HEX-TAG, As", s) == "seat 1: a card, a card"


def test_the_guard_refuses_a_live_tag_and_card_with_either_matcher() -> None:
    live = HoleSecrets(frozenset({"04A1B2C3D4E5F6"}), frozenset({"Qh"}))
    for payload, where in (
        ({"remedy": "card 04a1b2c3d4e5f6 at seat 2"}, "alert.remedy"),
        ({"remedy": "x04A1B2C3D4E5F6y"}, "alert.remedy"),
        ({"remedy": "seat 2 holds Qh"}, "alert.remedy"),
        ({"board": ["Qh"]}, "alert.board[0]"),
    ):
        try:
            check_no_hole_cards(payload, "alert", live)
        except RedactionError as exc:
            assert str(exc).startswith(where), exc
        else:
            raise AssertionError(f"{payload} passed the guard")
    check_no_hole_cards({"remedy": "seat 2: a card", "board": ["Qd"]}, "alert", live)
