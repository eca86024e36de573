"""The tables of the festival fleet (``bench/fleet.py --tables N``), run in worker processes:
``python bench/fleet_tables.py --port P --first I --count N ...``, one process per share.

Each table is a lightweight simulated table: its own ``controller.link.VenueLink`` (its own
MQTT client, SQLite outbox, birth and will, waiting for a logger's online status, windowed
sends and acknowledgements) that plays, hand after hand, what the daemon would publish for a
real hand: the redacted live state after every event that changed it and the live events
(``controller.daemon.translate.state_payload`` and ``controller.daemon.live.LiveEvents`` on
the rules core's own snapshots of generated hands dealt physically by hwsim's dealer), a
real alert (``alert_payload`` of an alert the core raised for a dealer error injected by
``hwsim.inject``) every ``--alert-every`` hands, its ``alert_ack`` event at the end of the
hand (the dealer's ACK), and the completed hand's OHH record into the outbox. At ten times
human speed a hand takes 12 s (a live table deals about 30 an hour), jittered.

Protocol with bench/fleet.py (files in ``--workdir``): ``ready-K`` once every table of this
worker sees a logger online; the dealing starts when ``go`` appears (it holds the start
time, shared by every worker); ``dealt-K`` when the dealing time is up (it holds the CPU
seconds the worker used while dealing); then the outboxes drain and ``result-K.json``
holds the hand ids submitted, each alert's id with the wall time its table published it,
and what was left pending.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import random
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.daemon.live import LiveEvents  # noqa: E402
from controller.daemon.translate import alert_payload, state_payload  # noqa: E402
from controller.demo.hands import generated_hands  # noqa: E402
from controller.link import BrokerConfig, VenueLink  # noqa: E402
from controller.ohh import to_ohh  # noqa: E402
from controller.replay import replay_core_injected  # noqa: E402
from controller.rules.decisions import Alert, HandComplete  # noqa: E402
from controller.rules.engine import TableCore  # noqa: E402
from controller.rules.profile import get_profile  # noqa: E402
from hwsim.dealer import plan_hand  # noqa: E402

HUMAN_HAND_S = 120.0


@dataclass(frozen=True)
class Script:
    """One hand as the table publishes it."""

    steps: list[tuple[str, Any]]  # ("state", payload) or ("event", (kind, data))
    ohh: dict[str, Any]


def scripts(n: int = 12, seed: int = 7) -> tuple[list[Script], list[dict[str, Any]]]:
    """Hands and alerts from the rules core (see the module docstring)."""
    profile = get_profile("tda-2024")
    out: list[Script] = []
    hands = generated_hands(random.Random(seed), n, profile)
    for h in hands:
        plan = plan_hand(h.hh, profile, 0)
        core = TableCore(plan.profile, table="t")
        live = LiveEvents("v1", "t")
        steps: list[tuple[str, Any]] = []
        last: dict[str, Any] | None = None
        ohh: dict[str, Any] | None = None
        for ev in plan.events:
            step = core.handle(ev)
            snap = core.snapshot()
            for kind, data, _ in live.after(snap, step.decisions):
                steps.append(("event", (kind, data)))
            for d in step.decisions:
                if isinstance(d, HandComplete):
                    ohh = to_ohh(d.record, datetime.now(UTC), table_name="t", table_size=6)
            payload = state_payload(snap)
            if payload != last:
                steps.append(("state", payload))
                last = payload
        assert ohh is not None, "a generated hand did not complete"
        out.append(Script(steps, ohh))
    alerts: list[dict[str, Any]] = []
    for kind in ("exposed", "missing-burn", "premature-turn", "extra-hole-card"):
        _, raised, _ = replay_core_injected(hands[0].hh, profile, kind)
        alerts += [alert_payload(a, 1) for a in raised if isinstance(a, Alert)]
    assert alerts, "no alert from the injected dealer errors"
    return out, alerts


class FleetTable:
    def __init__(self, link: VenueLink, rng: random.Random, speed: float, alert_every: int):
        self.link, self.rng = link, rng
        self.period = HUMAN_HAND_S / speed
        self.alert_every = alert_every
        self.submitted: list[str] = []
        self.alerts: dict[str, float] = {}
        self.states = 0

    async def deal(self, pool: list[Script], alerts: list[dict[str, Any]], stop_at: float) -> None:
        rng, link, table = self.rng, self.link, self.link.topics.table
        await asyncio.sleep(min(rng.uniform(0, self.period), max(0.0, stop_at - time.time())))
        n = 0
        next_alert = rng.randrange(self.alert_every) if self.alert_every else -1
        while time.time() + self.period * 1.2 <= stop_at:  # only hands that end in time
            n += 1
            script = pool[rng.randrange(len(pool))]
            gap = self.period * rng.uniform(0.8, 1.2) / (len(script.steps) + 1)
            alert_at = rng.randrange(len(script.steps)) if n - 1 == next_alert else -1
            alert_id = None
            for i, (what, body) in enumerate(script.steps):
                if what == "state":
                    link.publish_state({**body, "hand_no": n})
                    self.states += 1
                else:
                    link.publish_event(body[0], body[1], n)
                if i == alert_at:
                    payload = {**alerts[rng.randrange(len(alerts))], "hand_no": n}
                    t = time.time()
                    alert_id = link.publish_alert(payload)
                    self.alerts[alert_id] = t
                    next_alert += self.alert_every
                await asyncio.sleep(gap)
            hand_id = f"v1-{table}-{n}"
            ohh = copy.deepcopy(script.ohh)
            ohh["game_number"], ohh["table_name"] = hand_id, table
            link.submit_hand(hand_id, n, ohh, ended_at=time.time())
            self.submitted.append(hand_id)
            if alert_id is not None:  # the dealer's ACK at the table, at the end of the hand
                link.publish_event("alert_ack", {"alert_id": alert_id, "by": "dealer"}, n)
            await asyncio.sleep(gap)


async def _wait_file(path: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {path.name} within {timeout:.0f} s")
        await asyncio.sleep(0.05)
    return path.read_text()


async def _until(cond: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def main_async(a: argparse.Namespace) -> None:
    work = Path(a.workdir)
    pool, alerts = scripts()
    broker = BrokerConfig(host="127.0.0.1", port=a.port, tls=False, allow_plaintext=True)
    names = [f"t{i:03d}" for i in range(a.first, a.first + a.count)]
    links = [VenueLink(broker, "v1", t, work / f"{t}.db", backoff=(0.2, 2.0)) for t in names]
    rng = random.Random(a.first * 7919 + 11)
    tables = [FleetTable(x, random.Random(rng.random()), a.speed, a.alert_every) for x in links]
    try:
        for link in links:
            link.start()
            await asyncio.sleep(0.005)  # spread the connects
        if not await _until(lambda: all(x.logger_online for x in links), 120):
            raise TimeoutError("not every table saw a logger online within 120 s")
        (work / f"ready-{a.first}").write_text("ready")
        start = float(await _wait_file(work / "go", 600))
        await asyncio.sleep(max(0.0, start - time.time()))
        cpu0 = time.process_time()
        stop_at = start + a.seconds
        await asyncio.gather(*(t.deal(pool, alerts, stop_at) for t in tables))
        await asyncio.sleep(max(0.0, stop_at - time.time()))
        # this process's CPU while dealing (it may be gone before bench/fleet.py looks)
        (work / f"dealt-{a.first}").write_text(repr(time.process_time() - cpu0))
        await _until(lambda: all(x.outbox.pending_count() == 0 and x.held_count == 0
                                 for x in links), a.drain)  # fmt: skip
        pending = sum(x.outbox.pending_count() + x.held_count for x in links)
    finally:
        for link in links:
            await link.stop()
    result = {
        "submitted": [h for t in tables for h in t.submitted],
        "alerts": {k: v for t in tables for k, v in t.alerts.items()},
        "states": sum(t.states for t in tables),
        "pending": pending,
    }
    (work / f"result-{a.first}.json").write_text(json.dumps(result))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True, help="the broker's port (loopback)")
    ap.add_argument("--first", type=int, required=True, help="the first table's number")
    ap.add_argument("--count", type=int, required=True, help="how many tables")
    ap.add_argument("--seconds", type=float, required=True, help="how long to deal")
    ap.add_argument("--speed", type=float, default=10.0, help="times human speed")
    ap.add_argument("--alert-every", type=int, default=5, help="an alert every N hands")
    ap.add_argument("--drain", type=float, default=60.0, help="s to wait for the outboxes")
    ap.add_argument("--workdir", required=True)
    asyncio.run(main_async(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
