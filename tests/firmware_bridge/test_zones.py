"""The antenna-to-zone map: validation naming the key, TOML round trip."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from controller.rules.errors import ConfigError
from controller.rules.events import ZoneKind
from firmware_bridge.zones import BOARD, BURN, MUCK, Zone, ZoneMap, ZoneType


def config(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "board": [20, 21, 22],
        "burn": 25,
        "muck": 26,
        "hole": {"1": 0, "2": 1, "3": 2},
        "bet": {"1": 10, "2": 11},
    }
    base.update(over)
    return base


def test_from_dict_maps_antennas_to_zones() -> None:
    m = ZoneMap.from_dict(config())
    assert m.zone_of(0) == Zone.hole(1)
    assert m.zone_of(2) == Zone.hole(3)
    assert m.zone_of(11) == Zone.bet(2)
    assert m.zone_of(21) == BOARD
    assert m.zone_of(25) == BURN
    assert m.zone_of(26) == MUCK
    assert m.zone_of(99) is None
    assert m.antennas_of(BOARD) == (20, 21, 22)
    assert m.seats == (1, 2, 3)
    assert m.antennas == (0, 1, 2, 10, 11, 20, 21, 22, 25, 26)


def test_card_zone_and_words() -> None:
    assert Zone.hole(4).card_zone is ZoneKind.HOLE
    assert BOARD.card_zone is ZoneKind.BOARD
    assert Zone.bet(4).card_zone is None
    assert Zone.hole(4).describe() == "seat 4's hole-card spot"
    assert MUCK.describe() == "the muck"
    assert Zone.parse(" Hole 7 ") == Zone.hole(7)
    assert Zone.parse("burn") == BURN
    assert str(Zone.bet(2)) == "bet 2"


@pytest.mark.parametrize(
    ("cfg", "key"),
    [
        (config(muck=0), "zones.hole.1: antenna 0 is already muck (one antenna in two zones)"),
        (config(bet={"1": 20}), "zones.bet.1: antenna 20 is already board"),
        (config(burn=None), "zones.burn: antenna must be an integer"),
        (config(hole={"1": 0, "11": 5}), "zones.hole.11: seat 11 not in 1..10"),
        (config(hole={"0": 0}), "zones.hole.0: seat 0 not in 1..10"),
        (config(chips=3), "zones.chips: unknown zone name"),
        (config(hole={"1": 0, "2": 1, "3": 2}, bet={"4": 12}), "zones.hole.4: missing"),
        (config(seats=4), "zones.hole.4: missing (seat 4 has no hole antenna)"),
        (config(seats=[1, 2, 12]), "zones.seats[2]: seat 12 not in 1..10"),
        (config(board=[]), "zones.board: empty antenna list"),
        (config(board=[20, 300]), "zones.board[1]: antenna 300 not in 0..255"),
        (config(board=True), "zones.board: antenna must be an integer"),
        (config(hole=5), "zones.hole: expected a table of seat = antenna"),
        (config(hole={}, bet={}), "zones.hole: missing (no seats configured)"),
        (config(seats=[1, 2]), "zones.hole.3: seat 3 is not a configured seat"),
    ],
)
def test_invalid_config_names_the_key(cfg: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as e:
        ZoneMap.from_dict(cfg)
    assert key in str(e.value)


@pytest.mark.parametrize("zone", ["board", "burn", "muck"])
def test_table_zones_are_required(zone: str) -> None:
    cfg = config()
    del cfg[zone]
    with pytest.raises(ConfigError, match=rf"zones\.{zone}: missing"):
        ZoneMap.from_dict(cfg)


def test_one_antenna_in_two_zones_from_pairs() -> None:
    pairs = [(0, Zone.hole(1)), (1, BOARD), (2, BURN), (3, MUCK), (1, Zone.hole(2))]
    with pytest.raises(ConfigError, match="antenna 1 is already board"):
        ZoneMap(pairs)


def test_bad_zone_values() -> None:
    with pytest.raises(ConfigError, match="unknown zone name"):
        Zone.parse("table 1")
    with pytest.raises(ConfigError, match=r"not in 1\.\.10"):
        Zone.hole(11)
    with pytest.raises(ConfigError, match="takes no seat"):
        Zone(ZoneType.MUCK, 2)
    with pytest.raises(ConfigError, match="expected 'hole <seat>'"):
        Zone.parse("hole")


def test_explicit_seats_list_and_count() -> None:
    m = ZoneMap.from_dict(config(seats=3))
    assert m.seats == (1, 2, 3)
    m2 = ZoneMap.from_dict(config(seats=[3, 1, 2]))
    assert m2 == m


def test_toml_round_trip() -> None:
    m = ZoneMap.from_dict(config(hole={"1": 0, "2": [1, 5], "3": 2}))
    text = "\n".join(m.to_toml_lines()) + "\n"
    parsed = tomllib.loads(text)
    assert parsed["zones"] == m.to_dict()
    again = ZoneMap.from_dict(parsed["zones"])
    assert again == m
    assert hash(again) == hash(m)
    assert again.antennas_of(Zone.hole(2)) == (1, 5)
    assert "[zones.hole]" in text
    assert "board = [20, 21, 22]" in text


def test_toml_under_another_table_name() -> None:
    m = ZoneMap.from_dict(config())
    parsed = tomllib.loads("\n".join(m.to_toml_lines("reader.zones")))
    assert ZoneMap.from_dict(parsed["reader"]["zones"], key="reader.zones") == m
