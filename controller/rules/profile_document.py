"""A venue's own house profile delivered as a document (the ``set_profile`` venue command's
``document``, the floor console's profile form): the TOML text of a profile file, exactly as
the packaged ones in ``controller/rules/profiles`` are written, validated by
:func:`~controller.rules.profile.profile_from_dict` (every error names the key) plus the
checks a document sent over the network needs: a size limit, one ``[profile]`` table, and
a name of its own (a packaged profile's name is refused: after a restart the table finds a
profile by its name, and a packaged name would bring back the packaged rules).

The table checks a document before it acts, and the console checks it before it sends
(the same function), so a director sees the error at once.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from typing import Any, Final

from controller.rules.errors import ConfigError
from controller.rules.profile import Profile, builtin_profile_names, profile_from_dict

#: a profile document's largest size, in bytes of UTF-8 (the packaged profiles, with their
#: comments, are 2-3 KiB; a venue command is at most 16 KiB of JSON)
MAX_DOCUMENT_BYTES: Final = 8192
#: a house profile's name: as a packaged profile's file name (the live state carries it)
NAME_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
SOURCE: Final = "house profile"


def document_size_error(text: str, source: str = SOURCE) -> str | None:
    """Why ``text`` is too large (or empty) for a profile document, else None."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_DOCUMENT_BYTES:
        return (f"{source}: {size} bytes; a profile document is at most"
                f" {MAX_DOCUMENT_BYTES} bytes of UTF-8")  # fmt: skip
    if not text.strip():
        return f"{source}: the document is empty"
    return None


def house_profile(text: str, source: str = SOURCE) -> Profile:
    """The :class:`Profile` a house-profile document describes; :class:`ConfigError`
    naming what is wrong (the TOML error with its line and column, the bad key, the
    value's allowed choices, the size, the name)."""
    problem = document_size_error(text, source)
    if problem is not None:
        raise ConfigError(problem)
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    if "profile" in data:
        other = sorted(k for k in data if k != "profile")
        if other:
            raise ConfigError(f"{source}: unknown table or key {other[0]!r} beside [profile]")
    prof = profile_from_dict(data, source)
    if not NAME_PATTERN.fullmatch(prof.name):
        raise ConfigError(f"{source}: key 'name': {prof.name!r} is not 1-64 lower-case"
                          " letters, digits, '-' or '_' (a letter or digit first)")  # fmt: skip
    if prof.name in builtin_profile_names():
        raise ConfigError(f"{source}: key 'name': {prof.name!r} is a packaged profile's name;"
                          " give the house profile a name of its own")  # fmt: skip
    return prof


def summary(prof: Profile) -> dict[str, Any]:
    """A profile's settings as JSON values (enums by their value), for the console."""
    out: dict[str, Any] = {}
    for f in fields(prof):
        value = getattr(prof, f.name)
        out[f.name] = getattr(value, "value", value)
    return out


__all__ = ["MAX_DOCUMENT_BYTES", "NAME_PATTERN", "document_size_error", "house_profile",
           "summary"]  # fmt: skip
