"""The daemon's own table events over a real mosquitto, the pty reader board and SimGpio:
the clock runs out on time with nothing else sensed (ticks), instructions reach the venue
without a card name, the state follows seat commands, and the console ACK acknowledges
every open alert and silences the alert LED and buzzer."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest

from controller.daemon import core_loop
from controller.rules.decisions import Alert
from controller.rules.engine import Step
from controller.rules.events import ConsoleButton, Event
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import profile_copy, running, wait_for

pytestmark = pytest.mark.timeout(60)
CARD = re.compile(r"\b(?:10|[2-9TJQKA])[cdhs]\b")


def _run(tmp: Path, scenario: object, **kw: object) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(scenario(tmp, broker.port, **kw), 50))  # type: ignore[operator]


# ---------------------------------------------------------------- the clock


def test_clock_runs_out_with_no_further_event(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="railguard.daemon")
    _run(tmp_path, _clock)
    # every daemon line about a hand names it by its hand id
    lines = [r.getMessage() for r in caplog.records if r.name == "railguard.daemon"]
    about_hands = [m for m in lines if re.search(r"\bhand\b|hand=|instruction|alert=", m)
                   and not m.startswith("restored ")]  # fmt: skip
    assert any("hand=v1-t1-1 " in m for m in about_hands)
    bad = [m for m in about_hands if not re.search(r"hand=(v1-t1-\d+|-)[ :]", m)]
    assert not bad, bad


async def _clock(tmp: Path, port: int) -> None:
    prof = profile_copy(tmp, "fast-clock", clock_seconds=1.5, clock_countdown_seconds=1.0)
    async with running(tmp, port, profile=prof) as rig:
        d = rig.daemon
        await rig.setup()
        await rig.to_first_action()
        assert not d.clock_running()
        ruled: dict[str, float] = {}  # alert code -> the time of the event the core ruled on

        def watch(_event: Event, step: Step) -> None:
            for x in step.decisions:
                if isinstance(x, Alert):
                    ruled.setdefault(x.code.name, x.t)

        d.watchers.append(watch)
        await rig.gpio.press(ConsoleButton.CLOCK, 0.06)
        await wait_for(lambda: rig.alerts("CLOCK_STARTED"), "the clock alert")
        assert d.clock_running() and rig.alerts("CLOCK_STARTED")[0]["seat"] == 1
        events = d.stats.events
        # nothing else happens at the table: only the daemon's ticks reach the core
        await wait_for(lambda: rig.alerts("CLOCK_COUNTDOWN"), "the countdown", 4)
        await wait_for(lambda: rig.alerts("CLOCK_EXPIRED"), "the clock running out", 4)
        assert rig.alerts("CLOCK_EXPIRED")[0]["seat"] == 1
        assert rig.alerts("CLOCK_COUNTDOWN")[0]["hand_no"] == 1
        # in the table's own time (the events' stamps, not when the venue saw the alerts):
        # not early, and at most a tick (1 s) late, plus slack for a late tick
        countdown_at = ruled["CLOCK_COUNTDOWN"] - ruled["CLOCK_STARTED"]
        expired_at = ruled["CLOCK_EXPIRED"] - ruled["CLOCK_STARTED"]
        assert 1.5 <= countdown_at < 1.5 + 1.0 + 1.0, countdown_at
        assert 2.5 <= expired_at < 2.5 + 1.0 + 1.0, expired_at
        assert d.stats.events > events
        await wait_for(lambda: [e for e in rig.events("action")
                                if e["data"]["seat"] == 1 and e["data"]["kind"] == "fold"],
                       "seat 1's dead hand as a fold")  # fmt: skip
        assert not d.clock_running()
        ticks = d.stats.events
        await asyncio.sleep(1.3)  # no clock: no more ticks
        assert d.stats.events == ticks
        # the ruling is in the hand log: a restart would replay it
        logged = d.store.hand_events(1)
        assert any(e.get("type") == "Tick" for e in logged)


# ---------------------------------------------------------------- instructions


def test_instructions_reach_the_venue_without_card_names(tmp_path: Path) -> None:
    _run(tmp_path, _instructions)


async def _instructions(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        await rig.setup(button=None)
        n = len(rig.events("instruction"))
        await rig.venue.do("button_draw")
        await wait_for(lambda: len(rig.events("instruction")) > n, "the draw instruction")
        ev = rig.events("instruction")[-1]
        assert ev["data"]["text"].startswith("Button draw (high-card)")
        assert ev["data"]["seat"] is None and ev["hand_no"] is None
        # scrubbed like alerts: an instruction naming a card goes out without it
        from controller.rules.decisions import Instruction

        core_loop.instruction(rig.daemon, Instruction("Seat 3: show As first", 3, None, 0.0), "-")
        await wait_for(lambda: len(rig.events("instruction")) > n + 1, "the second one")
        ev = rig.events("instruction")[-1]
        assert ev["data"] == {"text": "Seat 3: show a card first", "seat": 3}
        for e in rig.events("instruction"):
            assert not CARD.search(e["data"]["text"]), e


# ---------------------------------------------------------------- state after commands


def test_state_republished_after_table_commands(tmp_path: Path) -> None:
    _run(tmp_path, _state_after_commands)


async def _state_after_commands(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        await rig.setup(button=None, deck=False)

        def seat(n: int) -> dict[str, object] | None:
            return next((s for s in rig.state()["seats"] if s["seat"] == n), None)

        s1 = seat(1)
        assert s1 is not None and s1["name"] == "Player 1"
        # the same player again under a new name: the display name changes
        await rig.venue.do("seat", seat=1, player_id="p1", name="Ann", stack=10_000)
        await wait_for(lambda: (seat(1) or {}).get("name") == "Ann", "the new name")
        await rig.venue.do("move", from_seat=2, to_seat=5)
        await wait_for(lambda: seat(2) is None and seat(5) is not None, "the move")
        assert (seat(5) or {})["name"] == "Player 2"
        await rig.venue.do("unseat", seat=3)
        await wait_for(lambda: seat(3) is None, "the unseat")
        # a refused command changes nothing and publishes nothing new
        n = len(rig.venue.on("state"))
        with pytest.raises(Exception, match="Seat 1 is taken by p1"):
            await rig.venue.do("seat", seat=1, player_id="p9", name="Zed", stack=100)
        await asyncio.sleep(0.2)
        assert len(rig.venue.on("state")) == n


# ---------------------------------------------------------------- console ACK


def test_console_ack_acknowledges_open_alerts(tmp_path: Path) -> None:
    _run(tmp_path, _console_ack)


async def _console_ack(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        d, gpio = rig.daemon, rig.gpio
        await rig.setup(button=None, deck=False)
        # two alerts: FLOOR (info) and a card on an empty seat (rejected, warning)
        await gpio.press(ConsoleButton.FLOOR, 0.06)
        await wait_for(lambda: rig.alerts("FLOOR_CALLED"), "the floor alert")
        await rig.chips(6, 100)  # chips in front of an empty seat: not accepted
        await wait_for(lambda: rig.alerts("REJECTED"), "the rejected-input alert")
        await wait_for(lambda: gpio.buzzer() or gpio.pulses("buzzer"), "the buzzer")
        await wait_for(
            lambda: d.indicators.current_alert is not None,  # type: ignore[attr-defined]
            "a repeating alert",
        )
        ids = [a["alert_id"] for a in rig.venue.on("alerts")]
        assert len(ids) == 2 and sorted(ids) == sorted(d.open_alerts)
        await gpio.press(ConsoleButton.ACK, 0.06)
        await wait_for(lambda: len(rig.events("alert_ack")) == 2, "two alert_ack events")
        acks = rig.events("alert_ack")
        assert sorted(e["data"]["alert_id"] for e in acks) == sorted(ids)
        assert {e["data"]["by"] for e in acks} == {"console"}
        assert d.open_alerts == []
        assert d.indicators.current_alert is None  # type: ignore[attr-defined]
        await asyncio.sleep(0.3)
        assert not gpio.buzzer() and not gpio.alert_led()
        # nothing open: another ACK publishes no acks
        await gpio.press(ConsoleButton.ACK, 0.06)
        await asyncio.sleep(0.3)
        assert len(rig.events("alert_ack")) == 2


# ---------------------------------------------------------------- names in the live state


def test_every_published_state_names_a_seated_player_by_the_name_sent(tmp_path: Path) -> None:
    """A seat or a move is published with the player's name in the very first state that
    shows the seat, never the player id for a moment (a floor tile flickered "p1")."""

    async def go(tmp: Path, port: int) -> None:
        async with running(tmp, port) as rig:
            await rig.setup(seats=(1, 2, 3), button=None, deck=False)
            await rig.venue.do("move", from_seat=3, to_seat=5)
            await rig.settled()
            await wait_for(lambda: 5 in {s["seat"] for s in rig.state()["seats"]}, "seat 5")
            await asyncio.sleep(0.3)  # every state of the move is in
            shown = [(s["seat"], s["name"]) for st in rig.venue.on("state") for s in st["seats"]]
            assert shown, "no seat in any state"
            assert {n for _, n in shown} == {"Player 1", "Player 2", "Player 3"}, shown
            assert {seat for seat, n in shown if n == "Player 3"} == {3, 5}

    _run(tmp_path, go)
