"""``run``: a test's coroutine on a fresh event loop, failing after ``timeout`` seconds
instead of hanging (shared by the serial link's tests)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def run(coro: Coroutine[Any, Any, None], timeout: float = 20.0) -> None:
    async def bounded() -> None:
        async with asyncio.timeout(timeout):
            await coro

    asyncio.run(bounded())
