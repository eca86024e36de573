"""Profiles set at runtime: ``set_profile`` with a packaged name
(:func:`controller.daemon.venue_commands.set_profile`) or with a ``document``, a venue's own
house profile (the TOML text of a profile file, docs/mqtt.md "Commands"), both handed to the
rules core by :func:`submit`.

The document is validated first (:func:`controller.rules.profile_document.house_profile`:
the size, TOML, every key and value, a name that is not a packaged profile's). Then the
profile goes to the core as a :class:`~controller.rules.events.SetProfile` event: the core
refuses it if an occupied seat lies beyond its ``max_seats`` (nothing changed, nothing
stored), else applies it at once between hands or holds it as its pending profile until the
hand in play is over (``controller.rules.profile_switch``; the ``ProfileChanged`` fact is
the ``profile_changed`` event). Only once the core accepted it is it stored (durably: a
document under its name in the table store's ``house_profiles``, and the name as the
``runtime_profile``).

After a restart the table finds a profile by its name (the ``runtime_profile``, the hand
log's start record): :func:`resolve` looks a house profile's name up among the stored
documents, so a hand started under a house profile is replayed under it; the runtime profile
the hand was cut before is the core's pending profile again (``startup.restore_hand``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final, Protocol

from controller.daemon.clock import Clock
from controller.daemon.config import DaemonConfig
from controller.daemon.recovery import profile_named
from controller.daemon.table_store import TableStore
from controller.link import CommandResult
from controller.rules.engine import Step, TableCore
from controller.rules.errors import RailguardError
from controller.rules.events import Event, SetProfile
from controller.rules.profile import Profile, builtin_profile_names
from controller.rules.profile_document import house_profile

log = logging.getLogger("railguard.daemon")
STORE_KEY: Final = "house_profiles"
#: house-profile documents kept in the table store (the most recent ones): enough for the
#: profile in force, a pending one and the one a stored hand log was started under
KEEP: Final = 8


class ProfileHost(Protocol):
    """What setting a profile needs of the daemon (``service.Daemon`` is one)."""

    cfg: DaemonConfig
    clock: Clock  # the event's time
    store: TableStore  # read only: written through table_write

    @property
    def core(self) -> TableCore: ...  # read only: changed through submit

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None: ...

    async def submit(self, ev: Event, accepted: Callable[[], None] | None = None) -> Step: ...


def stored_documents(store: TableStore) -> dict[str, str]:
    """The house-profile documents in the table store, by profile name (oldest first)."""
    raw = store.get(STORE_KEY)
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def resolve(store: TableStore, name: str, fallback: Profile,
            configured: Profile | None = None) -> Profile:  # fmt: skip
    """The profile called ``name``: ``configured`` (the table's ``table.profile``, which may
    be a venue's file) or ``fallback`` if it has that name, a packaged profile, a stored
    house profile, else ``fallback`` (a name this table no longer knows)."""
    if configured is not None and name == configured.name and name != fallback.name:
        return configured
    doc = stored_documents(store).get(name)
    if name == fallback.name or name in builtin_profile_names() or doc is None:
        return profile_named(name, fallback)
    try:
        return house_profile(doc, f"stored house profile {name!r}")
    except RailguardError as exc:  # a document an older version accepted
        log.error("%s; using %s", exc, fallback.name)
        return fallback


def _remember(store: TableStore, name: str, document: str) -> None:
    docs = stored_documents(store)
    docs.pop(name, None)
    docs[name] = document  # the most recent last
    while len(docs) > KEEP:
        docs.pop(next(iter(docs)))
    store.put(STORE_KEY, docs, durable=True)


async def set_house_profile(d: ProfileHost, document: str) -> CommandResult:
    """Validate a house profile's TOML text and hand it to the core (:func:`submit`). A
    refusal changes nothing."""
    try:
        prof = house_profile(document)
    except RailguardError as exc:
        return CommandResult.error(str(exc))
    if prof.name == d.cfg.profile.name:
        return CommandResult.error(
            f"house profile: key 'name': {prof.name!r} is this table's configured profile"
            " (table.profile); give the house profile a name of its own"
        )
    return await submit(d, prof, {"profile": prof.name, "title": prof.title}, document)


async def submit(d: ProfileHost, prof: Profile, data: dict[str, Any],
                 document: str | None = None) -> CommandResult:  # fmt: skip
    """``prof`` to the core as a ``SetProfile``; once it accepted, the runtime profile (and
    a house profile's ``document``) stored. The answer's ``applies``: ``now``, or ``next
    hand`` when the core holds it pending until the hand in play is over."""
    pending = [False]

    def accepted() -> None:
        # run by the core loop right after the core accepted the event (before any other)
        pending[0] = d.core.pending_profile is not None

        def store(st: TableStore) -> None:
            if document is not None:
                _remember(st, prof.name, document)
            st.put("runtime_profile", {"name": prof.name, "config": d.cfg.profile.name},
                   durable=True)  # fmt: skip

        d.table_write(store, f"profile {prof.name}")

    step = await d.submit(SetProfile(d.clock.monotonic(), prof), accepted)
    if step.rejected is not None:
        house = "house " if document is not None else ""
        return CommandResult.error(f"{house}{step.rejected}")
    return CommandResult.success(**data, applies="next hand" if pending[0] else "now")
