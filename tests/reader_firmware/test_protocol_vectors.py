"""The firmware's own encoder against docs/reader-protocol.md and the host's codec.

The test vectors of the doc are rebuilt here by ``reader_firmware.protocol`` (the board's
code, not the host's) and compared byte for byte with the tables in the doc; every frame the
firmware can build decodes with ``firmware_bridge.protocol`` to the same message, and every
host command ``firmware_bridge`` builds is read back by the firmware's deframer."""

from __future__ import annotations

import binascii
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    Ack,
    AckStatus,
    ErrorCode,
    ErrorReport,
    GetSnapshot,
    Heartbeat,
    Hello,
    MessageType,
    Ping,
    Reset,
    SetConfig,
    cobs_decode,
    cobs_encode,
    encode_frame,
)
from firmware_bridge.protocol.wire import decode_frame
from firmware_bridge.snapshots import AntennaSnapshot
from reader_firmware import protocol as P

DOC = Path(__file__).resolve().parents[2] / "docs" / "reader-protocol.md"


def _hex(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def doc_frames() -> dict[str, bytes]:
    """message description -> wire bytes, from the doc's "Whole frames" table."""
    out = {}
    section = DOC.read_text().split("Whole frames", 1)[1].split("Worked example", 1)[0]
    for line in section.splitlines():
        m = re.match(r"\| (.+?) \| (\d+) \| `([0-9a-f ]+)` \|", line)
        if m:
            out[m.group(1)] = _hex(m.group(3))
    return out


def doc_cobs() -> list[tuple[str, str]]:
    section = DOC.read_text().split("COBS (data -> encoded", 1)[1].split("Whole frames", 1)[0]
    return re.findall(r"\| `?([^|`]*?)`? \| `([^|`]*)` \|", section)


def test_crc_check_value_and_cobs_vectors_of_the_doc() -> None:
    assert P.crc16(b"123456789") == 0x29B1
    rows = doc_cobs()
    assert len(rows) >= 7
    for data, encoded in rows:
        if ".." in data:
            continue  # the long rows are checked below
        raw = b"" if data == "(empty)" else _hex(data)
        assert P.cobs_encode(raw) == _hex(encoded), data
        assert P.cobs_decode(_hex(encoded)) == raw
    full = bytes(range(1, 255))
    assert P.cobs_encode(full) == b"\xff" + full
    assert P.cobs_encode(bytes(range(255))) == b"\x01\xff" + full
    assert P.cobs_encode(bytes(range(1, 256))) == b"\xff" + full + b"\x02\xff"


def test_whole_frames_of_the_doc_come_from_the_firmware_encoder() -> None:
    doc = doc_frames()
    tags = [(bytes.fromhex("04a1b2c3d4e5f6"), 200), (bytes.fromhex("deadbeef"), 35)]
    built = {
        "HELLO protocol 1, firmware 1.4.2, board 0x12345678, 8 antennas, power-on":
            P.seal(P.HELLO, 0, P.hello_body((1, 4, 2), 0x12345678, 8, P.RESET_POWER_ON)),
        "HEARTBEAT uptime 60000 ms, counters 1, 2, 3, 4, 5":
            P.seal(P.HEARTBEAT, 7, P.heartbeat_body(60000, [1, 2, 3, 4, 5])),
        "ANTENNA_STATE antenna 3, cycle 1000, tags `04a1b2c3d4e5f6` RSSI 200 and `deadbeef` "
        "RSSI 35": P.seal(P.ANTENNA_STATE, 8, P.state_body(3, 1000, tags, False, True)),
        "ANTENNA_STATE antenna 0, cycle 1001, no tag":
            P.seal(P.ANTENNA_STATE, 9, P.state_body(0, 1001, [], False, True)),
        "ANTENNA_STATE antenna 5, cycle 1002, collision, tag `e004010203040506` without RSSI":
            P.seal(P.ANTENNA_STATE, 10, P.state_body(
                5, 1002, [(bytes.fromhex("e004010203040506"), 0)], True, False)),
        "ERROR antenna failed to start, antenna 2, detail 0x0102":
            P.seal(P.ERROR, 11, P.error_body(P.ERR_ANTENNA_INIT, 2, 0x0102)),
        "ACK of GET_SNAPSHOT seq 4, OK": P.seal(P.ACK, 12, P.ack_body(P.GET_SNAPSHOT, 4)),
        "PING": P.seal(P.PING, 0, b""),
        "GET_SNAPSHOT all antennas": P.seal(P.GET_SNAPSHOT, 1, bytes([P.NO_ANTENNA])),
        "GET_SNAPSHOT antenna 3": P.seal(P.GET_SNAPSHOT, 2, bytes([3])),
        "SET_CONFIG 50 ms, 1000 ms, RSSI on, changes-only off, refresh 20":
            P.seal(P.SET_CONFIG, 3, P.Config().body()),
        "RESET": P.seal(P.RESET, 4, b""),
        "PING in protocol version 2 (must be refused: version mismatch)":
            P.seal(P.PING, 0, b"", version=2),
    }  # fmt: skip
    assert set(built) == set(doc), set(built) ^ set(doc)
    for name, wire in built.items():
        assert wire == doc[name], f"{name}: firmware {wire.hex(' ')} != doc {doc[name].hex(' ')}"


def test_the_firmware_reads_every_host_command_of_the_doc() -> None:
    doc = doc_frames()
    d = P.Deframer()
    got = d.feed(doc["PING"] + doc["GET_SNAPSHOT antenna 3"] + doc["RESET"])
    assert got == [("frame", P.PING, 0, b""), ("frame", P.GET_SNAPSHOT, 2, b"\x03"),
                   ("frame", P.RESET, 4, b"")]  # fmt: skip
    cfg = d.feed(doc["SET_CONFIG 50 ms, 1000 ms, RSSI on, changes-only off, refresh 20"])
    parsed = P.parse_config(cfg[0][3])  # type: ignore[arg-type]
    assert (
        parsed.scan_period_ms,
        parsed.heartbeat_interval_ms,
        parsed.report_rssi,
        parsed.changes_only,
        parsed.full_refresh_cycles,
    ) == (50, 1000, True, False, 20)
    v2 = doc["PING in protocol version 2 (must be refused: version mismatch)"]
    assert d.feed(v2) == [("error", P.ERR_RX_BAD_FRAME, P.DETAIL_VERSION)]


@given(st.binary(max_size=700))
def test_cobs_matches_the_host_codec(data: bytes) -> None:
    enc = P.cobs_encode(data)
    assert enc == cobs_encode(data)
    assert b"\x00" not in enc
    assert P.cobs_decode(enc) == data == cobs_decode(enc)


@given(st.binary(max_size=600))
def test_crc_matches_the_standard_library(data: bytes) -> None:
    assert P.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


uids = st.sampled_from([4, 7, 8, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n))


@given(
    antenna=st.integers(0, 254),
    cycle=st.integers(0, 2**32 - 1),
    seq=st.integers(0, 65535),
    tags=st.lists(st.tuples(uids, st.integers(0, 255)), max_size=40),
    collision=st.booleans(),
    rssi=st.booleans(),
)
def test_every_antenna_state_decodes_on_the_host(
    antenna: int, cycle: int, seq: int, tags: list[tuple[bytes, int]], collision: bool,
    rssi: bool,
) -> None:  # fmt: skip
    wire = P.seal(P.ANTENNA_STATE, seq, P.state_body(antenna, cycle, tags, collision, rssi))
    frame = decode_frame(wire[:-1])
    snap = frame.message
    assert isinstance(snap, AntennaSnapshot) and frame.seq == seq
    assert (snap.antenna, snap.cycle, snap.collision) == (antenna, cycle, collision)
    assert [t.uid for t in snap.tags] == [u for u, _ in tags]
    want_rssi = [r for _, r in tags] if rssi and tags else [None] * len(tags)
    assert [t.rssi for t in snap.tags] == want_rssi


@given(
    seq=st.integers(0, 65535),
    uptime=st.integers(0, 2**40),
    counters=st.lists(st.integers(0, 2**33), min_size=5, max_size=5),
    code=st.sampled_from([0x01, 0x02, 0x03, 0x10, 0x11, 0x12]),
    antenna=st.integers(0, 255),
    detail=st.integers(0, 65535),
    acked=st.sampled_from([0x81, 0x82, 0x83, 0x84]),
    status=st.integers(0, 3),
)
def test_hello_heartbeat_error_ack_decode_on_the_host(
    seq: int, uptime: int, counters: list[int], code: int, antenna: int, detail: int,
    acked: int, status: int,
) -> None:  # fmt: skip
    wires = [P.seal(P.HELLO, 0, P.hello_body((1, 2, 3), 0xCAFE, 16, P.RESET_WATCHDOG)),
             P.seal(P.HEARTBEAT, seq, P.heartbeat_body(uptime, counters)),
             P.seal(P.ERROR, seq, P.error_body(code, antenna, detail)),
             P.seal(P.ACK, seq, P.ack_body(acked, seq, status))]  # fmt: skip
    hello, beat, err, ack = (decode_frame(w[:-1]).message for w in wires)
    assert isinstance(hello, Hello) and hello.antenna_count == 16 and hello.reset_reason == 2
    assert beat == Heartbeat(uptime % 2**32, *(c % 2**32 for c in counters))
    assert err == ErrorReport(ErrorCode(code), None if antenna == 0xFF else antenna, detail)
    assert ack == Ack(MessageType(acked), seq, AckStatus(status))


host_commands = st.one_of(
    st.just(Ping()), st.just(Reset()),
    st.builds(GetSnapshot, st.one_of(st.none(), st.integers(0, 254))),
    st.builds(SetConfig, st.integers(0, 65535), st.integers(0, 65535), st.booleans(),
              st.booleans(), st.integers(0, 255)),
)  # fmt: skip


@given(st.lists(st.tuples(host_commands, st.integers(0, 65535)), max_size=8),
       st.binary(max_size=40))  # fmt: skip
def test_host_commands_survive_the_firmware_deframer(
    commands: list[tuple[object, int]], garbage: bytes
) -> None:
    d = P.Deframer()
    junk = d.feed(garbage + b"\x00")  # whatever preceded: errors at most, never a command
    assert all(item[0] == "error" for item in junk)
    wire = b"".join(encode_frame(m, s) for m, s in commands)  # type: ignore[arg-type]
    got = d.feed(wire)
    assert [(g[1], g[2]) for g in got] == [(MessageType[type(m).__name__.upper().replace(
        "GETSNAPSHOT", "GET_SNAPSHOT").replace("SETCONFIG", "SET_CONFIG")], s)
        for m, s in commands]  # fmt: skip
    for (m, _), g in zip(commands, got, strict=True):
        if isinstance(m, SetConfig):
            c = P.parse_config(g[3])  # type: ignore[arg-type]
            assert (c.scan_period_ms, c.heartbeat_interval_ms, c.report_rssi, c.changes_only,
                    c.full_refresh_cycles) == (m.scan_period_ms, m.heartbeat_interval_ms,
                                               m.report_rssi, m.changes_only,
                                               m.full_refresh_cycles)  # fmt: skip
            assert c.valid() == (not m.problems())


def test_oversized_and_corrupt_host_frames_are_named() -> None:
    d = P.Deframer()
    assert d.feed(b"\x05" * 600 + b"\x00") == [("error", P.ERR_RX_BAD_FRAME, P.DETAIL_OVERSIZE)]
    ping = encode_frame(Ping(), 9)
    bad = bytearray(ping)
    bad[2] ^= 0x40
    assert d.feed(bytes(bad)) == [("error", P.ERR_RX_BAD_FRAME, P.DETAIL_CRC)]
    hello = P.seal(P.HELLO, 0, P.hello_body((1, 0, 0), 1, 1, 0))
    assert d.feed(hello) == [("error", P.ERR_RX_BAD_FRAME, P.DETAIL_LAYOUT)]  # wrong direction
    assert d.feed(P.seal(0x8F, 1, b"")) == [("error", P.ERR_RX_UNKNOWN_TYPE, 0x8F)]
    assert d.feed(P.seal(P.PING, 1, b"x")) == [("error", P.ERR_RX_BAD_FRAME, P.DETAIL_LAYOUT)]
    assert d.feed(ping) == [("frame", P.PING, 9, b"")]  # and the stream goes on
