"""One table as its own process, for the fault tests that cut its power (kill -9 soak,
tests/faults/test_kill9.py; disk-full crash, test_disk_full_crash.py): the simulated table
(:func:`tests.faults.harness.table_rig`: the daemon, the reader board on a pty, MockFactory
GPIO) and the virtual dealer, on a persistent work directory (the daemon's SQLite state
survives the process). Killing this process is a power cut of the table: daemon, board and
dealer all stop at once; started again it resumes from the state on disk.

Hands ``--first`` .. ``--count - 1``: the seeded list of generated hands, or with ``--fold``
fold rounds continuing from the daemon's stacks (after the first, no venue command is
needed, which a full disk refuses). ``--pause-before K``: before hand K it prints
``{"event": "pause"}`` and waits for a line on stdin (the disk-full test fills the state
directory's filesystem meanwhile). One JSON line per step: ready (hand counter, interrupted
hands, the venue's alert codes so far), pause, start (index), done (index, hand number,
mismatches), finished (alert codes). :class:`tests.faults.harness.TableProcess` runs it.

    python tests/faults/table_proc.py --port P --workdir DIR --count N [--first K] \
        [--seed S | --fold] [--pause-before K]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.demo.hands import DemoHand, generated_hands  # noqa: E402
from controller.rules.profile import get_profile  # noqa: E402
from tests.faults.harness import Rig, alerts, fold_round, table_rig  # noqa: E402


def say(**kw: object) -> None:
    print(json.dumps(kw), flush=True)


def codes(rig: Rig) -> list[object]:
    return [a.get("code") for a in alerts(rig)]


async def main(a: argparse.Namespace) -> None:
    rng = random.Random(7 + a.first)
    if a.fold:  # placeholders: a fold round's chips depend only on the blinds
        hands = [fold_round([10_000] * 6, rng, "chips") for _ in range(a.count)]
    else:
        hands = generated_hands(random.Random(a.seed), a.count, get_profile("tda-2024"))
    async with table_rig(a.port, a.workdir, hands, logger=False) as rig:
        d = rig.daemon
        await asyncio.sleep(0.3)  # the alerts raised at start-up reach the venue subscriber
        say(event="ready", hand_counter=d.core.hand_no, interrupted=d.interrupted,
            alerts=codes(rig))  # fmt: skip
        for i in range(a.first, a.count):
            if i == a.pause_before:
                say(event="pause")
                await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            say(event="start", index=i)
            hand: DemoHand = hands[i]
            if a.fold:  # from the daemon's stacks, set up without a command after the first
                rig.table.offline = bool(d.core.seats)
                stacks = rig.stacks() if rig.table.offline else [10_000] * 6
                hand = fold_round(stacks, rng, f"hand {i}")
            await rig.table.play(i, hand)
            say(event="done", index=i, hand_no=d.core.hand_no,
                mismatches=len(rig.table.outcome.mismatches))  # fmt: skip
        await asyncio.sleep(0.5)  # the last alerts reach the venue subscriber
        say(event="finished", alerts=codes(rig))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fold", action="store_true")
    ap.add_argument("--pause-before", type=int, default=None)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(main(ap.parse_args()))
