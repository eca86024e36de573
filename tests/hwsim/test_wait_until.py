"""``hwsim.layout.wait_until``, the poll every simulated table (sim, demo, scenarios) waits
with. A cancellation swallowed by an earlier await must still stop the waiter: on Python
3.11.2 (the Pi's) asyncio.wait_for returns its future's result when the future completes as
the cancel arrives (CPython gh-86296), and aiomqtt's publish awaits it. ``railguard sim``
then ignored Ctrl-C pressed while the table seated its players (found by a probe that sent
SIGINT at 50 ms steps after a hand began: the sim dealt on)."""

from __future__ import annotations

import asyncio

import pytest

from hwsim.layout import TableFailure, wait_until


async def _swallowed() -> list[int]:
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[int] = loop.create_future()
    got: list[int] = []

    async def dealer() -> None:
        got.append(await asyncio.wait_for(fut, 30))  # 3.11: the cancel below is swallowed
        await wait_until(lambda: False, "a card that never comes", timeout=20)

    task = asyncio.create_task(dealer())
    await asyncio.sleep(0.05)  # the dealer waits in wait_for
    fut.set_result(1)  # the future completes ...
    task.cancel()  # ... as the cancel arrives, in the same loop iteration
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    return got


def test_a_swallowed_cancellation_stops_the_next_wait() -> None:
    got = asyncio.run(_swallowed())
    # on 3.11 the dealer got the result (the cancel was swallowed there), 3.12+ raises it
    # at wait_for; either way the wait below it did not run to its 20 s TableFailure
    assert got in ([1], [])


def test_a_wait_still_times_out_with_its_name() -> None:
    with pytest.raises(TableFailure, match="timed out waiting for the river"):
        asyncio.run(wait_until(lambda: False, "the river", timeout=0.05))


def test_a_condition_that_holds_returns_at_once() -> None:
    asyncio.run(wait_until(lambda: True, "nothing", timeout=0))
