"""Byte-level framing of the reader-board protocol: COBS, CRC-16 and the frame header.

See docs/reader-protocol.md for the layout and the test vectors.

COBS is implemented here rather than taken from the ``cobs`` PyPI package: its 1.2.2 release
ships only an sdist with two C extensions (a compiler on every Pi and CI machine, no type
hints), and the whole algorithm is 40 lines that run block-wise on ``bytes.find``, fast enough
for the 1 MB fuzz run and far above the 11.5 kB/s a 115200-baud UART can carry. The output is
byte-for-byte that of ``cobs.cobs.encode`` (no trailing code after a final 254-byte block), so
either side may switch implementations; the test vectors in the doc pin that.
"""

from __future__ import annotations

import binascii
import struct

from controller.rules.errors import BadInput, RailguardError

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (PROTOCOL_VERSION,)

HEADER = struct.Struct("<BBH")  # version, message type, sequence number
HEADER_SIZE = HEADER.size  # 4
CRC_SIZE = 2
MIN_FRAME_SIZE = HEADER_SIZE + CRC_SIZE  # 6: a message with an empty body
MAX_FRAME_SIZE = 512  # decoded: header + body + CRC
# COBS adds one code byte per started 254-byte block: 512 decoded bytes take at most 515.
MAX_ENCODED_SIZE = MAX_FRAME_SIZE + (MAX_FRAME_SIZE + 253) // 254 + 1
DELIMITER = 0x00
SEQ_MODULO = 1 << 16


class FrameError(BadInput):
    """A frame from the wire is not valid; the message says what is wrong with it."""


class EncodeError(RailguardError, ValueError):
    """A message cannot be put on the wire (a field out of range); the message names it."""


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, init 0xFFFF, no reflection, no final XOR.

    ``crc16(b"123456789") == 0x29B1``.
    """
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes | bytearray) -> bytes:
    """COBS-encode ``data``; the result holds no 0x00 byte (the delimiter is not appended)."""
    src = bytes(data)
    out = bytearray()
    start = 0
    n = len(src)
    while True:
        zero = src.find(0, start, start + 254)
        if zero == -1:
            end = min(start + 254, n)
            if end - start == 254:
                out.append(0xFF)
                out += src[start:end]
                start = end
                if start == n:
                    break
                continue
            out.append(end - start + 1)
            out += src[start:end]
            break
        out.append(zero - start + 1)
        out += src[start:zero]
        start = zero + 1
    return bytes(out)


def cobs_decode(data: bytes | bytearray | memoryview) -> bytes:
    """Decode one COBS block sequence (without its delimiter). Raises :class:`FrameError`."""
    enc = bytes(data)
    n = len(enc)
    if n == 0:
        raise FrameError("empty COBS frame")
    zero = enc.find(0)
    if zero != -1:
        raise FrameError(f"0x00 inside a COBS frame at offset {zero}")
    out = bytearray()
    i = 0
    while i < n:
        code = enc[i]
        end = i + code
        if end > n:
            raise FrameError(
                f"COBS code byte {code} at offset {i} runs past the end of the {n}-byte frame"
            )
        out += enc[i + 1 : end]
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def seal(version: int, msg_type: int, seq: int, body: bytes) -> bytes:
    """Header + body + CRC, COBS-encoded, followed by the 0x00 delimiter: bytes for the wire."""
    if not 0 <= version <= 0xFF:
        raise EncodeError(f"protocol version {version} does not fit in one byte")
    if not 0 <= seq < SEQ_MODULO:
        raise EncodeError(f"sequence number {seq} is outside 0..65535")
    raw = HEADER.pack(version, msg_type, seq) + body
    if len(raw) + CRC_SIZE > MAX_FRAME_SIZE:
        raise EncodeError(
            f"frame of {len(raw) + CRC_SIZE} bytes exceeds the maximum of {MAX_FRAME_SIZE}"
        )
    raw += crc16(raw).to_bytes(2, "big")
    return cobs_encode(raw) + b"\x00"


def unseal(encoded: bytes | bytearray | memoryview) -> tuple[int, int, int, bytes]:
    """Undo :func:`seal` for one frame without its delimiter: (version, type, seq, body).

    Checks size and CRC only; the version and the body are for the caller to judge.
    Raises :class:`FrameError` (or :class:`CrcMismatch`).
    """
    if len(encoded) > MAX_ENCODED_SIZE:
        raise FrameError(
            f"encoded frame of {len(encoded)} bytes exceeds the maximum of {MAX_ENCODED_SIZE}"
        )
    raw = cobs_decode(encoded)
    if len(raw) < MIN_FRAME_SIZE:
        raise FrameError(
            f"frame of {len(raw)} bytes is shorter than the {MIN_FRAME_SIZE}-byte minimum"
        )
    if len(raw) > MAX_FRAME_SIZE:
        raise FrameError(f"frame of {len(raw)} bytes exceeds the maximum of {MAX_FRAME_SIZE}")
    got = int.from_bytes(raw[-2:], "big")
    want = crc16(raw[:-2])
    if got != want:
        raise CrcMismatch(want, got, len(raw))
    version, msg_type, seq = HEADER.unpack_from(raw)
    return version, msg_type, seq, raw[HEADER_SIZE:-2]


class CrcMismatch(FrameError):
    """The CRC carried by a frame does not match its content."""

    def __init__(self, computed: int, carried: int, length: int) -> None:
        super().__init__(
            f"CRC mismatch in a {length}-byte frame: carried 0x{carried:04X}, "
            f"computed 0x{computed:04X}"
        )
        self.computed = computed
        self.carried = carried
        self.length = length
