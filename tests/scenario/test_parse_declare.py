"""The scenario verb ``declare N WORD`` (issue 14), parsed and refused with file and line."""

from __future__ import annotations

import pytest

from hwsim.scenario.model import ScenarioError
from hwsim.scenario.parse import parse_text

HEAD = "profile a2c-000\nseat 1 1000\n"


@pytest.mark.parametrize(
    ("word", "want"),
    [("raise", "raise"), ("all-in", "all_in"), ("PLAY_BOARD", "play_board"),
     ("not_a_check", "not_a_check")],
)  # fmt: skip
def test_declare_verb(word: str, want: str) -> None:
    sc = parse_text(HEAD + f"declare 3 {word}\n")
    a = sc.steps[-1].action
    assert (a.verb, a.seat, a.text) == ("declare", 3, want)


@pytest.mark.parametrize(
    ("line", "problem"),
    [("declare 3", "expected declare N WORD"), ("declare 3 shove", "'shove' is not one of"),
     ("declare 11 call", "seat 11"), ("declare x call", "seat: expected a whole number")],
)  # fmt: skip
def test_bad_declare_lines_name_the_line(line: str, problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem) as err:
        parse_text(HEAD + line + "\n", "f.scn")
    assert "f.scn:3" in str(err.value)
