"""PC/SC badges and enrolment against a real pcscd + vpcd, with hwsim.vpicc as the card."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from pcsc_fixtures import Pcscd

from controller.rules.errors import ConfigError
from controller.rules.events import BadgeTap, SetDealer
from firmware_bridge.pcsc import (
    BadgeTable,
    PcscReader,
    PcscState,
    ReaderStatus,
    StaffRole,
    TagRemoved,
    TagTap,
)
from hwsim.vpicc import AsyncVirtualCard, VirtualCard, answer_apdu

pytestmark = pytest.mark.timeout(60)

# pcscd_session / pcscd come from tests/conftest.py (one pcscd per test session)

DEALER_UID = "04A1B2C3D4E5F6"
DEALER2_UID = "04112233445566"
SUPERVISOR_UID = "04FFEEDDCCBBAA"
BADGES = BadgeTable.from_mapping(
    {
        DEALER_UID: {"staff": "D-017", "role": "dealer"},
        "04:11:22:33:44:55:66": {"staff": "D-020", "role": "dealer"},
        SUPERVISOR_UID.lower(): {"staff": "S-002", "role": "supervisor"},
    }
)


# ---------------------------------------------------------------- no pcscd needed


def test_badge_table_parses_and_names_bad_keys() -> None:
    assert BADGES.lookup(bytes.fromhex(DEALER2_UID)) is not None
    badge = BADGES.lookup("04ffeeddccbbaa")
    assert badge is not None and badge.role is StaffRole.SUPERVISOR
    assert BADGES.lookup("DEADBEEF") is None
    bad: list[tuple[dict[str, Any], str]] = [
        ({"XYZ": {"staff": "a", "role": "dealer"}}, r"^badges\.XYZ: UID must be hex"),
        ({"0102": {"staff": "a", "role": "dealer"}}, r"^badges\.0102: UID must be 4 to 10"),
        ({"01020304": {"staff": "a", "role": "boss"}}, r"^badges\.01020304\.role: expected"),
        ({"01020304": {"staff": "", "role": "dealer"}}, r"^badges\.01020304\.staff"),
        ({"01020304": {"staff": "a", "rol": "dealer"}}, r"^badges\.01020304\.rol: unknown"),
        (
            {
                "01020304": {"staff": "a", "role": "dealer"},
                "01:02:03:04": {"staff": "b", "role": "dealer"},
            },
            r"^badges\.01:02:03:04: UID 01020304 is listed twice",
        ),
        (
            {
                "01020304": {"staff": "a", "role": "dealer"},
                "05060708": {"staff": "a", "role": "supervisor"},
            },
            r"^badges\.05060708\.role: staff a is a dealer",
        ),
    ]
    for data, pattern in bad:
        with pytest.raises(ConfigError, match=pattern):
            BadgeTable.from_mapping(data)


def test_virtual_card_answers_get_uid() -> None:
    uid = bytes.fromhex(DEALER_UID)
    assert answer_apdu(uid, bytes([0xFF, 0xCA, 0, 0, 0])) == uid + b"\x90\x00"
    assert answer_apdu(uid, bytes([0xFF, 0xCA, 0, 0, 4])) == b"\x6c\x07"
    assert answer_apdu(uid, bytes([0xFF, 0xCA, 1, 0, 0])) == b"\x6a\x81"
    assert answer_apdu(uid, bytes([0x00, 0xA4, 4, 0, 0])) == b"\x6e\x00"


# ---------------------------------------------------------------- harness


class Rig:
    def __init__(self, **kw: Any) -> None:
        self.events: list[Any] = []
        self.tags: list[Any] = []
        self.states: list[PcscState] = []
        self.threads: set[int] = set()
        kw.setdefault("retry_s", 0.2)
        kw.setdefault("poll_s", 0.1)
        self.reader = PcscReader(
            BADGES, on_event=self._event, on_tag=self._tag, on_status=self._status, **kw
        )

    def _event(self, ev: Any) -> None:
        self.threads.add(threading.get_ident())
        self.events.append(ev)

    def _tag(self, ev: Any) -> None:
        self.threads.add(threading.get_ident())
        self.tags.append(ev)

    def _status(self, st: PcscState) -> None:
        self.states.append(st)

    async def until(self, what: Callable[[], object], timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not what():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out; status={self.reader.state} tags={self.tags} events={self.events}"
                )
            await asyncio.sleep(0.02)

    def taps(self) -> list[TagTap]:
        return [t for t in self.tags if isinstance(t, TagTap)]

    def removals(self) -> list[TagRemoved]:
        return [t for t in self.tags if isinstance(t, TagRemoved)]


def run(scenario: Callable[[Rig], Awaitable[None]], **kw: Any) -> Rig:
    rig = Rig(**kw)

    async def main() -> None:
        rig.loop_thread = threading.get_ident()  # type: ignore[attr-defined]
        rig.reader.start()
        try:
            await scenario(rig)
        finally:
            t0 = time.monotonic()
            await asyncio.to_thread(rig.reader.close)
            rig.close_s = time.monotonic() - t0  # type: ignore[attr-defined]

    asyncio.run(asyncio.wait_for(main(), 45))
    return rig


def slot0(daemon: Pcscd) -> VirtualCard:
    return VirtualCard(port=daemon.slot_ports[0])


# ---------------------------------------------------------------- with pcscd


def test_dealer_badge_logs_in_and_out(pcscd: Pcscd) -> None:
    card = slot0(pcscd)

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        assert rig.reader.state.readers == pcscd.reader_names
        await asyncio.to_thread(card.insert, DEALER_UID)
        await rig.until(lambda: len(rig.events) == 2)
        assert rig.reader.dealer == "D-017"
        await asyncio.to_thread(card.remove)
        await rig.until(rig.removals)
        await asyncio.to_thread(card.insert, DEALER_UID)  # tap again: log out
        await rig.until(lambda: len(rig.events) == 4)
        await asyncio.to_thread(card.remove)

    rig = run(scenario)
    t = [e.t for e in rig.events]
    assert rig.events == [
        BadgeTap(t[0], "D-017", supervisor=False),
        SetDealer(t[1], "D-017"),
        BadgeTap(t[2], "D-017", supervisor=False),
        SetDealer(t[3], ""),
    ]
    assert rig.taps()[0].uid_hex == DEALER_UID
    assert rig.taps()[0].reader == "Virtual PCD 00 00"
    assert rig.threads == {rig.loop_thread}  # type: ignore[attr-defined]
    assert rig.close_s < 1.5  # type: ignore[attr-defined]


def test_second_dealer_takes_over_and_supervisor_authorises(pcscd: Pcscd) -> None:
    card = slot0(pcscd)

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        for uid in (DEALER_UID, DEALER2_UID, SUPERVISOR_UID):
            n = len(rig.taps())
            await asyncio.to_thread(card.insert, uid)
            await rig.until(lambda n=n: len(rig.taps()) == n + 1)
            await asyncio.to_thread(card.remove)
            await rig.until(lambda n=n: len(rig.removals()) == n + 1)

    rig = run(scenario)
    assert [(type(e).__name__, getattr(e, "badge", None) or getattr(e, "dealer", None),
             getattr(e, "supervisor", None)) for e in rig.events] == [
        ("BadgeTap", "D-017", False),
        ("SetDealer", "D-017", None),
        ("BadgeTap", "D-020", False),
        ("SetDealer", "D-020", None),
        ("BadgeTap", "S-002", True),
    ]  # fmt: skip
    assert rig.reader.dealer == "D-020"


def test_unknown_card_goes_to_the_tag_stream_only(pcscd: Pcscd) -> None:
    card = slot0(pcscd)

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        await asyncio.to_thread(card.insert, "DEADBEEF")
        await rig.until(rig.taps)
        await asyncio.to_thread(card.remove)
        await rig.until(rig.removals)

    rig = run(scenario)
    assert [t.uid for t in rig.taps()] == [bytes.fromhex("DEADBEEF")]
    assert rig.events == []
    assert card.apdus == [bytes.fromhex("FFCA000000")]  # the UID was read, nothing else


def test_enrolment_reads_each_card_with_get_uid(pcscd: Pcscd) -> None:
    uids = [f"04{i:02X}A0B0C0D0E0" for i in range(6)]
    card = slot0(pcscd)
    seen_apdus: list[bytes] = []
    latencies: list[float] = []

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        for n, uid in enumerate(uids):
            t0 = time.monotonic()
            await asyncio.to_thread(card.insert, uid)
            await rig.until(lambda n=n: len(rig.taps()) == n + 1)
            latencies.append(time.monotonic() - t0)
            seen_apdus.extend(card.apdus)
            await asyncio.to_thread(card.remove)
            await rig.until(lambda n=n: len(rig.removals()) == n + 1)

    rig = run(scenario)
    assert [t.uid_hex for t in rig.taps()] == uids
    assert seen_apdus == [bytes.fromhex("FFCA000000")] * len(uids)
    assert max(latencies) < 2.0
    print(f"tap→TagTap latency: max {max(latencies):.3f}s mean {sum(latencies) / 6:.3f}s")


def test_card_pulled_mid_enrolment_then_pcscd_lost_and_back(pcscd: Pcscd) -> None:
    card = slot0(pcscd)

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        await asyncio.to_thread(card.insert, "04000000000001")
        await rig.until(rig.taps)
        await asyncio.to_thread(card.close)  # the card simulator stops with a card down
        await rig.until(rig.removals)
        await asyncio.to_thread(card.insert, "04000000000002")
        await rig.until(lambda: len(rig.taps()) == 2)
        # the reader goes away with a card on it (pcscd stopped: e.g. USB reset)
        await asyncio.to_thread(pcscd.stop)
        await rig.until(lambda: rig.reader.status is ReaderStatus.NO_SERVICE)
        await rig.until(lambda: len(rig.removals()) == 2)
        card.close()
        # it comes back: the monitor retries on its own
        await asyncio.to_thread(pcscd.start)
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        await asyncio.to_thread(VirtualCard(port=pcscd.slot_ports[0]).insert, "04000000000003")
        await rig.until(lambda: len(rig.taps()) == 3)

    rig = run(scenario)
    assert [t.uid_hex for t in rig.taps()] == ["04000000000001", "04000000000002",
                                               "04000000000003"]  # fmt: skip
    assert [s.status for s in rig.states] == [
        ReaderStatus.READY,
        ReaderStatus.NO_SERVICE,
        ReaderStatus.READY,
    ]


def test_no_pcscd_is_a_status_not_a_crash_and_recovers(pcscd_session: Pcscd) -> None:
    assert not pcscd_session.running

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.states)
        assert rig.reader.status is ReaderStatus.NO_SERVICE
        assert "0x8010001d" in rig.reader.state.detail.lower()  # SCARD_E_NO_SERVICE
        await asyncio.sleep(0.6)  # several retries
        assert rig.reader._thread is not None and rig.reader._thread.is_alive()
        await asyncio.to_thread(pcscd_session.start)
        try:
            await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
            card = VirtualCard(port=pcscd_session.slot_ports[0])
            await asyncio.to_thread(card.insert, SUPERVISOR_UID)
            await rig.until(lambda: rig.events)
            card.close()
        finally:
            await asyncio.to_thread(pcscd_session.stop)

    rig = run(scenario)
    assert rig.events == [BadgeTap(rig.events[0].t, "S-002", supervisor=True)]
    # (then NO_SERVICE again once the scenario stops pcscd under the running reader)
    assert [s.status for s in rig.states][:2] == [ReaderStatus.NO_SERVICE, ReaderStatus.READY]


def test_pcscd_without_reader_reports_no_reader(pcscd_session: Pcscd) -> None:
    pcscd_session.start(with_reader=False)
    try:

        async def scenario(rig: Rig) -> None:
            await rig.until(lambda: rig.states)
            await asyncio.sleep(0.3)

        rig = run(scenario)
    finally:
        pcscd_session.stop()
    assert [s.status for s in rig.states] == [ReaderStatus.NO_READER]


def test_reader_filter_ignores_other_readers(pcscd: Pcscd) -> None:
    other = VirtualCard(port=pcscd.slot_ports[0])
    mine = VirtualCard(port=pcscd.slot_ports[1])

    async def scenario(rig: Rig) -> None:
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        assert rig.reader.state.readers == ("Virtual PCD 00 01",)
        await asyncio.to_thread(other.insert, DEALER_UID)
        await asyncio.sleep(0.8)  # vpcd polls presence every ~0.4 s
        assert rig.tags == []
        await asyncio.to_thread(mine.insert, SUPERVISOR_UID)
        await rig.until(rig.taps)
        other.close()
        mine.close()

    rig = run(scenario, reader_filter="00 01")
    assert [(t.uid_hex, t.reader) for t in rig.taps()] == [(SUPERVISOR_UID, "Virtual PCD 00 01")]


def test_async_virtual_card(pcscd: Pcscd) -> None:
    async def scenario(rig: Rig) -> None:
        card = AsyncVirtualCard(port=pcscd.slot_ports[0])
        await rig.until(lambda: rig.reader.status is ReaderStatus.READY)
        await card.insert(DEALER2_UID)
        await rig.until(lambda: rig.events)
        assert card.apdus == [bytes.fromhex("FFCA000000")]
        await card.remove()
        await rig.until(rig.removals)

    rig = run(scenario)
    assert [type(e) for e in rig.events] == [BadgeTap, SetDealer]
