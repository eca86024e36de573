"""``railguard calibrate``: find which antenna lies under which zone, one zone at a time.

The wizard asks the dealer to place a card on each zone in turn (seat 1's hole-card spot,
seat 2's, …, the board, the burn, the muck, then each betting zone), watches the snapshots
and takes the antenna that newly reads a tag:

* only (antenna, tag) pairs that were not being read when the step began count, so cards left
  on earlier zones do not matter (the same card may be moved from zone to zone);
* crosstalk is ignored: among the new pairs read in the current cycle, the strongest (mean
  RSSI over its current streak of reads) wins, then the most persistent (longest streak); the
  winner must be read ``confirm_cycles`` consecutive cycles before it is taken, so a card slid
  across another antenna on its way is not taken for it;
* cards already lying on the table when the wizard starts are ignored until lifted;
* an antenna that already belongs to an earlier zone is refused with a message (the card is
  on the wrong spot); the step waits for a card on the right one.

:class:`Calibrator` is the state machine (pure, fed snapshots); :func:`run_calibrate` the
async front end that the CLI drives with the reader board's snapshots.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass

from controller.rules.errors import LocalError, RailguardError
from firmware_bridge.snapshots import AntennaSnapshot
from firmware_bridge.zones import BOARD, BURN, MAX_SEATS, MUCK, Zone, ZoneMap, ZoneType


class CalibrationIncomplete(RailguardError, RuntimeError):
    """The snapshots ended before every zone was found."""


@dataclass(frozen=True, slots=True)
class CalibrationStep:
    zone: Zone
    label: str  # what to touch: "seat 3's hole-card spot", "board position 2 of 5"


class _Pair:
    __slots__ = ("last", "rssi_n", "rssi_sum", "streak")

    def __init__(self) -> None:
        self.streak = 0
        self.last = 0  # cycle index of the last read
        self.rssi_sum = 0
        self.rssi_n = 0

    def mean_rssi(self) -> float:
        return self.rssi_sum / self.rssi_n if self.rssi_n else -math.inf


def calibration_steps(
    seats: int | Iterable[int], *, board_antennas: int = 1, bets: bool = True
) -> tuple[CalibrationStep, ...]:
    """The zones in the order the wizard asks for them."""
    seat_list = list(range(1, seats + 1)) if isinstance(seats, int) else sorted(set(seats))
    if not seat_list or not all(1 <= s <= MAX_SEATS for s in seat_list):
        raise LocalError(f"seats must be 1..{MAX_SEATS}, got {seats!r}")
    if board_antennas < 1:
        raise LocalError("board_antennas must be at least 1")
    steps = [CalibrationStep(Zone.hole(s), Zone.hole(s).describe()) for s in seat_list]
    if board_antennas == 1:
        steps.append(CalibrationStep(BOARD, "the board"))
    else:
        steps.extend(
            CalibrationStep(BOARD, f"board position {i} of {board_antennas}")
            for i in range(1, board_antennas + 1)
        )
    steps += [CalibrationStep(BURN, "the burn"), CalibrationStep(MUCK, "the muck")]
    if bets:
        steps.extend(CalibrationStep(Zone.bet(s), Zone.bet(s).describe()) for s in seat_list)
    return tuple(steps)


class Calibrator:
    """Feeds on snapshots, asks for one zone after another, produces a :class:`ZoneMap`."""

    def __init__(
        self,
        seats: int | Iterable[int],
        *,
        board_antennas: int = 1,
        bets: bool = True,
        confirm_cycles: int = 10,
        forget_cycles: int = 3,
    ) -> None:
        if confirm_cycles < 1 or forget_cycles < 1:
            raise LocalError("confirm_cycles and forget_cycles must be at least 1")
        self.steps = calibration_steps(seats, board_antennas=board_antennas, bets=bets)
        self._seats = sorted({s.zone.seat for s in self.steps if s.zone.type is ZoneType.HOLE})
        self._confirm = confirm_cycles
        self._forget = forget_cycles
        self._step = 0
        self._found: list[tuple[int, Zone]] = []
        self._pairs: dict[tuple[int, bytes], _Pair] = {}
        self._baseline: set[tuple[int, bytes]] = set()
        self._pending: list[AntennaSnapshot] = []
        self._pending_cycle: int | None = None
        self._index = 0

    # ------------------------------------------------------------ state

    @property
    def done(self) -> bool:
        return self._step >= len(self.steps)

    @property
    def current(self) -> CalibrationStep | None:
        return None if self.done else self.steps[self._step]

    @property
    def found(self) -> list[tuple[int, Zone]]:
        """(antenna, zone) pairs confirmed so far."""
        return list(self._found)

    @property
    def prompt(self) -> str:
        step = self.current
        if step is None:
            return "calibration complete"
        return f"Place a card on {step.label} (step {self._step + 1}/{len(self.steps)})"

    def result(self) -> ZoneMap:
        if not self.done:
            raise CalibrationIncomplete(
                f"calibration stopped at step {self._step + 1}/{len(self.steps)}: {self.prompt}"
            )
        return ZoneMap(self._found, self._seats)

    # ------------------------------------------------------------ input

    def feed(self, snap: AntennaSnapshot) -> list[str]:
        """Take a snapshot; returns messages for the dealer (confirmations, refusals, prompts)."""
        out: list[str] = []
        if self._pending and snap.cycle != self._pending_cycle:
            out = self.flush()
        self._pending_cycle = snap.cycle
        self._pending.append(snap)
        return out

    def flush(self) -> list[str]:
        """Process the buffered cycle (the next cycle's first snapshot does this otherwise)."""
        if not self._pending:
            return []
        snaps, self._pending = self._pending, []
        return self._process(snaps)

    def _process(self, snaps: list[AntennaSnapshot]) -> list[str]:
        self._index += 1
        idx = self._index
        reported = {s.antenna for s in snaps}
        seen: dict[tuple[int, bytes], int | None] = {}
        for s in snaps:
            for r in s.tags:
                key = (s.antenna, r.uid)
                old = seen.get(key)
                seen[key] = r.rssi if old is None or (r.rssi is not None and r.rssi > old) else old
        for key, rssi in seen.items():
            pair = self._pairs.get(key)
            if pair is None:
                pair = self._pairs[key] = _Pair()
            pair.streak += 1
            pair.last = idx
            if rssi is not None:
                pair.rssi_sum += rssi
                pair.rssi_n += 1
        for key, pair in list(self._pairs.items()):
            if key in seen or key[0] not in reported:
                continue
            pair.streak = 0
            pair.rssi_sum = pair.rssi_n = 0
            if idx - pair.last >= self._forget:
                del self._pairs[key]
                self._baseline.discard(key)
        if idx == 1:  # cards already lying on the table when the wizard starts
            self._baseline = set(seen)
        if self.done:
            return []
        new = [(k, p) for k, p in self._pairs.items() if p.streak > 0 and k not in self._baseline]
        if not new:
            return []
        (antenna, _uid), best = max(
            new, key=lambda kp: (kp[1].mean_rssi(), kp[1].streak, -kp[0][0])
        )
        if best.streak < self._confirm:
            return []
        step = self.steps[self._step]
        taken = next((z for a, z in self._found if a == antenna), None)
        if taken is not None:
            self._baseline |= {k for k, _ in new}  # refused once, until the card is lifted
            return [
                f"That card is on {taken.describe()} (antenna {antenna}), which is done;"
                f" place a card on {step.label}"
            ]
        self._found.append((antenna, step.zone))
        self._step += 1
        self._baseline = {k for k, p in self._pairs.items() if p.streak > 0 or k in self._baseline}
        return [f"{step.label}: antenna {antenna}", self.prompt]


async def run_calibrate(
    snapshots: AsyncIterator[AntennaSnapshot],
    prompt: Callable[[str], None],
    seats: int,
    *,
    board_antennas: int = 1,
    bets: bool = True,
    confirm_cycles: int = 10,
) -> ZoneMap:
    """Drive the wizard from a snapshot stream; ``prompt`` shows each message to the dealer.

    Returns as soon as the last zone is found; raises :class:`CalibrationIncomplete` if the
    stream ends first. The caller writes ``ZoneMap.to_toml_lines()`` into the config.
    """
    cal = Calibrator(seats, board_antennas=board_antennas, bets=bets, confirm_cycles=confirm_cycles)
    prompt(cal.prompt)
    async for snap in snapshots:
        for message in cal.feed(snap):
            prompt(message)
        if cal.done:
            return cal.result()
    for message in cal.flush():
        prompt(message)
    return cal.result()
