"""What the venue logger tells a technician (issue 16): that it connected (broker, group,
store; a PostgreSQL URL without its password) and, sparsely, how many hands it stored."""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.link import BrokerConfig, VenueLink
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import plain_broker
from tests.link import samples
from tests.link.mqtt_helpers import until

pytestmark = pytest.mark.timeout(60)
RAILGUARD = Path(sys.executable).parent / "railguard"


def test_venue_log_run_says_it_connected_to_broker_group_and_store(pg_url: str) -> None:
    """The real command line against the test's own mosquitto and PostgreSQL."""
    password = pg_url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    with plain_broker() as b:
        proc = subprocess.Popen(
            [str(RAILGUARD), "venue-log", "run", "--host", "127.0.0.1", "--port", str(b.port),
             "--allow-plaintext", "--db", pg_url, "--instance", "desk", "--group", "g1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        lines: list[str] = []
        try:
            assert proc.stdout is not None
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                lines.append(line)
                if "connected to" in line:
                    break
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                out, _ = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:  # not stopped: fail, and leave no process behind
                proc.kill()
                proc.communicate()
                raise
        lines.append(out)
    text = "".join(lines)
    want = f"venue logger desk: connected to 127.0.0.1:{b.port} (plain TCP); group g1"
    assert want in text, text
    assert "store PostgreSQL postgresql://postgres@127.0.0.1:" in text, text
    assert password not in text
    assert proc.returncode == 0, text


def test_logger_logs_hands_stored_sparsely(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One progress line per ``progress_every`` seconds while hands arrive (60 s by default;
    0 here, so each stored hand gives one)."""
    caplog.set_level(logging.INFO, logger="controller.venuelog.logger")

    async def main() -> None:
        with plain_broker() as b:
            cfg = BrokerConfig(host="127.0.0.1", port=b.port, tls=False, allow_plaintext=True)
            hands = SqliteHandStore(tmp_path / "venue.db")
            logger = VenueLogger(cfg, hands, progress_every=0.0)
            link = VenueLink(cfg, "v1", "t1", tmp_path / "t.db")
            logger.start()
            link.start()
            await until(lambda: link.logger_online, what="logger online")
            for n in (1, 2):
                link.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
            await until(lambda: hands.count() == 2, what="stored")
            await until(lambda: link.outbox.pending_count() == 0, what="acked")
            await link.stop()
            await logger.stop()
            hands.close()

    asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if "hands in the last" in r.getMessage()]
    assert len(lines) == 2, lines
    assert lines[0].startswith("venue logger main: stored 1 hands in the last")
    assert "total 2 stored" in lines[1]
