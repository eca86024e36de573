"""The daemon's badge reader is a factory it is given, as its pin and board factories are
(issue 21): a reader other than pcscd's (here an in-process one, the shape a simulator or
another reader takes) reaches the rules core and the live state the same way. The PC/SC
path itself is tests/daemon/test_daemon_pcsc.py (real pcscd and vpcd)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pytest

from controller.rules.events import BadgeTap, SetDealer
from firmware_bridge.pcsc import BadgeTable, PcscState, ReaderStatus, RulesEvent
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import running, wait_for

BADGES = {"04A1B2C3": {"staff": "D-017", "role": "dealer"}}


class CounterReader:
    """A badge reader on the counter: ``tap`` a staff id; what PcscReader would emit."""

    made: ClassVar[list[CounterReader]] = []

    def __init__(self, badges: BadgeTable, *,
                 on_event: Callable[[RulesEvent], None] | None = None,
                 on_status: Callable[[PcscState], None] | None = None,
                 reader_filter: str | None = None, dealer: str = "") -> None:  # fmt: skip
        self.badges, self.on_event, self.on_status = badges, on_event, on_status
        self.started = self.closed = False
        CounterReader.made.append(self)

    def start(self) -> None:
        self.started = True
        assert self.on_status is not None
        self.on_status(PcscState(time.monotonic(), ReaderStatus.READY, ("counter",)))

    def close(self) -> None:
        self.closed = True

    def tap(self, uid: str) -> None:
        badge = self.badges.lookup(uid)
        assert badge is not None and self.on_event is not None
        t = time.monotonic()
        self.on_event(BadgeTap(t, badge.staff_id, supervisor=False))
        self.on_event(SetDealer(t, badge.staff_id))


@pytest.mark.timeout(60)
def test_the_daemon_reads_badges_through_the_factory_it_is_given(tmp_path: Path) -> None:
    CounterReader.made.clear()

    async def scenario(port: int) -> None:
        async with running(tmp_path, port, badge_factory=CounterReader,
                           pcsc={"enabled": True, "badges": BADGES}) as rig:  # fmt: skip
            d = rig.daemon
            await wait_for(lambda: CounterReader.made and CounterReader.made[0].started,
                           "the badge reader made and started")  # fmt: skip
            await wait_for(lambda: d.badge_reader == "ready", "the reader's status")
            CounterReader.made[0].tap("04A1B2C3")
            await wait_for(lambda: d.core.dealer == "D-017", "the dealer logged in")
        assert CounterReader.made[0].closed  # stopped with the daemon

    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(scenario(broker.port), 50))
