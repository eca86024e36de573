"""The console's state: the users, the signed sessions, the room, the link to the tables,
the hand store's path and the open live streams. Every route's handler receives it
(:mod:`controller.floor.routes`); who may call which route is :mod:`controller.floor.policy`."""

from __future__ import annotations

import secrets
import time
from typing import Any

from aiohttp import web

from controller.floor.auth import Session, Sessions, User, hash_password
from controller.floor.link import FloorLink
from controller.floor.room import Room
from controller.floor.stream import Frames

COOKIE = "railguard_floor"


class Console:
    """The application's state: users, sessions, the room, the link and the SSE clients."""

    def __init__(
        self,
        users: dict[str, User],
        sessions: Sessions,
        room: Room,
        link: FloorLink,
        db: str | None,
        *,
        secure_cookie: bool = False,
    ) -> None:
        self.users, self.sessions, self.room, self.link = users, sessions, room, link
        self.db, self.secure_cookie = db, secure_cookie
        self.frames = Frames()  # the open live streams and what waits for their next frame
        self.decoy = hash_password(secrets.token_urlsafe(16))  # for unknown user names
        link.on_change = self.broadcast

    def broadcast(self, changes: list[dict[str, Any]]) -> None:
        self.frames.add(changes)

    def session(self, request: web.Request) -> tuple[Session, User]:
        """The request's session and user (401 without a valid one)."""
        s = self.sessions.read(request.cookies.get(COOKIE), time.time())
        user = self.users.get(s.user) if s is not None else None
        if s is None or user is None:
            raise web.HTTPUnauthorized(text="log in first")
        return s, user
