"""The console's web application (aiohttp): the page and its assets, login and sessions, the
room as JSON and as a server-sent-event stream, alert acknowledgement and seating through
the venue commands, and a search of completed hands in the venue logger's store."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from controller.floor import actions, history, tournament
from controller.floor.auth import (
    Role,
    Session,
    Sessions,
    User,
    csrf_ok,
    hash_password,
    verify_password,
)
from controller.floor.body import integer, json_object, text
from controller.floor.link import FloorLink
from controller.floor.room import Room
from controller.floor.stream import Frames
from controller.link.errors import StoreError
from controller.venuelog.query import HandQuery
from controller.venuelog.store import open_for_export

COOKIE = "railguard_floor"
ASSETS = {"floor.js": "text/javascript", "floor.css": "text/css", "actions.js": "text/javascript"}
ASSETS |= {"pages.js": "text/javascript", "history.js": "text/javascript",
           "hand.js": "text/javascript", "history.css": "text/css"}  # fmt: skip
MAX_HANDS = 200
CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


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
        s = self.sessions.read(request.cookies.get(COOKIE), time.time())
        user = self.users.get(s.user) if s is not None else None
        if s is None or user is None:
            raise web.HTTPUnauthorized(text="log in first")
        return s, user

    def acting(self, request: web.Request) -> tuple[Session, User]:
        """The session of a state-changing request: CSRF token checked, role allowed."""
        s, user = self.session(request)
        if not csrf_ok(s, request.headers.get("X-CSRF-Token")):
            raise web.HTTPForbidden(text="missing or wrong CSRF token")
        if not user.role.may_act:
            raise web.HTTPForbidden(text=f"{user.name} is a {user.role.value}: viewers change"
                                    " nothing")  # fmt: skip
        return s, user


def _asset(name: str) -> str:
    return resources.files("controller.floor").joinpath("static", name).read_text("utf-8")


async def _json_body(request: web.Request) -> dict[str, Any]:
    return await json_object(request, 16 * 1024)


@web.middleware
async def _headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    resp = await handler(request)
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    return resp


def make_app(console: Console) -> web.Application:
    routes = web.RouteTableDef()

    @routes.get("/")
    async def page(_request: web.Request) -> web.Response:
        return web.Response(text=_asset("floor.html"), content_type="text/html")

    @routes.get("/static/{name}")
    async def asset(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in ASSETS:
            raise web.HTTPNotFound()
        return web.Response(text=_asset(name), content_type=ASSETS[name])

    @routes.post("/api/login")
    async def login(request: web.Request) -> web.Response:
        body = await _json_body(request)
        name, password = body.get("user"), body.get("password")
        user = console.users.get(name) if isinstance(name, str) else None
        # an unknown user costs the same scrypt as a known one: the answer's time does not
        # tell which user names exist
        stored = user.password if user is not None else console.decoy
        given = password if isinstance(password, str) else ""
        ok = await asyncio.to_thread(verify_password, given, stored)
        if not ok or user is None or not isinstance(password, str):
            raise web.HTTPUnauthorized(text="wrong user name or password")
        cookie, s = console.sessions.issue(user.name, time.time())
        resp = web.json_response({"user": user.name, "role": user.role.value, "csrf": s.csrf})
        resp.set_cookie(
            COOKIE,
            cookie,
            httponly=True,
            samesite="Strict",
            secure=console.secure_cookie,
            max_age=int(console.sessions.max_age),
        )
        return resp

    @routes.get("/api/me")
    async def me(request: web.Request) -> web.Response:
        s, user = console.session(request)
        return web.json_response({"user": user.name, "role": user.role.value, "csrf": s.csrf})

    @routes.post("/api/logout")
    async def logout(request: web.Request) -> web.Response:
        s, _ = console.session(request)
        if not csrf_ok(s, request.headers.get("X-CSRF-Token")):
            raise web.HTTPForbidden(text="missing or wrong CSRF token")
        resp = web.json_response({"ok": True})
        resp.del_cookie(COOKIE)
        return resp

    @routes.get("/api/room")
    async def room(request: web.Request) -> web.Response:
        console.session(request)
        return web.json_response(console.room.snapshot())

    @routes.get("/api/stream")
    async def stream(request: web.Request) -> web.StreamResponse:
        console.session(request)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-cache"})  # fmt: skip
        await resp.prepare(request)
        client = console.frames.open()
        try:
            snap = json.dumps({"type": "snapshot", **console.room.snapshot()})
            await resp.write(f"data: {snap}\n\n".encode())
            while (frame := await client.take(15)) is not None:
                await resp.write(frame)
            # too far behind: the page's EventSource connects again and reads a snapshot
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            console.frames.close(client)
        return resp

    @routes.post("/api/ack")
    async def ack(request: web.Request) -> web.Response:
        _, user = console.acting(request)
        body = await _json_body(request)
        venue, table, aid = text(body, "venue"), text(body, "table"), text(body, "alert_id")
        resp = await console.link.command(
            venue, table, "ack_alert", {"alert_id": aid, "by": user.name}, user.name
        )
        return web.json_response(resp)

    @routes.post("/api/seat")
    async def seat(request: web.Request) -> web.Response:
        _, user = console.acting(request)
        body = await _json_body(request)
        args = {"seat": integer(body, "seat"), "player_id": text(body, "player_id"),
                "name": text(body, "name"), "stack": integer(body, "stack")}  # fmt: skip
        resp = await console.link.command(text(body, "venue"), text(body, "table"), "seat",
                                          args, user.name)  # fmt: skip
        return web.json_response(resp)

    @routes.get("/api/hands")
    async def hands(request: web.Request) -> web.Response:
        console.session(request)
        if console.db is None:
            raise web.HTTPNotFound(text="no hand store configured (floor.db)")
        table = request.query.get("table") or None
        venue = request.query.get("venue") or None
        try:
            found = await asyncio.to_thread(_hand_list, console.db, venue, table)
        except StoreError as exc:
            raise web.HTTPServiceUnavailable(text=f"hand store: {exc}") from None
        return web.json_response({"hands": found})

    app = web.Application(middlewares=[_headers], client_max_size=16 * 1024)
    app.add_routes(routes)
    actions.register(app, console)  # unseat, move, room level, profile, button draw
    history.register(app, console, _asset)  # hand history, hand pages, dealer quality
    tournament.register(app, console, console.link.broker, console.link.command_key, _asset)
    return app


def _hand_list(db: str, venue: str | None, table: str | None) -> list[dict[str, Any]]:
    """Completed hands (newest first, at most MAX_HANDS): the envelope, no cards."""
    store = open_for_export(db)
    try:
        found, _ = store.search(HandQuery(venue=venue, table=table, limit=MAX_HANDS))
    finally:
        store.close()
    keys = ("hand_id", "venue", "table", "hand_no", "ended_at", "dealer_id")
    return [{k: h.get(k) for k in keys} for h in found]


__all__ = ["COOKIE", "Console", "Role", "make_app"]
