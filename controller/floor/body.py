"""The console's JSON request bodies: read within a size limit, fields checked by type, each
refusal a 400/413 naming what is wrong (used by app.py and actions.py)."""

from __future__ import annotations

from typing import Any

from aiohttp import web


async def json_object(request: web.Request, limit: int) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=request.content_length)
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise web.HTTPBadRequest(text="the request body is not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="the request body is not a JSON object")
    return body


def text(body: dict[str, Any], key: str) -> str:
    v = body.get(key)
    if not isinstance(v, str) or not v:
        raise web.HTTPBadRequest(text=f"{key}: expected a non-empty string")
    return v


def integer(body: dict[str, Any], key: str, low: int | None = None, high: int | None = None) -> int:
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise web.HTTPBadRequest(text=f"{key}: expected an integer")
    if low is not None and high is not None and not low <= v <= high:
        raise web.HTTPBadRequest(text=f"{key}: {v} is not {low}..{high}")
    return v
