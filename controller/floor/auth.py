"""Users, roles, password hashes (``hashlib.scrypt``), signed session cookies and CSRF tokens.

The users file is TOML::

    [users.alice]
    role = "supervisor"               # viewer | supervisor | director
    password = "scrypt$16384$8$1$<salt hex>$<hash hex>"   # railguard floor hash-password

A session is a cookie ``<payload>.<HMAC-SHA256>``; the payload names the user, the time it was
issued and the session's CSRF token, which every state-changing request must echo in the
``X-CSRF-Token`` header.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import json
import re
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules.errors import ConfigError

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SESSION_SECONDS = 12 * 3600  # one shift
_NAME = re.compile(r"[A-Za-z0-9._-]{1,32}")


class Role(enum.Enum):
    VIEWER = "viewer"
    SUPERVISOR = "supervisor"  # floor supervisor: acknowledges alerts, seats players
    DIRECTOR = "director"  # tournament director: as the supervisor, and the room's settings

    @property
    def may_act(self) -> bool:
        """Whether the role may send venue commands (a viewer changes nothing)."""
        return self is not Role.VIEWER


@dataclass(frozen=True, slots=True)
class User:
    name: str
    role: Role
    password: str  # the stored scrypt hash, never the password


@dataclass(frozen=True, slots=True)
class Session:
    user: str
    issued: float
    csrf: str


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """A new salted scrypt hash of ``password`` as ``scrypt$N$r$p$salt$hash`` (hex)."""
    if not password:
        raise ConfigError("a password may not be empty")
    salt = secrets.token_bytes(16)
    dk = hashlib.scrypt(password.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${dk.hex()}"


def _parse_hash(stored: str) -> tuple[int, int, int, bytes, bytes]:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        raise ConfigError("password: not a scrypt hash (make one with: railguard floor"
                          " hash-password)")  # fmt: skip
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, dk = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        raise ConfigError("password: a malformed scrypt hash") from None
    if n < 2 or n & (n - 1) or not 0 < r <= 32 or not 0 < p <= 16 or len(dk) < 16:
        raise ConfigError("password: scrypt parameters out of range")
    return n, r, p, salt, dk


def verify_password(password: str, stored: str) -> bool:
    n, r, p, salt, dk = _parse_hash(stored)
    got = hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, dklen=len(dk),
                         maxmem=256 * 1024 * 1024)  # fmt: skip
    return hmac.compare_digest(got, dk)


def parse_users(raw: dict[str, Any], where: str = "users file") -> dict[str, User]:
    users = raw.get("users")
    if not isinstance(users, dict) or not users:
        raise ConfigError(f"{where}: no [users.NAME] tables")
    out: dict[str, User] = {}
    for name, entry in users.items():
        if not _NAME.fullmatch(name):
            raise ConfigError(f"{where}: user {name!r}: 1-32 letters, digits or ._-")
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: users.{name}: expected a table")
        unknown = set(entry) - {"role", "password"}
        if unknown:
            raise ConfigError(f"{where}: users.{name}: unknown key(s) {sorted(unknown)}")
        try:
            role = Role(entry.get("role"))
        except ValueError:
            raise ConfigError(f"{where}: users.{name}.role: one of viewer, supervisor,"
                              f" director (got {entry.get('role')!r})") from None  # fmt: skip
        password = entry.get("password")
        if not isinstance(password, str):
            raise ConfigError(f"{where}: users.{name}.password: missing")
        try:
            _parse_hash(password)
        except ConfigError as exc:
            raise ConfigError(f"{where}: users.{name}.{exc}") from None
        out[name] = User(name, role, password)
    return out


def load_users(path: str | Path) -> dict[str, User]:
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"users file {path}: {exc}") from None
    return parse_users(raw, f"users file {path}")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Signs and reads session cookies with a secret key (random per start unless given)."""

    def __init__(self, secret: bytes, max_age: float = SESSION_SECONDS) -> None:
        if len(secret) < 16:
            raise ConfigError("session secret: at least 16 bytes")
        self._key, self.max_age = secret, max_age

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def issue(self, user: str, now: float) -> tuple[str, Session]:
        s = Session(user, now, secrets.token_urlsafe(24))
        body = json.dumps({"u": s.user, "t": s.issued, "c": s.csrf}, separators=(",", ":"))
        payload = _b64(body.encode())
        return f"{payload}.{self._mac(payload)}", s

    def read(self, cookie: str | None, now: float) -> Session | None:
        """The session a cookie carries, or None (absent, forged, malformed or expired)."""
        if not cookie or cookie.count(".") != 1 or len(cookie) > 1024:
            return None
        payload, mac = cookie.split(".")
        if not hmac.compare_digest(mac, self._mac(payload)):
            return None
        try:
            obj = json.loads(_unb64(payload))
            s = Session(str(obj["u"]), float(obj["t"]), str(obj["c"]))
        except (ValueError, KeyError, TypeError):
            return None
        if not 0 <= now - s.issued <= self.max_age:
            return None
        return s


def csrf_ok(session: Session, header: str | None) -> bool:
    return header is not None and hmac.compare_digest(session.csrf.encode(), header.encode())
