"""The console's hand history and dealer quality: the handlers of these routes (listed, with
the access each needs, in :mod:`controller.floor.routes`).

    GET /history                              the page (search, quality)
    GET /hand/{hand_id}                       a hand's page (street by street)
    GET /api/history?<filters>&limit&offset   a page of matching hands (newest first), no cards
    GET /api/history/export.ohh|.phh?<filters>  every matching hand, as a download
    GET /api/hand/{hand_id}                   the hand page's data (completed hands: cards)
    GET /api/hand/{hand_id}/export.ohh|.phh   the hand, as a download
    GET /api/quality?<filters>                dealer errors per 100 hands (JSON)
    GET /api/quality.svg?<filters>            the same as a chart

Filters: ``venue``, ``table``, ``since`` and ``until`` (Unix seconds; ``since <= ended_at <
until``), ``dealer`` (badge id), ``player`` (venue player id, or name in any case),
``alert`` (a code such as ``EXPOSED_CARD``). Every request needs a session (any role: this
changes nothing). A bad filter is a 400 naming it; an unreadable store a 503.
"""

from __future__ import annotations

import asyncio
import io
import math
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from aiohttp import web

from controller.floor.auth import User
from controller.floor.console import Console
from controller.floor.handview import hand_view, summary
from controller.floor.quality import chart_svg, quality
from controller.link.errors import BadInput, StoreError
from controller.venuelog.export import export_ohh, export_phh, phh_file_name, phh_text
from controller.venuelog.query import MAX_LIMIT, HandQuery
from controller.venuelog.store import HandStore, open_for_export

#: the most hands an export or a quality table reads (a shift at a room is far fewer)
MAX_HANDS_READ = 20_000
T = TypeVar("T")


def _text(query: Any, key: str, longest: int = 64) -> str | None:
    v = query.get(key)
    if v is None or v == "":
        return None
    if len(v) > longest:
        raise web.HTTPBadRequest(text=f"{key}: at most {longest} characters")
    return str(v)


def _number(query: Any, key: str, *, integer: bool = False) -> float | None:
    v = query.get(key)
    if v is None or v == "":
        return None
    try:
        x = int(v) if integer else float(v)
    except ValueError:
        what = "an integer" if integer else "Unix seconds (a number)"
        raise web.HTTPBadRequest(text=f"{key}: expected {what}, got {v!r}") from None
    if not math.isfinite(x):
        raise web.HTTPBadRequest(text=f"{key}: expected a finite number, got {v!r}")
    return x


def parse_query(query: Any, *, limit: int = 25, paged: bool = True) -> HandQuery:
    """The filters of a request's query string (400 naming a bad one)."""
    alert = _text(query, "alert", 48)
    lim = _number(query, "limit", integer=True) if paged else None
    off = _number(query, "offset", integer=True) if paged else None
    try:
        return HandQuery(
            venue=_text(query, "venue", 32),
            table=_text(query, "table", 32),
            since=_number(query, "since"),
            until=_number(query, "until"),
            dealer=_text(query, "dealer"),
            player=_text(query, "player"),
            alert=alert.upper() if alert else None,
            limit=int(lim) if lim is not None else limit,
            offset=int(off) if off is not None else 0,
        )
    except BadInput as exc:
        raise web.HTTPBadRequest(text=str(exc)) from None


def every_hand(store: HandStore, q: HandQuery) -> Iterator[dict[str, Any]]:
    """All the hands ``q`` matches (newest first), page by page; BadInput past
    MAX_HANDS_READ (narrow the search). A hand the logger stores meanwhile shifts the pages
    by one: a hand seen twice is given once, and the pages are read until one is short, so
    none is missed (the store never deletes)."""
    page, total = store.search(_page(q, 0))
    if total > MAX_HANDS_READ:
        raise BadInput(f"{total} hands match: at most {MAX_HANDS_READ} are read at once;"
                       " narrow the search (a shorter time range, one table)")  # fmt: skip
    seen: set[str] = set()
    offset = 0
    while True:
        for env in page:
            if env["hand_id"] not in seen:
                seen.add(env["hand_id"])
                yield env
        if len(page) < MAX_LIMIT or len(seen) > MAX_HANDS_READ:
            return
        offset += len(page)
        page, _ = store.search(_page(q, offset))


def _page(q: HandQuery, offset: int) -> HandQuery:
    return HandQuery(q.venue, q.table, q.since, q.until, q.dealer, q.player, q.alert,
                     MAX_LIMIT, offset)  # fmt: skip


async def _read(c: Console, fn: Callable[[HandStore], T]) -> T:
    """``fn`` on the logger's store, opened read-only for this request (404 without a store,
    400 for a bad search, 503 for an unreadable store)."""
    db = c.db
    if db is None:
        raise web.HTTPNotFound(text="no hand store configured (floor.db)")

    def run() -> T:
        store = open_for_export(db)
        try:
            return fn(store)
        finally:
            store.close()

    try:
        return await asyncio.to_thread(run)
    except BadInput as exc:
        raise web.HTTPBadRequest(text=str(exc)) from None
    except StoreError as exc:
        raise web.HTTPServiceUnavailable(text=f"hand store: {exc}") from None


async def _one(c: Console, request: web.Request) -> dict[str, Any]:
    hand_id = request.match_info["hand_id"]
    env = await _read(c, lambda s: s.get(hand_id))
    if env is None:
        raise web.HTTPNotFound(text=f"no stored hand {hand_id}")
    return env


def _download(body: str, name: str, kind: str) -> web.Response:
    return web.Response(
        text=body,
        content_type=kind,
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _export(hands: list[dict[str, Any]], fmt: str) -> str:
    out = io.StringIO()
    if fmt == "ohh":
        export_ohh(hands, out)
    else:
        export_phh(hands, out)
    return out.getvalue()


async def search(c: Console, request: web.Request, _user: User | None) -> web.Response:
    q = parse_query(request.query)
    found, total = await _read(c, lambda s: s.search(q))
    return web.json_response({"hands": [summary(e) for e in found], "total": total,
                              "offset": q.offset, "limit": q.limit})  # fmt: skip


async def export_search(c: Console, request: web.Request, _user: User | None) -> web.Response:
    fmt = request.match_info["fmt"]
    q = parse_query(request.query, paged=False)
    text = await _read(c, lambda s: _export(list(every_hand(s, q)), fmt))
    name = "hands.ohh" if fmt == "ohh" else "hands.phhs"
    return _download(text, name, "application/json" if fmt == "ohh" else "text/plain")


async def hand(c: Console, request: web.Request, _user: User | None) -> web.Response:
    return web.json_response(hand_view(await _one(c, request)))


async def export_hand(c: Console, request: web.Request, _user: User | None) -> web.Response:
    env = await _one(c, request)
    if request.match_info["fmt"] == "ohh":
        return _download(_export([env], "ohh"), phh_file_name(env["hand_id"])[:-4] + ".ohh",
                         "application/json")  # fmt: skip
    try:
        text = phh_text(env["ohh"])
    except (BadInput, KeyError) as exc:
        raise web.HTTPUnprocessableEntity(text=f"no PHH for {env['hand_id']}: {exc}") from None
    return _download(text, phh_file_name(env["hand_id"]), "text/plain")


async def quality_json(c: Console, request: web.Request, _user: User | None) -> web.Response:
    q = parse_query(request.query, paged=False)
    report = await _read(c, lambda s: quality(every_hand(s, q)))
    return web.json_response(report.as_json())


async def quality_chart(c: Console, request: web.Request, _user: User | None) -> web.Response:
    q = parse_query(request.query, paged=False)
    svg = await _read(c, lambda s: chart_svg(quality(every_hand(s, q))))
    return web.Response(text=svg, content_type="image/svg+xml")
