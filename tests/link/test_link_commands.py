"""Command parsing and the freshness/replay/HMAC guard, including 10,000 generated hostile
commands (hypothesis): each is refused with a reason and none changes state."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.daemon.table_store import TableStore
from controller.link import (
    BrokerConfig,
    CommandRefused,
    CommandResult,
    EnrolDeck,
    SeatPlayer,
    SetLevel,
    VenueLink,
    parse_command,
)
from controller.link.commands import Command, CommandGuard
from tests.link import samples

pytestmark = pytest.mark.timeout(90)
KEY = b"venue-secret"
RANKS, SUITS = "23456789TJQKA", "cdhs"
DECK = {r + s: f"04A1{i:04X}C2" for i, (r, s) in enumerate((r, s) for r in RANKS for s in SUITS)}

VALID: dict[str, dict[str, Any]] = {
    "seat": {"seat": 3, "player_id": "p3", "name": "Dwan", "stack": 50000},
    "unseat": {"seat": 3},
    "move": {"from_seat": 3, "to_seat": 5},
    "set_level": {
        "level": 7,
        "small_blind": 400,
        "big_blind": 800,
        "ante": 800,
        "big_blind_ante": True,
    },
    "set_profile": {"profile": "wsop"},
    "enrol_deck": {"deck_id": "red-1", "cards": DECK},
    "ack_alert": {"alert_id": "a1", "by": "floor"},
    "hold_deal": {"round": 3},
    "release_deal": {},
    "rebirth": {},
    "replay": {"from_hand": 12},
}


def dumps(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def test_every_valid_command_parses_to_a_frozen_dataclass() -> None:
    for name, args in VALID.items():
        cmd = parse_command(dumps(samples.command(name, args)))
        with pytest.raises(AttributeError):
            cmd.meta = None  # type: ignore[misc]
    seat = parse_command(dumps(samples.command("seat", VALID["seat"])))
    assert isinstance(seat, SeatPlayer) and seat.stack == 50000 and seat.meta.issuer == "td-desk"
    lvl = parse_command(dumps(samples.command("set_level", VALID["set_level"])))
    assert isinstance(lvl, SetLevel) and lvl.big_blind_ante is True
    deck = parse_command(dumps(samples.command("enrol_deck", VALID["enrol_deck"])))
    assert isinstance(deck, EnrolDeck) and len(deck.cards) == 52


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"\xff\xfe", "malformed: not UTF-8"),
        (b'{"request_id": "a", "request_id": "b"}', "duplicate key"),
        (b'{"ts": NaN}', "non-finite"),
        (b"[" * 5000 + b"]" * 5000, "malformed"),
        (b" " * 20000, "larger than"),
    ],
)
def test_malformed_payloads(payload: bytes, reason: str) -> None:
    with pytest.raises(CommandRefused, match=reason):
        parse_command(payload)


def test_cross_field_checks() -> None:
    cases = [
        ("move", {"from_seat": 2, "to_seat": 2}, "both the seat to move from and the seat to"),
        ("set_level", {"level": 1, "small_blind": 500, "big_blind": 100, "ante": 0}, "larger"),
        ("enrol_deck", {"deck_id": "d", "cards": {**DECK, "As": DECK["Ks"]}}, "share"),
        ("seat", {"seat": 11, "player_id": "p", "name": "x", "stack": 1}, "seat"),
        ("seat", {"seat": True, "player_id": "p", "name": "x", "stack": 1}, "seat"),
        ("unseat", {"seat": 1, "extra": 1}, "extra"),
        ("fold", {}, "command"),
    ]
    for name, args, why in cases:
        with pytest.raises(CommandRefused, match=why):
            parse_command(dumps(samples.command(name, args)))


def test_guard_stale_future_replay_and_hmac() -> None:
    now = [1_800_000_000.0]
    guard = CommandGuard(key=KEY, max_age=30, max_skew=5, clock=lambda: now[0])
    ok = samples.command("unseat", {"seat": 1}, key=KEY, ts=now[0] - 1)
    assert guard.admit(dumps(ok)).meta.request_id == ok["request_id"]
    with pytest.raises(CommandRefused, match="replayed"):
        guard.admit(dumps(ok))
    with pytest.raises(CommandRefused, match="stale: older"):
        guard.admit(dumps(samples.command("unseat", {"seat": 1}, key=KEY, ts=now[0] - 31)))
    with pytest.raises(CommandRefused, match="future"):
        guard.admit(dumps(samples.command("unseat", {"seat": 1}, key=KEY, ts=now[0] + 60)))
    with pytest.raises(CommandRefused, match="no hmac"):
        guard.admit(dumps(samples.command("unseat", {"seat": 1}, ts=now[0])))
    forged = samples.command("unseat", {"seat": 1}, key=b"other", ts=now[0])
    with pytest.raises(CommandRefused, match="bad hmac"):
        guard.admit(dumps(forged))
    tampered = samples.command("unseat", {"seat": 1}, key=KEY, ts=now[0])
    tampered["args"]["seat"] = 2
    with pytest.raises(CommandRefused, match="bad hmac"):
        guard.admit(dumps(tampered))
    assert guard.seen_count == 1
    now[0] += 100  # the remembered id expires with the age window
    guard.check(dumps(samples.command("unseat", {"seat": 1}, key=KEY, ts=now[0])))
    assert guard.seen_count == 0


# -- 10,000 hostile commands against the real handler path ------------------------------

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=6,
)


REQUIRED = {
    "seat": ["seat", "player_id", "name", "stack"],
    "unseat": ["seat"],
    "move": ["from_seat", "to_seat"],
    "set_level": ["level", "small_blind", "big_blind", "ante"],
    "set_profile": ["profile"],
    "enrol_deck": ["deck_id", "cards"],
    "ack_alert": ["alert_id"],
    "hold_deal": ["round"],
    "release_deal": [],
    "rebirth": [],
    "replay": ["from_hand"],
}
NON_INT = st.one_of(
    st.text(max_size=8),
    st.none(),
    st.booleans(),
    st.lists(json_leaf, max_size=2),
    st.floats(allow_nan=False, allow_infinity=False),
)


def wrong_type(value: Any) -> st.SearchStrategy[Any]:
    """Values that can never be valid where ``value`` is valid."""
    if isinstance(value, bool):
        return st.one_of(st.integers(), st.text(max_size=8), st.none())
    if isinstance(value, int):
        return st.one_of(NON_INT, st.integers(max_value=-1))
    if isinstance(value, float):
        return st.one_of(st.text(max_size=8), st.none(), st.booleans(), st.lists(json_leaf))
    if isinstance(value, str):
        return st.one_of(
            st.none(),
            st.integers(),
            st.booleans(),
            st.lists(json_leaf),
            st.text(min_size=65, max_size=80),
            st.just(""),
        )
    return st.one_of(st.none(), st.integers(), st.text(max_size=8), st.lists(json_leaf))


#: payload -> the time it was made: the hostile run's guard admits each mutated command at
#: the time it was made (``harness``), so its ts margins (``old``: 31 s for an age of 30,
#: ``future``: 6 s for a skew of 5) are exact, whatever the time between the draw and the
#: admission on a loaded machine (a batch of ten is drawn before the first is admitted)
MADE_AT: dict[bytes, float] = {}


@st.composite
def mutated_command(draw: st.DrawFn) -> bytes:
    """A valid, signed, fresh command with one hostile change."""
    made = time.time()
    payload = draw(_mutated(made))
    MADE_AT[payload] = made
    return payload


@st.composite
def _mutated(draw: st.DrawFn, made: float) -> bytes:
    name = draw(st.sampled_from(sorted(VALID)))
    cmd = samples.command(name, json.loads(json.dumps(VALID[name])), key=KEY, ts=made)
    how = draw(
        st.sampled_from(
            [
                "drop",
                "retype",
                "extra",
                "arg",
                "argdrop",
                "sig",
                "old",
                "future",
                "name",
                "unsigned",
            ]
        )
    )
    if how == "drop":
        del cmd[draw(st.sampled_from(["request_id", "ts", "command", "args"]))]
        return dumps(cmd)
    if how == "retype":
        key = draw(st.sampled_from(["request_id", "ts", "command", "args", "issuer"]))
        cmd[key] = draw(wrong_type(cmd[key]))
        return dumps(samples_sign(cmd))
    if how == "extra":
        extra = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in cmd))
        cmd[extra] = draw(json_value)
        return dumps(samples_sign(cmd))
    if how in ("arg", "argdrop"):
        args = cmd["args"]
        if how == "argdrop" and REQUIRED[name]:
            del args[draw(st.sampled_from(REQUIRED[name]))]
        else:
            key = draw(st.sampled_from([*sorted(args), "bogus"]))
            args[key] = draw(wrong_type(args[key]) if key in args else json_value)
        return dumps(samples_sign(cmd))
    if how == "sig":
        cmd["hmac"] = draw(st.from_regex(r"\A[0-9a-f]{64}\Z"))
        return dumps(cmd)
    if how == "old":
        cmd["ts"] = made - draw(st.floats(31, 1e9))
        return dumps(samples_sign(cmd))
    if how == "future":
        cmd["ts"] = made + draw(st.floats(6, 1e12))
        return dumps(samples_sign(cmd))
    if how == "name":
        cmd["command"] = draw(st.text(max_size=12).filter(lambda s: s not in VALID))
        return dumps(samples_sign(cmd))
    del cmd["hmac"]
    return dumps(cmd)


def samples_sign(cmd: dict[str, Any]) -> dict[str, Any]:
    from controller.link.commands import sign

    return sign(cmd, KEY)


hostile = st.one_of(
    st.binary(max_size=200),
    json_value.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(
        st.sampled_from(["request_id", "ts", "command", "args", "hmac", "issuer"]),
        json_value,
        max_size=6,
    ).map(dumps),
    mutated_command(),
    mutated_command(),
)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = Path(tmp_path_factory.mktemp("hostile")) / "table.db"
    store = TableStore(path)
    store.put_seating([(3, "p3", "Dwan", 1000)])
    calls: list[Command] = []

    async def on_command(cmd: Command) -> CommandResult:  # changes the store when called
        calls.append(cmd)
        if isinstance(cmd, SeatPlayer):
            store.put_seating([(cmd.seat, cmd.player_id, cmd.name, cmd.stack)])
        return CommandResult.success()

    loop = asyncio.new_event_loop()
    broker = BrokerConfig(host="127.0.0.1", port=9, tls=False, allow_plaintext=True)
    link = VenueLink(broker, "v1", "t1", path, on_command, command_key=KEY)
    now = [time.time()]
    link.guard = CommandGuard(key=KEY, max_age=link.guard.max_age, max_skew=link.guard.max_skew,
                              clock=lambda: now[0])  # fmt: skip
    return {
        "now": now,
        "store": store,
        "calls": calls,
        "loop": loop,
        "link": link,
        "before": store.snapshot(),
        "count": [0],
    }


@settings(max_examples=1_000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(hostile, min_size=10, max_size=10))
def test_hostile_commands_are_refused_and_change_nothing(
    harness: dict[str, Any], batch: list[bytes]
) -> None:
    """1,000 examples of 10 payloads: 10,000 hostile commands through the real handler."""
    link: VenueLink = harness["link"]
    for payload in batch:
        harness["now"][0] = MADE_AT.get(payload, time.time())  # admitted when it was made
        resp = harness["loop"].run_until_complete(link.handle_command(payload))
        harness["count"][0] += 1
        assert resp["ok"] is False, payload
        assert resp["reason"]
        assert harness["calls"] == []
        assert link.guard.seen_count == 0
    if harness["count"][0] % 1000 == 0:
        assert harness["store"].snapshot() == harness["before"]


def test_hostile_run_counted(harness: dict[str, Any]) -> None:
    # Runs after the property test in file order: all examples went through the handler.
    assert harness["count"][0] >= 10_000
    assert harness["store"].snapshot() == harness["before"]
    assert harness["link"].stats.commands_refused == harness["count"][0]
    assert harness["link"].stats.commands_ok == 0
