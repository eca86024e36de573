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


@cache
def _validator(kind: str) -> Any:
    s = schema(kind)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def errors(kind: str, payload: object) -> list[str]:
    """Every violation of ``kind``'s schema as "path: message" (empty when valid)."""
    out = []
    for err in _validator(kind).iter_errors(payload):
        path = "/".join(str(p) for p in err.absolute_path)
        out.append(f"{path or '(root)'}: {err.message}")
    return out


def validate(kind: str, payload: object) -> None:
    """Raise :class:`SchemaViolation` naming the most relevant violation, if any."""
    err = jsonschema.exceptions.best_match(_validator(kind).iter_errors(payload))
    if err is None:
        return
    path = "/".join(str(p) for p in err.absolute_path)
    message = str(err.message)
    if len(message) > 200:
        message = message[:197] + "..."
    raise SchemaViolation(kind, path, message)
