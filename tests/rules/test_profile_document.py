"""A house profile delivered as a document (``set_profile``'s ``document``): the TOML text
of a profile file. The packaged profiles' own files, renamed, are accepted and read as the
same rules; every refusal names what is wrong (the key, the allowed values, the TOML line,
the size, the name)."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest

from controller.rules.errors import ConfigError
from controller.rules.profile import builtin_profile, builtin_profile_names
from controller.rules.profile_document import MAX_DOCUMENT_BYTES, house_profile, summary


def _text(name: str) -> str:
    res = resources.files("controller.rules") / "profiles" / f"{name}.toml"
    return res.read_text(encoding="utf-8")


def _renamed(name: str, new: str) -> str:
    return _text(name).replace(f'name = "{name}"', f'name = "{new}"', 1)


@pytest.mark.parametrize("name", builtin_profile_names())
def test_a_packaged_file_renamed_is_the_same_rules(name: str) -> None:
    prof = house_profile(_renamed(name, f"house-{name}"))
    assert prof == dataclasses.replace(builtin_profile(name), name=f"house-{name}")
    assert summary(prof)["draw_rule"] == builtin_profile(name).draw_rule.value


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (
            ('draw_rule = "first-ace"', 'draw_rule = "highest"'),
            r"key 'draw_rule': 'highest' is not one of 'high-card', 'first-ace'",
        ),
        (("max_seats = 9", "max_seats = 12"), r"key 'max_seats': must be between 2 and 10"),
        (("max_seats = 9", "max_seats = 9\nmax_players = 9"), r"unknown key 'max_players'"),
        (("max_seats = 9", 'max_seats = "nine"'), r"key 'max_seats': expected int, got str"),
        (("max_seats = 9", "max_seats = 9 9"), r"not valid TOML: .*line 6"),
        (('name = "my-club"', 'name = "club-003"'), r"'club-003' is a packaged profile's name"),
        (('name = "my-club"', 'name = "My Club"'), r"key 'name': 'My Club' is not 1-64"),
        (('name = "my-club"\n', ""), r"missing key 'name'"),
        (("[profile]", "[venue]\nx = 1\n[profile]"), r"unknown table or key 'venue'"),
    ],
)
def test_a_bad_document_is_refused_naming_what_is_wrong(
    change: tuple[str, str], match: str
) -> None:
    doc = _renamed("club-003", "my-club")
    assert change[0] in doc
    with pytest.raises(ConfigError, match=match):
        house_profile(doc.replace(*change, 1))


def test_size_limit_in_bytes_of_utf8() -> None:
    doc = _renamed("tda-2024", "big-house")
    pad = MAX_DOCUMENT_BYTES - len(doc.encode())
    assert house_profile(doc + "#" * (pad - 1) + "\n").name == "big-house"  # exactly the limit
    with pytest.raises(ConfigError, match=rf"{MAX_DOCUMENT_BYTES + 2} bytes; .* at most"):
        house_profile(doc + "#" * (pad - 1) + "é\n")  # one character, two bytes
    with pytest.raises(ConfigError, match="the document is empty"):
        house_profile(" \n")
