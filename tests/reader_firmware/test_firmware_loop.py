"""The firmware's loop in-process (its own clock, no pty): the report policies, a full TX
buffer, a flickering card and a pile of more than 40 tags, read back with firmware_bridge's
decoder."""

from __future__ import annotations

import itertools

from firmware_bridge.protocol import (
    ErrorCode,
    ErrorReport,
    Frame,
    FrameDecoder,
    Heartbeat,
    SetConfig,
    encode_frame,
)
from firmware_bridge.protocol.decoder import SequenceGap
from firmware_bridge.snapshots import AntennaSnapshot
from reader_firmware.emulation.pn5180_emu import EmulatedPN5180
from reader_firmware.emulation.table_model import TableModel
from reader_firmware.firmware import Firmware, SerialPort
from reader_firmware.pn5180 import PN5180


class Port(SerialPort):
    def __init__(self) -> None:
        self.inp = b""
        self.out = bytearray()
        self.full = False

    def read(self) -> bytes:
        data, self.inp = self.inp, b""
        return data

    def write(self, data: bytes) -> bool:
        if self.full:
            return False
        self.out += data
        return True


def board(n: int, seed: int = 0) -> tuple[Firmware, TableModel, Port, FrameDecoder]:
    model = TableModel(n, seed)
    port = Port()
    fw = Firmware([PN5180(EmulatedPN5180(model, a)) for a in range(n)], port, 7)
    return fw, model, port, FrameDecoder()


def frames(port: Port, dec: FrameDecoder) -> list[object]:
    items = dec.feed(bytes(port.out))
    port.out.clear()
    return items


def run(fw: Firmware, start: int, stop: int, step: int = 5) -> int:
    for now in range(start, stop, step):
        fw.poll(now)
    return stop


def test_changes_only_sends_changed_antennas_plus_a_full_refresh() -> None:
    fw, model, port, dec = board(4)
    port.inp = encode_frame(SetConfig(20, 1000, True, True, 5), 0)
    now = run(fw, 0, 25)
    frames(port, dec)
    snaps_by_cycle: dict[int, set[int]] = {}
    model.place(2, bytes.fromhex("e004000000000001"))
    now = run(fw, now, now + 20 * 12)
    for item in frames(port, dec):
        if isinstance(item, Frame) and isinstance(item.message, AntennaSnapshot):
            snaps_by_cycle.setdefault(item.message.cycle, set()).add(item.message.antenna)
    refresh = {c for c in snaps_by_cycle if c % 5 == 0}
    assert refresh and all(snaps_by_cycle[c] == {0, 1, 2, 3} for c in refresh)
    changed = {c: a for c, a in snaps_by_cycle.items() if c % 5}
    assert {2} in changed.values()  # the card's antenna alone, the cycle it was first read
    assert all(a <= {2} for a in changed.values())


def test_a_full_tx_buffer_spends_sequence_numbers_and_says_so() -> None:
    fw, _, port, dec = board(2)
    now = run(fw, 0, 60)
    frames(port, dec)
    port.full = True
    now = run(fw, now, now + 120)
    port.full = False
    now = run(fw, now, now + 1100)
    items = frames(port, dec)
    gaps = [i for i in items if isinstance(i, SequenceGap)]
    assert len(gaps) == 1 and gaps[0].missed > 0  # the host sees the frames lost, once
    seqs = [i.seq for i in items if isinstance(i, Frame)]
    assert all(b == a + 1 for a, b in itertools.pairwise(seqs))  # then in order
    errors = [i.message for i in items if isinstance(i, Frame)
              and isinstance(i.message, ErrorReport)]  # fmt: skip
    assert [e.code for e in errors] == [ErrorCode.TX_OVERFLOW]
    beat = [i.message for i in items if isinstance(i, Frame) and isinstance(i.message, Heartbeat)]
    assert beat and beat[-1].tx_dropped == errors[0].detail > 0


def test_a_flickering_card_and_a_pile_over_40_tags() -> None:
    fw, model, port, dec = board(2, seed=3)
    model.place(0, bytes.fromhex("e004000000000001"))
    model.antennas[0].flicker = 0.3
    for i in range(45):
        model.place(1, bytes.fromhex("e0040000000100") + bytes([i]))
    run(fw, 0, 50 * 40)
    snaps = [i.message for i in frames(port, dec) if isinstance(i, Frame)
             and isinstance(i.message, AntennaSnapshot)]  # fmt: skip
    seen = [bool(s.tags) for s in snaps if s.antenna == 0]
    assert True in seen and False in seen  # seen, gone, seen: the host's tracker smooths it
    pile = [s for s in snaps if s.antenna == 1 and s.tags]
    assert pile and all(len(s.tags) == 40 and s.collision for s in pile)
