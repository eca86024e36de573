"""The hole-card guard (controller/link/redact.py): what it refuses, the path its message
names, and redact_state's copy (equal to the input, sharing nothing mutable with it)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.link.errors import RedactionError
from controller.link.redact import check_no_hole_cards, redact_state
from tests.link import samples


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"seats": [{"seat": 1, "hole_cards": ["As", "Kd"]}]},
         "state.seats[0].hole_cards: key names hole cards or tag ids; refused"),
        ({"seats": [{"seat": 1}, {"seat": 2, "status": "Ah"}]},
         "state.seats[1].status: a card identity outside the board; refused"),
        ({"board": ["Jc", "3d", "5c", "7h", "9s", "2c"]},
         "state.board: the board is a list of at most 5 cards"),
        ({"board": ["Jc", "joker"]}, "state.board[1]: not a card"),
        ({"seats": {1: {"seat": 1}}}, "state.seats: non-string key 1"),
        ({"x": {"TAG": "04a1"}}, "state.x.TAG: key names hole cards or tag ids; refused"),
        ({"log": [[["10h"]]]},
         "state.log[0][0][0]: a card identity outside the board; refused"),
    ],
)  # fmt: skip
def test_refused_with_the_path(payload: dict[str, Any], message: str) -> None:
    with pytest.raises(RedactionError) as err:
        check_no_hole_cards(payload, "state")
    assert str(err.value) == message


def test_too_deep_is_refused() -> None:
    deep: Any = 1
    for _ in range(20):
        deep = {"a": deep}
    with pytest.raises(RedactionError, match="nested deeper than 16 levels"):
        check_no_hole_cards(deep)


def test_a_clean_state_passes_and_is_copied() -> None:
    state = samples.state()
    out = redact_state(state)
    assert out == state
    out["seats"][0]["stack"] = 1
    out["board"].append("2c")
    assert state == samples.state()


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                      st.sampled_from(["Ivey", "active", "flop", ""]))  # fmt: skip
clean = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["seat", "stack", "name", "n"]),
                                            inner, max_size=4)),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["pot", "seats", "street", "level"]), clean))
def test_redact_state_copies_exactly(state: dict[str, Any]) -> None:
    before = copy.deepcopy(state)
    try:
        out = redact_state(state)
    except RedactionError as err:
        assert "nested deeper" in str(err)
        return
    assert out == before and state == before
    assert out is not state
