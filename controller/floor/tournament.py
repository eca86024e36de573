"""The tournament's pages in the console (issue 25): a full-screen clock for a players' screen
(``/clock``: level, time left, next level, players left, average stack; no login: what a
screen in the room shows anyone) and the event page (``/event``: standings, the proposal
waiting for the floor, the clock's controls and hand-for-hand), fed by the tournament
service's retained topics (``railguard/_event/<event>/clock``, ``standings``, ``proposal``;
docs/mqtt.md) and acting through its command topic (``railguard/_event/<event>/cmd``).

Who may do what: reading the event page needs a login; confirming or withdrawing a proposal,
the clock and hand-for-hand need the tournament director (as the room's level does). Every
action is a POST with the session's CSRF token; the roles are checked by the console's one
role policy (controller/floor/policy.py), each route a row of controller/floor/routes.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from typing import Any, Final

import aiomqtt
from aiohttp import web

from controller.floor.auth import User
from controller.floor.body import integer, json_object, text
from controller.floor.console import Console
from controller.floor.views import asset_text
from controller.link.commands import sign
from controller.link.config import BrokerConfig

log = logging.getLogger("railguard.floor")
ASSETS: Final = {
    "clock.html": "text/html",
    "event.html": "text/html",
    "clock.js": "text/javascript",
    "event.js": "text/javascript",
    "event.css": "text/css",
}
KINDS: Final = ("clock", "standings", "proposal")
_EVENT_ID: Final = re.compile(r"^[A-Za-z0-9-]{1,32}$")
RESPONSE_TIMEOUT: Final = 30.0  # a confirm waits for every table's answers


class EventWatch:
    """The console's own client for the event topics: the latest of each, and commands."""

    def __init__(self, broker: BrokerConfig, command_key: bytes | None) -> None:
        self.broker, self.command_key = broker, command_key
        self.latest: dict[str, dict[str, dict[str, Any]]] = {}  # event -> kind -> body
        self._client: aiomqtt.Client | None = None
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="floor-event-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task

    async def _run(self) -> None:
        delay = 0.2
        while True:
            client = self.broker.make_client(f"railguard-floor-event-{uuid.uuid4().hex[:8]}")
            try:
                async with client:
                    for kind in (*KINDS, "cmd/response"):
                        await client.subscribe(f"railguard/_event/+/{kind}", qos=1)
                    self._client, delay = client, 0.2
                    self.connected.set()
                    async for m in client.messages:
                        raw = m.payload if isinstance(m.payload, bytes) else b""
                        self._handle(m.topic.value, raw)
            except aiomqtt.MqttError as exc:
                log.warning("floor: event topics: %s; retrying in %.1f s", exc, delay)
            finally:
                self._client = None
                self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    def _handle(self, topic: str, raw: bytes) -> None:
        parts = topic.split("/", 3)
        if len(parts) != 4 or not _EVENT_ID.match(parts[2]) or len(raw) > 4 * 1024 * 1024:
            return
        try:
            body = json.loads(raw)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        if parts[3] == "cmd/response":
            fut = self._waiting.get(str(body.get("request_id")))
            if fut is not None and not fut.done():
                fut.set_result(body)
        elif parts[3] in KINDS:
            self.latest.setdefault(parts[2], {})[parts[3]] = body

    async def command(
        self, event: str, command: str, args: dict[str, Any], issuer: str
    ) -> dict[str, Any]:
        client = self._client
        if client is None:
            return {"ok": False, "reason": "the console is not connected to the broker"}
        rid = f"floor-{uuid.uuid4().hex[:16]}"
        body: dict[str, Any] = {
            "request_id": rid,
            "ts": time.time(),
            "command": command,
            "args": args,
            "issuer": issuer,
        }
        if self.command_key is not None:
            body = sign(body, self.command_key)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            await client.publish(f"railguard/_event/{event}/cmd", json.dumps(body), qos=1)
            async with asyncio.timeout(RESPONSE_TIMEOUT):
                return await fut
        except TimeoutError:
            return {
                "ok": False,
                "reason": f"no answer from event {event} in"
                f" {RESPONSE_TIMEOUT:.0f} s (is 'railguard tournament run' running?)",
            }
        except aiomqtt.MqttError as exc:
            return {"ok": False, "reason": f"broker: {exc}"}
        finally:
            self._waiting.pop(rid, None)


WATCH: Final = web.AppKey("event_watch", EventWatch)


def attach(app: web.Application, broker: BrokerConfig, command_key: bytes | None) -> None:
    """Give the app the console's client of the event topics; it runs with the app."""
    watch = EventWatch(broker, command_key)
    app[WATCH] = watch

    async def on_startup(_app: web.Application) -> None:
        watch.start()

    async def on_cleanup(_app: web.Application) -> None:
        await watch.stop()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)


def _event(body: dict[str, Any]) -> str:
    ev = text(body, "event")
    if not _EVENT_ID.match(ev):
        raise web.HTTPBadRequest(text="event: 1-32 letters, digits or '-'")
    return ev


# The handlers, each a row of the console's one route table (controller/floor/routes.py),
# behind the one role check (controller/floor/policy.py): the pages and the clock are
# public (a players' screen), the event page needs a login, the actions a director.


async def clock_page(_c: Console, _request: web.Request, _u: User | None) -> web.Response:
    return web.Response(text=asset_text("clock.html"), content_type="text/html")


async def event_page(_c: Console, _request: web.Request, _u: User | None) -> web.Response:
    return web.Response(text=asset_text("event.html"), content_type="text/html")


async def event_asset(_c: Console, request: web.Request, _u: User | None) -> web.Response:
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound()
    return web.Response(text=asset_text(name), content_type=ASSETS[name])


async def clock(_c: Console, request: web.Request, _u: User | None) -> web.Response:
    """The clock of one event (``?event=``, else the only one): public, for screens."""
    watch = request.app[WATCH]
    name = request.query.get("event") or next(iter(sorted(watch.latest)), "")
    return web.json_response(watch.latest.get(name, {}).get("clock"))


async def event(_c: Console, request: web.Request, _u: User | None) -> web.Response:
    return web.json_response({"events": request.app[WATCH].latest})


async def _relay(
    request: web.Request, command: str, args: dict[str, Any], event: str, user: User | None
) -> web.Response:
    assert user is not None  # a director's route: admitted users only
    resp = await request.app[WATCH].command(event, command, args, user.name)
    outcome = "ok" if resp.get("ok") else f"refused: {resp.get('reason')}"
    log.info("floor: %s event %s %s %s: %s", user.name, event, command, args, outcome)
    return web.json_response(resp)


async def confirm(_c: Console, request: web.Request, user: User | None) -> web.Response:
    body = await json_object(request, 4096)
    pid = integer(body, "proposal", 1, 10**9)
    command = "withdraw" if body.get("withdraw") is True else "confirm"
    return await _relay(request, command, {"proposal": pid}, _event(body), user)


async def clock_op(_c: Console, request: web.Request, user: User | None) -> web.Response:
    body = await json_object(request, 4096)
    op = text(body, "op")
    if op not in ("start", "pause", "resume", "adjust"):
        raise web.HTTPBadRequest(text="op: start, pause, resume or adjust")
    args: dict[str, Any] = {"op": op}
    if op == "adjust":
        args["seconds"] = integer(body, "seconds", -86400, 86400)
    return await _relay(request, "clock", args, _event(body), user)


async def hand_for_hand(_c: Console, request: web.Request, user: User | None) -> web.Response:
    body = await json_object(request, 4096)
    on = body.get("on")
    if not isinstance(on, bool):
        raise web.HTTPBadRequest(text="on: true or false")
    return await _relay(request, "hand_for_hand", {"on": on}, _event(body), user)
