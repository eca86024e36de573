"""The console's live stream (``/api/stream``): the room's changes sent in frames.

Each change was one server-sent event written to each open page as it came; at 500 tables
(thousands of messages a second) the console fell tens of seconds behind, those writes a
part of its work, and the browser drew up to three tiles a second a table
(docs/performance.md, "The festival fleet"). Now the changes wait at most :data:`FRAME_S`
and go out together: one write a frame to each page, each change
encoded once for all pages, and of a table's tile only the latest within a frame (a tile is
the whole tile, so the latest supersedes the ones before). An alert or an ACK is never
dropped nor moved before an earlier change, and an alert (or a change of the console's own
broker link) is sent at once, with whatever waits before it, not at the end of the frame.

The format is unchanged: each change is its own ``data: <json>`` event (static/floor.js).
A page that is :data:`MAX_BEHIND` frames behind (its connection does not take the bytes)
is disconnected instead of being written to without bound: its EventSource connects again
and reads a fresh snapshot, so it loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from typing import Any

FRAME_S = 1.0  # a tile changes at most once a second; an alert goes at once
MAX_BEHIND = 400  # frames, with the alerts' own: a minute of a busy room
KEEPALIVE = b": keep-alive\n\n"


class StreamClient:
    """One open stream: the frames not yet written to it."""

    def __init__(self) -> None:
        self.frames: deque[bytes] = deque()
        self.overflowed = False
        self._ready = asyncio.Event()

    def push(self, frame: bytes) -> None:
        if len(self.frames) >= MAX_BEHIND:
            self.overflowed = True
        else:
            self.frames.append(frame)
        self._ready.set()

    async def take(self, keepalive: float) -> bytes | None:
        """Everything waiting, as one write; a keep-alive comment after ``keepalive``
        seconds without a change; None once the client fell too far behind."""
        if not self.frames and not self.overflowed:
            self._ready.clear()
            # asyncio.timeout, not wait_for: 3.11's wait_for can swallow the stop of a
            # stream that ends as a frame arrives (gh-86296; controller/link/mqtt_client.py)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(keepalive):
                    await self._ready.wait()
        if self.overflowed:
            return None
        if not self.frames:
            return KEEPALIVE
        out = b"".join(self.frames)
        self.frames.clear()
        return out


class Frames:
    """The changes waiting for the next frame, and the open streams they go to."""

    def __init__(self, frame_s: float = FRAME_S) -> None:
        self.frame_s = frame_s
        self.clients: set[StreamClient] = set()
        self._pending: dict[str, dict[str, Any]] = {}  # in order; a tile's key: its latest
        self._seq = 0
        self._timer: asyncio.Handle | None = None

    def add(self, changes: list[dict[str, Any]]) -> None:
        if not self.clients:
            return  # nobody to tell; a page that opens reads the snapshot
        urgent = False
        for c in changes:
            if c.get("type") == "tile":
                key = f"tile {c['tile']['key']}"
                self._pending.pop(key, None)  # the latest goes after what came before it
            else:
                self._seq += 1
                key = str(self._seq)
                urgent = urgent or c.get("type") in ("alert", "link")
            self._pending[key] = c
        loop = asyncio.get_running_loop()
        if urgent:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_soon(self.flush)
        elif self._timer is None:
            self._timer = loop.call_later(self.frame_s, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        frame = "".join(f"data: {json.dumps(c)}\n\n" for c in self._pending.values()).encode()
        self._pending.clear()
        for client in self.clients:
            client.push(frame)

    def open(self) -> StreamClient:
        """A new stream; what waits was applied to the room before it, so it goes to the
        streams already open (the new one reads it in its snapshot)."""
        self.flush()
        client = StreamClient()
        self.clients.add(client)
        return client

    def close(self, client: StreamClient) -> None:
        self.clients.discard(client)
