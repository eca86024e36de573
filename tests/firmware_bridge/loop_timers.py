"""(Shared with tests/daemon: this folder is on sys.path, see tests/conftest.py.)

Which code schedules timers on the event loop: a context manager that counts every
``call_at`` (so every ``call_later`` and ``asyncio.sleep``/``wait`` timeout) by who asked for
it, the coroutine of the current task (``reader_task``, ``HandRecords.held_loop``) or, outside a
task, the callback itself (``Settler._fire``, ``SerialReaderLink._on_check``). Idle-wakeup
tests assert on these counts, not on durations."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterator
from typing import Any


def _who(loop: asyncio.AbstractEventLoop, callback: Any) -> str:
    task = asyncio.current_task(loop)
    if task is not None:
        coro = task.get_coro()
        return str(getattr(coro, "__qualname__", task.get_name()))
    return str(getattr(callback, "__qualname__", repr(callback)))


@contextlib.contextmanager
def recording_timers(loop: asyncio.AbstractEventLoop) -> Iterator[Counter[str]]:
    seen: Counter[str] = Counter()
    real = loop.call_at

    def call_at(when: float, callback: Any, *args: Any, context: Any = None) -> Any:
        seen[_who(loop, callback)] += 1
        return real(when, callback, *args, context=context)

    loop.call_at = call_at  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        del loop.call_at  # type: ignore[method-assign]
