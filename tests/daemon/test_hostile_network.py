"""The standing test of a hostile venue network (issue 11): every venue command, in hostile
variants, sent to the real daemon (a private mosquitto, the reader board on a pty,
MockFactory GPIO) in the middle of a hand. Each is refused with a reason and leaves the
rules core's state, the table store, the deck registry, the level, the names and the open
alerts as they were. The suite sends a fixed set (every command x every variant, a few
seconds); ``-m slow`` adds a hypothesis run of thousands of generated variants."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.demo.table import card_uid
from controller.link.commands import MAX_COMMAND_BYTES
from controller.rules.cards import STANDARD_DECK
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import Rig, running

#: the args of a valid command of each kind (valid by the schema; "now" is mid-hand)
VALID: dict[str, dict[str, Any]] = {
    "seat": {"seat": 5, "player_id": "p5", "name": "Eve", "stack": 5000},
    "unseat": {"seat": 2},
    "move": {"from_seat": 1, "to_seat": 5},
    "set_level": {"level": 2, "small_blind": 100, "big_blind": 200, "ante": 0},
    "set_profile": {"profile": "tda-2024"},
    "enrol_deck": {
        "deck_id": "A",
        "cards": {str(c): card_uid(c).hex().upper() for c in STANDARD_DECK},
    },
    "button_draw": {},
    "ack_alert": {"alert_id": "a1"},
    "rebirth": {},
    "replay": {"from_hand": 1},
}
#: commands refused in the middle of a hand (args that are valid, but not now)
MID_HAND: list[tuple[str, dict[str, Any]]] = [
    ("seat", {"seat": 2, "player_id": "p9", "name": "Zed", "stack": 100}),  # taken
    ("seat", {"seat": 5, "player_id": "p2", "name": "Bob", "stack": 100}),  # sits in 2
    ("seat", {"seat": 2, "player_id": "p2", "name": "Bob", "stack": 100}),  # in the hand
    ("unseat", {"seat": 2}),  # in the hand
    ("unseat", {"seat": 6}),  # empty
    ("move", {"from_seat": 1, "to_seat": 5}),  # players move between hands
    ("move", {"from_seat": 6, "to_seat": 5}),  # empty
    ("enrol_deck", VALID["enrol_deck"]),  # the deck in play
    ("button_draw", {}),
    ("ack_alert", {"alert_id": "no-such-alert"}),
    ("set_profile", {"profile": "no-such-profile"}),
    ("replay", {"from_hand": 999}),
]
#: a wrong JSON type for each argument type (the slow run draws any JSON value)
WRONG: dict[type, list[Any]] = {
    int: ["5", 5.5, 5.0, True, None, [5], {"n": 5}],
    str: [5, True, None, ["x"], {"x": 1}],
    dict: [[], "x", 1, None],
}


def body(cmd: str, args: dict[str, Any], **top: Any) -> dict[str, Any]:
    out = {"request_id": uuid.uuid4().hex[:16], "ts": time.time(), "command": cmd,
           "args": args}  # fmt: skip
    out.update(top)
    return out


def dumps(b: dict[str, Any]) -> bytes:
    return json.dumps(b).encode()


def answer_rid(payload: bytes) -> str | None:
    """The request id the table's answer carries: the payload's, when it is readable JSON
    (at most MAX_COMMAND_BYTES, UTF-8, no NaN, no duplicate key) with a printable id of
    1-64 characters."""

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({k for k, _ in pairs}) < len(pairs):
            raise ValueError("duplicate key")
        return dict(pairs)

    if len(payload) > MAX_COMMAND_BYTES:
        return None
    try:
        text = payload.decode("utf-8")
        obj = json.loads(text, parse_constant=lambda c: 1 / 0, object_pairs_hook=unique)
    except (ValueError, ZeroDivisionError, RecursionError):
        return None
    rid = obj.get("request_id") if isinstance(obj, dict) else None
    return rid if isinstance(rid, str) and 0 < len(rid) <= 64 and rid.isprintable() else None


def with_args(cmd: str, **changes: Any) -> bytes:
    return dumps(body(cmd, {**VALID[cmd], **changes}))


def hostile(replayed_rid: str) -> Iterator[tuple[str, bytes]]:
    """(what, payload) of every fixed variant."""
    yield "not JSON", b"{not json"
    yield "truncated", dumps(body("seat", VALID["seat"]))[:-7]
    yield "not UTF-8", b'{"request_id": "\xff\xfe"}'
    yield "a JSON list", b"[1, 2, 3]"
    yield "NaN", with_args("set_level").replace(b'"ante": 0', b'"ante": NaN')
    yield "duplicate key", with_args("unseat").replace(b'"seat": 2', b'"seat": 2, "seat": 3')
    yield "too deep", b"[" * 5000 + b"]" * 5000
    for cmd, args in VALID.items():
        b = body(cmd, args)
        yield f"{cmd}: oversized", dumps({**b, "issuer": "x" * MAX_COMMAND_BYTES})
        yield f"{cmd}: unknown field", dumps({**b, "sudo": True})
        yield f"{cmd}: unknown arg", dumps({**b, "args": {**args, "sudo": True}})
        yield f"{cmd}: stale", dumps({**b, "ts": time.time() - 3600})
        yield f"{cmd}: future", dumps({**b, "ts": time.time() + 3600})
        yield f"{cmd}: ts not a number", dumps({**b, "ts": "now"})
        yield f"{cmd}: replayed", dumps({**b, "request_id": replayed_rid})
        yield f"{cmd}: bad request id", dumps({**b, "request_id": "../../x"})
        yield f"{cmd}: args not an object", dumps({**b, "args": [args]})
        yield f"{cmd}: hmac without a key", dumps({**b, "hmac": "zz"})
        for key, value in args.items():
            dropped = {k: v for k, v in args.items() if k != key}
            yield f"{cmd}: no {key}", dumps({**b, "args": dropped})
            for wrong in WRONG[type(value)]:
                yield f"{cmd}: {key}={wrong!r}", dumps(body(cmd, {**args, key: wrong}))
    yield "unknown command", dumps(body("shutdown", {}))
    yield "seat 0", with_args("seat", seat=0)
    yield "seat 11", with_args("seat", seat=11)
    yield "negative stack", with_args("seat", stack=-1)
    yield "stack 10**13", with_args("seat", stack=10**13)
    yield "empty name", with_args("seat", name="")
    yield "small blind > big", with_args("set_level", small_blind=300)
    yield "move to itself", with_args("move", to_seat=1)
    joker = card_uid(STANDARD_DECK[0]).hex().upper()
    yield "jokers also cards", with_args("enrol_deck", jokers=[joker])
    yield "lone surrogate", with_args("seat", name="X").replace(b'"X"', b'"\\udc00"')
    for cmd, args in MID_HAND:
        yield f"mid-hand {cmd} {args if cmd != 'enrol_deck' else 'A'}", dumps(body(cmd, args))


def table(rig: Rig) -> dict[str, Any]:
    """Everything a refused command must leave as it was."""
    d = rig.daemon
    return {
        "core": d.core.snapshot(),
        "store": d.store.snapshot(),
        "decks": {k: sorted(v.cards.items()) for k, v in d.registry.decks.items()},
        "level": (d.core.level, d.core.pending_level),  # their numbers included
        "alerts": list(d.open_alerts),
        "profile": (d.core.profile.name, d.core.pending_profile),
    }


async def answered(rig: Rig, what: str, payload: bytes) -> dict[str, Any]:
    """Send one payload; its answer, which must be a refusal with a reason."""
    try:
        resp = await asyncio.wait_for(rig.venue.send(payload, answer_rid(payload), what), 5)
    except TimeoutError:
        raise AssertionError(f"{what}: no answer; got {rig.venue.responses}") from None
    assert resp["ok"] is False, (what, resp)
    assert isinstance(resp.get("reason"), str) and resp["reason"], (what, resp)
    return resp


async def refused(rig: Rig, what: str, payload: bytes) -> None:
    before = table(rig)
    await answered(rig, what, payload)
    # the answer comes after the core handled whatever the command gave it
    assert table(rig) == before, what


async def refused_all(rig: Rig, cases: list[tuple[str, bytes]], batch: int = 24) -> None:
    """:func:`refused` for each case, sent in batches of distinct request ids (one MQTT
    round trip per batch; the state is compared before and after each batch)."""
    i = 0
    while i < len(cases):
        group: list[tuple[str, bytes]] = []
        rids: set[str | None] = set()
        while i < len(cases) and len(group) < batch and answer_rid(cases[i][1]) not in rids:
            rids.add(answer_rid(cases[i][1]))
            group.append(cases[i])
            i += 1
        before = table(rig)
        await asyncio.gather(*(answered(rig, w, p) for w, p in group))
        assert table(rig) == before, [w for w, _ in group]


async def mid_hand(rig: Rig) -> str:
    """A hand to the first action; returns the request id of an accepted command."""
    await rig.setup()
    await rig.to_first_action()
    b = body("rebirth", {})
    assert (await rig.venue.send(dumps(b), b["request_id"]))["ok"] is True
    return str(b["request_id"])


@pytest.mark.timeout(120)
def test_every_command_hostile_variants_change_nothing(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_fixed(tmp_path, broker.port), 100))


async def _fixed(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        rid = await mid_hand(rig)
        cases = list(hostile(rid))
        await refused_all(rig, cases)
        kinds = {what.split(":")[0] for what, _ in cases}
        assert len(cases) > 150 and set(VALID) <= kinds
        # and the table still plays: the button acts
        assert rig.daemon.core.snapshot().to_act == 1


# ---------------------------------------------------------------- generated (slow)

_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)  # fmt: skip


#: properties a command may have besides VALID's (a generated extra must not be one)
KNOWN_ARGS = {"set_level": {"big_blind_ante"}, "ack_alert": {"by"}, "enrol_deck": {"jokers"}}
KNOWN_TOP = {"request_id", "ts", "command", "args", "issuer", "hmac"}


@st.composite
def generated(draw: st.DrawFn) -> tuple[str, bytes]:
    """A command of any kind with one hostile change."""
    cmd = draw(st.sampled_from(sorted(VALID)))
    args = dict(VALID[cmd])
    b = body(cmd, args)
    how = draw(st.sampled_from(["wrong", "drop", "extra", "top", "stale", "future", "bytes",
                                "mid-hand"]))  # fmt: skip
    if how == "wrong" and args:
        key = draw(st.sampled_from(sorted(args)))
        kind = type(args[key])
        b["args"] = {**args, key: draw(_json.filter(lambda v: type(v) is not kind))}
    elif how in {"drop", "wrong"}:
        b.pop(draw(st.sampled_from(["request_id", "ts", "command", "args"])))
    elif how == "extra":
        known = set(args) | KNOWN_ARGS.get(cmd, set())
        key = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in known))
        b["args"] = {**args, key: draw(_json)}
    elif how == "top":
        key = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in KNOWN_TOP))
        b[key] = draw(_json)
    elif how == "stale":
        b["ts"] = time.time() - draw(st.floats(60, 1e9))
    elif how == "future":
        b["ts"] = time.time() + draw(st.floats(60, 1e9))
    elif how == "bytes":
        return how, draw(st.binary(max_size=200))
    else:
        cmd, args = draw(st.sampled_from(MID_HAND))
        b = body(cmd, args)
    return how, dumps(b)


@pytest.fixture(scope="module")
def slow_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Rig]]:
    tmp = tmp_path_factory.mktemp("hostile")
    with plain_broker() as broker:
        loop = asyncio.new_event_loop()
        cm = running(tmp, broker.port)
        rig = loop.run_until_complete(cm.__aenter__())
        loop.run_until_complete(mid_hand(rig))
        try:
            yield loop, rig
        finally:
            loop.run_until_complete(cm.__aexit__(None, None, None))
            loop.close()


@pytest.mark.slow
@pytest.mark.timeout(1800)
@settings(max_examples=3000, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(case=generated())
def test_generated_hostile_commands_change_nothing(
    slow_rig: tuple[Any, Rig], case: tuple[str, bytes]
) -> None:
    loop, rig = slow_rig
    how, payload = case
    loop.run_until_complete(refused(rig, how, payload))
