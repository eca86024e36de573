"""The floor's actions on the tables, each through the venue commands and answered with
what the tables said: unseat a player, move one (to another seat of the same table: the
table's ``move``; to another table: ``unseat`` there, then ``seat`` at the new table with the
stack the old one answered, and back to the old seat should the new table refuse), the
level for the whole room (``set_level`` to every table the room knows, each one's answer),
a table's profile (a packaged name, or a house profile's TOML document, validated here
before it is sent and by the table again) and the button draw.

Who may do what (:data:`ROLES`; docs/floor.md): a viewer changes nothing; a floor
supervisor runs the table (seats, unseats and moves players, starts a button draw,
acknowledges alerts); the tournament director also sets what holds for the room or changes
the rules: the level room-wide and a table's profile. Every one of these requests is a POST
that carries the session's CSRF token (:meth:`Console.acting`); the roles are checked here,
on the server, whatever the page shows.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Final, Protocol

from aiohttp import web

from controller.floor.auth import Role, Session, User
from controller.floor.body import integer, json_object, text
from controller.floor.link import FloorLink
from controller.floor.room import Room, Tile
from controller.link.commands import MAX_COMMAND_BYTES
from controller.rules.errors import ConfigError
from controller.rules.profile import builtin_profile_names
from controller.rules.profile_document import (
    MAX_DOCUMENT_BYTES,
    document_size_error,
    house_profile,
    summary,
)

log = logging.getLogger("railguard.floor")

#: the least role each action needs (a director may do whatever a supervisor may)
ROLES: Final = {
    "unseat": Role.SUPERVISOR,
    "move": Role.SUPERVISOR,
    "button_draw": Role.SUPERVISOR,
    "room_level": Role.DIRECTOR,
    "profile": Role.DIRECTOR,
}
_RANK: Final = {Role.VIEWER: 0, Role.SUPERVISOR: 1, Role.DIRECTOR: 2}
#: room for the command's envelope (request id, ts, issuer, hmac) beside its args
_ENVELOPE: Final = 512


class ActionHost(Protocol):
    """What the actions need of the console (``app.Console`` is one)."""

    room: Room
    link: FloorLink

    def acting(self, request: web.Request) -> tuple[Session, User]: ...

    def session(self, request: web.Request) -> tuple[Session, User]: ...


def _allowed(host: ActionHost, request: web.Request, action: str) -> User:
    """The acting user (CSRF checked, not a viewer) if their role may do ``action``."""
    _, user = host.acting(request)
    need = ROLES[action]
    if _RANK[user.role] < _RANK[need]:
        who = "director (tournament director)" if need is Role.DIRECTOR else need.value
        raise web.HTTPForbidden(text=f"{user.name} is a {user.role.value}: {action} needs a"
                                     f" {who}")  # fmt: skip
    return user


async def _body(request: web.Request) -> dict[str, Any]:
    return await json_object(request, MAX_COMMAND_BYTES)


def _seat(body: dict[str, Any], key: str) -> int:
    return integer(body, key, 1, 10)


def _seat_of(tile: Tile | None, seat: int) -> dict[str, Any] | None:
    """What the table's last state says sits in ``seat`` (None: empty or not known)."""
    if tile is None:
        return None
    for s in tile.state.get("seats", []):
        if s.get("seat") == seat and s.get("player_id") and s.get("status") != "empty":
            return dict(s)
    return None


def _step(table: str, command: str, resp: dict[str, Any]) -> dict[str, Any]:
    return {"table": table, "command": command, "ok": bool(resp.get("ok")),
            "reason": resp.get("reason", ""), "data": resp.get("data", {})}  # fmt: skip


def _logged(user: User, action: str, where: str, resp: dict[str, Any]) -> web.Response:
    outcome = "ok" if resp.get("ok") else f"refused: {resp.get('reason')}"
    log.info("floor: %s %s %s: %s", user.name, action, where, outcome)
    return web.json_response(resp)


def register(app: web.Application, host: ActionHost) -> None:
    """Add the actions' routes to the console's application."""
    routes = web.RouteTableDef()

    async def send(user: User, venue: str, table: str, command: str,
                   args: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
        return await host.link.command(venue, table, command, args, user.name)

    @routes.post("/api/unseat")
    async def unseat(request: web.Request) -> web.Response:
        user = _allowed(host, request, "unseat")
        body = await _body(request)
        venue, table, seat = text(body, "venue"), text(body, "table"), _seat(body, "seat")
        resp = await send(user, venue, table, "unseat", {"seat": seat})
        return _logged(user, "unseat", f"{venue}/{table} seat {seat}", resp)

    @routes.post("/api/move")
    async def move(request: web.Request) -> web.Response:
        user = _allowed(host, request, "move")
        body = await _body(request)
        venue, table = text(body, "venue"), text(body, "table")
        src, dst = _seat(body, "from_seat"), _seat(body, "to_seat")
        to_venue = body.get("to_venue") or venue
        to_table = body.get("to_table") or table
        if not isinstance(to_venue, str) or not isinstance(to_table, str):
            raise web.HTTPBadRequest(text="to_venue, to_table: expected strings")
        where = f"{venue}/{table} seat {src} -> {to_venue}/{to_table} seat {dst}"
        if (to_venue, to_table) == (venue, table):
            if src == dst:
                raise web.HTTPBadRequest(text="from_seat and to_seat are the same seat")
            resp = await send(user, venue, table, "move", {"from_seat": src, "to_seat": dst})
            return _logged(user, "move", where, resp)
        out = await _move_across(host, user, (venue, table, src), (to_venue, to_table, dst))
        return _logged(user, "move", where, out)

    @routes.post("/api/room/level")
    async def room_level(request: web.Request) -> web.Response:
        user = _allowed(host, request, "room_level")
        body = await _body(request)
        args: dict[str, Any] = {
            "level": integer(body, "level", 1, 1000),
            "small_blind": integer(body, "small_blind", 0, 10**12),
            "big_blind": integer(body, "big_blind", 1, 10**12),
            "ante": integer(body, "ante", 0, 10**12),
        }
        if args["small_blind"] > args["big_blind"]:
            raise web.HTTPBadRequest(text="small_blind is larger than big_blind")
        bba = body.get("big_blind_ante")
        if bba is not None:
            if not isinstance(bba, bool):
                raise web.HTTPBadRequest(text="big_blind_ante: expected true or false")
            args["big_blind_ante"] = bba
        tiles = sorted(host.room.tiles.values(), key=lambda t: t.key)
        if not tiles:
            return _logged(user, "room level", "the room", {
                "ok": False, "reason": "the room knows no table yet", "results": []})  # fmt: skip
        live = [t for t in tiles if t.status != "offline"]
        answers = await asyncio.gather(
            *(send(user, t.venue, t.table, "set_level", args) for t in live)
        )
        results = {t.key: _step(t.key, "set_level", a) for t, a in zip(live, answers, strict=True)}
        for t in tiles:
            if t.status == "offline":
                results[t.key] = {"table": t.key, "command": "set_level", "ok": False,
                                  "reason": "offline: not sent; set its level when it is back",
                                  "data": {}}  # fmt: skip
        ordered = [results[t.key] for t in tiles]
        refused = [r["table"] for r in ordered if not r["ok"]]
        resp = {"ok": not refused, "results": ordered,
                "reason": f"not set at {', '.join(refused)}" if refused else ""}  # fmt: skip
        return _logged(user, "room level", f"level {args['level']}", resp)

    @routes.get("/api/profiles")
    async def profiles(request: web.Request) -> web.Response:
        host.session(request)
        return web.json_response({"packaged": builtin_profile_names(),
                                  "max_document_bytes": MAX_DOCUMENT_BYTES})  # fmt: skip

    @routes.post("/api/profile/check")
    async def profile_check(request: web.Request) -> web.Response:
        _allowed(host, request, "profile")
        doc = _document(await _body(request))
        try:
            prof = house_profile(doc)
        except ConfigError as exc:
            return web.json_response({"ok": False, "reason": str(exc)})
        return web.json_response({"ok": True, "profile": summary(prof)})

    @routes.post("/api/profile")
    async def profile(request: web.Request) -> web.Response:
        user = _allowed(host, request, "profile")
        body = await _body(request)
        venue, table = text(body, "venue"), text(body, "table")
        if ("profile" in body) == ("document" in body):
            raise web.HTTPBadRequest(text="give profile (a packaged name) or document (a house"
                                          " profile's TOML text)")  # fmt: skip
        if "profile" in body:
            name = text(body, "profile")
            known = ", ".join(builtin_profile_names())
            if name not in builtin_profile_names():
                raise web.HTTPBadRequest(text=f"profile {name!r} is not a packaged profile"
                                              f" ({known})")  # fmt: skip
            args = {"profile": name}
        else:
            doc = _document(body)
            try:
                prof = house_profile(doc)  # checked here first: the director sees it at once
            except ConfigError as exc:
                raise web.HTTPBadRequest(text=str(exc)) from None
            name, args = prof.name, {"document": doc}
        resp = await send(user, venue, table, "set_profile", args)
        return _logged(user, "profile", f"{venue}/{table} {name}", resp)

    @routes.post("/api/button_draw")
    async def button_draw(request: web.Request) -> web.Response:
        user = _allowed(host, request, "button_draw")
        body = await _body(request)
        venue, table = text(body, "venue"), text(body, "table")
        resp = await send(user, venue, table, "button_draw", {})
        return _logged(user, "button draw", f"{venue}/{table}", resp)

    app.add_routes(routes)


def _document(body: dict[str, Any]) -> str:
    """The ``document`` of a request: a string within the size limit (413 otherwise)."""
    doc = body.get("document")
    if not isinstance(doc, str):
        raise web.HTTPBadRequest(text="document: expected the profile's TOML text")
    problem = document_size_error(doc)
    if problem is not None:
        size = len(doc.encode("utf-8", "surrogatepass"))
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_DOCUMENT_BYTES, actual_size=size,
                                            text=problem)  # fmt: skip
    if len(json.dumps({"document": doc})) + _ENVELOPE > MAX_COMMAND_BYTES:
        raise web.HTTPRequestEntityTooLarge(
            max_size=MAX_COMMAND_BYTES, actual_size=len(json.dumps(doc)),
            text=f"house profile: the command would be larger than {MAX_COMMAND_BYTES} bytes"
                 " (many quotes, backslashes or non-ASCII characters): shorten the comments",
        )  # fmt: skip
    return doc


async def _move_across(host: ActionHost, user: User, frm: tuple[str, str, int],
                       to: tuple[str, str, int]) -> dict[str, Any]:  # fmt: skip
    """Unseat at one table, seat at the other with the stack the first answered; if the
    second refuses, the player goes back to their seat (each step is in ``steps``)."""
    (venue, table, src), (to_venue, to_table, dst) = frm, to
    here, there = f"{venue}/{table}", f"{to_venue}/{to_table}"
    target = host.room.tiles.get(there)
    if target is None:
        return {"ok": False, "reason": f"no table {there} in the room", "steps": []}
    if target.status == "offline":
        return {"ok": False, "reason": f"{there} is offline: nobody moved", "steps": []}
    taken = _seat_of(target, dst)
    if taken is not None:
        return {"ok": False, "steps": [],
                "reason": f"{there} seat {dst} is taken by {taken['player_id']}"}  # fmt: skip
    known = _seat_of(host.room.tiles.get(here), src)  # in case an older table answers less
    out = await host.link.command(venue, table, "unseat", {"seat": src}, user.name)
    steps = [_step(here, "unseat", out)]
    if not out.get("ok"):
        return {"ok": False, "reason": f"{here}: {out.get('reason')}", "steps": steps}
    data = {**(known or {}), **out.get("data", {})}
    if not all(isinstance(data.get(k), t) for k, t in
               (("player_id", str), ("name", str), ("stack", int))):  # fmt: skip
        return {
            "ok": False,
            "steps": steps,
            "reason": f"{here} seat {src} was unseated but"
            " did not say who left with what: seat the player at the new table by hand",
        }
    seat_args = {"player_id": data["player_id"], "name": data["name"], "stack": data["stack"]}
    player = {"seat": dst, **seat_args}
    put = await host.link.command(to_venue, to_table, "seat", player, user.name)
    steps.append(_step(there, "seat", put))
    if put.get("ok"):
        return {"ok": True, "reason": "", "steps": steps, "player": seat_args}
    back = await host.link.command(venue, table, "seat", {**player, "seat": src}, user.name)
    steps.append(_step(here, "seat", back))
    if back.get("ok"):
        reason = f"{there}: {put.get('reason')}; {data['name']} is back in {here} seat {src}"
    else:
        reason = (f"{there}: {put.get('reason')}; and {here} refused them back"
                  f" ({back.get('reason')}): seat {data['player_id']} ({data['name']},"
                  f" stack {data['stack']}) by hand")  # fmt: skip
    return {"ok": False, "reason": reason, "steps": steps, "player": seat_args}
