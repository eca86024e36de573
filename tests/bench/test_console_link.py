"""bench/console_link.py small: the console's real link on a private mosquitto works through
a held backlog in each variant (the bench itself checks that every table's last state
arrived: it exits non-zero otherwise). No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(200)
def test_console_link_bench_receives_every_message_in_each_variant() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "console_link.py"), "--messages", "1500",
         "--tables", "10", "--rounds", "1"],
        capture_output=True, text=True, timeout=180, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["messages"] == 1500 and r["tables"] == 10
    assert all(r[f"{k}_us_per_message"] > 0 for k in ("before", "qos1", "after")), r
