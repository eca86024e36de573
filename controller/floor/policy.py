"""The console's one role policy: what each route needs (:class:`Access`) and the one check
(:func:`admit`) every route passes before its handler runs (:mod:`controller.floor.app`).

    PUBLIC      no session: the pages, their assets, the login
    VIEW        any logged-in user (viewer, supervisor, director): reads that change nothing
    SESSION     any logged-in user, with the session's CSRF token: the user's own logout
    SUPERVISOR  a floor supervisor or a director, with the CSRF token: the table's running
                (acknowledge alerts, seat, unseat and move players, start a button draw)
    DIRECTOR    the tournament director, with the CSRF token: what holds for the room or
                changes the rules (the room's level, a table's profile)

A viewer changes nothing; a director may do whatever a supervisor may. Checked here, on the
server, whatever the page shows (docs/floor.md).
"""

from __future__ import annotations

import enum

from aiohttp import web

from controller.floor.auth import Role, User, csrf_ok
from controller.floor.console import Console


class Access(enum.Enum):
    PUBLIC = "public"
    VIEW = "view"
    SESSION = "session"
    SUPERVISOR = "supervisor"
    DIRECTOR = "director"


_RANK = {Role.VIEWER: 0, Role.SUPERVISOR: 1, Role.DIRECTOR: 2}
_NEEDS = {Access.SUPERVISOR: Role.SUPERVISOR, Access.DIRECTOR: Role.DIRECTOR}


def admit(console: Console, request: web.Request, access: Access, action: str) -> User | None:
    """The user a request acts as, if ``access`` lets them call the route named ``action``
    (None for a public route); else 401 (no session) or 403 (no CSRF token, or the role)."""
    if access is Access.PUBLIC:
        return None
    s, user = console.session(request)
    if access is Access.VIEW:
        return user
    if not csrf_ok(s, request.headers.get("X-CSRF-Token")):
        raise web.HTTPForbidden(text="missing or wrong CSRF token")
    need = _NEEDS.get(access)
    if need is None:
        return user
    if user.role is Role.VIEWER:
        raise web.HTTPForbidden(text=f"{user.name} is a viewer: viewers change nothing")
    if _RANK[user.role] < _RANK[need]:
        who = "director (tournament director)" if need is Role.DIRECTOR else need.value
        raise web.HTTPForbidden(text=f"{user.name} is a {user.role.value}: {action} needs a"
                                     f" {who}")  # fmt: skip
    return user
