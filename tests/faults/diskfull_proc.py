"""One table as its own process, for the disk-full crash test (tests/faults/
test_disk_full_crash.py): as table_proc.py (daemon, pty board, MockFactory GPIO, virtual
dealer, persistent work directory; every hand a fold round), plus ``--pause-before K``:
before hand K it prints
``{"event": "pause"}`` and waits for a line on stdin (the test fills the state directory's
filesystem meanwhile). One JSON line per step: ready (hand counter, interrupted hands, the
venue's alert codes so far), pause, start (index), done (index, hand number), alerts.

    python tests/faults/diskfull_proc.py --port P --workdir DIR --count N --first K \
        [--pause-before K]
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

from tests.faults.harness import alerts, fold_round, table_rig  # noqa: E402


def say(**kw: object) -> None:
    print(json.dumps(kw), flush=True)


async def main(port: int, workdir: Path, count: int, first: int, pause: int | None) -> None:
    rng = random.Random(7 + first)
    chips = [fold_round([10_000] * 6, rng, "chips") for _ in range(count)]
    async with table_rig(port, workdir, chips, logger=False) as rig:
        d = rig.daemon
        await asyncio.sleep(0.3)  # the alerts raised at start-up reach the venue subscriber
        say(event="ready", hand_counter=d.core.hand_no, interrupted=d.interrupted,
            alerts=[a.get("code") for a in alerts(rig)])  # fmt: skip
        for i in range(first, count):
            if i == pause:
                say(event="pause")
                await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            say(event="start", index=i)
            # fold rounds from the daemon's stacks: after the first, no venue command (which
            # a full disk refuses) is needed
            rig.table.offline = bool(rig.daemon.core.seats)
            stacks = rig.stacks() if rig.table.offline else [10_000] * 6
            await rig.table.play(i, fold_round(stacks, rng, f"hand {i}"))
            say(event="done", index=i, hand_no=d.core.hand_no)
        await asyncio.sleep(0.5)
        say(event="finished", alerts=[a.get("code") for a in alerts(rig)])


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--pause-before", type=int, default=None)
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(main(a.port, a.workdir, a.count, a.first, a.pause_before))
