"""Staff badges through the daemon: a real pcscd + vpcd (tests/firmware_bridge/pcsc_fixtures,
by assignment) and hwsim.vpicc as the badge, mosquitto, the pty reader board and SimGpio.

Run in its own pytest process by test_daemon_pcsc.py: libpcsclite reads the pcscd socket
path once per process, so a second session pcscd in the same process (another module's
copy of the fixtures) cannot be reached. Not collected by the main run (no ``test_``
prefix).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, ROOT / "tests" / "firmware_bridge"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import pcsc_fixtures  # noqa: E402
from pcsc_fixtures import Pcscd  # noqa: E402

from controller.rules.events import ConsoleButton  # noqa: E402
from hwsim.vpicc import VirtualCard  # noqa: E402
from tests.brokers import plain_broker  # noqa: E402
from tests.daemon.daemon_rig import running, wait_for  # noqa: E402

pytestmark = pytest.mark.timeout(90)
pcscd_session = pcsc_fixtures.pcscd_session
pcscd = pcsc_fixtures.pcscd

DEALER = "04A1B2C3D4E5F6"
SUPERVISOR = "04FFEEDDCCBBAA"
BADGES = {DEALER: {"staff": "D-017", "role": "dealer"},
          SUPERVISOR: {"staff": "S-002", "role": "supervisor"}}  # fmt: skip
PCSC = {"enabled": True, "badges": BADGES}


async def _tap(card: VirtualCard, uid: str) -> None:
    await asyncio.to_thread(card.insert, uid)
    await asyncio.sleep(0.8)  # the reader polls every 0.25 s
    await asyncio.to_thread(card.remove)
    await asyncio.sleep(0.5)


def test_dealer_badge_logs_in_and_out_supervisor_rules(tmp_path: Path, pcscd: Pcscd) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_badges(tmp_path, broker.port, pcscd), 80))


async def _badges(tmp: Path, port: int, pcscd: Pcscd) -> None:
    card = VirtualCard(port=pcscd.slot_ports[0])
    async with running(tmp, port, pcsc=PCSC) as rig:
        d = rig.daemon
        await wait_for(lambda: rig.venue.on("state") and rig.state().get("badge_reader")
                       == "ready", "badge_reader ready in the state", 10)  # fmt: skip
        await rig.setup()
        await _tap(card, DEALER)
        await wait_for(lambda: d.core.dealer == "D-017", "the dealer logged in")
        # the venue sees the dealer on duty in the live state (issue 17)
        await wait_for(lambda: rig.state().get("dealer") == "D-017", "the dealer in the state")
        # hand 1 under the dealer: the record names them
        await rig.to_first_action()
        await rig.fold(1)
        await rig.fold(2)
        await wait_for(lambda: d.records, "the hand record")
        assert d.core.last_record is not None and d.core.last_record.hand_no == 1
        assert d.core.last_record.dealer == "D-017"
        await rig.clear()
        # a second tap logs the dealer out: hand 2 has no dealer
        await _tap(card, DEALER)
        await wait_for(lambda: d.core.dealer == "", "the dealer logged out")
        await wait_for(lambda: rig.state().get("dealer", "") is None, "no dealer in the state")
        await rig.to_first_action((3, 1, 2))
        await rig.fold(2)
        await rig.fold(3)
        await wait_for(lambda: len(d.records) == 2, "the second record")
        assert d.core.last_record is not None and d.core.last_record.hand_no == 2
        assert d.core.last_record.dealer == ""
        await rig.clear()
        # hand 3: a disputed misdeal after the window closed, ruled by the supervisor
        await rig.to_first_action((1, 2, 3))
        await rig.chips(3, 100)  # the button calls
        await rig.chips(1, 50)  # the small blind completes: the misdeal window is closed
        await rig.settled()
        await rig.gpio.press(ConsoleButton.MISDEAL, 0.06)
        await wait_for(lambda: rig.alerts("MISDEAL_REFUSED"), "the refused misdeal")
        assert not rig.alerts("MISDEAL")
        assert d.core.dealer == ""  # a supervisor badge is not a dealer login
        await _tap(card, SUPERVISOR)
        await wait_for(lambda: rig.alerts("MISDEAL"), "the supervisor's misdeal")
        alert = rig.alerts("MISDEAL")[-1]
        assert alert["clause"] == "supervisor ruling (badge)" and alert["hand_no"] == 3
        assert d.core.dealer == "" and d.core.phase.value == "misdeal"


def test_no_pcscd_is_a_status_and_the_table_plays_on(tmp_path: Path, pcscd_session: Pcscd) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_no_pcscd(tmp_path, broker.port, pcscd_session), 80))


async def _no_pcscd(tmp: Path, port: int, pcscd: Pcscd) -> None:
    assert not pcscd.running
    async with running(tmp, port, pcsc=PCSC) as rig:
        await wait_for(lambda: rig.venue.on("state") and rig.state().get("badge_reader")
                       == "no_service", "badge_reader no_service in the state", 10)  # fmt: skip
        await rig.setup(button=None)  # the daemon serves commands without badges
        assert len(rig.state()["seats"]) == 3
        # pcscd comes up: the reader is found without a restart
        await asyncio.to_thread(pcscd.start)
        try:
            await wait_for(lambda: rig.state().get("badge_reader") == "ready",
                           "badge_reader ready after pcscd started", 15)  # fmt: skip
        finally:
            await asyncio.to_thread(pcscd.stop)
