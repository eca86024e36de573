"""``Daemon.watchers``, the public observer list the scenario runner reads the daemon's side
through (an alert's card, pots with eligible seats): every handled event and its step reach
each watcher; one that raises is logged and dropped, and the table goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.rules.decisions import Alert, AlertCode
from controller.rules.engine import Step
from controller.rules.events import CardPlaced, Event, SeatPlayer
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import running, wait_for

pytestmark = pytest.mark.timeout(60)


def test_watchers_see_every_step_and_a_raising_one_is_dropped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_watchers(tmp_path, broker.port), 50))
    assert any("watcher" in r.getMessage() and "dropped" in r.getMessage()
               for r in caplog.records)  # fmt: skip


async def _watchers(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        seen: list[tuple[Event, Step]] = []
        calls = 0

        def broken(_ev: Event, _step: Step) -> None:
            nonlocal calls
            calls += 1
            raise RuntimeError("a broken observer")

        rig.daemon.watchers += [broken, lambda ev, step: seen.append((ev, step))]
        await rig.setup()
        assert calls == 1 and broken not in rig.daemon.watchers
        seated = [ev.seat for ev, _ in seen if isinstance(ev, SeatPlayer)]
        assert seated == [1, 2, 3]  # the venue's seat commands, as core events
        # the first card to the big blind (seat 3) instead of the small blind: the core's
        # alert reaches the watcher as the decision itself, and the venue gets it too
        await rig.chips(2, 50)
        await rig.chips(3, 100)
        await rig.deal(3, "Qh")
        await wait_for(lambda: rig.alerts("WRONG_FIRST_SEAT"), "the alert over MQTT")
        alerts = [d for _, st in seen for d in st.decisions if isinstance(d, Alert)]
        assert [a.code for a in alerts] == [AlertCode.WRONG_FIRST_SEAT]
        placed = [ev for ev, _ in seen if isinstance(ev, CardPlaced)]
        assert [str(ev.card) for ev in placed] == ["Qh"]  # served after the drop
