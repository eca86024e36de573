"""Which antennas to scan in a cycle: the zones the dealer deals to next first, then the
rest in turn. MicroPython subset (see protocol.py).

The board does not know which antenna lies under which zone (the zone map is the Pi's), but
it sees the order in which antennas change: a dealer pitches hole cards seat after seat,
then burns and turns the board, so the antenna that changed after antenna A last time is
the best guess for what changes after A now. Each cycle scans:

1. hot antennas, at most ``hot_max``: the learned successor of the antenna that changed
   last, that antenna itself (a second card, or the card taken back), then the antennas
   that changed within the last ``hot_cycles`` cycles, most recent first;
2. cold antennas round robin: at least ``cold_min`` every cycle, and more while the
   cycle's time budget (the scan period) lasts, by each antenna's last measured cost.

So every antenna is scanned at least once every ceil(n / cold_min) cycles whatever the
hot ones cost: that is the bound docs/reader-board.md computes ("Scan bound").
"""


class Scheduler:
    def __init__(self, count: int, cold_min: int = 2, hot_max: int = 3, hot_cycles: int = 20):
        if count < 1:
            raise ValueError("a board has at least one antenna")
        self.count = count
        self.cold_min = min(cold_min, count)
        self.hot_max = hot_max
        self.hot_cycles = hot_cycles
        self.successor: dict[int, int] = {}
        self.last_changed = -1
        self.changed_at: dict[int, int] = {}
        self.cost_us = [0.0] * count
        self._next_cold = 0

    def plan(self, cycle: int, budget_us: float, skip: list[bool]) -> list[int]:
        """The antennas to scan in ``cycle``, in order; ``skip[a]``: antenna a has failed."""
        chosen: list[int] = []
        for a in self._hot(cycle):
            if not skip[a] and a not in chosen and len(chosen) < self.hot_max:
                chosen.append(a)
        spent = 0.0
        for a in chosen:
            spent += self.cost_us[a]
        cold = 0
        looked = 0
        while looked < self.count:
            a = self._next_cold
            if cold >= self.cold_min and spent + self.cost_us[a] > budget_us:
                break
            self._next_cold = (a + 1) % self.count
            looked += 1
            if skip[a] or a in chosen:
                continue
            chosen.append(a)
            spent += self.cost_us[a]
            cold += 1
        return chosen

    def _hot(self, cycle: int) -> list[int]:
        out: list[int] = []
        last = self.last_changed
        if last >= 0:
            nxt = self.successor.get(last)
            if nxt is not None:
                out.append(nxt)
            out.append(last)
        recent = [(c, a) for a, c in self.changed_at.items() if cycle - c <= self.hot_cycles]
        recent.sort(reverse=True)
        for _, a in recent:
            out.append(a)
        return out

    def changed(self, antenna: int, cycle: int) -> None:
        """Antenna ``antenna``'s tag set changed in ``cycle``: learn the dealing order."""
        if self.last_changed >= 0 and self.last_changed != antenna:
            self.successor[self.last_changed] = antenna
        self.last_changed = antenna
        self.changed_at[antenna] = cycle

    def scanned(self, antenna: int, cost_us: float) -> None:
        self.cost_us[antenna] = cost_us
