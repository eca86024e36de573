"""aiomqtt's client, with the stops its calls swallow on Python 3.11 raised again.

On CPython 3.11 ``asyncio.wait_for`` returns its future's result when the future completes
as a cancel of the waiting task arrives (gh-86296, fixed by 3.12's rewrite of ``wait_for``),
and aiomqtt awaits it in ``publish``, ``subscribe`` and ``unsubscribe``: the call returns
normally, the task's cancel request stays counted (``Task.cancelling()``) and nothing raises
it. A stop that lands there was lost: ``railguard venue-log run`` went on waiting for
messages after Ctrl-C or systemd's SIGTERM (found by CI: the SIGINT came as the logger
subscribed), and a link or a floor console stopped in the same moment would have been
awaited for ever.

:class:`Client` raises ``CancelledError`` after such a call when the task's cancel count
grew during it. Comparing with the count before the call (not with zero) keeps it right on
3.11.2, whose ``TaskGroup`` can leave a request of its own counted on the parent task after
a session's failure (controller/link/connect.py). The venue link, the logger and the console
get their clients from :meth:`BrokerConfig.make_client`, which makes this one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiomqtt

__all__ = ["Client"]


def _asked() -> int:
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


def _raise_if_swallowed(before: int) -> None:
    if _asked() > before:
        raise asyncio.CancelledError


class Client(aiomqtt.Client):
    """:class:`aiomqtt.Client` whose ``publish``, ``subscribe`` and ``unsubscribe`` never
    return normally to a task that was asked to stop during the call."""

    async def publish(self, *args: Any, **kwargs: Any) -> None:
        before = _asked()
        await super().publish(*args, **kwargs)
        _raise_if_swallowed(before)

    async def subscribe(self, *args: Any, **kwargs: Any) -> Any:
        before = _asked()
        out = await super().subscribe(*args, **kwargs)
        _raise_if_swallowed(before)
        return out

    async def unsubscribe(self, *args: Any, **kwargs: Any) -> None:
        before = _asked()
        await super().unsubscribe(*args, **kwargs)
        _raise_if_swallowed(before)
