"""The floor's actions on the tables, each through the venue commands and answered with
what the tables said: acknowledge an alert, seat a player, unseat one, move one (to another
seat of the same table: the table's ``move``; to another table: ``unseat`` there, then
``seat`` at the new table with the stack the old one answered, and back to the old seat
should the new table refuse), the level for the whole room (``set_level`` to every table
the room knows, each one's answer), a table's profile (a packaged name, or a house
profile's TOML document, validated here before it is sent and by the table again) and the
button draw.

Before anything is sent, the floor's sense checks (:mod:`controller.link.command_checks`,
the same the table's daemon runs) against what the table's live state says: its seats
(``table_seats``, its zone map) and who sits where; the level's blinds and ante, and at each
table its profile's ante style. A refusal here is a 400 whose text is the sentence the table
would answer; nothing reaches the table. A room level carries ``tables``, the number of
tables the director confirmed it for: if the room has changed since, it is refused (409).

Who may call which (the role policy): :mod:`controller.floor.routes` and
:mod:`controller.floor.policy`; every one of these requests is a POST with the session's
CSRF token.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Final

from aiohttp import web

from controller.floor import tournament
from controller.floor.auth import User
from controller.floor.body import integer, json_object, text
from controller.floor.console import Console
from controller.floor.room import Tile
from controller.link import command_checks as checks
from controller.link.commands import MAX_COMMAND_BYTES
from controller.rules.errors import ConfigError
from controller.rules.profile import builtin_profile, builtin_profile_names
from controller.rules.profile_document import (
    MAX_DOCUMENT_BYTES,
    document_size_error,
    house_profile,
    summary,
)

log = logging.getLogger("railguard.floor")

#: room for the command's envelope (request id, ts, issuer, hmac) beside its args
_ENVELOPE: Final = 512


def _actor(user: User | None) -> User:
    if user is None:  # the policy admits no anonymous request to an action
        raise web.HTTPUnauthorized(text="log in first")
    return user


async def _body(request: web.Request) -> dict[str, Any]:
    return await json_object(request, MAX_COMMAND_BYTES)


def _seat(body: dict[str, Any], key: str) -> int:
    """A seat number of the request (400 in words otherwise)."""
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise web.HTTPBadRequest(text=checks.plain_field_error(body, key, "type", ""))
    if not 1 <= v <= checks.MAX_SEAT:
        raise web.HTTPBadRequest(text=checks.plain_field_error(body, key, "maximum", ""))
    return v


def _refuse(problem: str | None) -> None:
    if problem is not None:
        raise web.HTTPBadRequest(text=problem)


def _facts(tile: Tile | None) -> tuple[tuple[int, ...], dict[int, str]]:
    """(the table's seats, seat -> player id) as its last state said (empty: not known)."""
    if tile is None:
        return (), {}
    seats = tile.state.get("table_seats") or ()
    return tuple(s for s in seats if isinstance(s, int)), checks.occupied_of(
        s for s in tile.state.get("seats", []) if isinstance(s, dict)
    )


def _ante_rules(tile: Tile) -> tuple[str | None, str, float | None]:
    """(the ante style and ``max_ante_big_blinds`` of the table's profile if it is a packaged
    one, else None and None: the table checks its house profile itself; its name)."""
    name = tile.state.get("profile")
    if not isinstance(name, str) or name not in builtin_profile_names():
        return None, name if isinstance(name, str) else "", None
    prof = builtin_profile(name)
    return prof.ante_style.value, name, prof.max_ante_big_blinds


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


async def _send(c: Console, user: User, venue: str, table: str, command: str,
                args: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    return await c.link.command(venue, table, command, args, user.name)


async def ack(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
    body = await _body(request)
    venue, table, aid = text(body, "venue"), text(body, "table"), text(body, "alert_id")
    resp = await _send(c, who, venue, table, "ack_alert", {"alert_id": aid, "by": who.name})
    return web.json_response(resp)


async def seat(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
    body = await _body(request)
    venue, table = text(body, "venue"), text(body, "table")
    n, pid, name = _seat(body, "seat"), text(body, "player_id"), text(body, "name")
    stack = integer(body, "stack")
    _refuse(checks.check_player(pid, name, stack))
    _refuse(checks.check_seat(n, pid, *_facts(c.room.tiles.get(f"{venue}/{table}"))))
    _refuse(tournament.busted_elsewhere(request.app.get(tournament.WATCH), venue, pid))
    args = {"seat": n, "player_id": pid, "name": name, "stack": stack}
    resp = await _send(c, who, venue, table, "seat", args)
    return _logged(who, "seat", f"{venue}/{table} seat {n}", resp)


async def unseat(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
    body = await _body(request)
    venue, table, n = text(body, "venue"), text(body, "table"), _seat(body, "seat")
    _refuse(checks.check_unseat(n, *_facts(c.room.tiles.get(f"{venue}/{table}"))))
    resp = await _send(c, who, venue, table, "unseat", {"seat": n})
    return _logged(who, "unseat", f"{venue}/{table} seat {n}", resp)


async def move(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
    body = await _body(request)
    venue, table = text(body, "venue"), text(body, "table")
    src, dst = _seat(body, "from_seat"), _seat(body, "to_seat")
    to_venue = body.get("to_venue") or venue
    to_table = body.get("to_table") or table
    if not isinstance(to_venue, str) or not isinstance(to_table, str):
        raise web.HTTPBadRequest(text="to_venue, to_table: expected strings")
    where = f"{venue}/{table} seat {src} -> {to_venue}/{to_table} seat {dst}"
    here = c.room.tiles.get(f"{venue}/{table}")
    if (to_venue, to_table) == (venue, table):
        _refuse(checks.check_move(src, dst, *_facts(here)))
        resp = await _send(c, who, venue, table, "move", {"from_seat": src, "to_seat": dst})
        return _logged(who, "move", where, resp)
    seats, occupied = _facts(here)
    _refuse(checks.no_such_seat(src, seats))
    if seats and src not in occupied:
        _refuse(f"Seat {src} is empty: there is nobody to move.")
    there = c.room.tiles.get(f"{to_venue}/{to_table}")
    problem = checks.no_such_seat(dst, _facts(there)[0])
    if problem is not None:
        _refuse(f"{to_venue}/{to_table}: {problem}")
    out = await _move_across(c, who, (venue, table, src), (to_venue, to_table, dst))
    return _logged(who, "move", where, out)


async def room_level(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
    body = await _body(request)
    args: dict[str, Any] = {
        "level": integer(body, "level", 1, 1000),
        "small_blind": integer(body, "small_blind", 0, 10**12),
        "big_blind": integer(body, "big_blind", 1, 10**12),
        "ante": integer(body, "ante", 0, 10**12),
    }
    bba = body.get("big_blind_ante")
    if bba is not None:
        if not isinstance(bba, bool):
            raise web.HTTPBadRequest(text="Big blind ante must be true or false.")
        args["big_blind_ante"] = bba
    tiles = sorted(c.room.tiles.values(), key=lambda t: t.key)
    # the room's ante cap: the largest of its tables' profiles (unknown, a house profile's:
    # not capped here, the table checks it); each table's own below
    caps = [_ante_rules(t)[2] for t in tiles]
    cap = None if not caps or None in caps else max(x for x in caps if x is not None)
    _refuse(checks.check_level(args["small_blind"], args["big_blind"], args["ante"],
                               bool(bba), max_ante_bb=cap if caps else 1.0))  # fmt: skip
    if not tiles:
        return _logged(who, "room level", "the room", {
            "ok": False, "reason": "the room knows no table yet", "results": []})  # fmt: skip
    live = [t for t in tiles if t.status != "offline"]
    confirmed = body.get("tables")
    if confirmed is not None and confirmed != len(live):
        now = f"The room has {len(live)} tables online now, not {confirmed}"
        raise web.HTTPConflict(text=f"{now}: check the level and confirm again.")
    results: dict[str, dict[str, Any]] = {}
    send_to = []
    for t in live:
        style, name, most = _ante_rules(t)
        problem = checks.check_level(args["small_blind"], args["big_blind"], args["ante"],
                                     bool(bba), ante_style=style, profile=name,
                                     max_ante_bb=most)  # fmt: skip
        if problem is None:
            send_to.append(t)
        else:
            results[t.key] = {"table": t.key, "command": "set_level", "ok": False,
                              "reason": f"not sent: {problem}", "data": {}}  # fmt: skip
    answers = await asyncio.gather(
        *(_send(c, who, t.venue, t.table, "set_level", args) for t in send_to)
    )
    for t, a in zip(send_to, answers, strict=True):
        results[t.key] = _step(t.key, "set_level", a)
    for t in tiles:
        if t.status == "offline":
            results[t.key] = {"table": t.key, "command": "set_level", "ok": False,
                              "reason": "offline: not sent; set its level when it is back",
                              "data": {}}  # fmt: skip
    ordered = [results[t.key] for t in tiles]
    refused = [r["table"] for r in ordered if not r["ok"]]
    resp = {"ok": not refused, "results": ordered,
            "reason": f"not set at {', '.join(refused)}" if refused else ""}  # fmt: skip
    return _logged(who, "room level", f"level {args['level']}", resp)


async def profiles(_c: Console, _request: web.Request, _user: User | None) -> web.Response:
    return web.json_response({"packaged": builtin_profile_names(),
                              "max_document_bytes": MAX_DOCUMENT_BYTES})  # fmt: skip


async def profile_check(_c: Console, request: web.Request, _user: User | None) -> web.Response:
    doc = _document(await _body(request))
    try:
        prof = house_profile(doc)
    except ConfigError as exc:
        return web.json_response({"ok": False, "reason": str(exc)})
    return web.json_response({"ok": True, "profile": summary(prof)})


async def profile(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
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
    resp = await _send(c, who, venue, table, "set_profile", args)
    return _logged(who, "profile", f"{venue}/{table} {name}", resp)


async def button_draw(c: Console, request: web.Request, user: User | None) -> web.Response:
    who = _actor(user)
    body = await _body(request)
    venue, table = text(body, "venue"), text(body, "table")
    resp = await _send(c, who, venue, table, "button_draw", {})
    return _logged(who, "button draw", f"{venue}/{table}", resp)


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


async def _move_across(host: Console, user: User, frm: tuple[str, str, int],
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
        why = str(put.get("reason", "")).rstrip(".")
        reason = f"{there}: {why}; {data['name']} is back in {here} seat {src}"
    else:
        reason = (f"{there}: {put.get('reason')}; and {here} refused them back"
                  f" ({back.get('reason')}): seat {data['player_id']} ({data['name']},"
                  f" stack {data['stack']}) by hand")  # fmt: skip
    return {"ok": False, "reason": reason, "steps": steps, "player": seat_args}
