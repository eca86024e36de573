"""The floor's pty hop read by a process of its own (``bench.hops.ProcPtyHop``,
bench/pty_process.py): each sample is the other process's stamp of the moment it had all of
the bytes, after this process wrote them; the process stops when the master closes."""

from __future__ import annotations

import asyncio

from bench.hops import ProcPtyHop


def test_samples_come_from_the_reader_process_and_it_stops() -> None:
    async def go() -> tuple[list[float], int | None]:
        hop = ProcPtyHop(b"\x01" * 300)  # more than one read's worth on some kernels
        await hop.start()
        try:
            samples = [await hop.sample() for _ in range(20)]
        finally:
            await hop.stop()
        assert hop.proc is not None
        return samples, hop.proc.returncode

    samples, code = asyncio.run(go())
    assert len(samples) == 20
    assert all(0 < s < 5 for s in samples), samples  # stamped after the write, on the same clock
    assert code == 0  # it saw the master close and returned
