"""The calibration wizard: a simulated dealer follows the prompts on a simulated table."""

from __future__ import annotations

import asyncio
import re
import tomllib
from collections.abc import AsyncIterator

import pytest

from controller.rules.errors import LocalError
from firmware_bridge.calibrate import (
    CalibrationIncomplete,
    Calibrator,
    calibration_steps,
    run_calibrate,
)
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from firmware_bridge.zones import BOARD, BURN, MUCK, Zone, ZoneMap

# The truth the wizard must find: antennas wired in no particular order.
TRUE = {
    "seat 1's hole-card spot": 5,
    "seat 2's hole-card spot": 3,
    "seat 3's hole-card spot": 8,
    "the board": 7,
    "the burn": 0,
    "the muck": 9,
    "seat 1's betting zone": 12,
    "seat 2's betting zone": 11,
    "seat 3's betting zone": 2,
}
ALL = range(13)  # 1, 4, 6 and 10 lie under nothing
EXPECTED = ZoneMap(
    [(5, Zone.hole(1)), (3, Zone.hole(2)), (8, Zone.hole(3)), (7, BOARD), (0, BURN),
     (9, MUCK), (12, Zone.bet(1)), (11, Zone.bet(2)), (2, Zone.bet(3))]
)  # fmt: skip
CARD = b"\x04\x01\x02\x03"
PROMPT = re.compile(r"Place a card on (.+) \(step (\d+)/(\d+)\)")


class Dealer:
    """Reads the prompts and lays the card where asked, with crosstalk on the antenna below."""

    def __init__(
        self,
        *,
        rssi: bool = True,
        crosstalk: str = "steady",
        fresh_card_each_step: bool = False,
        wrong_first: dict[str, int] | None = None,
        slide_over: int | None = None,
        stop_after: int | None = None,
        lying: tuple[int, bytes] | None = None,
    ) -> None:
        self.messages: list[str] = []
        self.target: str | None = None
        self.step = 0
        self.rssi = rssi
        self.crosstalk = crosstalk
        self.fresh = fresh_card_each_step
        self.wrong_first = dict(wrong_first or {})
        self.slide_over = slide_over
        self.stop_after = stop_after
        self.left: list[tuple[int, bytes]] = [lying] if lying else []
        self.cycles_on_target = 0

    def prompt(self, message: str) -> None:
        self.messages.append(message)
        m = PROMPT.fullmatch(message)
        if m:
            if self.fresh and self.target is not None:
                self.left.append((TRUE[self.target], self.card))
            self.target = m.group(1)
            self.step = int(m.group(2))
            self.cycles_on_target = 0

    @property
    def card(self) -> bytes:
        return CARD + bytes([self.step]) if self.fresh else CARD

    def where(self) -> int | None:
        if self.target is None or self.cycles_on_target < 3:
            return None  # a human needs a moment to lay the card
        wrong = self.wrong_first.get(self.target)
        if wrong is not None:
            if self.cycles_on_target < 33:
                return wrong
            if self.cycles_on_target < 38:
                return None  # lifts it
        if self.slide_over is not None and self.cycles_on_target < 3 + self.slide_over:
            return 6  # the card passes over antenna 6 on its way
        return TRUE[self.target]

    async def snapshots(self) -> AsyncIterator[AntennaSnapshot]:
        for n in range(2000):
            if self.stop_after is not None and n >= self.stop_after:
                return
            on = self.where()
            self.cycles_on_target += 1
            reads: dict[int, list[TagRead]] = {}
            for a, uid in self.left:  # cards left lying read loud: must still not count
                reads.setdefault(a, []).append(TagRead(uid, -30 if self.rssi else None))
            if on is not None:
                reads.setdefault(on, []).append(TagRead(self.card, -40 if self.rssi else None))
                neighbour = (on - 1) % 13
                x_rssi = None if not self.rssi else -20 if self.crosstalk == "loud-flicker" else -70
                if (
                    self.crosstalk == "steady"
                    or (self.crosstalk.endswith("flicker") and n % 2)
                    or (self.crosstalk == "late" and self.cycles_on_target > 6)
                ):
                    reads.setdefault(neighbour, []).append(TagRead(self.card, x_rssi))
            for a in ALL:
                yield AntennaSnapshot(n * 0.05, a, n, tuple(reads.get(a, ())))


def calibrate(dealer: Dealer, seats: int = 3) -> ZoneMap:
    return asyncio.run(run_calibrate(dealer.snapshots(), dealer.prompt, seats))


def test_finds_every_zone_despite_crosstalk() -> None:
    d = Dealer()
    assert calibrate(d) == EXPECTED
    assert d.messages[0] == "Place a card on seat 1's hole-card spot (step 1/9)"
    assert "seat 1's hole-card spot: antenna 5" in d.messages
    assert d.messages[-1] == "calibration complete"


@pytest.mark.parametrize("crosstalk", ["flicker", "late"])
def test_crosstalk_without_rssi_resolved_by_persistence(crosstalk: str) -> None:
    assert calibrate(Dealer(rssi=False, crosstalk=crosstalk)) == EXPECTED


def test_loud_but_flickering_crosstalk_is_not_taken() -> None:
    assert calibrate(Dealer(crosstalk="loud-flicker")) == EXPECTED


def test_new_card_each_step_left_lying() -> None:
    assert calibrate(Dealer(fresh_card_each_step=True)) == EXPECTED


def test_card_already_on_the_table_is_ignored() -> None:
    d = Dealer(lying=(9, b"\x99\x99"))  # a card lying on the muck before the wizard starts
    assert calibrate(d) == EXPECTED


def test_card_slid_across_another_antenna_is_not_taken() -> None:
    assert calibrate(Dealer(slide_over=6)) == EXPECTED


def test_card_on_an_antenna_already_done_is_refused_once() -> None:
    d = Dealer(wrong_first={"seat 2's hole-card spot": 5})
    assert calibrate(d) == EXPECTED
    refusals = [m for m in d.messages if m.startswith("That card is on")]
    assert refusals == [
        "That card is on seat 1's hole-card spot (antenna 5), which is done;"
        " place a card on seat 2's hole-card spot"
    ]


def test_stream_ending_early_raises() -> None:
    with pytest.raises(CalibrationIncomplete, match=r"step 4/9: Place a card on the board"):
        calibrate(Dealer(stop_after=50))


def test_board_positions_and_no_bets() -> None:
    steps = calibration_steps(2, board_antennas=3, bets=False)
    assert [s.label for s in steps] == [
        "seat 1's hole-card spot",
        "seat 2's hole-card spot",
        "board position 1 of 3",
        "board position 2 of 3",
        "board position 3 of 3",
        "the burn",
        "the muck",
    ]
    with pytest.raises(LocalError):
        calibration_steps(11)
    with pytest.raises(LocalError):
        calibration_steps([])
    with pytest.raises(LocalError):
        Calibrator(2, confirm_cycles=0)


def test_multi_antenna_board_and_toml() -> None:
    cal = Calibrator([1], board_antennas=2, bets=False, confirm_cycles=2)
    layout = [20, 21, 22, 23, 24]  # seat 1, board 1, board 2, burn, muck
    n = 0
    assert cal.prompt == "Place a card on seat 1's hole-card spot (step 1/5)"
    cal.feed(AntennaSnapshot(0.0, 20, n, ()))
    for a in layout:
        for _ in range(3):
            n += 1
            cal.feed(AntennaSnapshot(n * 0.05, a, n, (TagRead(CARD, -40),)))
    cal.flush()
    assert cal.done
    zm = cal.result()
    assert zm.antennas_of(BOARD) == (21, 22)
    parsed = tomllib.loads("\n".join(zm.to_toml_lines()))
    assert ZoneMap.from_dict(parsed["zones"]) == zm
    assert cal.feed(AntennaSnapshot(99.0, 20, 99, ())) == []


def test_result_before_done_raises() -> None:
    cal = Calibrator(2)
    with pytest.raises(CalibrationIncomplete, match="step 1/7"):
        cal.result()


def test_a_flickering_read_is_never_confirmed() -> None:
    cal = Calibrator([1], bets=False, confirm_cycles=4)
    for n in range(40):
        tags = (TagRead(CARD),) if n % 2 else ()
        assert cal.feed(AntennaSnapshot(n * 0.05, 5, n, tags)) == []
    assert cal.current is not None and cal.current.zone == Zone.hole(1)
    out: list[str] = []
    for n in range(40, 46):
        out += cal.feed(AntennaSnapshot(n * 0.05, 5, n, (TagRead(CARD),)))
    assert out == ["seat 1's hole-card spot: antenna 5", "Place a card on the board (step 2/4)"]
    assert cal.found == [(5, Zone.hole(1))]
