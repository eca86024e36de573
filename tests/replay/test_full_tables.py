"""Nine- and ten-handed hands through the whole system: the simulated table of ten seats
(the board in-process for the system replay, on a pty for the demo's table), the daemon,
MQTT and the venue's records. The expected finishing stacks are pokerkit's, not the
rules core's: the hand files carry no outcome."""

from __future__ import annotations

import asyncio
import io
import shutil
from pathlib import Path

import pytest

from controller.demo.hands import _demo_hand
from controller.demo.table import run_table
from controller.demo.view import View
from controller.replay_system import system_replay
from controller.rules.profile import get_profile
from hwsim.broker import plain_broker
from hwsim.phh import parse_phh

pokerkit = pytest.importorskip("pokerkit")
pytestmark = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)

#: hole cards by seat; the last seat holds a set on the flop 2c 8d 9h and wins
CARDS = ["AsKs", "7h7d", "QcJc", "2d3d", "9s8s", "TdTc", "Ah5h", "KdQd", "9c9d", "8c8h"]


def full_table_hand(n: int) -> str:
    """A PHH hand of ``n`` players: seat 3 raises, seat 7 and the last seat call, the rest
    fold; seat 7 folds the flop; seats 3 and ``n`` go to showdown."""
    hole = [*CARDS[: n - 1], CARDS[8] if n == 9 else CARDS[9]]
    acts = [f"d dh p{i + 1} {hole[i]}" for i in range(n)]
    for i in range(3, n + 1):
        acts.append("p3 cbr 300" if i == 3 else f"p{i} cc" if i in (7, n) else f"p{i} f")
    acts += ["p1 f", "p2 f", "d db 2c8d9h", "p3 cc", "p7 cc", f"p{n} cbr 400", "p3 cc",
             "p7 f", "d db Jh", "p3 cc", f"p{n} cc", "d db 3s", "p3 cc", f"p{n} cc",
             f"p3 sm {hole[2]}", f"p{n} sm {hole[n - 1]}"]  # fmt: skip
    return "\n".join([
        "variant = 'NT'", "ante_trimming_status = true", f"antes = {[0] * n}",
        f"blinds_or_straddles = {[50, 100] + [0] * (n - 2)}", "min_bet = 100",
        f"starting_stacks = {[10000] * n}", f"actions = {acts!r}", "hand = 1",
        f"players = {[f'Player {i + 1}' for i in range(n)]!r}",
    ]) + "\n"  # fmt: skip


def pokerkit_stacks(text: str) -> list[int]:
    states = list(pokerkit.HandHistory.load(io.BytesIO(text.encode())))
    return [int(s) for s in states[-1].stacks]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("players", [9, 10])
def test_a_full_table_hand_through_the_system_replay(tmp_path: Path, players: int) -> None:
    text = full_table_hand(players)
    path = tmp_path / f"{players}-handed.phh"
    path.write_text(text)
    want = pokerkit_stacks(text)
    assert want[-1] > 10000  # the last seat wins: the hand reaches the ten-seat zones
    (result,) = list(system_replay([str(path)], "tda-2024", timeout=8))
    assert result.match is True, result
    assert list(result.got or []) == want


@pytest.mark.timeout(120)
def test_a_ten_seat_hand_on_the_pty_table(tmp_path: Path) -> None:
    """The demo's table (board on a pty, seats from the hands: ten here)."""
    text = full_table_hand(10)
    hand = _demo_hand("ten", parse_phh(text, "ten"), get_profile("tda-2024"), 10)
    out = io.StringIO()
    with plain_broker() as b:
        outcome, counts = asyncio.run(run_table(
            [hand], host=b.host, port=b.port, profile="tda-2024", seed=1, error_rate=0.0,
            workdir=tmp_path, view=View(out=out, colour=False),
        ))  # fmt: skip
    assert counts == {"daemon": 1, "mqtt": 1, "logger": 1}, out.getvalue()
    assert not outcome.mismatches and not outcome.missing, out.getvalue()
    assert list(hand.expected) == pokerkit_stacks(text)
