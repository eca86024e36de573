"""bench/console_ingest.py: the replayed festival traffic, each table under its own name,
through the console's real handler, room and frames."""

from __future__ import annotations

import asyncio
import json
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.console_ingest import run, traffic  # noqa: E402

STATE = {"seq": 1, "bdseq": 1, "ts": 1.0, "hand_no": 7, "street": "turn", "board": [],
         "pot": 600, "to_act": 3, "button": 1,
         "seats": [{"seat": 3, "player_id": "p3", "name": "Cy", "stack": 800, "bet": 0,
                    "cards_held": 2, "status": "active"}]}  # fmt: skip


def test_every_table_gets_its_templates_messages_under_its_own_name(tmp_path: Path) -> None:
    msgs = [(float(t), "railguard/v1/tpl000/state", json.dumps(STATE).encode(), 1, True)
            for t in range(40)]  # fmt: skip
    msgs.append((5.0, "railguard/v1/tpl000/hands", b"{}", 1, False))  # not the console's
    rec = {"seconds": 40.0, "origin": 0.0, "period": 12.0,
           "tables": {"tpl000": {"client_id": "x-tpl000", "will": None, "subscriptions": [],
                                 "messages": msgs}}}  # fmt: skip
    path = tmp_path / "rec.pickle"
    path.write_bytes(pickle.dumps(rec))
    out = traffic(path, tables=3, seconds=10.0)
    assert {m[1] for m in out} == {f"railguard/v1/t00{i}/state" for i in range(3)}
    assert len(out) == 30 and [m[0] for m in out] == sorted(m[0] for m in out)
    result = asyncio.run(run(out, 1.0))
    assert result["messages"] == 30 and result["tiles"] == 3 and result["refused"] == 0
    assert result["stream_bytes"] > 0 and len(result["gc_collections"]) == 3
