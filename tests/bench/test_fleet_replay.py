"""bench/fleet_replay.py's rewrite of a recorded template's message into a replayed
table's: its own names, fresh alert ids (the same in the alert and in its ACK), and wall
times of the replay. No broker: the client is made, not connected."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.fleet_replay import Replayed  # noqa: E402

TEMPLATE = {
    "client_id": "railguard-v1-tpl007",
    "will": ("railguard/v1/tpl007/status", b'{"status":"offline","table":"tpl007"}', 1, True),
    "subscriptions": [("railguard/v1/tpl007/cmd", 1)],
    "messages": [],
}
ALERT = b'{"code":"MISSING_BURN","seq":37,"bdseq":0,"ts":1000.5,"alert_id":"213712616f5d"}'
ACK = b'{"seq":63,"ts":1001.0,"kind":"alert_ack","data":{"alert_id":"213712616f5d"}}'
HAND = (b'{"kind":"hand","hand_id":"v1-tpl007-1","table":"tpl007","ended_at":1002.25,'
        b'"sent_at":1002.5,"ohh":{"table_name":"tpl007"}}')  # fmt: skip


def test_replayed_table_rewrites_names_ids_and_times() -> None:
    t = Replayed("t123", "tpl007", TEMPLATE, shift=15.0, delta=500.0)
    other = Replayed("t124", "tpl007", TEMPLATE, shift=16.0, delta=600.0)
    assert t.client._client_id == b"railguard-v1-t123"
    assert t.topic("railguard/v1/tpl007/alerts") == "railguard/v1/t123/alerts"
    before = time.time()
    alert, ack, hand = (
        json.loads(t.bytes(ALERT)),
        json.loads(t.bytes(ACK)),
        json.loads(t.bytes(HAND)),
    )
    assert alert["alert_id"] != "213712616f5d" and ack["data"]["alert_id"] == alert["alert_id"]
    assert json.loads(other.bytes(ALERT))["alert_id"] != alert["alert_id"]
    assert alert["ts"] >= before and ack["ts"] >= before and hand["sent_at"] >= before
    assert hand["ended_at"] == 1502.25 and hand["hand_id"] == "v1-t123-1"
    assert hand["table"] == "t123" and hand["ohh"]["table_name"] == "t123"
    assert alert["seq"] == 37 and alert["code"] == "MISSING_BURN"


def test_a_late_publish_moves_the_records_end_with_it() -> None:
    t = Replayed("t001", "tpl007", TEMPLATE, shift=15.0, delta=500.0)
    assert json.loads(t.bytes(HAND, late=2.5))["ended_at"] == 1504.75
