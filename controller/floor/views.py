"""The console's pages, login and the room's reads: the handlers of the routes that change
no table (:mod:`controller.floor.routes` lists them with the access each needs)."""

from __future__ import annotations

import asyncio
import json
import time
from importlib import resources
from typing import Any

from aiohttp import web

from controller.floor.auth import User, verify_password
from controller.floor.body import json_object
from controller.floor.console import COOKIE, Console
from controller.link.errors import StoreError
from controller.venuelog.query import HandQuery
from controller.venuelog.store import open_for_export

ASSETS = {"floor.js": "text/javascript", "floor.css": "text/css", "actions.js": "text/javascript",
          "actions.css": "text/css", "pages.js": "text/javascript",
          "history.js": "text/javascript", "hand.js": "text/javascript",
          "history.css": "text/css", "room.js": "text/javascript",
          "sound.js": "text/javascript"}  # fmt: skip
PAGES = {"/": "floor.html", "/history": "history.html", "/hand/{hand_id}": "hand.html"}
MAX_HANDS = 200


def asset_text(name: str) -> str:
    return resources.files("controller.floor").joinpath("static", name).read_text("utf-8")


async def page(_c: Console, request: web.Request, _user: User | None) -> web.Response:
    route = request.match_info.route.resource
    path = route.canonical if route is not None else "/"
    return web.Response(text=asset_text(PAGES[path]), content_type="text/html")


async def asset(_c: Console, request: web.Request, _user: User | None) -> web.Response:
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound()
    return web.Response(text=asset_text(name), content_type=ASSETS[name])


async def login(c: Console, request: web.Request, _user: User | None) -> web.Response:
    body = await json_object(request, 16 * 1024)
    name, password = body.get("user"), body.get("password")
    user = c.users.get(name) if isinstance(name, str) else None
    # an unknown user costs the same scrypt as a known one: the answer's time does not
    # tell which user names exist
    stored = user.password if user is not None else c.decoy
    given = password if isinstance(password, str) else ""
    ok = await asyncio.to_thread(verify_password, given, stored)
    if not ok or user is None or not isinstance(password, str):
        raise web.HTTPUnauthorized(text="wrong user name or password")
    cookie, s = c.sessions.issue(user.name, time.time())
    resp = web.json_response({"user": user.name, "role": user.role.value, "csrf": s.csrf})
    resp.set_cookie(COOKIE, cookie, httponly=True, samesite="Strict", secure=c.secure_cookie,
                    max_age=int(c.sessions.max_age))  # fmt: skip
    return resp


async def me(c: Console, request: web.Request, _user: User | None) -> web.Response:
    s, user = c.session(request)
    return web.json_response({"user": user.name, "role": user.role.value, "csrf": s.csrf})


async def logout(_c: Console, _request: web.Request, _user: User | None) -> web.Response:
    resp = web.json_response({"ok": True})
    resp.del_cookie(COOKIE)
    return resp


async def room(c: Console, _request: web.Request, _user: User | None) -> web.Response:
    return web.json_response(c.room.snapshot())


async def stream(c: Console, request: web.Request, _user: User | None) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                       "Cache-Control": "no-cache"})  # fmt: skip
    await resp.prepare(request)
    client = c.frames.open()
    try:
        snap = json.dumps({"type": "snapshot", **c.room.snapshot()})
        await resp.write(f"data: {snap}\n\n".encode())
        while (frame := await client.take(15)) is not None:
            await resp.write(frame)
        # too far behind: the page's EventSource connects again and reads a snapshot
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        c.frames.close(client)
    return resp


async def hands(c: Console, request: web.Request, _user: User | None) -> web.Response:
    if c.db is None:
        raise web.HTTPNotFound(text="no hand store configured (floor.db)")
    table = request.query.get("table") or None
    venue = request.query.get("venue") or None
    try:
        found = await asyncio.to_thread(_hand_list, c.db, venue, table)
    except StoreError as exc:
        raise web.HTTPServiceUnavailable(text=f"hand store: {exc}") from None
    return web.json_response({"hands": found})


def _hand_list(db: str, venue: str | None, table: str | None) -> list[dict[str, Any]]:
    """Completed hands (newest first, at most MAX_HANDS): the envelope, no cards."""
    store = open_for_export(db)
    try:
        found, _ = store.search(HandQuery(venue=venue, table=table, limit=MAX_HANDS))
    finally:
        store.close()
    keys = ("hand_id", "venue", "table", "hand_no", "ended_at", "dealer_id")
    return [{k: h.get(k) for k in keys} for h in found]
