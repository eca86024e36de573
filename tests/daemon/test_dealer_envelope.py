"""The dealer's id travels in the hand record's envelope (OHH 1.4 has only dealer_seat):
stored with the record in the outbox (an older outbox gets the column), sent, and valid."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.link import schemas
from controller.link.client import VenueLink
from controller.link.config import BrokerConfig
from controller.link.outbox import Outbox

OHH = {"spec_version": "1.4.7"}


def test_dealer_id_in_the_envelope(tmp_path: Path) -> None:
    db = tmp_path / "outbox.db"
    con = sqlite3.connect(db)  # an outbox of the previous version: no dealer_id column
    con.executescript("CREATE TABLE outbox (record_seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                      " hand_id TEXT NOT NULL UNIQUE, hand_no INTEGER NOT NULL, ended_at REAL"
                      " NOT NULL, ohh TEXT NOT NULL, sent_count INTEGER NOT NULL DEFAULT 0,"
                      " acked_at REAL, ack_status TEXT);")  # fmt: skip
    con.close()
    box = Outbox(db)
    link = VenueLink(BrokerConfig(host="127.0.0.1", port=1, tls=False, allow_plaintext=True),
                     "v1", "t1", box)  # fmt: skip
    try:
        a = box.add("v1-t1-1", 1, OHH, dealer_id="D-0042")
        b = box.add("v1-t1-2", 2, OHH)
        env_a, env_b = link.envelope(a), link.envelope(box.pending()[1])
        assert env_a["dealer_id"] == "D-0042" and env_b["dealer_id"] is None
        assert b.dealer_id is None
        for env in (env_a, env_b):
            schemas.validate("hand", {**env, "ohh": {}})
    finally:
        box.close()
