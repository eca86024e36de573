"""The console's one table of routes: every path, its method, its handler and the access it
needs (:class:`~controller.floor.policy.Access`). :func:`controller.floor.app.make_app`
registers exactly these, each behind the one role check (:func:`~controller.floor.policy.admit`).

A handler is ``async (console, request, user) -> response``; ``user`` is the acting user
(None on a public route). The history's filters and answers: :mod:`controller.floor.history`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from aiohttp import web

from controller.floor import actions, history, tournament, views
from controller.floor.auth import User
from controller.floor.console import Console
from controller.floor.policy import Access

Handler = Callable[[Console, web.Request, User | None], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    path: str
    handler: Handler
    access: Access
    action: str  # what the route does, in a refusal ("room_level needs a director")


PUBLIC, VIEW, SESSION = Access.PUBLIC, Access.VIEW, Access.SESSION
SUPERVISOR, DIRECTOR = Access.SUPERVISOR, Access.DIRECTOR

ROUTES: Final = (
    # the pages and their assets; the login
    Route("GET", "/", views.page, PUBLIC, "page"),
    Route("GET", "/history", views.page, PUBLIC, "history page"),
    Route("GET", "/hand/{hand_id}", views.page, PUBLIC, "hand page"),
    Route("GET", "/static/{name}", views.asset, PUBLIC, "asset"),
    Route("POST", "/api/login", views.login, PUBLIC, "login"),
    Route("GET", "/api/me", views.me, VIEW, "me"),
    Route("POST", "/api/logout", views.logout, SESSION, "logout"),
    # the room, live
    Route("GET", "/api/room", views.room, VIEW, "room"),
    Route("GET", "/api/stream", views.stream, VIEW, "stream"),
    Route("GET", "/api/hands", views.hands, VIEW, "hands"),
    # the floor supervisor's actions (a director may do them too)
    Route("POST", "/api/ack", actions.ack, SUPERVISOR, "ack"),
    Route("POST", "/api/seat", actions.seat, SUPERVISOR, "seat"),
    Route("POST", "/api/unseat", actions.unseat, SUPERVISOR, "unseat"),
    Route("POST", "/api/move", actions.move, SUPERVISOR, "move"),
    Route("POST", "/api/button_draw", actions.button_draw, SUPERVISOR, "button_draw"),
    # the tournament director's
    Route("POST", "/api/room/level", actions.room_level, DIRECTOR, "room_level"),
    Route("GET", "/api/profiles", actions.profiles, VIEW, "profiles"),
    Route("POST", "/api/profile/check", actions.profile_check, DIRECTOR, "profile"),
    Route("POST", "/api/profile", actions.profile, DIRECTOR, "profile"),
    # the hand history and dealer quality (reads)
    Route("GET", "/api/history", history.search, VIEW, "history"),
    Route("GET", "/api/history/export.{fmt:ohh|phh}", history.export_search, VIEW, "export"),
    Route("GET", "/api/hand/{hand_id}", history.hand, VIEW, "hand"),
    Route("GET", "/api/hand/{hand_id}/export.{fmt:ohh|phh}", history.export_hand, VIEW, "export"),
    Route("GET", "/api/quality", history.quality_json, VIEW, "quality"),
    Route("GET", "/api/quality.svg", history.quality_chart, VIEW, "quality"),
    # the tournament (controller/floor/tournament.py): a players' screen reads the clock
    Route("GET", "/clock", tournament.clock_page, PUBLIC, "clock page"),
    Route("GET", "/event", tournament.event_page, PUBLIC, "event page"),
    Route("GET", "/static/event/{name}", tournament.event_asset, PUBLIC, "asset"),
    Route("GET", "/api/event/clock", tournament.clock, PUBLIC, "clock"),
    Route("GET", "/api/event", tournament.event, VIEW, "event"),
    Route("POST", "/api/event/confirm", tournament.confirm, DIRECTOR, "confirming a move"),
    Route("POST", "/api/event/clock", tournament.clock_op, DIRECTOR, "the clock"),
    Route("POST", "/api/event/hand_for_hand", tournament.hand_for_hand, DIRECTOR, "hand-for-hand"),
)
