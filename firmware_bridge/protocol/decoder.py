"""Streaming frame decoder: arbitrary byte chunks in, decoded frames and typed issues out.

It never raises on bad input, keeps at most one maximum-size encoded frame in memory, and
resynchronises at the next 0x00 after garbage. Issues are values, not exceptions, so a
caller can count, log or react to them (the serial link asks for a snapshot on a gap).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from firmware_bridge.protocol.codec import (
    MAX_ENCODED_SIZE,
    SEQ_MODULO,
    SUPPORTED_VERSIONS,
    CrcMismatch,
    FrameError,
)
from firmware_bridge.protocol.messages import BOARD_TO_HOST, Frame, Hello, MessageType
from firmware_bridge.protocol.wire import VersionError, decode_frame


@dataclass(frozen=True, slots=True)
class CrcError:
    computed: int
    carried: int
    length: int

    def __str__(self) -> str:
        return (
            f"CRC mismatch in a {self.length}-byte frame: carried 0x{self.carried:04X}, "
            f"computed 0x{self.computed:04X}"
        )


@dataclass(frozen=True, slots=True)
class MalformedFrame:
    reason: str
    length: int  # encoded length

    def __str__(self) -> str:
        return f"malformed frame ({self.length} bytes encoded): {self.reason}"


@dataclass(frozen=True, slots=True)
class OversizedFrame:
    """More than MAX_ENCODED_SIZE bytes without a delimiter; dropped up to the next 0x00."""

    length: int  # bytes seen when the frame was given up

    def __str__(self) -> str:
        return (
            f"oversized frame: {self.length} bytes without a delimiter exceeds "
            f"{MAX_ENCODED_SIZE}; discarding up to the next 0x00"
        )


@dataclass(frozen=True, slots=True)
class VersionMismatch:
    got: int
    supported: tuple[int, ...]
    message_type: int

    def __str__(self) -> str:
        supported = ", ".join(str(v) for v in self.supported)
        return (
            f"protocol version mismatch: the peer speaks version {self.got}, "
            f"this host supports version {supported}"
        )


@dataclass(frozen=True, slots=True)
class SequenceGap:
    """Frames were lost (or the sender skipped numbers); the frame that follows is kept."""

    expected: int
    got: int

    @property
    def missed(self) -> int:
        return (self.got - self.expected) % SEQ_MODULO

    def __str__(self) -> str:
        return f"sequence gap: expected {self.expected}, got {self.got} ({self.missed} missed)"


@dataclass(frozen=True, slots=True)
class DuplicateFrame:
    """Same sequence number as the previous frame; the frame is dropped."""

    seq: int

    def __str__(self) -> str:
        return f"duplicate frame with sequence number {self.seq} dropped"


DecodeIssue = (
    CrcError | MalformedFrame | OversizedFrame | VersionMismatch | SequenceGap | DuplicateFrame
)
DecodeResult = Frame | DecodeIssue


@dataclass(slots=True)
class DecoderStats:
    bytes_in: int = 0
    frames: int = 0  # accepted frames
    crc_errors: int = 0
    malformed: int = 0
    oversized: int = 0
    version_mismatches: int = 0
    sequence_gaps: int = 0
    frames_missed: int = 0  # sum of the gaps
    duplicates: int = 0


class FrameDecoder:
    """Feed bytes with :meth:`feed`; get back the frames and issues they complete, in order.

    ``accept`` is the set of message types expected from the peer (default: board to host);
    another type is reported as malformed. Sequence numbers are checked per stream: the first
    frame and every HELLO set the baseline, a repeat of the previous number is a duplicate
    (dropped), anything else than previous + 1 (mod 65536) is a gap (frame kept).
    """

    def __init__(
        self,
        accept: Collection[MessageType] = BOARD_TO_HOST,
        clock: Callable[[], float] = time.monotonic,
        max_encoded: int = MAX_ENCODED_SIZE,
    ) -> None:
        self._accept = frozenset(accept)
        self._clock = clock
        self._max = max_encoded
        self._buf = bytearray()
        self._discarding = 0  # >0: inside an oversized frame, count of bytes seen
        self._last_seq: int | None = None
        self.stats = DecoderStats()

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete frame held in memory (never more than the maximum frame)."""
        return len(self._buf)

    def reset_sequence(self) -> None:
        """Forget the last sequence number: the next frame sets a new baseline."""
        self._last_seq = None

    def feed(self, data: bytes | bytearray | memoryview) -> list[DecodeResult]:
        """Everything ``data`` completes, in order (:meth:`results` as a list)."""
        return [item for batch in self.results(data) for item in batch]

    def results(self, data: bytes | bytearray | memoryview) -> Iterator[list[DecodeResult]]:
        """What ``data`` completes, frame by frame: each delimited frame's results (the frame,
        or its issues) as soon as it is decoded, so that a reader acts on a chunk's first frame
        before the rest of the chunk is decoded (a board's whole scan can come in one read).
        Iterate it to the end: the bytes after the frame last taken are held until then."""
        out: list[DecodeResult] = []
        chunk = bytes(data)
        self.stats.bytes_in += len(chunk)
        t = self._clock()
        start = 0
        n = len(chunk)
        while start < n:
            zero = chunk.find(0, start)
            if zero == -1:
                self._hold(chunk, start, n, out)
                break
            if self._discarding:
                self._discarding = 0
            else:
                self._hold(chunk, start, zero, out)
                if not self._discarding and self._buf:
                    frame = bytes(self._buf)
                    self._buf.clear()
                    self._decode(frame, t, out)
                self._discarding = 0
            start = zero + 1
            if out:
                yield out
                out = []
        if out:
            yield out

    def _hold(self, chunk: bytes, start: int, end: int, out: list[DecodeResult]) -> None:
        size = end - start
        if self._discarding:
            self._discarding += size
            return
        if len(self._buf) + size > self._max:
            issue = OversizedFrame(len(self._buf) + size)
            self._buf.clear()
            self._discarding = issue.length
            self.stats.oversized += 1
            out.append(issue)
            return
        self._buf += chunk[start:end]

    def _decode(self, encoded: bytes, t: float, out: list[DecodeResult]) -> None:
        try:
            frame = decode_frame(encoded, t)
        except CrcMismatch as e:
            self.stats.crc_errors += 1
            out.append(CrcError(e.computed, e.carried, e.length))
            return
        except VersionError as e:
            self.stats.version_mismatches += 1
            out.append(VersionMismatch(e.got, SUPPORTED_VERSIONS, e.msg_type))
            return
        except FrameError as e:
            self._malformed(str(e), encoded, out)
            return
        except Exception as e:  # a decoder bug must not take the link down  # pragma: no cover
            self._malformed(f"internal decoder error: {e!r}", encoded, out)
            return
        kind = frame.type
        if kind not in self._accept:
            self._malformed(
                f"message type {kind.name} (0x{kind:02X}) not expected here", encoded, out
            )
            return
        if isinstance(frame.message, Hello) or self._last_seq is None:
            self._last_seq = frame.seq
        else:
            expected = (self._last_seq + 1) % SEQ_MODULO
            if frame.seq == self._last_seq:
                self.stats.duplicates += 1
                out.append(DuplicateFrame(frame.seq))
                return
            if frame.seq != expected:
                gap = SequenceGap(expected, frame.seq)
                self.stats.sequence_gaps += 1
                self.stats.frames_missed += gap.missed
                out.append(gap)
            self._last_seq = frame.seq
        self.stats.frames += 1
        out.append(frame)

    def _malformed(self, reason: str, encoded: bytes, out: list[DecodeResult]) -> None:
        self.stats.malformed += 1
        out.append(MalformedFrame(reason, len(encoded)))
