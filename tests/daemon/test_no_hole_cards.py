"""No hole card of a live hand on any topic: a subscriber to ``#`` on a private mosquitto
records every message (in arrival order) while the simulated table (``controller.demo``:
the daemon in-process, the board on a pty, MockFactory GPIO, the venue logger) plays
generated hands, each with one of hwsim.inject's dealer errors in turn (duplicate and foreign
cards included). Card names may appear only in a ``board`` list (never one of that hand's
hole cards, nor in any free text) and inside completed hand records on the hands topic, each
after that hand's ``hand_completed`` event; no card's tag UID (deck A, its twin deck B, a
foreign card's) appears on any topic but the venue's own commands. The default suite plays
one hand per error kind; the 300-hand run is slow."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from controller.demo.hands import generated_hands
from controller.demo.table import run_table
from controller.demo.view import View
from controller.rules.profile import get_profile
from hwsim.inject import KINDS, Injection
from tests.brokers import plain_broker

CARD = re.compile(r"(?:10|[2-9TJQKA])[cdhs]")
CARD_WORD = re.compile(r"\b(?:10|[2-9TJQKA])[cdhs]\b")
#: the simulated tags of cards (controller.demo.table.tag_uid: deck A, deck B, foreign), as a
#: hex word (a random request or alert id may contain the same digits: not a tag)
TAG = re.compile(r"\b(?:C0A0|D0A0|F00F)[0-9A-F]{4}\b", re.IGNORECASE)
BASE = "railguard/v1/t1"
#: every dealer error once, in a fixed order (the suite's sample: one hand each)
ALL_KINDS = tuple(sorted(KINDS))


def strings(obj: Any) -> list[str]:
    """Every key and string value, except the random ids (request_id, alert_id)."""
    if isinstance(obj, dict):
        return [x for k, v in obj.items() if k not in ("request_id", "alert_id")
                for x in [k, *strings(v)]]  # fmt: skip
    if isinstance(obj, list):
        return [x for v in obj for x in strings(v)]
    return [obj] if isinstance(obj, str) else []


def card_strings(obj: Any, under_board: bool = False) -> list[tuple[str, bool]]:
    """Every card-like string in ``obj`` and whether it sits in a ``board`` list."""
    if isinstance(obj, dict):
        return [x for k, v in obj.items() for x in card_strings(v, k == "board")]
    if isinstance(obj, list):
        return [x for v in obj for x in card_strings(v, under_board)]
    if isinstance(obj, str) and CARD.fullmatch(obj):
        return [(obj, under_board)]
    return []


async def _collect(port: int, out: list[tuple[str, Any]], up: asyncio.Event) -> None:
    async with aiomqtt.Client("127.0.0.1", port, identifier="hole-card-spy") as c:
        await c.subscribe("#", qos=1)
        up.set()
        async for m in c.messages:
            raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode(errors="replace")
            out.append((m.topic.value, body))


def fits(hand: Any, kind: str) -> bool:
    """The hand has a place for the error (a premature turn needs a flop bet ...)."""
    inj = Injection(hand.plan, kind)
    for _ in inj.events():
        pass
    return inj.applied


def assign(hands: list[Any], kinds: tuple[str, ...]) -> tuple[str, ...]:
    """Hand i's error: ``kinds`` in turn, each moved to the next hand that has a place for
    it ("" where none is left)."""
    out = [""] * len(hands)
    pending = list(kinds) * (len(hands) // max(1, len(kinds)) + 1)
    for i, hand in enumerate(hands):
        for j, kind in enumerate(pending):
            if not kind or fits(hand, kind):
                out[i] = pending.pop(j)
                break
    return tuple(out)


async def _play(
    n: int, port: int, workdir: Path, kinds: tuple[str, ...]
) -> tuple[list[tuple[str, Any]], list[Any], tuple[str, ...]]:
    prof = get_profile("tda-2024")
    hands = generated_hands(random.Random(11), n, prof)
    kinds = assign(hands, kinds)
    seen: list[tuple[str, Any]] = []
    up = asyncio.Event()
    spy = asyncio.create_task(_collect(port, seen, up))
    try:
        await asyncio.wait_for(up.wait(), 5)
        view = View()
        view.line = lambda *a, **k: None  # type: ignore[method-assign]
        outcome, counts = await run_table(
            hands, host="127.0.0.1", port=port, profile="tda-2024", seed=11, error_rate=0.2,
            workdir=workdir, view=view, kinds=kinds,
        )  # fmt: skip
        assert outcome.hands == n and not outcome.mismatches and not outcome.missing
        assert counts["mqtt"] >= n
        assert outcome.errors_injected >= len({k for k in kinds if k})
        await asyncio.sleep(0.5)
    finally:
        spy.cancel()
        with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
            await spy
    return seen, hands, kinds


def check_no_live_hole_cards(seen: list[tuple[str, Any]], hands: list[Any]) -> int:
    holes: dict[int, set[str]] = {}
    for k, h in enumerate(hands, start=1):
        holes[k] = {str(c) for i in range(h.hh.player_count) for c in (h.hh.hole_cards(i) or ())
                    if c}  # fmt: skip
    completed: dict[int, int] = {}
    records = 0
    for idx, (topic, body) in enumerate(seen):
        if topic == f"{BASE}/events" and body.get("kind") == "hand_completed":
            completed.setdefault(body["hand_no"], idx)
        if topic == f"{BASE}/hands":
            records += 1
            hand_no = body["hand_no"]
            assert hand_no in completed, f"record of hand {hand_no} before it ended"
            assert completed[hand_no] < idx
            continue
        if topic == f"{BASE}/cmd":
            continue  # the venue's own deck enrolment (card -> tag), not table output
        hand_no = body.get("hand_no") if isinstance(body, dict) else None
        for card, in_board in card_strings(body):
            assert in_board, f"card {card} outside a board on {topic}: {body}"
            if hand_no in holes:
                assert card not in holes[hand_no], f"hole card {card} of hand {hand_no}: {body}"
        for text in strings(body):
            assert not TAG.search(text), f"a card's tag UID on {topic}: {body}"
            for word in CARD_WORD.findall(text) if not CARD.fullmatch(text) else ():
                assert word not in holes.get(hand_no or 0, ()), (
                    f"hole card {word} of hand {hand_no} in text on {topic}: {body}"
                )
    assert records >= len(hands)
    kinds = {b.get("kind") for t, b in seen if t == f"{BASE}/events"}
    assert {"hand_started", "action", "street", "hand_completed"} <= kinds
    return len(seen)


def _run(n: int, tmp: Path, kinds: tuple[str, ...]) -> None:
    with plain_broker() as broker:
        t0 = time.monotonic()
        play = _play(n, broker.port, tmp, kinds)
        seen, hands, kinds = asyncio.run(asyncio.wait_for(play, 20 + n * 6))
        count = check_no_live_hole_cards(seen, hands)
        codes = {b.get("code") for t, b in seen if t == f"{BASE}/alerts"}
        missing = {KINDS[k][0].value.upper() for k in kinds if k} - codes
        assert not missing, f"injected errors raised no alert: {sorted(missing)}"
        assert len({k for k in kinds if k}) >= min(n, len(ALL_KINDS))
        print(f"{n} hands, {count} messages, {time.monotonic() - t0:.1f} s")


@pytest.mark.timeout(150)
def test_no_hole_card_on_any_topic_every_error_kind(tmp_path: Path) -> None:
    _run(len(ALL_KINDS), tmp_path, ALL_KINDS)


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_no_hole_card_on_any_topic_300_hands(tmp_path: Path) -> None:
    _run(300, tmp_path, (*ALL_KINDS, "", ""))


def test_the_checker_finds_a_leak() -> None:
    hands = [type("H", (), {"hh": _HH()})()]
    ok = [(f"{BASE}/events", {"kind": "hand_completed", "hand_no": 1, "data": {}}),
          (f"{BASE}/hands", {"hand_no": 1, "ohh": {"cards": ["As", "Kd"]}})]  # fmt: skip
    with pytest.raises(AssertionError, match="outside a board"):
        check_no_live_hole_cards([(f"{BASE}/state", {"hand_no": 1, "x": "As"}), *ok], hands)
    with pytest.raises(AssertionError, match="hole card As"):
        check_no_live_hole_cards([(f"{BASE}/state", {"hand_no": 1, "board": ["As"]}), *ok],
                                 hands)  # fmt: skip
    with pytest.raises(AssertionError, match="before it ended"):
        check_no_live_hole_cards(list(reversed(ok)), hands)
    with pytest.raises(AssertionError, match="tag UID"):
        check_no_live_hole_cards([(f"{BASE}/alerts", {"hand_no": 1,
                                   "remedy": "Two cards (tags c0a0030e and D0A0030E)"}), *ok],
                                 hands)  # fmt: skip
    fine = [(f"{BASE}/cmd/response", {"request_id": "2dbd9c0a0649463b", "ok": True}),
            (f"{BASE}/alerts", {"hand_no": 1, "alert_id": "c0a00101", "remedy": "x"})]  # fmt: skip
    fine += [(f"{BASE}/events", {"kind": k, "hand_no": 1, "data": {}})
             for k in ("hand_started", "action", "street")]  # fmt: skip
    check_no_live_hole_cards([*fine, *ok], hands)
    with pytest.raises(AssertionError, match="hole card Kd of hand 1 in text"):
        check_no_live_hole_cards([(f"{BASE}/events", {"hand_no": 1, "kind": "instruction",
                                   "data": {"text": "Seat 2: Kd replaces 3c"}}), *ok],
                                 hands)  # fmt: skip


class _HH:
    player_count = 1

    def hole_cards(self, i: int) -> tuple[str, ...]:
        return ("As", "Kd")
