"""The simulated table's wiring for one to ten seats: which antenna is under which zone,
which GPIO pin each button-puck sensor is on, the tag of each card and chip, and the
daemon's config for it (:func:`config_mapping`, the one builder: the simulated table of
:mod:`hwsim.table`, in-process or with its daemon as its own process, and the tests' rigs
take their config from it).

Antennas, for a table of ``n`` seats: seat ``s``'s hole cards on ``s - 1``; the board on
``n``, the burn on ``n + 1``, the muck on ``n + 2``; seat ``s``'s betting zone on ``n + 2 + s``
(six seats: 0-5, 6, 7, 8, 9-14, the layout of every six-seat test; ten seats: 0-9, 10, 11, 12,
13-22). The board has ``2n + 4`` antennas (one spare), 24 for ten seats: within what the
protocol's HELLO can announce (1..254) and what the zone map accepts (seats 1..10).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.daemon import config
from controller.link.connect import cancel_if_asked
from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.events import CardPlaced, ZoneKind
from firmware_bridge.zones import MAX_SEATS
from hwsim.inject import FOREIGN_PREFIX, TWIN_DECK

VENUE = "v1"
STEP_TIMEOUT = 15.0  # a wait that should succeed: generous, for a loaded machine (CI, a Pi)

#: the button-puck sensor of each seat (BCM). Seats 1-6 as on the six-seat console; seats
#: 7-10 on the pins the defaults keep free (GPIO 20 is the console's DECLARE button): 2/3
#: and 14/15 (I2C and the PL011 UART, free when the reader board is on USB and there is no
#: expander)
PUCK_PINS = {1: 4, 2: 17, 3: 27, 4: 22, 5: 10, 6: 9, 7: 3, 8: 14, 9: 15, 10: 2}


class TableFailure(Exception):
    """The simulated table did not do what the dealer expected."""


@dataclass(frozen=True)
class Layout:
    """Antennas and pins of a simulated table of ``seats`` seats (see the module docstring)."""

    seats: int

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"a simulated table has 1..{MAX_SEATS} seats, not {self.seats}")

    @property
    def hole(self) -> dict[int, int]:
        return {s: s - 1 for s in range(1, self.seats + 1)}

    @property
    def board(self) -> int:
        return self.seats

    @property
    def burn(self) -> int:
        return self.seats + 1

    @property
    def muck(self) -> int:
        return self.seats + 2

    @property
    def bet(self) -> dict[int, int]:
        return {s: self.seats + 2 + s for s in range(1, self.seats + 1)}

    @property
    def puck(self) -> dict[int, int]:
        return {s: PUCK_PINS[s] for s in range(1, self.seats + 1)}

    @property
    def antennas(self) -> int:
        return 2 * self.seats + 4

    def zone_antenna(self, zone: str) -> int:
        """The antenna of ``board``, ``burn`` or ``muck``."""
        return {"board": self.board, "burn": self.burn, "muck": self.muck}[zone]

    def antenna_of(self, ev: CardPlaced) -> int:
        """The antenna under the zone a planned card goes to."""
        if ev.zone is ZoneKind.HOLE:
            return self.hole.get(ev.seat, 0)
        return {ZoneKind.BOARD: self.board, ZoneKind.BURN: self.burn,
                ZoneKind.MUCK: self.muck}[ev.zone]  # fmt: skip

    def zones(self) -> dict[str, Any]:
        """The daemon's ``[zones]`` table for this layout."""
        return {"seats": self.seats, "hole": {str(s): a for s, a in self.hole.items()},
                "board": self.board, "burn": self.burn, "muck": self.muck,
                "bet": {str(s): a for s, a in self.bet.items()}}  # fmt: skip


SIX = Layout(6)
TEN = Layout(10)


def card_uid(c: Card) -> bytes:
    return bytes([0xC0, 0xA0, int(c.suit), c.rank])


def twin_uid(c: Card) -> bytes:
    """The tag of ``c`` in the second deck (hwsim.inject's duplicate-card twin)."""
    return bytes([0xD0, 0xA0, int(c.suit), c.rank])


def tag_uid(tag: str) -> bytes:
    """The uid of a simulated tag: ``A-Ks`` (hwsim.dealer.tag_of), ``B-Ks`` (the twin deck
    of hwsim.inject), ``X-123`` (a foreign card: in no registered deck)."""
    deck, _, rest = tag.partition("-")
    if f"{deck}-" == FOREIGN_PREFIX:
        n = int(rest)
        return bytes([0xF0, 0x0F, (n >> 8) & 0xFF, n & 0xFF])
    card = Card.parse(rest)
    return twin_uid(card) if deck == TWIN_DECK else card_uid(card)


def deck_cards(deck: str = "A") -> dict[str, str]:
    """An ``enrol_deck`` command's cards for deck A (the one dealt) or its twin deck."""
    uid = twin_uid if deck == TWIN_DECK else card_uid
    return {str(c): uid(c).hex().upper() for c in STANDARD_DECK}


def chip_uid(hand: int, i: int) -> bytes:
    return bytes([0xC1, 0, hand >> 8 & 0xFF, hand & 0xFF, 0, i >> 8 & 0xFF, i & 0xFF])


DENOMINATIONS = (5000, 1000, 500, 100, 25, 5, 1)


def split_chips(amount: int, denominations: tuple[int, ...] = DENOMINATIONS) -> list[int]:
    """The chips a player pushes for ``amount``: largest first, never one chip nor all of one
    denomination when smaller ones exist (so a raise is not read as an oversized-chip call
    or under the multiple-chip rule)."""
    chips: list[int] = []
    left = amount
    for d in denominations:
        chips += [d] * (left // d)
        left %= d
    while len(set(chips)) < 2 and chips[0] > 1:
        big = chips.pop(0)
        smaller = [d for d in denominations if d < big]
        part: list[int] = []
        rest = big
        for d in smaller:
            part += [d] * (rest // d)
            rest %= d
        chips = sorted(chips + part, reverse=True)
    return chips


def daemon_config(*args: Any, **kw: Any) -> Any:
    """:func:`config_mapping` (same arguments), parsed: the daemon's config for the
    simulated table."""
    return config.from_mapping(config_mapping(*args, **kw))


def config_mapping(
    port_path: str,
    host: str,
    mqtt_port: int,
    table: str,
    profile: str,
    storage: Path,
    chips: dict[bytes, int],
    *,
    scan_period_ms: int = 20,
    timing: dict[str, Any] | None = None,
    layout: Layout = SIX,
    sections: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The daemon's config for the simulated table, as the mapping a TOML config file holds
    (``controller.daemon.config.dumps`` writes it, ``from_mapping`` parses it): the one
    builder of a simulated table's config, in-process or for a daemon process.

    ``timing``: extra ``reader`` settings (debounce_cycles, removal_cycles) and ``gpio``
    ones (sensor_settle_s, button_debounce_s) for compressed time. ``sections``: settings
    merged into their section (``{"reader": {"baudrate": 115200}, "log": {...}}``), each
    key replacing the built one."""
    timing = timing or {}
    reader_extra = {k: v for k, v in timing.items() if k.endswith("_cycles")}
    gpio_extra = {k: v for k, v in timing.items() if k.endswith("_s")}
    raw: dict[str, Any] = {
        "table": {"id": table, "venue": VENUE, "profile": profile},
        # the simulated board's pty carries frames at memory speed, not at a UART's 115200
        # baud: say so, or the daemon waits for a full scan's worth of UART time before it
        # closes each scan cycle (921600 is a standard rate; a USB reader is faster still)
        "reader": {"ports": [port_path], "scan_period_ms": scan_period_ms, "heartbeat_ms": 200,
                   "ready_timeout_s": 10.0, "baudrate": 921600, **reader_extra},
        "zones": layout.zones(),
        "gpio": {"pin_factory": "mock", "chip_sensors": {},
                 "puck_sensors": {str(s): p for s, p in layout.puck.items()}, **gpio_extra},
        "mqtt": {"host": host, "port": mqtt_port, "tls": False,
                 "allow_plaintext": True, "keepalive": 5},
        "storage": {"path": str(storage)},
        "chips": {uid.hex(): v for uid, v in chips.items() if v},
    }  # fmt: skip
    for name, extra in (sections or {}).items():
        raw[name] = {**raw.get(name, {}), **extra}
    return raw


async def wait_until(
    cond: Callable[[], bool], what: str, timeout: float = STEP_TIMEOUT, poll: float = 0.01
) -> None:
    """Poll ``cond`` until it holds; TableFailure naming ``what`` after ``timeout`` s.

    A cancellation that an await before this one swallowed (on Python 3.11, asyncio.wait_for
    returns the result when its future completes as the cancel arrives, CPython gh-86296;
    aiomqtt's publish and subscribe await it) is raised here: the task's cancel request is
    still counted, and a stop (Ctrl-C in ``railguard sim`` or the demo) must not be lost."""
    deadline = time.monotonic() + timeout
    task = asyncio.current_task()
    while not cond():
        cancel_if_asked(task)
        if time.monotonic() > deadline:
            raise TableFailure(f"timed out waiting for {what}")
        await asyncio.sleep(poll)


def ohh_stacks(ohh: dict[str, Any]) -> dict[str, int]:
    """Each player's finishing stack from an OHH record (start - put in + won + uncalled)."""
    stacks = {p["id"]: p["starting_stack"] for p in ohh["players"]}
    for r in ohh["rounds"]:
        for a in r["actions"]:
            if a["action"] != "Dealt Cards":
                stacks[a["player_id"]] -= a.get("amount", 0)
    for pot in ohh["pots"]:
        for w in pot["player_wins"]:
            stacks[w["player_id"]] += w["win_amount"]
    for u in ohh.get("uncalled_bets", ()):  # a bet nobody called, given back
        stacks[u["player_id"]] += u["amount"]
    return {str(k): int(v) for k, v in stacks.items()}
