"""The core task's wait on its queue (controller/daemon/core_loop.py): an event put on the
queue is served on the loop's next turn, Ticks come every ``tick_interval`` while a clock
runs and never take an event's place, a stop ends the task; and a rejected event leaves no
reference cycle for the garbage collector (its traceback held the frames that held it:
docs/performance.md, "The alert's path, stage by stage")."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.daemon import core_loop
from controller.daemon.clock import ManualClock
from controller.daemon.core_loop import Item
from controller.daemon.service import Daemon
from controller.rules.events import CardPlaced, Tick, ZoneKind
from hwsim.layout import daemon_config
from tests.daemon.daemon_rig import close_daemon


def _host(tick: float) -> Any:
    return SimpleNamespace(queue=asyncio.Queue(), tick_interval=tick, core=None,
                           clock=ManualClock(start=100.0), publish_state=lambda: None)  # fmt: skip


def _served(monkeypatch: pytest.MonkeyPatch, clock_running: bool) -> list[Item]:
    """The items the core task serves, kept instead of served; a clock always or never
    running."""
    served: list[Item] = []
    monkeypatch.setattr(core_loop, "serve", lambda d, item: served.append(item))
    monkeypatch.setattr(core_loop, "clock_running", lambda core: clock_running)
    return served


def test_an_event_is_served_on_the_next_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    served = _served(monkeypatch, clock_running=False)

    async def main() -> None:
        d = _host(1.0)
        task = asyncio.create_task(core_loop.core_task(d))
        await asyncio.sleep(0.01)  # the task waits on the queue
        for n in range(3):
            d.queue.put_nowait(Item(Tick(float(n)), "test"))
            await asyncio.sleep(0)  # one turn of the loop
            assert len(served) == n + 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_ticks_while_the_clock_runs_and_events_between(monkeypatch: pytest.MonkeyPatch) -> None:
    served = _served(monkeypatch, clock_running=True)

    async def main() -> None:
        d = _host(0.02)
        task = asyncio.create_task(core_loop.core_task(d))
        await asyncio.sleep(0.11)
        ticks = [i for i in served if i.source == "clock"]
        assert 3 <= len(ticks) <= 6
        assert all(isinstance(i.event, Tick) and i.event.t == 100.0 for i in ticks)
        events = [Item(Tick(float(n)), "test") for n in range(20)]
        for ev in events:  # each, whenever it comes, is served once and in order
            d.queue.put_nowait(ev)
            await asyncio.sleep(0.003)
        await asyncio.sleep(0.05)
        assert [i for i in served if i.source == "test"] == events
        assert d.queue.empty()
        task.cancel()  # a stop during the timed wait ends the task (no TimeoutError)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_a_rejected_event_leaves_no_reference_cycle(tmp_path: Path) -> None:
    cfg = daemon_config("in-process", "127.0.0.1", 1, "gc", "tda-2024", tmp_path / "state", {})
    d = Daemon(cfg, clock=ManualClock(start=5000.0))
    try:
        placed = [CardPlaced(5000.0 + n, ZoneKind.HOLE, f"ee{n:06x}", None, 1) for n in range(5)]
        core_loop.serve(d, Item(placed[0], "reader"))  # the first: caches, lazy imports
        gc.collect()
        gc.disable()
        try:
            for ev in placed[1:]:
                core_loop.serve(d, Item(ev, "reader"))
            assert d.stats.rejected == 5  # no button: each refused, a REJECTED alert
            assert gc.collect() == 0
        finally:
            gc.enable()
    finally:
        close_daemon(d)


def test_an_idle_core_serves_an_offered_event_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The direct path (core_loop.offer): while the task waits on an empty queue an
    input's event is served in the caller's callback, before any turn of the loop; one
    offered from inside that serve, or while items are queued, waits on the queue in
    order; before the task waits (start-up) every event is queued."""
    served: list[Item] = []
    running = {"clock": False}
    monkeypatch.setattr(core_loop, "clock_running", lambda core: running["clock"])
    d = _host(0.02)
    d.core_wait = None
    inner = Item(Tick(9.0), "inner")

    def serve(host: Any, item: Item) -> None:
        served.append(item)
        if item.source == "first":  # an input put while this one is being served
            assert not core_loop.offer(host, inner)
            host.queue.put_nowait(inner)

    monkeypatch.setattr(core_loop, "serve", serve)

    async def main() -> None:
        assert not core_loop.offer(d, Item(Tick(0.0), "early"))  # no task waiting yet
        d.queue.put_nowait(Item(Tick(0.0), "early"))
        task = asyncio.create_task(core_loop.core_task(d))
        await asyncio.sleep(0.01)
        assert [i.source for i in served] == ["early"]
        first = Item(Tick(1.0), "first")
        assert core_loop.offer(d, first)  # served now, in this callback
        assert served[-1] is first
        queued = Item(Tick(2.0), "queued")
        assert not core_loop.offer(d, queued)  # the inner one is still queued: behind it
        d.queue.put_nowait(queued)
        await asyncio.sleep(0.005)
        assert [i.source for i in served] == ["early", "first", "inner", "queued"]

        # an offered event that starts a player's clock: the task ticks from then on...
        running["clock"] = True
        assert core_loop.offer(d, Item(Tick(3.0), "starts the clock"))
        await asyncio.sleep(0.07)
        ticks = [i for i in served if i.source == "clock"]
        assert len(ticks) >= 2
        # ...and one that stops it: no more ticks
        running["clock"] = False
        assert core_loop.offer(d, Item(Tick(4.0), "stops the clock"))
        await asyncio.sleep(0.001)
        n = len([i for i in served if i.source == "clock"])
        await asyncio.sleep(0.07)
        assert len([i for i in served if i.source == "clock"]) == n
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
