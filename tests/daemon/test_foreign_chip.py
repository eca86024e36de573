"""000 SECTION 1 item 9 (2nd run) [L45]: "Non-tournament chips are not allowed on the table".
A tag of no chip registry and no deck laid in a betting zone (real pty board, the tracker,
the daemon, a real mosquitto): the dealer and the venue get FOREIGN_CHIP naming the seat, and
the chip counts for nothing: the seat still owes its call."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.brokers import plain_broker
from tests.daemon.daemon_rig import BET, running, wait_for

pytestmark = pytest.mark.timeout(60)
STRANGER = bytes.fromhex("5A5A5A5A010203")  # in no registry


@pytest.mark.clause("000-S1-chips-9", profiles=("a2c-000",))
def test_a_chip_of_no_registry_is_flagged_and_not_counted(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_foreign_chip(tmp_path, broker.port), 50))


async def _foreign_chip(tmp: Path, port: int) -> None:
    async with running(tmp, port, profile="a2c-000") as rig:
        await rig.setup()
        await rig.to_first_action()  # seat 1 (the button) faces the big blind's 100
        pot = rig.state()["pot"]
        await rig.place(BET[1], STRANGER)
        await wait_for(lambda: rig.alerts("FOREIGN_CHIP"), "the foreign chip alert")
        a = rig.alerts("FOREIGN_CHIP")[0]
        assert a["seat"] == 1 and a["severity"] == "warning" and "[L45]" in a["clause"]
        assert "not counted" in a["remedy"] and a["hand_no"] == 1
        await rig.settled()
        state = rig.state()
        assert state["pot"] == pot and state["to_act"] == 1  # nothing was bet
        await rig.chips(1, 100)  # the real call
        await wait_for(lambda: rig.state()["to_act"] == 2, "seat 1's call")
        assert len(rig.alerts("FOREIGN_CHIP")) == 1
