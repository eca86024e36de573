"""The tournament service at the festival's size: the time from a bust-out's hand record to
the balancing proposal (issue 25: "a balancing proposal in under a second after the bust-out's
record"), at 500 tables of nine and thousands of entrants, against the same at a three-table
event measured in the same run (the baseline: what the size costs).

Each bust-out is a hand record as a table sends it (the envelope and its OHH ``players``),
handed to :meth:`EventService.on_hand` as the link does: the record read, the journal
written (SQLite, ``synchronous=FULL``), the eliminations placed, the room proposed again and
standings, proposal and clock published (to a sink: no broker). Every proposal is then done
(the moves committed) so the room stays as the floor keeps it. Times are the wall clock of
this process; printed, never asserted (a test does not time things on a shared machine).

    .venv/bin/python bench/tournament.py [--tables 500] [--entrants 4400] [--busts 200]
                                         [--hands 2000]

Then the restart: the journal (the draw, the bust-outs, the proposals and ``--hands`` hands
without a bust-out, most of a day's records) replayed through the core, timed: its rows and
the time a row, and what a festival day of 150,000 hands would take.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.tournament.service import EventService
from controller.tournament.state import MovesDone
from controller.tournament.store import Journal


def event_text(tables: int, entrants: int) -> str:
    head = (
        '[event]\nname = "festival"\nvenue = "v1"\nprofile = "a2c-000"\n'
        "starting_stack = 20000\n\n[[levels]]\nminutes = 40\nsmall_blind = 100\n"
        "big_blind = 200\n"
    )
    t = "".join(f'\n[[tables]]\nid = "t{i}"\nseats = 9\n' for i in range(1, tables + 1))
    e = "".join(
        f'\n[[entrants]]\nid = "p{i}"\nname = "Player {i}"\n' for i in range(1, entrants + 1)
    )
    return head + t + e


def record(
    service: EventService, rng: random.Random, n: int, bust: bool = True
) -> dict[str, Any] | None:
    """A hand at a random table in which one player busts to another (``bust``), or in
    which the blinds go to another player (no bust-out: most hands of a day)."""
    occ = service.state.occupied()
    busy = [t for t, s in occ.items() if len(s) >= 2]
    if not busy:
        return None
    table = busy[rng.randrange(len(busy))]
    players = [service.state.players[p] for p in occ[table].values()]
    loser, winner = rng.sample(players, 2)
    out = []
    moved = loser.stack if bust else min(loser.stack - 1, 300)
    for p in players:
        final = p.stack - moved if p is loser else p.stack + (moved if p is winner else 0)
        out.append(
            {
                "id": p.seat,
                "seat": p.seat,
                "name": p.name,
                "player_ref": p.id,
                "starting_stack": p.stack,
                "final_stack": final,
            }
        )
    return {
        "kind": "hand",
        "hand_id": f"v1-{table}-{n}",
        "venue": "v1",
        "table": table,
        "hand_no": n,
        "ohh": {"players": out},
    }


async def run(tables: int, entrants: int, busts: int, seed: int, hands: int = 0) -> dict[str, Any]:
    published: dict[str, float] = {}

    async def publish(kind: str, body: dict[str, Any], retain: bool) -> None:
        json.dumps(body)  # what the link does with it
        published[kind] = time.perf_counter()

    async def send(table: str, command: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "data": {}}

    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp) / "event.db")
        state = journal.open_event(event_text(tables, entrants), "bench")
        rng = random.Random(seed)
        service = EventService(state, journal, rng, time.time, send, publish)
        await service.command("draw", {}, "bench")
        to_proposal: list[float] = []
        to_published: list[float] = []
        proposals = 0
        for n in range(busts):
            rec = record(service, rng, n)
            if rec is None:
                break
            raw = json.dumps(rec).encode()
            before = service.state.next_proposal
            t0 = time.perf_counter()
            await service.on_hand(json.loads(raw))
            t1 = time.perf_counter()
            prop = service.state.proposal
            if prop is not None and prop.id >= before:
                proposals += 1
                to_proposal.append(t1 - t0)  # the proposal is committed when on_hand returns
                to_published.append(published["proposal"] - t0)
                stacks = tuple(
                    (m.player, service.state.players[m.player].stack) for m in prop.moves
                )
                service.commit(MovesDone(prop.id, stacks))
        for n in range(busts, busts + hands):  # hands without a bust-out: the day's bulk
            rec = record(service, rng, n, bust=False)
            if rec is not None:
                await service.on_hand(rec)
        journal.close()
        # a restart: the journal replayed through the core (docs/tournament.md)
        t0 = time.perf_counter()
        again = Journal(Path(tmp) / "event.db")
        replayed = again.open_event(event_text(tables, entrants), "bench")
        replay_s = time.perf_counter() - t0
        rows = again.db.execute("SELECT count(*) FROM journal").fetchone()[0]
        again.close()
        assert replayed == service.state
    q = statistics.quantiles(to_published, n=20) if len(to_published) >= 2 else to_published * 19
    return {
        "tables": tables,
        "entrants": entrants,
        "busts": busts,
        "proposals": proposals,
        "median_ms": round(statistics.median(to_proposal) * 1000, 2) if to_proposal else None,
        "published_median_ms": round(statistics.median(to_published) * 1000, 2)
        if to_published
        else None,
        "published_p95_ms": round(q[18] * 1000, 2) if to_published else None,
        "players_left": len(service.state.playing()),
        "journal_rows": rows,
        "replay_s": round(replay_s, 3),
        "replay_ms_per_row": round(replay_s * 1000 / max(rows, 1), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--entrants", type=int, default=4400)
    ap.add_argument("--busts", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--hands", type=int, default=2000, help="hands without a bust-out (the restart's replay)"
    )
    a = ap.parse_args()
    small = asyncio.run(run(3, 27, min(a.busts, 20), a.seed, min(a.hands, 200)))
    big = asyncio.run(run(a.tables, a.entrants, a.busts, a.seed, a.hands))
    for r in (small, big):
        print(
            f"{r['tables']:4d} tables {r['entrants']:5d} entrants: {r['proposals']:3d} proposals"
            f" after {r['busts']} bust-outs; record -> proposal median {r['median_ms']} ms,"
            f" -> published median {r['published_median_ms']} ms"
            f" (p95 {r['published_p95_ms']} ms)"
        )
    budget = 1000.0
    ratio = (big["published_p95_ms"] or 0) / budget
    size = (big["published_median_ms"] or 0) / max(small["published_median_ms"] or 1e-9, 1e-9)
    print(f"festival p95 / 1 s budget: {ratio:.3f}; festival / three tables (median): {size:.1f}x")
    for r in (small, big):
        print(f"{r['tables']:4d} tables: restart replays {r['journal_rows']} journal rows in"
              f" {r['replay_s']} s ({r['replay_ms_per_row']} ms a row; a day of 150,000 hands:"
              f" {r['replay_ms_per_row'] * 150:.0f} s)")  # fmt: skip
    print(
        json.dumps(
            {
                "small": small,
                "festival": big,
                "p95_over_budget": round(ratio, 4),
                "festival_over_small": round(size, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
