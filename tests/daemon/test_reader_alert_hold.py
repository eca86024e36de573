"""``reader.alert_hold_ms``: when the daemon writes an alert to the broker (the venue link's
direct path), it holds its reader board that long, so that the rest of the scan is read
after the alert has crossed, not while it crosses (docs/performance.md, "The reader held
while the alert crosses"). The hold must lose nothing: the table goes on judging cards,
the changes-only burst timer does not close a cycle on frames still in the port, and no
frame is lost or late. Real pty board (hwsim), real mosquitto, the real Daemon; the
setting's bounds are checked by the config loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.rules.errors import ConfigError
from firmware_bridge.protocol import SetConfig
from firmware_bridge.serial_link import SerialReaderLink
from hwsim.board import SimBoard
from tests.daemon.reader_rig import HOLE1, HOLE2, run_scenario, running, two_seat_config, until
from tests.link.mqtt_helpers import Observer

SCAN_MS = 10  # the shortest scan period: the most frames inside each hold
# a tag no deck knows, on a table with no button: its placement and its removal are each
# refused (REJECTED: "place the button first", "was not on hole 1"), each an alert
UNKNOWN = bytes.fromhex("04ee0000000001")


async def _alerts_and_holds(tmp_path: Path, mqtt_port: int, hold_ms: float) -> None:
    board = SimBoard(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
    async with running(board, tmp_path, mqtt_port, scan_ms=SCAN_MS,
                       alert_hold_ms=hold_ms) as daemon:  # fmt: skip
        link = daemon.reader
        assert isinstance(link, SerialReaderLink) and daemon.tracker_changes
        assert daemon.cfg.alert_hold == hold_ms / 1000
        async with Observer(mqtt_port, [daemon.link.topics.alerts]) as obs:
            await until(lambda: not daemon.link._queue, 5, "the link idle after its birth")
            late, gaps = daemon.tracker.late_frames, link.stats.sequence_gaps
            for i, antenna in enumerate((HOLE1, HOLE2, HOLE1)):
                board.place(antenna, UNKNOWN)
                await until(lambda n=2 * i + 1: len(obs.messages) >= n, 5, "the placement's")
                await until(lambda: not daemon.link._queue, 5, "the alert acknowledged")
                board.remove(antenna, UNKNOWN)
                await until(lambda n=2 * i + 2: len(obs.messages) >= n, 5, "the removal's")
                await until(lambda: not daemon.link._queue, 5, "the alert acknowledged")
            alerts = [body for _, body, _ in obs.messages]
            assert [a["code"] for a in alerts] == ["REJECTED"] * 6, alerts
            # each alert written on the direct path held the reader once (none without)
            assert link.stats.holds == (6 if hold_ms else 0), link.stats
            assert not link.receiving
            # nothing lost or misplaced while held: no gap, no frame carried into a later
            # cycle, and the table still sees a card placed after the holds
            assert link.stats.sequence_gaps == gaps and daemon.tracker.late_frames == late
            board.place(HOLE2, UNKNOWN)
            await until(lambda: len(obs.messages) >= 7, 5, "the seventh alert")
            assert daemon.reader is link  # the same session throughout


@pytest.mark.timeout(90)
@pytest.mark.parametrize("hold_ms", [2.0, 0.0])
def test_each_alert_holds_the_reader_and_loses_nothing(tmp_path: Path, hold_ms: float) -> None:
    run_scenario(lambda p, port: _alerts_and_holds(p, port, hold_ms), tmp_path)


@pytest.mark.parametrize("value", [-0.5, 2.5, 50, "1"])
def test_alert_hold_out_of_bounds_is_refused_by_name(tmp_path: Path, value: object) -> None:
    with pytest.raises(ConfigError, match=r"reader\.alert_hold_ms"):
        two_seat_config("/dev/null", 1883, tmp_path, scan_ms=SCAN_MS, alert_hold_ms=value)
