"""``--broker`` against a real mosquitto: ``demo`` and ``replay`` pointed at a venue's broker
leave every hand to the venue's own logger (their logger has a share group of its own), and
``scenario`` takes the ``mqtt://HOST:PORT`` form the other commands take."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from pathlib import Path

import pytest

from controller.link.config import BrokerConfig
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import plain_broker
from tests.replay.hands import HAND_WITH_FLOP_BET

ROOT = Path(__file__).resolve().parents[1]
RAILGUARD = Path(sys.executable).parent / "railguard"

pytestmark = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)


async def _railguard(*args: str, timeout: float = 150) -> tuple[int, str]:
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    proc = await asyncio.create_subprocess_exec(
        *cmd, *args, cwd=ROOT, env={**os.environ, "NO_COLOR": "1"},
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    return proc.returncode or 0, out.decode()


async def _until(check: object, what: str, timeout: float = 20) -> None:
    async with asyncio.timeout(timeout):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.05)


@pytest.mark.timeout(200)
@pytest.mark.parametrize("command", ["demo", "replay"])
def test_a_run_on_the_venue_broker_leaves_every_hand_to_the_venue_logger(
    tmp_path: Path, command: str
) -> None:
    """The venue's logger (share group ``venuelog``) stores every hand the run deals; sharing
    its group, the run's own logger would take about half of them (round robin)."""
    n = 4
    if command == "demo":
        args = ["demo", "--tables", "1", "--hands", str(n), "--source", "generated",
                "--seed", "2", "--error-rate", "0"]  # fmt: skip
    else:
        for i in range(n):
            (tmp_path / f"h{i}.phh").write_text(HAND_WITH_FLOP_BET)
        args = ["replay", "--tables", "1", str(tmp_path)]

    async def go(port: int) -> None:
        cfg = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
        venue = VenueLogger(cfg, SqliteHandStore(tmp_path / "venue.db"), instance="venue-pi")
        venue.start()
        try:
            await venue.wait_connected(15)
            code, out = await _railguard(*args, "--broker", f"mqtt://127.0.0.1:{port}")
            assert code == 0, out
            if command == "demo":
                assert f"stored by the venue logger {n}" in out, out
            else:
                assert f"{n} passed, 0 failed" in out, out
            await _until(lambda: venue.stats.stored >= n, f"{n} hands at the venue logger")
            assert venue.stats.stored == n
        finally:
            await venue.stop()

    with plain_broker() as b:
        asyncio.run(go(b.port))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("form", ["mqtt://127.0.0.1:{port}", "127.0.0.1:{port}"])
def test_scenario_takes_every_broker_form(form: str) -> None:
    scn = sorted((ROOT / "scenarios").rglob("*.scn"))[0]
    with plain_broker() as b:
        code, out = asyncio.run(_railguard("scenario", "--broker", form.format(port=b.port),
                                           str(scn)))  # fmt: skip
    assert code == 0, out
    assert f"PASS {scn}" in out, out  # played, against that broker
