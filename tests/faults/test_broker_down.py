"""The broker stopped for several hands and started again, through the daemon: the table
keeps dealing, and every completed record reaches the venue logger exactly once, in order."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from controller.demo.table import wait_until
from hwsim.broker import Broker, plain_broker
from tests.faults.harness import fold_round, table_rig

pytestmark = pytest.mark.timeout(120)
DOWN_HANDS = 3


def test_broker_stopped_for_several_hands(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_scenario(broker, tmp_path), 110))


async def _scenario(broker: Broker, tmp: Path) -> None:
    rng = random.Random(3)
    first = [fold_round([10_000] * 6, rng, "first")]
    chips = first + [fold_round([10_000] * 6, rng, "chips") for _ in range(DOWN_HANDS + 1)]
    async with table_rig(broker.port, tmp, chips) as rig:
        assert rig.logger is not None and rig.store is not None
        store, logger = rig.store, rig.logger
        await rig.table.play(0, first[0])
        await wait_until(lambda: store.count() == 1, "the first record", 10)

        broker.stop()
        await wait_until(lambda: not rig.daemon.link.connected, "the link to notice", 10)
        rig.table.offline = True
        for i in range(1, DOWN_HANDS + 1):
            await rig.table.play(i, fold_round(rig.stacks(), rng, f"down #{i}"))
        assert len(rig.daemon.records) == 1 + DOWN_HANDS
        assert store.count() == 1  # nothing could get through
        assert rig.daemon.link.outbox.pending_count() == DOWN_HANDS

        broker.start()
        rig.table.offline = False
        await wait_until(lambda: store.count() == 1 + DOWN_HANDS, "the held records", 40)
        await rig.venue.start()  # the venue's own subscriber reconnects for the next hand
        await rig.table.play(DOWN_HANDS + 1, fold_round(rig.stacks(), rng, "after"))
        n = len(rig.daemon.records)
        assert n == DOWN_HANDS + 2
        await wait_until(lambda: store.count() == n, "every record", 15)
        await wait_until(lambda: rig.daemon.link.outbox.pending_count() == 0, "acks", 15)

        expected = [f"v1-t1-{r['game_number'].rsplit('-', 1)[-1]}" for r in rig.daemon.records]
        stored = [h["hand_id"] for h in store.hands()]
        assert sorted(stored) == sorted(expected) and len(set(stored)) == n
        assert logger.stats.order == expected  # stored in the order they were dealt
        assert logger.stats.conflicts == 0
        assert rig.table.outcome.mismatches == []
        assert rig.sim.running
