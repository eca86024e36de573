"""No hole card of a live hand on any topic: a subscriber to ``#`` on a private mosquitto
records every message (in arrival order) while the simulated table (``controller.demo``:
the daemon in-process, the board on a pty, MockFactory GPIO, the venue logger) plays
generated hands. Card names may appear only in a ``board`` list (never one of that hand's
hole cards) and inside completed hand records on the hands topic, each after that hand's
``hand_completed`` event. The default suite plays a few hands; the 200-hand run is slow."""

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
from tests.brokers import plain_broker

CARD = re.compile(r"(?:10|[2-9TJQKA])[cdhs]")
BASE = "railguard/v1/t1"


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


async def _play(n: int, port: int, workdir: Path) -> tuple[list[tuple[str, Any]], list[Any]]:
    prof = get_profile("tda-2024")
    hands = generated_hands(random.Random(11), n, prof)
    seen: list[tuple[str, Any]] = []
    up = asyncio.Event()
    spy = asyncio.create_task(_collect(port, seen, up))
    try:
        await asyncio.wait_for(up.wait(), 5)
        view = View()
        view.line = lambda *a, **k: None  # type: ignore[method-assign]
        outcome, counts = await run_table(
            hands, host="127.0.0.1", port=port, profile="tda-2024", seed=11, error_rate=0.2,
            workdir=workdir, view=view,
        )  # fmt: skip
        assert outcome.hands == n and not outcome.mismatches and not outcome.missing
        assert counts["mqtt"] >= n
        await asyncio.sleep(0.5)
    finally:
        spy.cancel()
        with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
            await spy
    return seen, hands


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
    assert records >= len(hands)
    kinds = {b.get("kind") for t, b in seen if t == f"{BASE}/events"}
    assert {"hand_started", "action", "street", "hand_completed"} <= kinds
    return len(seen)


def _run(n: int, tmp: Path) -> None:
    with plain_broker() as broker:
        t0 = time.monotonic()
        seen, hands = asyncio.run(asyncio.wait_for(_play(n, broker.port, tmp), 20 + n * 6))
        count = check_no_live_hole_cards(seen, hands)
        print(f"{n} hands, {count} messages, {time.monotonic() - t0:.1f} s")


@pytest.mark.timeout(120)
def test_no_hole_card_on_any_topic_few_hands(tmp_path: Path) -> None:
    _run(8, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_no_hole_card_on_any_topic_200_hands(tmp_path: Path) -> None:
    _run(200, tmp_path)


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


class _HH:
    player_count = 1

    def hole_cards(self, i: int) -> tuple[str, ...]:
        return ("As", "Kd")
