"""Pipeline throughput: simulated hands per second through the simulated hardware (reader
board on a pty, MockFactory GPIO), the daemon, mosquitto and the venue logger: the demo's
machinery (controller.demo.table.run_table) with generated hands and no injected errors.

Beside it, in the same run, the pacing floor of the simulated dealer: every physical step
of a hand (a card, a bet, a sweep) needs ``debounce_cycles`` scan cycles before the daemon
may see it, so no dealer on this board config can go faster than
``hands / (steps x debounce x scan period)``.
"""

from __future__ import annotations

import io
import random
import time
from pathlib import Path
from typing import Any

from controller.demo.hands import generated_hands
from controller.demo.table import run_table
from controller.demo.view import View
from controller.rules.events import CardPlaced, ChipsIn, Sweep
from controller.rules.profile import get_profile

SCAN_S = 0.020  # the demo table's scan period
DEBOUNCE = 2


async def run(port: int, hands: int, workdir: Path, seed: int = 6) -> dict[str, Any]:
    profile = get_profile("tda-2024")
    plan = generated_hands(random.Random(seed), hands, profile)
    steps = sum(
        1 for h in plan for e in h.plan.events if isinstance(e, CardPlaced | ChipsIn | Sweep)
    )
    view = View(out=io.StringIO(), colour=False)
    t0 = time.perf_counter()
    outcome, counts = await run_table(
        plan, host="127.0.0.1", port=port, profile="tda-2024", seed=seed, error_rate=0.0,
        workdir=workdir, view=view, table_id="t1",
    )  # fmt: skip
    elapsed = time.perf_counter() - t0
    floor_s = steps * DEBOUNCE * SCAN_S
    return {
        "pipeline_hands": hands,
        "pipeline_hands_per_s": round(outcome.hands / elapsed, 3),
        "pipeline_pacing_floor_hands_per_s": round(hands / floor_s, 3),
        "pipeline_steps_per_hand": round(steps / hands, 1),
        "pipeline_records_logged": counts["logger"],
        "pipeline_mismatches": len(outcome.mismatches),
        "pipeline_missing": len(outcome.missing),
    }
