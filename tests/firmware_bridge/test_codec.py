"""Codec: the doc's test vectors, round trips, and property tests of COBS and the frames."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    HOST_TO_BOARD,
    MAX_FRAME_SIZE,
    MAX_TAGS,
    Ack,
    AckStatus,
    CrcError,
    CrcMismatch,
    DuplicateFrame,
    EncodeError,
    ErrorCode,
    ErrorReport,
    FirmwareVersion,
    FrameDecoder,
    FrameError,
    GetSnapshot,
    Heartbeat,
    Hello,
    MalformedFrame,
    Message,
    MessageType,
    OversizedFrame,
    Ping,
    Reset,
    ResetReason,
    SequenceGap,
    SetConfig,
    VersionError,
    VersionMismatch,
    cobs_decode,
    cobs_encode,
    crc16,
    decode_frame,
    encode_frame,
)
from firmware_bridge.snapshots import AntennaSnapshot, TagRead

DOC = Path(__file__).resolve().parents[2] / "docs" / "reader-protocol.md"
ALL_TYPES = list(MessageType)

COBS_VECTORS = [
    ("", "01"),
    ("00", "01 01"),
    ("00 00", "01 01 01"),
    ("00 11 00", "01 02 11 01"),
    ("11 22 00 33", "03 11 22 02 33"),
    ("11 22 33 44", "05 11 22 33 44"),
    ("11 00 00 00", "02 11 01 01 01"),
]

FRAME_VECTORS: list[tuple[Message, int, str]] = [
    (
        Hello(1, FirmwareVersion(1, 4, 2), 0x12345678, 8, ResetReason.POWER_ON),
        0,
        "03 01 01 01 0a 01 01 04 02 78 56 34 12 08 03 ae 5b 00",
    ),
    (
        Heartbeat(60000, 1, 2, 3, 4, 5),
        7,
        "04 01 02 07 03 60 ea 01 02 01 01 01 02 02 01 01 02 03 01 01 02 04 01 01 02 05 01 01"
        " 03 65 ad 00",
    ),
    (
        AntennaSnapshot(
            0.0,
            3,
            1000,
            (TagRead(bytes.fromhex("04a1b2c3d4e5f6"), 200), TagRead(bytes.fromhex("deadbeef"), 35)),
        ),
        8,
        "04 01 03 08 04 03 e8 03 01 14 02 02 07 04 a1 b2 c3 d4 e5 f6 c8 04 de ad be ef 23 ef 6a 00",
    ),
    (AntennaSnapshot(0.0, 0, 1001, ()), 9, "04 01 03 09 01 03 e9 03 01 01 01 03 52 5d 00"),
    (
        AntennaSnapshot(0.0, 5, 1002, (TagRead(bytes.fromhex("e004010203040506")),), True),
        10,
        "04 01 03 0a 04 05 ea 03 01 0e 01 01 08 e0 04 01 02 03 04 05 06 6a e1 00",
    ),
    (
        ErrorReport(ErrorCode.ANTENNA_INIT_FAILED, 2, 0x0102),
        11,
        "04 01 04 0b 07 01 02 02 01 1a 1e 00",
    ),
    (Ack(MessageType.GET_SNAPSHOT, 4, AckStatus.OK), 12, "04 01 05 0c 03 82 04 01 03 e8 39 00"),
    (Ping(), 0, "03 01 81 01 03 fe 1e 00"),
    (GetSnapshot(None), 1, "04 01 82 01 04 ff a2 cd 00"),
    (GetSnapshot(3), 2, "04 01 82 02 04 03 d5 0e 00"),
    (SetConfig(50, 1000, True, False, 20), 3, "04 01 83 03 02 32 07 e8 03 01 14 49 ce 00"),
    (Reset(), 4, "04 01 84 04 03 d9 2a 00"),
]
VERSION_2_PING = "03 02 81 01 03 65 c2 00"


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def decoder() -> FrameDecoder:
    return FrameDecoder(accept=ALL_TYPES, clock=lambda: 0.0)


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(("data", "encoded"), COBS_VECTORS)
def test_cobs_vectors(data: str, encoded: str) -> None:
    assert cobs_encode(h(data)) == h(encoded)
    assert cobs_decode(h(encoded)) == h(data)


def test_cobs_long_block_vectors() -> None:
    ramp = bytes(range(1, 255))
    assert cobs_encode(ramp) == b"\xff" + ramp
    assert cobs_encode(b"\x00" + ramp) == b"\x01\xff" + ramp
    assert cobs_encode(bytes(range(1, 256))) == b"\xff" + ramp + b"\x02\xff"
    for data in (ramp, b"\x00" + ramp, bytes(range(1, 256)), bytes(range(2, 256)) + b"\x00"):
        assert cobs_decode(cobs_encode(data)) == data


@pytest.mark.parametrize(("message", "seq", "wire"), FRAME_VECTORS)
def test_frame_vectors(message: Message, seq: int, wire: str) -> None:
    assert encode_frame(message, seq) == h(wire)
    frame = decode_frame(h(wire)[:-1])
    assert (frame.seq, frame.message) == (seq, message)
    (result,) = decoder().feed(h(wire))
    assert result == frame


def test_every_vector_is_in_the_doc() -> None:
    text = DOC.read_text()
    for _, _, wire in FRAME_VECTORS:
        assert f"`{wire}`" in text, wire
    for data, encoded in COBS_VECTORS[1:]:
        assert f"`{data}` | `{encoded}`" in text
    assert f"`{VERSION_2_PING}`" in text
    assert "0x29B1" in text


def test_version_2_frame_is_refused_naming_both_versions() -> None:
    with pytest.raises(VersionError, match="version 2; this side supports version 1"):
        decode_frame(h(VERSION_2_PING)[:-1])
    (issue,) = decoder().feed(h(VERSION_2_PING))
    assert issue == VersionMismatch(2, (1,), MessageType.PING)
    assert "peer speaks version 2, this host supports version 1" in str(issue)


def test_crc_error_names_both_values() -> None:
    wire = bytearray(h(FRAME_VECTORS[1][2]))
    wire[5] ^= 0x40  # a data byte inside the heartbeat body
    with pytest.raises(CrcMismatch, match="carried 0x65AD, computed 0x"):
        decode_frame(bytes(wire[:-1]))
    d = decoder()
    (issue,) = d.feed(bytes(wire))
    assert isinstance(issue, CrcError)
    assert d.stats.crc_errors == 1


@pytest.mark.parametrize(
    ("body_hex", "reason"),
    [
        ("05 00 00 00 00 00 01 04 de ad be", "ends inside tag 1"),
        ("05 00 00 00 00 00 01 05 de ad be ef 01", "UID length of 5"),
        ("05 00 00 00 00 04 00", "reserved flag bits"),
        ("05 00 00 00 00 00 00 99", "1 stray bytes"),
        ("05 00 00 00 00 00 29", "claims 41 tags"),
        ("ff 00 00 00 00 00 00", "0xFF, which is reserved"),
        ("05 00", "at least 7 expected"),
    ],
)
def test_malformed_antenna_state_is_named(body_hex: str, reason: str) -> None:
    raw = bytes([1, MessageType.ANTENNA_STATE, 0, 0]) + h(body_hex)
    raw += crc16(raw).to_bytes(2, "big")
    wire = cobs_encode(raw) + b"\x00"
    with pytest.raises(FrameError, match=reason):
        decode_frame(wire[:-1])
    (issue,) = decoder().feed(wire)
    assert isinstance(issue, MalformedFrame)
    assert reason in issue.reason


def test_unknown_type_and_enum_values_are_malformed() -> None:
    for mtype, body, reason in [
        (0x42, b"", "unknown message type 66"),
        (MessageType.ERROR, b"\x77\xff\x00\x00", "unknown error code 119"),
        (MessageType.ACK, b"\x81\x00\x00\x09", "unknown ACK status 9"),
        (MessageType.PING, b"\x00", "PING body is 1 bytes; expected 0"),
        (MessageType.HEARTBEAT, b"\x00" * 23, "HEARTBEAT body is 23 bytes; expected 24"),
    ]:
        raw = bytes([1, mtype, 0, 0]) + body
        raw += crc16(raw).to_bytes(2, "big")
        with pytest.raises(FrameError, match=reason):
            decode_frame(cobs_encode(raw))


def test_wrong_direction_is_malformed() -> None:
    board_side = FrameDecoder(accept=HOST_TO_BOARD)
    (issue,) = board_side.feed(h(FRAME_VECTORS[0][2]))  # a HELLO sent to the board
    assert isinstance(issue, MalformedFrame)
    assert "HELLO" in issue.reason


def test_encoder_refuses_out_of_range_fields() -> None:
    with pytest.raises(EncodeError, match="UID of 5 bytes"):
        encode_frame(AntennaSnapshot(0.0, 1, 1, (TagRead(b"12345"),)), 0)
    with pytest.raises(EncodeError, match="RSSI must be given for every tag"):
        encode_frame(AntennaSnapshot(0.0, 1, 1, (TagRead(b"1234", 3), TagRead(b"5678"))), 0)
    with pytest.raises(EncodeError, match="41 tags"):
        tags = tuple(TagRead(i.to_bytes(4, "big")) for i in range(41))
        encode_frame(AntennaSnapshot(0.0, 1, 1, tags), 0)
    with pytest.raises(EncodeError, match="antenna=255"):
        encode_frame(AntennaSnapshot(0.0, 255, 1, ()), 0)
    with pytest.raises(EncodeError, match="sequence number 65536"):
        encode_frame(Ping(), 65536)
    with pytest.raises(EncodeError, match="cycle=4294967296"):
        encode_frame(AntennaSnapshot(0.0, 1, 1 << 32, ()), 0)


def test_largest_snapshot_fits_the_frame_limit() -> None:
    tags = tuple(TagRead(i.to_bytes(10, "big"), 255) for i in range(MAX_TAGS))
    wire = encode_frame(AntennaSnapshot(0.0, 254, 2**32 - 1, tags, True), 65535)
    assert len(cobs_decode(wire[:-1])) <= MAX_FRAME_SIZE
    (frame,) = decoder().feed(wire)
    assert not isinstance(frame, (CrcError, MalformedFrame))


def test_oversized_run_is_dropped_and_decoder_resyncs() -> None:
    d = decoder()
    out = d.feed(b"\x01" * 600)
    assert len(out) == 1 and isinstance(out[0], OversizedFrame)
    assert d.buffered == 0
    good = h(FRAME_VECTORS[7][2])
    out = d.feed(b"\x01" * 10_000 + b"\x00" + good)  # still inside the oversized run
    assert out == [decode_frame(good[:-1])]
    again = encode_frame(Ping(), 1)
    out = d.feed(b"\x02" * 700 + b"\x00" + again)
    assert isinstance(out[0], OversizedFrame)
    assert out[0].length > 515
    assert out[1:] == [decode_frame(again[:-1])]
    assert d.buffered == 0
    assert d.stats.oversized == 2


def test_sequence_gap_duplicate_and_wrap() -> None:
    d = decoder()
    hb = Heartbeat(1)
    out = d.feed(encode_frame(hb, 65534) + encode_frame(hb, 65535) + encode_frame(hb, 0))
    assert [x.seq for x in out] == [65534, 65535, 0]  # type: ignore[union-attr]
    out = d.feed(encode_frame(hb, 0) + encode_frame(hb, 4))
    assert out[0] == DuplicateFrame(0)
    assert out[1] == SequenceGap(1, 4)
    assert out[1].missed == 3  # type: ignore[union-attr]
    assert out[2].seq == 4  # type: ignore[union-attr]
    hello = FRAME_VECTORS[0][0]
    out = d.feed(encode_frame(hello, 0) + encode_frame(hb, 1))  # a reboot resets the baseline
    assert [type(x) for x in out] == [type(out[0]), type(out[1])]
    assert not any(isinstance(x, SequenceGap | DuplicateFrame) for x in out)
    assert (d.stats.sequence_gaps, d.stats.frames_missed, d.stats.duplicates) == (1, 3, 1)


def test_set_config_problems_name_the_field() -> None:
    assert SetConfig().problems() == []
    assert SetConfig(scan_period_ms=5).problems() == ["scan_period_ms=5 is outside 10..1000"]


# ---- property tests -------------------------------------------------------------------

uids = st.sampled_from([4, 7, 8, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n))


@st.composite
def snapshots(draw: st.DrawFn) -> AntennaSnapshot:
    with_rssi = draw(st.booleans())
    tags = draw(
        st.lists(
            st.builds(TagRead, uids, st.integers(0, 255) if with_rssi else st.none()),
            max_size=MAX_TAGS,
        )
    )
    return AntennaSnapshot(
        0.0,
        draw(st.integers(0, 254)),
        draw(st.integers(0, 2**32 - 1)),
        tuple(tags),
        draw(st.booleans()),
    )


u32 = st.integers(0, 2**32 - 1)
messages = st.one_of(
    snapshots(),
    st.builds(
        Hello,
        st.just(1),
        st.builds(FirmwareVersion, st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
        u32,
        st.integers(0, 255),
        st.sampled_from(ResetReason),
    ),
    st.builds(Heartbeat, u32, u32, u32, u32, u32, u32),
    st.builds(
        ErrorReport,
        st.sampled_from(ErrorCode),
        st.none() | st.integers(0, 254),
        st.integers(0, 65535),
    ),
    st.builds(Ack, st.sampled_from(MessageType), st.integers(0, 65535), st.sampled_from(AckStatus)),
    st.just(Ping()),
    st.just(Reset()),
    st.builds(GetSnapshot, st.none() | st.integers(0, 254)),
    st.builds(
        SetConfig,
        st.integers(0, 65535),
        st.integers(0, 65535),
        st.booleans(),
        st.booleans(),
        st.integers(0, 255),
    ),
)


@given(st.binary(max_size=2000))
def test_cobs_round_trip_and_no_zero(data: bytes) -> None:
    enc = cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(enc) == data


@given(st.binary(max_size=600))
def test_cobs_decode_never_fails_unexpectedly(data: bytes) -> None:
    with contextlib.suppress(FrameError):
        cobs_decode(data)


@given(messages, st.integers(0, 65535))
def test_message_round_trip(message: Message, seq: int) -> None:
    wire = encode_frame(message, seq)
    assert wire.count(0) == 1 and wire.endswith(b"\x00")
    frame = decode_frame(wire[:-1])
    assert frame.seq == seq
    assert frame.message == message


@settings(max_examples=300)
@given(st.lists(messages, min_size=1, max_size=8), st.data())
def test_stream_split_anywhere_decodes_the_same(batch: list[Message], data: st.DataObject) -> None:
    wire = b"".join(encode_frame(m, i) for i, m in enumerate(batch))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=10)))
    d = decoder()
    out = []
    prev = 0
    for cut in [*cuts, len(wire)]:
        out += d.feed(wire[prev:cut])
        prev = cut
    assert [f.message for f in out] == batch  # type: ignore[union-attr]
    assert d.buffered == 0
