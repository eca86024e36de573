"""A venue's own house profile set at runtime: ``set_profile`` with a ``document`` (the TOML
text of a profile file, docs/mqtt.md "Commands").

The document is validated first (:func:`controller.rules.profile_document.house_profile`:
the size, TOML, every key and value, a name that is not a packaged profile's) and against
the table (no occupied seat beyond its ``max_seats``); a refusal names what is wrong and
changes nothing. Then it is stored (durably: the document under its name in the table
store's ``house_profiles``, and the name as the ``runtime_profile``, as a packaged name is)
and applied as a packaged profile is: at once between hands, else from the next hand
(``pending_profile``; the ``profile_changed`` event says when).

After a restart the table finds a profile by its name (the ``runtime_profile``, the hand
log's start record): :func:`resolve` looks a house profile's name up among the stored
documents, so a hand started under a house profile is replayed under it.
"""

from __future__ import annotations

import logging
from typing import Any, Final, Protocol

from controller.daemon.config import DaemonConfig
from controller.daemon.recovery import profile_named
from controller.daemon.table_store import TableStore
from controller.link import CommandResult
from controller.rules.engine import TableCore
from controller.rules.errors import RailguardError
from controller.rules.profile import Profile, builtin_profile_names
from controller.rules.profile_document import house_profile

log = logging.getLogger("railguard.daemon")
STORE_KEY: Final = "house_profiles"
#: house-profile documents kept in the table store (the most recent ones): enough for the
#: profile in force, a pending one and the one a stored hand log was started under
KEEP: Final = 8


class ProfileHost(Protocol):
    """What setting a house profile needs of the daemon (``service.Daemon`` is one)."""

    cfg: DaemonConfig
    store: TableStore
    pending_profile: Profile | None

    @property
    def core(self) -> TableCore: ...  # read only: seats, profile, phase

    def apply_pending_profile(self) -> bool: ...


def stored_documents(store: TableStore) -> dict[str, str]:
    """The house-profile documents in the table store, by profile name (oldest first)."""
    raw = store.get(STORE_KEY)
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def resolve(store: TableStore, name: str, fallback: Profile) -> Profile:
    """The profile called ``name``: ``fallback`` if it has that name, a packaged profile,
    a stored house profile, else ``fallback`` (a name this table no longer knows)."""
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


def set_house_profile(d: ProfileHost, document: str) -> CommandResult:
    """Validate a house profile's TOML text; store it; apply it now between hands, else
    from the next hand. A refusal changes nothing."""
    try:
        prof = house_profile(document)
    except RailguardError as exc:
        return CommandResult.error(str(exc))
    if prof.name == d.cfg.profile.name:
        return CommandResult.error(
            f"house profile: key 'name': {prof.name!r} is this table's configured profile"
            " (table.profile); give the house profile a name of its own"
        )
    too_far = [s for s in sorted(d.core.seats) if s > prof.max_seats]
    if too_far:
        return CommandResult.error(
            f"house profile {prof.name!r} has {prof.max_seats} seats; seats {too_far} are occupied"
        )
    try:
        _remember(d.store, prof.name, document)
        d.store.put("runtime_profile", {"name": prof.name, "config": d.cfg.profile.name},
                    durable=True)  # fmt: skip
    except RailguardError as exc:
        return CommandResult.error(f"profile not stored: {exc}")
    data: dict[str, Any] = {"profile": prof.name, "title": prof.title}
    if prof == d.core.profile:
        d.pending_profile = None
        return CommandResult.success(**data, applies="now")
    d.pending_profile = prof
    applied = d.apply_pending_profile()
    return CommandResult.success(**data, applies="now" if applied else "next hand")
