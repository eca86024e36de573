"""``SerialReaderLink.hold`` through a real pty and pyserial-asyncio-fast, against hwsim.board:
while held, nothing the board sends is handed on (it waits in the pty's buffer); at the
hold's end every frame comes, in order, none lost; the rest of a read whose snapshot asked
for the hold waits for its end too; a shorter hold does not cut a longer one short."""

from __future__ import annotations

import asyncio
import itertools

from bounded import run

from firmware_bridge.protocol import SetConfig
from firmware_bridge.serial_link import LinkConfig, LinkStatus, SerialReaderLink
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard

SCAN = SetConfig(scan_period_ms=10, heartbeat_interval_ms=100)
LINK = LinkConfig(hello_timeout=0.2, heartbeat_interval=0.1, backoff_initial=0.05,
                  backoff_max=0.2)  # fmt: skip
UID = bytes.fromhex("04a1b2c3d4e5f6")


def in_order(snaps: list[tuple[float, AntennaSnapshot]]) -> bool:
    """Each cycle's antennas 0..3 in turn, cycle after cycle with none skipped."""
    keys = [(s.cycle, s.antenna) for _, s in snaps]
    return all(
        (c2, a2) == ((c1, a1 + 1) if a1 < 3 else (c1 + 1, 0))
        for (c1, a1), (c2, a2) in itertools.pairwise(keys)
    )


def test_held_frames_wait_in_the_port_and_all_come_in_order_after() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        got: list[tuple[float, AntennaSnapshot]] = []
        board = SimBoard(4, config=SCAN)
        path = await board.start_pty()
        board.place(2, UID)
        link = SerialReaderLink(path, lambda s: got.append((loop.time(), s)), config=LINK)
        try:
            async with link:
                await link.wait_status(LinkStatus.ONLINE, timeout=3)
                while len(got) < 12:
                    await asyncio.sleep(0.01)
                assert not link.receiving
                start = loop.time()
                link.hold(0.2)  # about 20 scans: far more than a real hold, to see it
                link.hold(0.05)  # a shorter one does not cut it short
                n = len(got)
                assert link.receiving and link.stats.holds == 1
                await asyncio.sleep(0.15)
                assert len(got) == n, "a frame was handed on during the hold"
                assert link.receiving
                while loop.time() < start + 0.2 or len(got) == n:
                    await asyncio.sleep(0.005)
                await asyncio.sleep(0.05)
                later = [t for t, _ in got[n:]]
                assert min(later) >= start + 0.2 - 0.005, "handed on before the hold's end"
                # every scan of the hold came, in order, with none lost or repeated
                assert len(got) - n >= 4 * 15, len(got) - n
                assert in_order(got), [(s.cycle, s.antenna) for _, s in got]
                assert all(UID in {t.uid for t in s.tags} for _, s in got if s.antenna == 2)
                assert link.stats.sequence_gaps == 0 and link.stats.crc_errors == 0
                assert link.status is LinkStatus.ONLINE and not link.receiving
                link.hold(0)  # nothing to hold
                assert not link.receiving and link.stats.holds == 1
        finally:
            await board.stop()

    run(main())


def test_the_rest_of_a_read_waits_for_the_hold_asked_by_its_snapshot() -> None:
    """A scan arrives in one read (the board writes its four frames in one turn of the loop
    the link shares with it, as the reader firmware writes a cycle's frames together); the
    snapshot that raised the alert holds the link: the read's later frames are handed on at
    the hold's end, before anything read after it."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        got: list[tuple[float, AntennaSnapshot]] = []
        board = SimBoard(4, config=SCAN)
        path = await board.start_pty()
        held_at: list[float] = []  # when the hold was asked for
        held_i: list[int] = []  # by which snapshot of ``got``

        def consumer(snap: AntennaSnapshot) -> bool:
            got.append((loop.time(), snap))
            if snap.antenna == 1 and not held_at and len(got) > 8:
                held_at.append(loop.time())
                held_i.append(len(got) - 1)
                link.hold(0.1)
                return True  # it gave the loop work (an event for the core)
            return False

        link = SerialReaderLink(path, consumer, config=LINK)
        try:
            async with link:
                await link.wait_status(LinkStatus.ONLINE, timeout=3)
                while not held_at or len(got) < 20:
                    await asyncio.sleep(0.01)
                i = held_i[0]
                assert got[i][1].antenna == 1
                after = got[i + 1 :]
                assert after[0][0] >= held_at[0] + 0.1 - 0.005, "the rest came during the hold"
                assert [s.antenna for _, s in after[:2]] == [2, 3]  # the rest of that read
                assert in_order(got)
        finally:
            await board.stop()

    run(main())
