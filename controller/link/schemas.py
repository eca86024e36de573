"""The JSON Schemas of the MQTT contract, shipped inside the package (``schemas/*.json``).

One schema per message kind; ``docs/mqtt.md`` lists the same kinds (a test checks it).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

import jsonschema  # type: ignore[import-untyped]

from controller.link.errors import SchemaViolation

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
    base = jsonschema.Draft202012Validator
    base.check_schema(s)
    checker = base.TYPE_CHECKER.redefine("integer", _strict_integer)
    return jsonschema.validators.extend(base, type_checker=checker)(s)


@cache
def _validator(kind: str) -> Any:
    return validator_for(schema(kind))


def errors(kind: str, payload: object) -> list[str]:
    """Every violation of ``kind``'s schema as "path: message" (empty when valid)."""
    out = []
    for err in _validator(kind).iter_errors(payload):
        path = "/".join(str(p) for p in err.absolute_path)
        out.append(f"{path or '(root)'}: {err.message}")
    return out


def validate(kind: str, payload: object, validator: Any = None) -> None:
    """Raise :class:`SchemaViolation` naming the most relevant violation, if any."""
    v = _validator(kind) if validator is None else validator
    if v.is_valid(payload):
        return
    err = jsonschema.exceptions.best_match(v.iter_errors(payload))
    if err is None:
        return
    path = "/".join(str(p) for p in err.absolute_path)
    message = str(err.message)
    if len(message) > 200:
        message = message[:197] + "..."
    raise SchemaViolation(kind, path, message)
