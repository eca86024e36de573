"""The JSON Schemas of the MQTT contract, shipped inside the package (``schemas/*.json``).

One schema per message kind; ``docs/mqtt.md`` lists the same kinds (a test checks it).

Two validators per kind. ``jsonschema`` (pure Python) is the authority: it counts only true
ints as integers (not 3.0, not True) and names the most relevant violation. It is also slow:
about 1.4 ms for a live state of nine seats, on every event of a hand. The fast path,
:mod:`controller.link.schema_check`, compiles each schema (the keywords the contract uses,
integers counted the same strict way) into Python functions that check the same payload in
about 4 µs; :func:`validate` asks it first and accepts its "valid". Anything else (invalid,
or a value that is not plain JSON) goes to ``jsonschema``. A property test checks that the
two agree (tests/link/test_schema_fast_path.py). ``jsonschema`` is imported only when first
needed (about 8 MB of the daemon's memory): a table whose messages and commands are all
valid never loads it. (The fast path was jsonschema-rs, a Rust extension as fast, until
#23: its code kept 3 to 9 MB of the table daemon resident; docs/performance.md.)
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

from controller.link.errors import SchemaViolation
from controller.link.schema_check import Check, Unsure, compile_schema

KINDS: Final = (
    "status",
    "state",
    "event",
    "alert",
    "hand",
    "hand_ack",
    "logger_status",
    "command",
    "response",
    "ohh",
    "event_command",
    "event_clock",
    "event_standings",
    "event_proposal",
)


@cache
def schema(kind: str) -> dict[str, Any]:
    """The parsed JSON Schema of one message kind."""
    if kind not in KINDS:
        raise KeyError(kind)
    text = resources.files("controller.link").joinpath("schemas", f"{kind}.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _strict_integer(_checker: Any, value: object) -> bool:
    # JSON Schema counts 3.0 as an integer; the contract does not (seats, chips, counts).
    return isinstance(value, int) and not isinstance(value, bool)


def validator_for(s: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator for ``s`` in which integers are ints (not 3.0 or True)."""
    import jsonschema  # type: ignore[import-untyped]  # lazily: ~8 MB, see the docstring

    base = jsonschema.Draft202012Validator
    base.check_schema(s)
    checker = base.TYPE_CHECKER.redefine("integer", _strict_integer)
    return jsonschema.validators.extend(base, type_checker=checker)(s)


@cache
def _validator(kind: str) -> Any:
    return validator_for(schema(kind))


@cache
def _fast(kind: str) -> Check:
    return compile_schema(schema(kind))


def fast_valid(kind: str, payload: object) -> bool:
    """True only if ``payload`` is certainly valid for ``kind`` (see the module docstring);
    False means "ask jsonschema", not "invalid"."""
    try:
        return _fast(kind)(payload)
    except (Unsure, RecursionError):
        return False  # not plain JSON, or nested too deep: jsonschema decides


def errors(kind: str, payload: object) -> list[str]:
    """Every violation of ``kind``'s schema as "path: message" (empty when valid)."""
    out = []
    for err in _validator(kind).iter_errors(payload):
        path = "/".join(str(p) for p in err.absolute_path)
        out.append(f"{path or '(root)'}: {err.message}")
    return out


def validate(kind: str, payload: object, validator: Any = None) -> None:
    """Raise :class:`SchemaViolation` naming the most relevant violation, if any.

    With ``kind``'s own schema (no ``validator``) a payload the fast validator accepts
    returns at once; everything else is judged by ``jsonschema``."""
    if validator is None and fast_valid(kind, payload):
        return
    v = _validator(kind) if validator is None else validator
    if v.is_valid(payload):
        return
    import jsonschema

    err = jsonschema.exceptions.best_match(v.iter_errors(payload))
    if err is None:
        return
    path = "/".join(str(p) for p in err.absolute_path)
    message = str(err.message)
    if len(message) > 200:  # a long value quoted: keep the verdict at the end ("is too long")
        message = message[:120] + "..." + message[-77:]
    raise SchemaViolation(kind, path, message, str(err.validator))
