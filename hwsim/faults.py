"""Byte-level fault injection for the simulated reader board's outgoing frames.

Rates are probabilities per frame (seeded, so a run replays); the one-shot counters apply a
fault to the next N frames. Sequence-number faults (skip, duplicate) live on the board,
since they are about which frames it sends rather than what happens to their bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class ByteFaults:
    bit_flip_rate: float = 0.0  # one random bit of the frame flipped
    drop_byte_rate: float = 0.0  # one random byte lost (may be the delimiter: frames merge)
    truncate_rate: float = 0.0  # the frame cut short at a random point; its delimiter kept
    garbage_rate: float = 0.0  # a burst of random bytes (no delimiter) before the frame
    garbage_len: int = 32
    pending_bit_flips: int = 0
    pending_drops: int = 0
    pending_truncations: int = 0
    pending_garbage: list[bytes] = field(default_factory=list)
    applied: dict[str, int] = field(
        default_factory=lambda: {"bit_flip": 0, "drop_byte": 0, "truncate": 0, "garbage": 0}
    )

    def flip_bits(self, frames: int = 1) -> None:
        """Flip one bit in each of the next ``frames`` frames."""
        self.pending_bit_flips += frames

    def drop_bytes(self, frames: int = 1) -> None:
        """Lose one byte of each of the next ``frames`` frames."""
        self.pending_drops += frames

    def truncate(self, frames: int = 1) -> None:
        """Cut each of the next ``frames`` frames short (the delimiter still follows)."""
        self.pending_truncations += frames

    def garbage(self, data: bytes) -> None:
        """Send ``data`` as-is before the next frame (line noise, a bootloader's banner...)."""
        self.pending_garbage.append(bytes(data))

    def clear(self) -> None:
        self.bit_flip_rate = self.drop_byte_rate = self.truncate_rate = self.garbage_rate = 0.0
        self.pending_bit_flips = self.pending_drops = self.pending_truncations = 0
        self.pending_garbage.clear()

    def _take(self, pending: str, rate: float, rng: random.Random) -> bool:
        n: int = getattr(self, pending)
        if n > 0:
            setattr(self, pending, n - 1)
            return True
        return rate > 0.0 and rng.random() < rate

    def apply(self, wire: bytes, rng: random.Random) -> bytes:
        """The bytes that actually leave the board for one encoded frame (delimiter included)."""
        out = bytearray(wire)
        prefix = b""
        if self.pending_garbage:
            prefix = b"".join(self.pending_garbage)
            self.pending_garbage.clear()
            self.applied["garbage"] += 1
        elif self.garbage_rate and rng.random() < self.garbage_rate:
            prefix = bytes(rng.randrange(1, 256) for _ in range(self.garbage_len))
            self.applied["garbage"] += 1
        if self._take("pending_truncations", self.truncate_rate, rng) and len(out) > 2:
            cut = rng.randrange(1, len(out) - 1)
            out = out[:cut] + out[-1:]
            self.applied["truncate"] += 1
        if self._take("pending_bit_flips", self.bit_flip_rate, rng):
            pos = rng.randrange(len(out) - 1)  # not the delimiter: a corrupted frame, not two
            out[pos] ^= 1 << rng.randrange(8)
            self.applied["bit_flip"] += 1
        if self._take("pending_drops", self.drop_byte_rate, rng):
            del out[rng.randrange(len(out))]
            self.applied["drop_byte"] += 1
        return prefix + bytes(out)
