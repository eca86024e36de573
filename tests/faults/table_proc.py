"""One table as its own process, for the kill -9 soak: the daemon, the simulated reader board
(pty), MockFactory GPIO and the virtual dealer, on a persistent work directory (the daemon's
SQLite state survives the process). Plays generated hands ``--first`` .. ``--count - 1`` of
the seeded list, printing one JSON line per step: ready, start (index), done (index, hand
number), finished. Killing this process is a power cut of the table: daemon, board and
dealer all stop at once; started again it resumes from the state on disk.

    python tests/faults/table_proc.py --port P --workdir DIR --seed S --count N --first K
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

from controller.demo.hands import generated_hands  # noqa: E402
from controller.rules.profile import get_profile  # noqa: E402
from tests.faults.harness import table_rig  # noqa: E402


def say(**kw: object) -> None:
    print(json.dumps(kw), flush=True)


async def main(port: int, workdir: Path, seed: int, count: int, first: int) -> None:
    hands = generated_hands(random.Random(seed), count, get_profile("tda-2024"))
    async with table_rig(port, workdir, hands, logger=False) as rig:
        say(event="ready", interrupted=rig.daemon.interrupted)
        for i in range(first, count):
            say(event="start", index=i)
            await rig.table.play(i, hands[i])
            say(event="done", index=i, hand_no=rig.daemon.core.hand_no,
                mismatches=len(rig.table.outcome.mismatches))  # fmt: skip
        say(event="finished")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--first", type=int, default=0)
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(main(a.port, a.workdir, a.seed, a.count, a.first))
