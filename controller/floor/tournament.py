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
import uuid
from typing import Any, Final

import aiomqtt
from aiohttp import web

from controller.floor.auth import User
from controller.floor.body import integer, json_object, text
from controller.floor.console import Console
from controller.floor.views import asset_response, asset_text
from controller.link.config import BrokerConfig
from controller.link.requests import Requests
from controller.link.subscription import Subscription

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
        self._requests = Requests("floor", command_key)
        self._task: asyncio.Task[None] | None = None
        self._topics = Subscription(
            broker,
            lambda: f"railguard-floor-event-{uuid.uuid4().hex[:8]}",
            [(f"railguard/_event/+/{kind}", 1) for kind in (*KINDS, "cmd/response")],
            self._handle,
            log=log,
            label="floor: event topics",
        )
        self.connected = self._topics.connected  # set while subscribed

    def start(self) -> None:
        self._task = asyncio.create_task(self._topics.run(), name="floor-event-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task

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
            self._requests.settle(body)
        elif parts[3] in KINDS:
            self.latest.setdefault(parts[2], {})[parts[3]] = body

    async def command(
        self, event: str, command: str, args: dict[str, Any], issuer: str
    ) -> dict[str, Any]:
        return await self._requests.send(
            self._topics.client,
            f"railguard/_event/{event}/cmd",
            command,
            args,
            issuer,
            timeout=RESPONSE_TIMEOUT,
            offline="the console is not connected to the broker",
            unanswered=f"no answer from event {event} in {RESPONSE_TIMEOUT:.0f} s"
            " (is 'railguard tournament run' running?)",
        )


WATCH: Final = web.AppKey("event_watch", EventWatch)


def busted_elsewhere(watch: EventWatch | None, venue: str, player: str) -> str | None:
    """Why the console's seat form refuses ``player`` at a table of ``venue``, or None: an
    event of that venue eliminated him and allows no re-entry (004 [L135], 004-TG-25). From
    the events' retained standings (the console sees every event on its broker)."""
    if watch is None:
        return None
    for ev, kinds in sorted(watch.latest.items()):
        st = kinds.get("standings") or {}
        if st.get("venue") != venue or st.get("reentry") is not False:
            continue
        if any(p.get("player_id") == player for p in st.get("players") or []):
            continue  # playing in the event (a move): the event's own to seat
        out = [e for e in st.get("eliminated") or [] if e.get("player_id") == player]
        if out:
            return (
                f"Player {player} was eliminated from event {ev} (place {out[0].get('place')},"
                f" at {out[0].get('table')}) and the event allows no re-entry (004 [L135],"
                " 004-TG-25)."
            )
    return None


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
    return asset_response(request.match_info["name"], ASSETS)


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
