"""A whole hand dealt through the reader firmware (its bytes on a pty into the real
firmware_bridge and daemon) ends with the same hand record, its alerts included, as through
hwsim's SimBoard: a hand whose flop is dealt without a burn, played to its showdown.

The rig is the demo's pty table (controller.demo.table.run_table: the daemon, the venue
logger, MQTT, the virtual dealer); only the board differs. Both runs use ISO 15693 UIDs
(E0 04 ..., 8 bytes), which is what the firmware's front ends read: the simulator's 4- and
7-byte tags get that prefix in both runs so the two records are comparable."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import controller.demo.table as demo_table
import hwsim.table as sim_table
from controller.demo.hands import _demo_hand
from controller.demo.view import View
from controller.rules.profile import get_profile
from controller.venuelog.store import SqliteHandStore
from hwsim import layout
from hwsim.broker import plain_broker
from hwsim.phh import parse_phh
from reader_firmware.emulation.host import FirmwareBoard

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(
        not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
        reason="mosquitto not installed",
    ),
]

HAND = "\n".join([
    "variant = 'NT'", "ante_trimming_status = true", "antes = [0, 0, 0]",
    "blinds_or_straddles = [50, 100, 0]", "min_bet = 100", "starting_stacks = [5000, 5000, 5000]",
    "actions = ['d dh p1 AsKs', 'd dh p2 7h7d', 'd dh p3 QcJc', 'p3 cbr 300', 'p1 cc', 'p2 f',"
    " 'd db 2c8d9h', 'p1 cc', 'p3 cc', 'd db Jh', 'p1 cbr 400', 'p3 cc', 'd db 3s', 'p1 cc',"
    " 'p3 cc', 'p1 sm AsKs', 'p3 sm QcJc']",
    "hand = 1", "players = ['Ann', 'Bob', 'Cy']",
]) + "\n"  # fmt: skip


def iso15693(uid: bytes) -> bytes:
    return b"\xe0\x04" + uid.rjust(6, b"\x00") if len(uid) <= 6 else b"\xe0" + uid


@pytest.fixture
def iso_tags(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every simulated tag as an ISO 15693 UID (the table's cards, twins and chips)."""
    for mod, name in ((layout, "card_uid"), (layout, "twin_uid"), (layout, "chip_uid"),
                      (demo_table, "card_uid"), (demo_table, "chip_uid")):  # fmt: skip
        old = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, _old=old: iso15693(_old(*a)))


def play(tmp: Path, board: type) -> tuple[list[dict[str, Any]], Any, str]:
    """One hand whose first flop card is dealt without a burn (the dealer error of
    hwsim.inject that only the radio sees), played out to its showdown."""
    hand = _demo_hand("fw", parse_phh(HAND, "fw"), get_profile("tda-2024"), 6)
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sim_table, "SimBoard", board)  # the one part that differs
        with plain_broker() as b:
            outcome, counts = asyncio.run(demo_table.run_table(
                [hand], host=b.host, port=b.port, profile="tda-2024", seed=1, error_rate=0.0,
                workdir=tmp, view=View(out=out, colour=False), kinds=("missing-burn",),
            ))  # fmt: skip
    assert counts == {"daemon": 1, "mqtt": 1, "logger": 1}, out.getvalue()
    assert not outcome.mismatches and not outcome.missing, out.getvalue()
    assert outcome.errors_injected == 1, out.getvalue()
    store = SqliteHandStore(tmp / "venue.db")
    try:
        records = list(store.hands())
    finally:
        store.close()
    return records, hand, out.getvalue()


VOLATILE = {"received_at", "sent_at", "start_date_utc", "started_at", "ended_at", "ts", "t",
            "time", "hand_id", "id", "game_number", "at", "stored_at"}  # fmt: skip


def stable(x: Any) -> Any:
    """The record without what differs between any two runs (clock readings, ids)."""
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE and "time" not in k
                and not k.endswith("_at")}  # fmt: skip
    if isinstance(x, list):
        return [stable(v) for v in x]
    return x


def test_a_hand_through_the_firmware_gives_the_simulators_record(
    tmp_path: Path, iso_tags: None
) -> None:
    sim_records, hand, _ = play(tmp_path / "sim", sim_table.SimBoard)
    fw_records, _, log = play(tmp_path / "fw", FirmwareBoard)
    assert len(sim_records) == len(fw_records) == 1
    got, want = stable(fw_records[0]), stable(sim_records[0])
    assert got == want, log
    codes = [a["code"] for a in got["ohh"]["alerts"]]
    assert codes == ["MISSING_BURN"]  # the injected error, seen through the radio; nothing else
    text = json.dumps(got)
    assert '"As"' in text and '"Qc"' in text and len(text) > 500  # the cards are compared
    assert sorted(layout.ohh_stacks(fw_records[0]["ohh"]).values()) == sorted(hand.expected)


def test_the_comparison_keeps_the_hand() -> None:
    """stable() drops clock readings and ids only: the cards, actions and stacks stay."""
    rec = {"hand_id": "x", "received_at": 1.0, "ohh": {"players": [{"starting_stack": 5000}],
           "rounds": [{"actions": [{"action_time": 3, "cards": ["As", "Ks"]}]}]}}  # fmt: skip
    assert stable(rec) == {"ohh": {"players": [{"starting_stack": 5000}],
                                   "rounds": [{"actions": [{"cards": ["As", "Ks"]}]}]}}  # fmt: skip
