"""Idle CPU and resident memory of the daemon process, beside a bare baseline in the same run.

The daemon (the simulated table of ``hwsim.table`` with its daemon as its own process,
``railguard run --config``, with the production reader defaults: 50 ms scan, 1 s heartbeat,
changes-only reporting with a full refresh every 20 scans, MQTT keepalive 15 s) is connected
to the table's SimBoard on a pty and to mosquitto, with nothing on the table: the board
sends an antenna only when its tags change, so on an idle table only the full refresh
(every antenna once a second) and the heartbeat reach the daemon. The baseline
(bench/idle_baseline.py) reads a SimBoard's byte stream at the board's power-on defaults,
i.e. every antenna every scan (it sends no SET_CONFIG), and holds an aiomqtt connection,
nothing else; it reads more bytes than the daemon does, so it is a generous floor. Both are
sampled with psutil over the same window.

``rss_mb`` (the issue's target) is the daemon's resident set; beside it ``uss_mb`` (private
memory, what its exit would free), ``anon_mb`` (the heap: the part only the code decides) and
``file_mb`` (file-backed pages: code of the interpreter and the extension modules, whose
resident count varies between runs of identical code; bench/memory.py, docs/performance.md).

    .venv/bin/python bench/idle.py [--seconds 60]    # its own broker; prints one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import psutil

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import memory
from controller.daemon import config
from hwsim.board import SimBoard
from hwsim.broker import plain_broker
from hwsim.layout import SIX
from hwsim.table import SimTable

HERE = Path(__file__).resolve().parent
BASE = "railguard/v1/t1"


def _cpu(p: psutil.Process) -> float:
    t = p.cpu_times()
    return float(t.user + t.system)


#: the settings the simulated table's config compresses (hwsim.layout.config_mapping: a 20 ms
#: scan, a 200 ms heartbeat, a 10 s ready timeout, a pty's baud rate, a 5 s keepalive)
PRODUCTION = ("reader.scan_period_ms", "reader.heartbeat_ms", "reader.ready_timeout_s",
              "reader.baudrate", "mqtt.keepalive")  # fmt: skip


def production_settings() -> dict[str, dict[str, Any]]:
    """:data:`PRODUCTION` at the defaults a table runs with
    (:data:`controller.daemon.config.SETTINGS`), by section."""
    defaults = {s.key: s.default for s in config.SETTINGS}
    out: dict[str, dict[str, Any]] = {}
    for key in PRODUCTION:
        section, _, name = key.partition(".")
        out.setdefault(section, {})[name] = defaults[key]
    return out


async def run(port: int, seconds: float, workdir: Path) -> dict[str, Any]:
    base_board = SimBoard(16)  # the board's power-on defaults: 50 ms scan, 1 s heartbeat
    base_pty = await base_board.start_pty()
    reader = production_settings()
    table = await SimTable.open(
        "127.0.0.1", port, profile="tda-2024", workdir=workdir, seats=SIX, transport="pty",
        process=True, scan_period_ms=reader["reader"]["scan_period_ms"], settings=reader,
        enrol=False, topics=("status",),
    )  # fmt: skip
    daemon = table.child
    assert daemon is not None
    baseline = subprocess.Popen(
        [sys.executable, str(HERE / "idle_baseline.py"), "--serial", base_pty,
         "--mqtt-port", str(port)], stdout=subprocess.PIPE, cwd=HERE.parent,
    )  # fmt: skip
    try:
        assert baseline.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(baseline.stdout.readline), 10)
        if b"ready" not in line:
            raise RuntimeError("the idle baseline did not start")
        await asyncio.sleep(2.0)  # start-up done
        dp, bp = psutil.Process(daemon.pid), psutil.Process(baseline.pid)
        d0, b0 = _cpu(dp), _cpu(bp)
        await asyncio.sleep(seconds)
        d1, b1 = _cpu(dp), _cpu(bp)
        d_rss, b_rss = dp.memory_info().rss, bp.memory_info().rss
        d_mem, b_mem = memory.rollup(daemon.pid), memory.rollup(baseline.pid)
        alive = daemon.alive()
    finally:
        await table.close()
        baseline.terminate()
        try:
            baseline.wait(5)
        except subprocess.TimeoutExpired:
            baseline.kill()
            baseline.wait(5)
        await base_board.stop()
    per_min = 60.0 / seconds
    return {
        "idle_seconds": seconds,
        "idle_cpu_s_per_min": round((d1 - d0) * per_min, 3),
        "baseline_cpu_s_per_min": round((b1 - b0) * per_min, 3),
        "rss_mb": round(d_rss / 2**20, 1),
        "baseline_rss_mb": round(b_rss / 2**20, 1),
        # beside the RSS: the private (USS), anonymous and file-backed share (bench/memory.py)
        "uss_mb": d_mem["uss_mb"],
        "anon_mb": d_mem["anon_mb"],
        "file_mb": d_mem["file_mb"],
        "baseline_uss_mb": b_mem["uss_mb"],
        "daemon_alive": alive,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="sampling window (default 60)")
    args = ap.parse_args(argv)
    if args.seconds <= 0:
        ap.error("--seconds must be positive")
    with tempfile.TemporaryDirectory(prefix="railguard-idle-") as tmp, plain_broker() as b:
        r = asyncio.run(run(b.port, args.seconds, Path(tmp)))
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
