"""A cancellation swallowed by an await inside the writer (CPython 3.11's asyncio.wait_for,
which aiomqtt's publish uses, can do that: gh-86296) is raised again before the writer waits
on its queue, so stopping the link cannot hang."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from controller.link.client import cancel_if_asked


async def _swallowing_worker(checked: list[str]) -> None:
    task = asyncio.current_task()
    with contextlib.suppress(asyncio.CancelledError):  # what the 3.11 wait_for race does
        await asyncio.sleep(10)
    checked.append("swallowed")
    cancel_if_asked(task)
    checked.append("not raised")  # pragma: no cover - the line the helper must prevent
    await asyncio.Event().wait()


def test_a_swallowed_cancellation_is_raised_again() -> None:
    async def main() -> list[str]:
        checked: list[str] = []
        task = asyncio.create_task(_swallowing_worker(checked))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)
        return checked

    assert asyncio.run(main()) == ["swallowed"]


def test_no_cancellation_no_exception() -> None:
    async def main() -> None:
        cancel_if_asked(asyncio.current_task())
        cancel_if_asked(None)

    asyncio.run(main())
