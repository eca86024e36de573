"""Fuzzing the streaming decoder: over a million random and mutated bytes.

No exception may escape, no corrupted frame may be accepted, the buffer stays bounded, and
every intact frame that follows garbage (after a delimiter) is decoded.
"""

from __future__ import annotations

import random
import time
import tracemalloc
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    MAX_ENCODED_SIZE,
    CrcError,
    ErrorCode,
    ErrorReport,
    Frame,
    FrameDecoder,
    Heartbeat,
    MalformedFrame,
    Message,
    OversizedFrame,
    SequenceGap,
    VersionMismatch,
    encode_frame,
)
from firmware_bridge.snapshots import AntennaSnapshot, TagRead

TOTAL_BYTES = 1_200_000


def random_message(rng: random.Random) -> Message:
    kind = rng.random()
    if kind < 0.7:
        rssi = rng.random() < 0.5
        tags = tuple(
            TagRead(rng.randbytes(rng.choice((4, 7, 8, 10))), rng.randrange(256) if rssi else None)
            for _ in range(rng.choice((0, 1, 2, 2, 3, 12)))
        )
        return AntennaSnapshot(
            0.0, rng.randrange(255), rng.randrange(2**32), tags, rng.random() < 0.1
        )
    if kind < 0.9:
        return Heartbeat(*(rng.randrange(2**32) for _ in range(6)))
    return ErrorReport(rng.choice(list(ErrorCode)), rng.randrange(255), rng.randrange(65536))


def mutate(wire: bytes, rng: random.Random, msg: Message, seq: int) -> tuple[str, bytes]:
    """A damaged copy of ``wire`` (delimiter included) that must never be accepted."""
    body = bytearray(wire[:-1])
    how = rng.choice(
        ["flip1", "flip2", "flip3", "truncate", "drop", "insert", "stray0", "version", "oversize"]
    )
    if how.startswith("flip"):
        for pos in rng.sample(range(len(body)), int(how[-1])):
            body[pos] ^= 1 << rng.randrange(8)
    elif how == "truncate":
        del body[rng.randrange(1, len(body)) :]
    elif how == "drop":
        del body[rng.randrange(len(body))]
    elif how == "insert":
        body.insert(rng.randrange(len(body) + 1), rng.randrange(1, 256))
    elif how == "stray0":  # strictly inside, so both halves are damaged
        body.insert(rng.randrange(1, len(body)), 0)
    elif how == "version":
        return how, encode_frame(msg, seq, version=rng.choice((0, 2, 3, 255)))
    else:
        body = bytearray(
            rng.randrange(1, 256) for _ in range(rng.randrange(MAX_ENCODED_SIZE, 3000))
        )
    return how, bytes(body) + b"\x00"


def build_stream(rng: random.Random) -> tuple[bytes, list[Frame], dict[str, int]]:
    parts: list[bytes] = []
    intact: list[Frame] = []
    kinds: dict[str, int] = {}
    size = 0
    seq = 0
    while size < TOTAL_BYTES:
        msg = random_message(rng)
        wire = encode_frame(msg, seq)
        roll = rng.random()
        if roll < 0.45:
            part = b"\x00" + wire  # the leading delimiter ends whatever garbage came before
            intact.append(Frame(seq, msg))
        elif roll < 0.85:
            how, part = mutate(wire, rng, msg, seq)
            kinds[how] = kinds.get(how, 0) + 1
        else:
            part = rng.randbytes(rng.randrange(1, 400))
            kinds["garbage"] = kinds.get("garbage", 0) + 1
        parts.append(part)
        size += len(part)
        seq = (seq + rng.choice((1, 1, 1, 2))) % 65536
    return b"".join(parts), intact, kinds


def feed_in_chunks(
    decoder: FrameDecoder, stream: bytes, rng: random.Random, check: Callable[[], None]
) -> list[object]:
    out: list[object] = []
    pos = 0
    while pos < len(stream):
        step = rng.choice((1, 7, 64, 512, 4096, 20000))
        out += decoder.feed(stream[pos : pos + step])
        check()
        pos += step
    return out


def test_million_mutated_bytes_accept_exactly_the_intact_frames() -> None:
    rng = random.Random(20261130)
    stream, intact, kinds = build_stream(rng)
    assert len(stream) >= 1_000_000
    assert min(kinds.values()) > 100, kinds
    decoder = FrameDecoder(clock=lambda: 0.0)
    peak = 0

    def check() -> None:
        nonlocal peak
        peak = max(peak, decoder.buffered)

    started = time.perf_counter()
    results = feed_in_chunks(decoder, stream, rng, check)
    elapsed = time.perf_counter() - started
    accepted = [r for r in results if isinstance(r, Frame)]
    assert accepted == intact  # nothing corrupted accepted, nothing intact lost
    assert peak <= MAX_ENCODED_SIZE
    s = decoder.stats
    assert s.frames == len(intact)
    assert s.crc_errors > 500 and s.malformed > 1000
    assert s.oversized >= kinds["oversize"]
    assert kinds["version"] // 2 < s.version_mismatches <= kinds["version"]  # some merge into noise
    assert s.sequence_gaps > 1000
    types = {type(r) for r in results}
    assert {CrcError, MalformedFrame, OversizedFrame, VersionMismatch, SequenceGap} <= types
    assert elapsed < 30, f"decoding took {elapsed:.1f} s"


def test_million_random_bytes_accept_nothing() -> None:
    rng = random.Random(7)
    stream = rng.randbytes(1_000_000) + rng.randbytes(50_000).replace(b"\x00", b"\x01")
    decoder = FrameDecoder(clock=lambda: 0.0)

    def check() -> None:
        assert decoder.buffered <= MAX_ENCODED_SIZE

    results = feed_in_chunks(decoder, stream, rng, check)
    assert not [r for r in results if isinstance(r, Frame)]
    assert decoder.stats.crc_errors + decoder.stats.malformed > 3000
    assert decoder.stats.oversized >= 1  # the last 50 kB hold no delimiter
    good = encode_frame(Heartbeat(1), 0)
    assert decoder.feed(b"\x00" + good) == [Frame(0, Heartbeat(1))]


def test_memory_stays_bounded_on_an_endless_frame() -> None:
    decoder = FrameDecoder()
    chunk = bytes(range(1, 256)) * 16
    tracemalloc.start()
    try:
        for _ in range(1000):  # 4 MB without a delimiter
            decoder.feed(chunk)
            assert decoder.buffered <= MAX_ENCODED_SIZE
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 1024, f"peak {peak} bytes"
    assert decoder.stats.oversized == 1
    assert decoder.feed(b"\x00" + encode_frame(Heartbeat(2), 5)) == [Frame(5, Heartbeat(2))]


@given(st.lists(st.binary(max_size=700), max_size=20))
def test_arbitrary_chunks_never_raise(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    for chunk in chunks:
        for result in decoder.feed(chunk):
            assert (
                isinstance(
                    result,
                    Frame
                    | CrcError
                    | MalformedFrame
                    | OversizedFrame
                    | VersionMismatch
                    | SequenceGap,
                )
                or type(result).__name__ == "DuplicateFrame"
            )
        assert decoder.buffered <= MAX_ENCODED_SIZE


@given(st.lists(st.binary(max_size=700), max_size=20), st.integers(0, 2**16))
def test_results_frame_by_frame_equal_feed(chunks: list[bytes], seq: int) -> None:
    """``results`` hands out each delimited frame's results as it decodes them, and together
    they are what ``feed`` returns for the same bytes (intact frames mixed in)."""
    a, b = FrameDecoder(clock=lambda: 1.0), FrameDecoder(clock=lambda: 1.0)
    for i, chunk in enumerate(chunks):
        data = chunk + encode_frame(Heartbeat(i, 0, 0, 0, 0), (seq + i) % 65536)
        batches = list(a.results(data))
        assert all(batches)
        assert [r for batch in batches for r in batch] == b.feed(data)
        assert a.buffered == b.buffered


def test_results_hand_out_the_first_frame_before_decoding_the_next() -> None:
    decoder = FrameDecoder(clock=lambda: 1.0)
    data = b"".join(encode_frame(Heartbeat(i, 0, 0, 0, 0), i) for i in range(3))
    it = decoder.results(data)
    first = next(it)
    assert [r.seq for r in first if isinstance(r, Frame)] == [0]
    assert decoder.stats.frames == 1  # the other two not decoded yet
    assert [r.seq for batch in it for r in batch if isinstance(r, Frame)] == [1, 2]
    assert decoder.stats.frames == 3
