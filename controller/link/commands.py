"""Venue commands: strict parsing into frozen dataclasses, and the freshness/replay guard.

A command is refused, with a reason, if it is not UTF-8 JSON of at most
:data:`MAX_COMMAND_BYTES`, has duplicate keys or non-finite numbers, fails its JSON Schema,
fails a cross-field check, carries a bad HMAC (when the table has a key), is older than the
maximum age or too far in the future, or repeats a request id already accepted, or has a
string that is not valid Unicode (a lone surrogate, which JSON's ``\\ud800`` escape allows
but no store or UTF-8 payload can hold). Parsing never changes anything;
:meth:`CommandGuard.admit` records the request id only once everything passed, durably when the
guard has a store (:meth:`CommandGuard.persist`): a replay is refused across a restart too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final, Protocol

from controller.link.command_checks import check_level, plain_field_error
from controller.link.errors import CommandRefused, SchemaViolation, StoreError
from controller.link.schemas import fast_valid, schema, validate, validator_for

MAX_COMMAND_BYTES: Final = 16 * 1024
#: a house profile's TOML text in ``set_profile`` (bytes of UTF-8; the schema's maxLength
#: counts characters)
MAX_PROFILE_DOCUMENT_BYTES: Final = 8192


@dataclass(frozen=True, slots=True)
class CommandMeta:
    request_id: str
    issued_at: float
    issuer: str | None


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    meta: CommandMeta
    seat: int
    player_id: str
    name: str
    stack: int


@dataclass(frozen=True, slots=True)
class UnseatPlayer:
    meta: CommandMeta
    seat: int


@dataclass(frozen=True, slots=True)
class MovePlayer:
    meta: CommandMeta
    from_seat: int
    to_seat: int


@dataclass(frozen=True, slots=True)
class SetLevel:
    """Blinds and ante; the daemon applies them from the next hand."""

    meta: CommandMeta
    level: int
    small_blind: int
    big_blind: int
    ante: int
    big_blind_ante: bool


@dataclass(frozen=True, slots=True)
class SetProfile:
    meta: CommandMeta
    profile: str


@dataclass(frozen=True, slots=True)
class SetHouseProfile:
    """``set_profile`` with a ``document``: a venue's own house profile, the TOML text of a
    profile file (at most :data:`MAX_PROFILE_DOCUMENT_BYTES`); the table validates it."""

    meta: CommandMeta
    document: str


@dataclass(frozen=True, slots=True)
class EnrolDeck:
    """A deck's tag ids: ``cards`` maps card text ("As") to the tag UID (upper-case hex);
    ``jokers``: the tag UIDs of the deck's jokers (if any)."""

    meta: CommandMeta
    deck_id: str
    cards: tuple[tuple[str, str], ...]
    jokers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ButtonDraw:
    """Start the button draw (one card face up to each seat; the profile's draw rule)."""

    meta: CommandMeta


@dataclass(frozen=True, slots=True)
class HoldDeal:
    """Hand-for-hand (the tournament service, docs/tournament.md): this table completed the
    round's hand; it deals no next hand until :class:`ReleaseDeal`."""

    meta: CommandMeta
    round: int


@dataclass(frozen=True, slots=True)
class ReleaseDeal:
    """Hand-for-hand: every table completed the round's hand; the next deal may go."""

    meta: CommandMeta


@dataclass(frozen=True, slots=True)
class AckAlert:
    meta: CommandMeta
    alert_id: str
    by: str | None


@dataclass(frozen=True, slots=True)
class Rebirth:
    """Republish birth and state (handled by the link itself)."""

    meta: CommandMeta


@dataclass(frozen=True, slots=True)
class Replay:
    """Re-send stored hand records from hand number ``from_hand`` (handled by the link)."""

    meta: CommandMeta
    from_hand: int


Command = (
    SeatPlayer
    | UnseatPlayer
    | MovePlayer
    | SetLevel
    | SetProfile
    | SetHouseProfile
    | EnrolDeck
    | ButtonDraw
    | HoldDeal
    | ReleaseDeal
    | AckAlert
    | Rebirth
    | Replay
)


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What the daemon's callback returns: ok, or an error with a reason."""

    ok: bool
    reason: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def success(cls, **data: Any) -> CommandResult:
        return cls(True, "", dict(data))

    @classmethod
    def error(cls, reason: str) -> CommandResult:
        return cls(False, reason or "refused")


def canonical_bytes(obj: dict[str, Any]) -> bytes:
    """Canonical JSON used for the command HMAC: sorted keys, no spaces, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(command: dict[str, Any], key: bytes) -> dict[str, Any]:
    """Return ``command`` with its ``hmac`` field set (for the venue side and for tests)."""
    body = {k: v for k, v in command.items() if k != "hmac"}
    return {**body, "hmac": hmac.new(key, canonical_bytes(body), hashlib.sha256).hexdigest()}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} not allowed")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _loads(payload: bytes | str) -> Any:
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "surrogatepass")
    if len(payload) > MAX_COMMAND_BYTES:
        raise CommandRefused(f"malformed: larger than {MAX_COMMAND_BYTES} bytes")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandRefused("malformed: not UTF-8") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise CommandRefused("malformed: nested too deeply") from None
    except ValueError as exc:
        raise CommandRefused(f"malformed: not JSON ({str(exc)[:120]})") from None


def _bad_text(obj: Any, path: str = "", depth: int = 0) -> str | None:
    """The path of the first string (key or value) that UTF-8 cannot encode, or None."""
    if depth > 64:
        return None  # the schema refuses such nesting with its own reason
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(root)"
        return None
    if isinstance(obj, dict):
        for k, v in obj.items():
            where = f"{path}/{k}".lstrip("/") if isinstance(k, str) else path
            bad = _bad_text(k, path, depth + 1) or _bad_text(v, where, depth + 1)
            if bad is not None:
                return bad
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            bad = _bad_text(v, f"{path}/{i}".lstrip("/"), depth + 1)
            if bad is not None:
                return bad
    return None


def _request_id_of(obj: Any) -> str | None:
    if isinstance(obj, dict):
        rid = obj.get("request_id")
        if isinstance(rid, str) and 0 < len(rid) <= 64 and rid.isprintable():
            return None if _bad_text(rid) else rid
    return None


@cache
def _split_validators() -> tuple[Any, dict[str, Any]]:
    """The command schema as an envelope validator plus one args validator per command
    (same rules as schemas/command.json, checked in two cheaper steps)."""
    full = schema("command")
    envelope = validator_for({k: v for k, v in full.items() if k != "allOf"})
    per_command = {
        rule["if"]["properties"]["command"]["const"]: validator_for(
            rule["then"]["properties"]["args"]
        )
        for rule in full["allOf"]
    }
    return envelope, per_command


def _validate_command(obj: Any) -> None:
    if fast_valid("command", obj):
        return  # valid by the whole schema (envelope and args): nothing to explain
    envelope, per_command = _split_validators()
    validate("command", obj, envelope)
    try:
        validate("command", obj["args"], per_command[obj["command"]])
    except SchemaViolation as exc:
        if obj["command"] in FLOOR_COMMANDS:  # a floor person reads these: plain words
            raise PlainRefusal(plain_field_error(obj["args"], exc.path, exc.rule,
                                                 exc.message)) from None  # fmt: skip
        path = f"args/{exc.path}".rstrip("/")
        raise SchemaViolation("command", path, str(exc).split(": ", 2)[-1]) from None


#: the commands the floor sends by hand: their argument errors are worded for the floor
FLOOR_COMMANDS = frozenset({"seat", "unseat", "move", "set_level", "ack_alert"})


class PlainRefusal(Exception):
    """A command's arguments refused in a sentence (:func:`plain_field_error`)."""


def parse_command(payload: bytes | str) -> Command:
    """Parse and validate one command payload; raise :class:`CommandRefused` with a reason.

    Pure: no clock, no key, no memory of earlier commands (see :class:`CommandGuard`).
    """
    obj = _loads(payload)
    rid = _request_id_of(obj)
    bad = _bad_text(obj)
    if bad is not None:
        raise CommandRefused(f"invalid: {bad}: not valid Unicode text (a lone surrogate)", rid)
    try:
        _validate_command(obj)
    except SchemaViolation as exc:
        raise CommandRefused(f"invalid: {exc}", rid) from None
    except PlainRefusal as exc:
        raise CommandRefused(str(exc), rid) from None
    try:
        issued_at = float(obj["ts"])
    except OverflowError:
        raise CommandRefused("stale: timestamp out of range", rid) from None
    meta = CommandMeta(obj["request_id"], issued_at, obj.get("issuer"))
    a: dict[str, Any] = obj["args"]
    name: str = obj["command"]
    if name == "seat":
        return SeatPlayer(meta, a["seat"], a["player_id"], a["name"], a["stack"])
    if name == "unseat":
        return UnseatPlayer(meta, a["seat"])
    if name == "move":
        if a["from_seat"] == a["to_seat"]:
            raise CommandRefused(f"Seat {a['from_seat']} is both the seat to move from and the"
                                 " seat to move to.", rid)  # fmt: skip
        return MovePlayer(meta, a["from_seat"], a["to_seat"])
    if name == "set_level":
        # the ante's cap is the table's profile's: the daemon checks it (venue_commands)
        problem = check_level(a["small_blind"], a["big_blind"], a["ante"],
                              bool(a.get("big_blind_ante", False)), max_ante_bb=None)  # fmt: skip
        if problem is not None:
            raise CommandRefused(problem, rid)
        return SetLevel(
            meta,
            a["level"],
            a["small_blind"],
            a["big_blind"],
            a["ante"],
            bool(a.get("big_blind_ante", False)),
        )
    if name == "set_profile":
        return _set_profile(meta, a, rid)
    if name == "enrol_deck":
        cards: dict[str, str] = a["cards"]
        jokers: list[str] = a.get("jokers", [])
        if len(set(cards.values())) != len(cards):
            raise CommandRefused("invalid: args/cards: two cards share one tag UID", rid)
        both = sorted(set(cards.values()) & set(jokers))
        if both:
            raise CommandRefused(f"invalid: args/jokers: tag {both[0]} is also a card", rid)
        return EnrolDeck(meta, a["deck_id"], tuple(sorted(cards.items())), tuple(jokers))
    if name == "button_draw":
        return ButtonDraw(meta)
    if name == "hold_deal":
        return HoldDeal(meta, a["round"])
    if name == "release_deal":
        return ReleaseDeal(meta)
    if name == "ack_alert":
        return AckAlert(meta, a["alert_id"], a.get("by"))
    if name == "rebirth":
        return Rebirth(meta)
    if name == "replay":
        return Replay(meta, a["from_hand"])
    raise CommandRefused(f"invalid: unknown command {name!r}", rid)  # pragma: no cover


def _set_profile(meta: CommandMeta, a: dict[str, Any], rid: str | None) -> Command:
    """A packaged profile by ``profile``, or a house profile's TOML text as ``document``."""
    if "profile" in a and "document" in a:
        raise CommandRefused("invalid: args: profile and document together; give one", rid)
    if "profile" not in a and "document" not in a:
        raise CommandRefused("invalid: args: give profile (a packaged profile's name) or"
                             " document (a house profile's TOML text)", rid)  # fmt: skip
    if "profile" in a:
        return SetProfile(meta, a["profile"])
    doc: str = a["document"]
    size = len(doc.encode("utf-8"))
    if size > MAX_PROFILE_DOCUMENT_BYTES:
        raise CommandRefused(f"invalid: args/document: {size} bytes; a profile document is at"
                             f" most {MAX_PROFILE_DOCUMENT_BYTES} bytes of UTF-8", rid)  # fmt: skip
    return SetHouseProfile(meta, doc)


def command_name(cmd: Command) -> str:
    return _NAMES[type(cmd)]


_NAMES: dict[type, str] = {
    SeatPlayer: "seat",
    UnseatPlayer: "unseat",
    MovePlayer: "move",
    SetLevel: "set_level",
    SetProfile: "set_profile",
    SetHouseProfile: "set_profile",
    EnrolDeck: "enrol_deck",
    ButtonDraw: "button_draw",
    HoldDeal: "hold_deal",
    ReleaseDeal: "release_deal",
    AckAlert: "ack_alert",
    Rebirth: "rebirth",
    Replay: "replay",
}


class RequestIdStore(Protocol):
    """Where a guard keeps request ids durably (the daemon's table store,
    :class:`controller.daemon.table_store.TableStore`)."""

    def remember_command(self, request_id: str, seen_at: float, horizon: float) -> bool: ...

    def command_ids(self) -> dict[str, float]: ...


class CommandGuard:
    """Authorisation (optional HMAC key), freshness and replay protection.

    ``max_age`` seconds: older commands are stale; ``max_skew``: how far in the future a
    timestamp may be. Accepted request ids are remembered for ``max_age + max_skew`` (and at
    most ``memory`` of them in memory), which is enough since older ones are stale anyway.
    With a store (:meth:`persist`) each id is also committed durably before the command is
    executed, and the ids of the last ``max_age + max_skew`` seconds are loaded at start: a
    command re-sent after a restart (even kill -9) is still a replay. A command whose id
    cannot be stored (disk full) is refused: it could not be protected against a replay.
    """

    def __init__(
        self,
        *,
        key: bytes | None = None,
        max_age: float = 30.0,
        max_skew: float = 5.0,
        memory: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._key = key
        self.max_age = max_age
        self.max_skew = max_skew
        self._memory = memory
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._store: RequestIdStore | None = None

    def persist(self, store: RequestIdStore) -> None:
        """Keep request ids in ``store`` from now on; load the ones still in their window."""
        self._store = store
        horizon = self._clock() - (self.max_age + self.max_skew)
        for rid, seen_at in sorted(store.command_ids().items(), key=lambda kv: kv[1]):
            if seen_at >= horizon:
                self._seen[rid] = seen_at
                self._seen.move_to_end(rid)
        while len(self._seen) > self._memory:  # the store still refuses the older ones
            self._seen.popitem(last=False)

    @property
    def seen_count(self) -> int:
        return len(self._seen)

    def check(self, payload: bytes | str) -> Command:
        """Parse and check without remembering anything; raise CommandRefused."""
        cmd = parse_command(payload)
        rid = cmd.meta.request_id
        if self._key is not None:
            obj = json.loads(payload)
            given = obj.get("hmac")
            if not isinstance(given, str):
                raise CommandRefused("unauthorised: no hmac", rid)
            body = {k: v for k, v in obj.items() if k != "hmac"}
            want = hmac.new(self._key, canonical_bytes(body), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(given, want):
                raise CommandRefused("unauthorised: bad hmac", rid)
        now = self._clock()
        ts = cmd.meta.issued_at
        if not math.isfinite(ts) or ts < now - self.max_age:
            raise CommandRefused(f"stale: older than {self.max_age:g} s", rid)
        if ts > now + self.max_skew:
            raise CommandRefused(f"stale: timestamp {ts - now:.1f} s in the future", rid)
        self._forget(now)
        if rid in self._seen:
            raise CommandRefused("replayed: request_id already seen", rid)
        return cmd

    def admit(self, payload: bytes | str) -> Command:
        """:meth:`check`, then remember the request id so a replay is refused."""
        cmd = self.check(payload)
        rid = cmd.meta.request_id
        now = self._clock()
        if self._store is not None:
            try:
                fresh = self._store.remember_command(rid, now, now - (self.max_age + self.max_skew))
            except StoreError as exc:
                raise CommandRefused(f"store: request id not recorded ({exc})", rid) from None
            if not fresh:
                raise CommandRefused("replayed: request_id already seen", rid)
        self._seen[rid] = now
        while len(self._seen) > self._memory:
            self._seen.popitem(last=False)
        return cmd

    def _forget(self, now: float) -> None:
        horizon = now - (self.max_age + self.max_skew)
        while self._seen:
            rid, seen_at = next(iter(self._seen.items()))
            if seen_at >= horizon:
                break
            del self._seen[rid]
