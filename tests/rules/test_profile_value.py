"""A profile is a frozen value in either build of the core (pure Python, or compiled by
mypyc: tests/test_compiled_core.py runs this file on the compiled core too): equal and
hashable by its fields, refusing assignment, and copied and pickled to an equal profile."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from controller.rules.profile import AnteStyle, Profile, builtin_profile, builtin_profile_names


@pytest.mark.parametrize("name", builtin_profile_names())
def test_copies_and_pickles_are_the_same_profile(name: str) -> None:
    prof = builtin_profile(name)
    for other in (copy.copy(prof), copy.deepcopy(prof), pickle.loads(pickle.dumps(prof))):
        assert type(other) is Profile
        assert other == prof and hash(other) == hash(prof)
        assert dataclasses.astuple(other) == dataclasses.astuple(prof)


def test_a_profile_is_frozen_and_replace_makes_another() -> None:
    prof = builtin_profile("tda-2024")
    with pytest.raises(dataclasses.FrozenInstanceError):
        prof.max_seats = 9  # type: ignore[misc]
    other = dataclasses.replace(prof, ante_style=AnteStyle.EACH)
    assert other.ante_style is AnteStyle.EACH and prof.ante_style is AnteStyle.BIG_BLIND
    assert other != prof
    assert copy.deepcopy(other) == other
