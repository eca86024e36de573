"""schemas.validate asks jsonschema-rs first and accepts its "valid" only when the payload
holds no integral float; jsonschema (pure Python, strict integers) is the authority. These
properties check that the fast path never accepts what jsonschema refuses, that it is taken
for the real messages, and that validate() raises exactly when jsonschema says invalid."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.link import schemas
from controller.link.errors import SchemaViolation
from tests.link import samples

STAMP = {"seq": 3, "bdseq": 2, "ts": 1764489600.25}


def _state() -> dict[str, Any]:
    return {**samples.state(), **STAMP}


def _event() -> dict[str, Any]:
    return {**STAMP, "kind": "action", "hand_no": 7,
            "data": {"seat": 3, "kind": "raise", "amount": 1200, "to": 1600}}  # fmt: skip


def _alert() -> dict[str, Any]:
    return {**samples.alert(), **STAMP, "alert_id": "a" * 32}


def _command() -> dict[str, Any]:
    return samples.command("seat", {"seat": 4, "player_id": "p9", "name": "Negreanu",
                                    "stack": 50000}, ts=1764489600.25)  # fmt: skip


BASES = {"state": _state, "event": _event, "alert": _alert, "command": _command}

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False), st.integers(-5, 12).map(float),
    st.text(max_size=6), st.sampled_from(["As", "Kd", "10h", "flop", "active", "x" * 300]),
)  # fmt: skip
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)  # fmt: skip


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(sorted(BASES)))
    payload: Any = BASES[kind]()
    for _ in range(draw(st.integers(0, 3))):
        paths = _paths(payload)
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if not path:
            if action == "replace":
                payload = draw(json_value)
            continue
        parent = payload
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if action == "replace":
            parent[last] = draw(json_value)
        elif action == "delete":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=5))] = draw(json_value)
        else:
            parent.append(draw(json_value))
    return kind, payload


def _python_valid(kind: str, payload: Any) -> bool:
    return bool(schemas._validator(kind).is_valid(payload))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_fast_path_never_accepts_what_jsonschema_refuses(case: tuple[str, Any]) -> None:
    kind, payload = case
    before = copy.deepcopy(payload)
    fast = schemas.fast_valid(kind, payload)
    python = _python_valid(kind, payload)
    assert not fast or python, (kind, payload)
    try:
        schemas.validate(kind, payload)
        raised = False
    except SchemaViolation:
        raised = True
    assert raised == (not python), (kind, payload)
    assert payload == before  # validation changes nothing


@pytest.mark.parametrize("kind", sorted(BASES))
def test_real_messages_take_the_fast_path(kind: str) -> None:
    payload = BASES[kind]()
    assert _python_valid(kind, payload)
    assert schemas.fast_valid(kind, payload)


@pytest.mark.parametrize("value", [3.0, True, 2**63, -1])
def test_strict_integers_still_refused(value: object) -> None:
    payload = _state()
    payload["pot"] = value
    assert not schemas.fast_valid("state", payload)
    with pytest.raises(SchemaViolation, match="pot"):
        schemas.validate("state", payload)


def test_a_value_the_fast_validator_cannot_read_goes_to_jsonschema() -> None:
    payload = _state()
    payload["board"] = ("Jc", "3d")  # a tuple: JSON has only lists
    assert schemas.fast_valid("state", payload) in (True, False)  # no exception escapes
    with pytest.raises(SchemaViolation):
        schemas.validate("state", {**payload, "pot": object()})
