"""The daemon's opt-in stage stamps (controller/daemon/trace.py) as bench/e2e.py reads them:
a daemon process with ``RAILGUARD_STAGE_TRACE`` on a real pty and a private mosquitto; every
alert a subscriber received has its record, and the stamps lie, in their order, between the
bench's own clock readings (the board writing the frame, the subscriber receiving the alert:
the same CLOCK_MONOTONIC read by another process). Without the variable there is no trace."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench import e2e
from controller.daemon.service import Daemon
from controller.daemon.trace import ENV, STAMPS
from controller.demo.table import daemon_config
from tests.brokers import plain_broker

QUEUED_ORDER = tuple(k for k in STAMPS if k != "encoded")
QUEUED_ORDER = (*QUEUED_ORDER[: QUEUED_ORDER.index("dequeued") + 1], "encoded", "acked")


@pytest.mark.timeout(90)
def test_every_received_alert_has_its_stamps_in_order(tmp_path: Path) -> None:
    e2e.check_clocks()

    async def go() -> tuple[list[e2e.Sample], dict[str, dict[str, int]]]:
        with plain_broker() as b:
            table = await e2e.open_table(b.port, tmp_path)
            samples = []
            try:
                for _ in range(8):
                    s = await e2e.one_event(table, timeout=20.0)  # a loaded test machine
                    assert s is not None, table.daemon.log()[-2000:]
                    samples.append(s)
            finally:
                stages = await e2e.close_table(table)
        return samples, stages

    samples, stages = asyncio.run(go())
    # the link idle at least once: the alert written by publish_alert itself (its direct
    # path: encoded before publish_alert returned)
    assert any(e2e.direct(stages.get(s.alert_id)) for s in samples), stages
    for s in samples:
        st = stages.get(s.alert_id)
        assert st is not None, (s.alert_id, sorted(stages))
        # each stage after the one before: the direct path's order (the link idle), or the
        # queued one's (the alert waited behind another message: encoded by the writer)
        order = STAMPS if e2e.direct(st) else QUEUED_ORDER
        values = [st[k] for k in order]
        assert values == sorted(values), st
        assert s.cycle_end is not None
        # the daemon read the confirming frame after the board wrote it (and acted on it
        # there, or at the cycle's last frame: firmware_bridge/antennas.py), and the
        # subscriber got the alert after the daemon encoded it
        assert s.frame * 1e9 <= st["read"] and st["encoded"] <= s.received * 1e9


def test_no_trace_without_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    cfg = daemon_config("/dev/null", "127.0.0.1", 1, "t1", "tda-2024", tmp_path, {})
    d = Daemon(cfg)
    assert d.trace is None and d.link.trace is None
    monkeypatch.setenv(ENV, str(tmp_path / "stages.jsonl"))
    traced = Daemon(daemon_config("/dev/null", "127.0.0.1", 1, "t2", "tda-2024",
                                  tmp_path / "b", {}))  # fmt: skip
    assert traced.trace is not None and traced.link.trace == traced.trace.link
    for x in (d, traced):
        for db in (x.store, x.writer_store, x.writer_outbox, x.link.outbox):
            db.close()
        x.hand_slot.close()
        x.table_writer.close()
        x.outbox_writer.close()
