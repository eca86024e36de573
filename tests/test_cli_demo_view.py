"""The demo's view tells the hand as it was played: each fold, call, bet and raise, the
winner(s) with what each collected, "won uncontested" when everyone else folded, a showdown
otherwise, and at the end what to try next.

``railguard demo`` runs as a real subprocess (broker, daemon, board on a pty, GPIO); the view
only hears the daemon's MQTT state messages. The truth it is checked against is the hands'
PHH actions (the same seeded hands, generated again here), not anything the view computed."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from controller.demo.hands import DemoHand, demo_hands
from controller.demo.view import NEXT_STEPS
from controller.rules.profile import get_profile
from hwsim.phh import BetRaise, CheckCall, DealBoard, Fold
from tests.test_demo import _run

SEED, HANDS = 4, 6
ACTION = re.compile(r"^      seat (\d+) \S+\s+(folds|checks|calls|bets|raises to|posts)(?: (\d+))?")
RESULT = re.compile(r"^    (showdown|won uncontested): (.*)$")
WIN = re.compile(r"seat (\d+) \S+ wins (\d+)")
KIND = {"folds": "fold", "calls": "call", "bets": "bet", "raises to": "raise"}


def _truth(hand: DemoHand) -> tuple[list[tuple[int, str, int]], dict[int, int], set[int]]:
    """From the PHH: the chip-moving actions (seat, fold/call/bet/raise, street total), each
    seat's chips put in, and the seats that did not fold."""
    hh, seats = hand.hh, hand.plan.seats
    n = len(seats)
    stack = list(hh.starting_stacks)
    street = [0] * n
    put = [0] * n
    for i in range(n):
        blind = min(hh.blinds_or_straddles[i] + hh.antes[i], stack[i])
        street[i], put[i], stack[i] = hh.blinds_or_straddles[i], blind, stack[i] - blind
    folded: set[int] = set()
    acts: list[tuple[int, str, int]] = []
    for a in hh.actions:
        if isinstance(a, DealBoard):
            street = [0] * n
        elif isinstance(a, Fold):
            folded.add(a.player)
            acts.append((seats[a.player], "fold", 0))
        elif isinstance(a, CheckCall):
            high, p = max(street), a.player
            if high > street[p]:
                more = min(high - street[p], stack[p])
                street[p] += more
                put[p] += more
                stack[p] -= more
                acts.append((seats[p], "call", street[p]))
        elif isinstance(a, BetRaise):
            p, high = a.player, max(street)
            more = int(a.to_amount) - street[p]
            street[p], put[p], stack[p] = int(a.to_amount), put[p] + more, stack[p] - more
            acts.append((seats[p], "bet" if high == 0 else "raise", int(a.to_amount)))
    alive = {seats[i] for i in range(n) if i not in folded}
    return acts, {seats[i]: put[i] for i in range(n)}, alive


needs_mosquitto = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)


@needs_mosquitto
@pytest.mark.timeout(200)
def test_the_view_shows_each_action_and_the_winners() -> None:
    r = _run("--hands", str(HANDS), "--seed", str(SEED), "--source", "generated",
             "--error-rate", "0")  # fmt: skip
    assert r.returncode == 0, r.stdout
    _, hands = demo_hands(random.Random(SEED), HANDS, get_profile("tda-2024"), "generated")
    blocks = re.split(r"^== hand \d+/\d+: .*$", r.stdout, flags=re.M)[1:]
    assert len(blocks) == len(hands) == HANDS
    kinds = set()
    for hand, block in zip(hands, blocks, strict=True):
        acts, put, alive = _truth(hand)
        lines = block.splitlines()
        shown = [m.groups() for m in map(ACTION.match, lines) if m is not None]
        moving = [(int(s), KIND[k], int(x or 0)) for s, k, x in shown if k in KIND]
        assert moving == acts, f"{hand.label}:\n{block}"
        kinds.update(k for _, k, _ in acts)
        results = [m for m in map(RESULT.match, lines) if m is not None]
        assert len(results) == 1, block
        how, who = results[0].groups()
        assert how == ("won uncontested" if len(alive) == 1 else "showdown"), block
        won = {int(s): int(x) for s, x in WIN.findall(who)}
        assert set(won) <= alive, block
        assert sum(won.values()) == sum(put.values()), block  # the whole pot is collected
        end = dict(zip(hand.plan.seats, hand.expected, strict=True))
        start = dict(zip(hand.plan.seats, hand.plan.starting, strict=True))
        for seat, x in won.items():  # what a winner collected, less what it put in
            assert x - put[seat] == end[seat] - start[seat], (seat, block)
    assert {"fold", "call"} <= kinds and kinds & {"bet", "raise"}, kinds  # the run showed them
    tail = r.stdout.split("try next", 1)[1]
    for cmd, _ in NEXT_STEPS:
        assert cmd in tail
