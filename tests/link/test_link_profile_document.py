"""``set_profile`` with a house profile's document (the contract's extension for the floor
console): parsed into its own frozen command, exactly one of ``profile`` and ``document``,
the document's size limit in bytes of UTF-8, the schema's rules for it; the table's guard
accepts what the console sends."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.link.commands import (
    MAX_PROFILE_DOCUMENT_BYTES,
    CommandGuard,
    SetHouseProfile,
    SetProfile,
    command_name,
    parse_command,
)
from controller.link.errors import CommandRefused
from tests.link import samples

DOC = '[profile]\nname = "my-house"\ntitle = "My house"\nrulebook = "house.txt"\n'


def _parse(args: dict[str, Any]) -> Any:
    body = samples.command("set_profile", args)
    return parse_command(json.dumps(body, ensure_ascii=False).encode())


def test_a_document_parses_to_its_own_command() -> None:
    cmd = _parse({"document": DOC})
    assert isinstance(cmd, SetHouseProfile) and cmd.document == DOC
    assert command_name(cmd) == "set_profile"
    assert isinstance(_parse({"profile": "club-003"}), SetProfile)
    assert isinstance(CommandGuard().check(json.dumps(samples.command("set_profile", {
        "document": DOC})).encode()), SetHouseProfile)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({}, r"invalid: args: give profile \(a packaged profile's name\) or document"),
        ({"profile": "club-003", "document": DOC}, "profile and document together"),
        ({"document": ""}, r"invalid: command: args/document: '' should be non-empty"),
        ({"document": 7}, r"invalid: command: args/document: 7 is not of type 'string'"),
        (
            {"document": "x" * (MAX_PROFILE_DOCUMENT_BYTES + 1)},
            r"invalid: command: args/document: 'xxx.*' is too long$",
        ),
        # under the schema's 8192 characters, over 8192 bytes of UTF-8
        ({"document": DOC + "#" + "é" * 4100}, r"args/document: \d+ bytes; .* at most 8192"),
        ({"document": DOC, "name": "x"}, "Additional properties"),
    ],
)
def test_refusals_name_what_is_wrong(args: dict[str, Any], reason: str) -> None:
    with pytest.raises(CommandRefused, match=reason):
        _parse(args)
