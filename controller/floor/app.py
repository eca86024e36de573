"""The console's web application (aiohttp): one factory, :func:`make_app`, registering the
one table of routes (:data:`controller.floor.routes.ROUTES`), each behind the one role check
(:func:`controller.floor.policy.admit`), with the security headers on every answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from controller.floor import tournament
from controller.floor.auth import Role
from controller.floor.console import COOKIE, Console
from controller.floor.policy import admit
from controller.floor.routes import ROUTES, Route

CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"

_Next = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def _headers(request: web.Request, handler: _Next) -> web.StreamResponse:
    resp = await handler(request)
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    return resp


def _guarded(console: Console, route: Route) -> _Next:
    async def handle(request: web.Request) -> web.StreamResponse:
        user = admit(console, request, route.access, route.action)
        return await route.handler(console, request, user)

    return handle


def make_app(console: Console) -> web.Application:
    app = web.Application(middlewares=[_headers], client_max_size=16 * 1024)
    for route in ROUTES:
        if route.method == "GET":  # and HEAD, as aiohttp's own GET routes
            app.router.add_get(route.path, _guarded(console, route))
        else:
            app.router.add_route(route.method, route.path, _guarded(console, route))
    tournament.attach(app, console.link.broker, console.link.command_key)  # the event topics
    return app


__all__ = ["COOKIE", "Console", "Role", "make_app"]
