"""The PN5180 driver's ISO 15693 inventory against the emulated chip: 16-slot anti-collision
resolves stacks (hypothesis: any set of UIDs up to 40 is read whole), a neighbour's card
through crosstalk, a flickering card, a missing front end; and the emulated chip refuses a
command sequence a real PN5180 would not take."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reader_firmware import timing
from reader_firmware.emulation.pn5180_emu import EmulatedPN5180, ProtocolViolation
from reader_firmware.emulation.table_model import TableModel
from reader_firmware.pn5180 import PN5180, FrontEndError

A = bytes.fromhex("e004010000000001")
B = bytes.fromhex("e004010000000011")  # same low nibble as A: the same first slot


def reader(model: TableModel, antenna: int = 0) -> tuple[PN5180, EmulatedPN5180]:
    emu = EmulatedPN5180(model, antenna)
    chip = PN5180(emu)
    chip.init()
    return chip, emu


def test_an_empty_antenna_costs_one_probe() -> None:
    model = TableModel(1)
    chip, emu = reader(model)
    inv = chip.inventory(probe_first=True)
    assert inv.uids == [] and not inv.collision
    assert [r[0] for r in emu.requests] == [0x26]  # one 1-slot request, nothing more
    assert inv.air_us == pytest.approx(timing.antenna_us(0, was_empty=True))


def test_one_card_then_two_stacked_cards_in_one_slot() -> None:
    model = TableModel(1)
    chip, emu = reader(model)
    model.place(0, A)
    inv = chip.inventory(probe_first=True)
    assert inv.uids == [A] and not inv.collision
    assert [r[0] for r in emu.requests] == [0x26, 0x06]  # probe answered, then 16 slots
    model.place(0, B)
    emu.requests.clear()
    inv = chip.inventory(probe_first=False)
    assert sorted(inv.uids) == sorted([A, B]) and not inv.collision
    # slot 1 collided (both UIDs end in nibble 1): a second round masked with 4 bits "1"
    assert emu.requests == [bytes([0x06, 0x01, 0x00]), bytes([0x06, 0x01, 0x04, 0x01])]


def test_a_neighbours_card_through_crosstalk_and_a_flickering_card() -> None:
    model = TableModel(3, seed=4)
    model.place(0, A)
    model.antennas[1].crosstalk = 1.0
    chip, _ = reader(model, 1)
    assert chip.inventory(probe_first=True).uids == [A]  # the radio really does see it
    model.antennas[0].flicker = 0.5
    chip0, _ = reader(model, 0)
    reads = [bool(chip0.inventory(probe_first=True).uids) for _ in range(40)]
    assert 5 < sum(reads) < 35  # seen, gone, seen


def test_a_missing_front_end_fails_its_init_and_its_scan() -> None:
    model = TableModel(2)
    model.antennas[1].present = False
    with pytest.raises(FrontEndError, match="BUSY"):
        PN5180(EmulatedPN5180(model, 1)).init()
    chip, _ = reader(model, 0)
    model.antennas[0].present = False
    with pytest.raises(FrontEndError):
        chip.inventory(probe_first=True)


def test_the_emulated_chip_refuses_what_a_pn5180_would() -> None:
    model = TableModel(1)
    emu = EmulatedPN5180(model, 0)
    chip = PN5180(emu)
    emu.reset()
    with pytest.raises(ProtocolViolation, match="LOAD_RF_CONFIG"):
        chip.rf_on()
    chip.load_rf_config(0x0D, 0x8D)
    with pytest.raises(ProtocolViolation, match="RF field off"):
        chip.send_data(b"\x06\x01\x00")


uid_sets = st.sets(
    st.binary(min_size=6, max_size=6).map(lambda b: b"\xe0\x04" + b), min_size=0, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(uid_sets, st.booleans())
def test_any_stack_of_up_to_40_tags_is_read_whole(uids: set[bytes], probe: bool) -> None:
    model = TableModel(1)
    for u in uids:
        model.place(0, u)
    chip, emu = reader(model)
    inv = chip.inventory(probe_first=probe)
    if inv.collision:  # only when masks run out: UIDs equal in their low 60 bits
        assert len({int.from_bytes(u, "big") & (2**60 - 1) for u in uids}) < len(uids)
    else:
        assert sorted(inv.uids) == sorted(uids)
    assert inv.air_us >= emu.air_us  # the firmware's cost model never undercounts the air


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**16 - 1))
def test_two_cards_differing_only_in_high_bits_are_told_apart(high: int) -> None:
    a = b"\xe0\x04" + high.to_bytes(2, "big") + b"\x00\x00\x00\x07"
    b = b"\xe0\x04" + (high ^ 0x8000).to_bytes(2, "big") + b"\x00\x00\x00\x07"
    model = TableModel(1)
    model.place(0, a)
    model.place(0, b)
    chip, emu = reader(model)
    inv = chip.inventory(probe_first=False)
    assert sorted(inv.uids) == sorted([a, b]) and not inv.collision
    assert len(emu.requests) > 2  # it took masked rounds to get there
