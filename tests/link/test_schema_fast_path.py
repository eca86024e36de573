"""schemas.validate asks the compiled checker (controller/link/schema_check.py) first and
accepts its "valid"; jsonschema (pure Python, strict integers) is the authority. These
properties check that on plain JSON the checker says exactly what jsonschema says, that it is
taken for the real messages, that a value that is not plain JSON goes to jsonschema, and that
validate() raises exactly when jsonschema says invalid."""

from __future__ import annotations

import copy
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.link import schema_check, schemas
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


def _ohh() -> dict[str, Any]:
    return samples.ohh(3)


BASES = {"state": _state, "event": _event, "alert": _alert, "command": _command, "ohh": _ohh}

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
def test_fast_path_agrees_with_jsonschema(case: tuple[str, Any]) -> None:
    kind, payload = case
    before = copy.deepcopy(payload)
    fast = schemas.fast_valid(kind, payload)
    python = _python_valid(kind, payload)
    assert fast == python, (kind, payload)  # exact on plain JSON, not only "never accepts more"
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


def test_a_tuple_is_an_array_for_the_fast_path() -> None:
    # as for jsonschema-rs before it: the payload is sent as JSON, where a tuple is a list
    payload = _state()
    payload["board"] = ("Jc", "3d")
    assert schemas.fast_valid("state", payload)


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), b"x", Decimal(1), Fraction(1, 2), object()]
)
def test_a_value_that_is_not_plain_json_goes_to_jsonschema(value: object) -> None:
    payload = _state()
    payload["pot"] = value
    assert not schemas.fast_valid("state", payload)  # Unsure: no exception escapes
    assert schemas.fast_valid("state", _state())
    payload = _state()
    payload["storage"] = {**payload.get("storage", {}), 7: "x"}  # a key that is not a string
    assert not schemas.fast_valid("state", payload)
    with pytest.raises(SchemaViolation):
        schemas.validate("state", {**_state(), "pot": object()})


@pytest.mark.parametrize("kind", schemas.KINDS)
def test_every_schema_compiles(kind: str) -> None:
    assert callable(schema_check.compile_schema(schemas.schema(kind)))


def test_a_keyword_the_checker_does_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="patternProperties"):
        schema_check.compile_schema({"type": "object", "patternProperties": {"^a": True}})
    with pytest.raises(ValueError, match="enum"):
        schema_check.compile_schema({"enum": [[1, 2]]})


SMALL: st.SearchStrategy[Any] = st.deferred(
    lambda: st.one_of(
        st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 1.5, -2.0]),
        st.sampled_from(["", "a", "ab", "abc", "A1", "zz9"]),
        st.lists(SMALL, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c"]), SMALL,
                                                     max_size=3),
    )
)  # fmt: skip
KEYWORD_SCHEMAS: list[dict[str, Any]] = [
    {"type": "integer", "minimum": 0, "maximum": 2},
    {"type": ["integer", "null"]},
    {"type": "number", "maximum": 1},
    {"minimum": 1},
    {"type": "string", "minLength": 1, "maxLength": 2, "pattern": "^[a-z]+$"},
    {"maxLength": 1},
    {"enum": ["a", 1, None, True]},
    {"enum": ["a", "b"]},
    {"const": False},
    {"const": 1},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
    {"uniqueItems": True},
    {"type": "object", "required": ["a"], "properties": {"a": {"type": "boolean"}},
     "additionalProperties": False},
    {"additionalProperties": {"type": "string"}, "minProperties": 1, "maxProperties": 2},
    {"propertyNames": {"pattern": "^[ab]$"}},
    {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
    {"allOf": [{"type": "number"}, {"maximum": 0}]},
    {"if": {"properties": {"a": {"const": 1}}, "required": ["a"]},
     "then": {"required": ["b"]}, "else": {"maxProperties": 1}},
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(range(len(KEYWORD_SCHEMAS))), SMALL)
def test_each_keyword_agrees_with_jsonschema(index: int, value: Any) -> None:
    s = KEYWORD_SCHEMAS[index]
    try:
        fast = schema_check.compile_schema(s)(value)
    except schema_check.Unsure:  # only for what is not plain JSON: never here
        pytest.fail(f"unsure about {value!r}")
    assert fast == bool(schemas.validator_for(s).is_valid(value)), (s, value)
