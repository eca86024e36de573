"""docs/mqtt.md and the packaged JSON Schemas agree."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from controller.link import schemas

DOC = Path(__file__).resolve().parents[2] / "docs" / "mqtt.md"


def test_every_schema_is_documented_and_every_documented_schema_exists() -> None:
    text = DOC.read_text()
    rows = re.findall(r"^\| (\w+) \| `([^`]+)` \|.*\| `(\w+)\.json`", text, re.M)
    documented = {kind for kind, _, _ in rows}
    files = {
        p.name[:-5]
        for p in resources.files("controller.link").joinpath("schemas").iterdir()
        if p.name.endswith(".json")
    }
    assert documented | {"ohh"} == files == set(schemas.KINDS)
    for kind, _, schema_name in rows:
        assert kind == schema_name
        assert schemas.schema(kind)["type"] == "object"


def test_documented_topics_match_the_schema_descriptions() -> None:
    rows = re.findall(r"^\| (\w+) \| `([^`]+)` \|", DOC.read_text(), re.M)
    for kind, topic in rows:
        assert topic in schemas.schema(kind)["description"], kind


def test_documented_commands_match_the_command_schema() -> None:
    # command names are lower case (the alert-code table's rows are upper case)
    names = set(re.findall(r"^\| `([a-z][a-z0-9_]*)` \|", DOC.read_text(), re.M))
    assert names == set(schemas.schema("command")["properties"]["command"]["enum"])
