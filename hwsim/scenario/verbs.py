"""The scenario verbs, done physically at the simulated table: tags moved onto antennas
(cards), chip tags into zones (bets, sweeps), pins of the MockFactory (buttons), badges,
board faults, and venue commands over MQTT. :func:`do_action` does one action and waits
until the daemon has handled what was sensed (``Rig.settled``); the runner then checks the
expectations written after it (:mod:`hwsim.scenario.checks`).
"""

from __future__ import annotations

import asyncio

from controller.rules.events import BadgeTap, ConsoleButton, Declaration, Declare, SetDealer, Tick
from hwsim.layout import split_chips, wait_until
from hwsim.scenario.model import Action
from hwsim.scenario.parse import VENUE_VERBS
from hwsim.scenario.rig import BET, HOLE, ZONE_ANTENNA, DemoFailure, ScenarioTable, tag_of


async def _cards(rig: ScenarioTable, a: Action) -> None:
    if a.verb == "take":
        uids = [tag_of(c) for c in a.cards]
        for c, u in zip(a.cards, uids, strict=True):
            if u not in rig.where:
                raise DemoFailure(f"card {c} is not on the table")
        if a.together:
            await rig.remove_tags(uids)
        else:
            for u in uids:
                await rig.remove_tags([u])
                await rig.settled()
        return
    ant = HOLE[a.seat] if a.zone == "hole" else ZONE_ANTENNA[a.zone]
    moves = [(tag_of(c), ant) for c in a.cards]
    if a.together:
        await rig.move_tags(moves)
        return
    for m in moves:
        await rig.move_tags([m])
        await rig.settled()


def _zone_total(rig: ScenarioTable, seat: int) -> int:
    bank = _bank()
    return sum(bank[u] for u in rig.chips_on.get(seat, []))


async def _chips(rig: ScenarioTable, a: Action) -> None:
    if a.verb == "zone":  # the zone's total becomes a.amount: chips added or taken back
        now = _zone_total(rig, a.seat)
        if a.amount == now:
            return
        if a.amount > now:
            a = Action(a.line, "bet", seat=a.seat, amount=a.amount - now)
        elif a.amount == 0:
            a = Action(a.line, "takeback", seat=a.seat)
        else:
            a = Action(a.line, "takeback", seat=a.seat, amount=now - a.amount)
    if a.verb == "bet":
        values = list(a.numbers) or split_chips(a.amount)
        uids = [rig.take_chips(v) for v in values]
        rig.chips_on.setdefault(a.seat, []).extend(uids)
        await rig.move_tags([(u, BET[a.seat]) for u in uids])
        return
    if a.verb == "takeback":
        on = rig.chips_on.get(a.seat, [])
        if not on:
            raise DemoFailure(f"no chips in the betting zone of seat {a.seat}")
        bank = {u: v for u, v in _bank().items() if u in on}
        chosen = list(on) if not a.amount else _pick(on, bank, a.amount)
        if chosen is None:
            vals = sorted((bank[u] for u in on), reverse=True)
            raise DemoFailure(f"chips {vals} of seat {a.seat} cannot make {a.amount}")
        for u in chosen:
            on.remove(u)
        await rig.remove_tags(chosen)
        rig.return_chips(chosen)
        return
    # sweep: every betting zone emptied in one scan cycle
    uids = [u for on in rig.chips_on.values() for u in on]
    rig.chips_on.clear()
    if uids:
        await rig.remove_tags(uids)
        rig.return_chips(uids)


def _bank() -> dict[bytes, int]:
    from hwsim.scenario.rig import chip_bank

    return chip_bank()


def _pick(on: list[bytes], bank: dict[bytes, int], amount: int) -> list[bytes] | None:
    """Chips of ``on`` worth exactly ``amount`` (largest first; None if impossible)."""
    best: list[bytes] | None = None

    def search(i: int, left: int, chosen: list[bytes]) -> bool:
        nonlocal best
        if left == 0:
            best = list(chosen)
            return True
        if i >= len(order) or left < 0:
            return False
        return search(i + 1, left - bank[order[i]], [*chosen, order[i]]) or search(
            i + 1, left, chosen
        )

    order = sorted(on, key=lambda u: -bank[u])[:40]
    search(0, amount, [])
    return best


async def _fault(rig: ScenarioTable, a: Action) -> None:
    b = rig.board
    kind = a.text
    if kind == "garbage":
        b.faults.garbage(bytes((i * 37 + 11) % 255 + 1 for i in range(a.amount)))
    elif kind == "bitflip":
        b.faults.flip_bits(a.amount)
    elif kind == "reboot":
        b.reboot()
    elif kind == "unplug":
        b.unplug()
    elif kind == "replug":
        b.replug(rig.symlink)
    elif kind == "stall":
        b.stall()
    elif kind == "heartbeat-stall":
        b.stall_heartbeats()
    elif kind == "resume":
        b.resume()
    elif kind == "bounce":
        assert a.button is not None
        before = rig.events_handled()
        await rig.gpio.bouncy_press(a.button, hold_s=0.08)
        await wait_until(lambda: rig.events_handled() > before, "the button press")
    await asyncio.sleep(0.1)


async def _press(rig: ScenarioTable, a: Action) -> None:
    assert a.button is not None
    before = rig.events_handled()
    if a.long:
        await rig.gpio.long_press(a.button)
    else:
        await rig.gpio.press(a.button, 0.06)
    await wait_until(lambda: rig.events_handled() > before, f"the {a.button.value} press")


async def _declare(rig: ScenarioTable, a: Action) -> None:
    """The dealer records a declaration on the console (DECLARE, then the second key) for
    the seat in turn; for any other seat (the console cannot say who) the runner puts the
    ``Declare`` on the daemon's input queue, as it does badge taps."""
    word = Declaration(a.text)
    before = rig.events_handled()
    in_turn = rig.phase() not in ("idle", "draw") and rig.snapshot().to_act == a.seat
    if in_turn or word is Declaration.NOT_A_CHECK:
        await rig.gpio.declare(word, taken=lambda: rig.events_handled() > before)
    else:
        rig.put(Declare(rig.now(), word, a.seat), "gpio")
    await wait_until(lambda: rig.events_handled() > before, f"the declaration {a.text}")


async def _showdown(rig: ScenarioTable) -> None:
    """Every hand still to show is tabled in the order the table prompts (the dealer's ACK for
    each prompted seat); where the profile awards only once the losing hands are killed (003
    [L63]), the dealer then mucks each losing hand the table names (``kill_next``). Until the
    pot is pushed; nothing happens outside a showdown."""
    for _ in range(20):  # at most ten hands to table and ten to kill
        if rig.phase() != "showdown":
            return
        snap = rig.snapshot()
        if snap.show_next:
            await _press(rig, Action(0, "press", button=ConsoleButton.ACK))
            continue
        kill = list(snap.kill_next)
        if not kill:
            codes = [a.get("code") for a in rig.venue.on("alerts")][-6:]
            raise DemoFailure("showdown: no seat is prompted to show and no losing hand is"
                              f" live (last alerts {codes})")  # fmt: skip
        for seat in kill:
            hole = [u for u, ant in rig.where.items() if ant == HOLE[seat]]
            await rig.move_tags([(u, ZONE_ANTENNA["muck"]) for u in hole])
        await rig.settled()
    raise DemoFailure("showdown: every hand tabled or killed and the pot is still not pushed")


async def _show(rig: ScenarioTable, a: Action) -> None:
    """Seat N tables its hand: the dealer's ACK, which tables the seat the table prompts."""
    prompted = rig.snapshot().show_next
    if prompted != a.seat:
        where = f"seat {prompted} is" if prompted else "no seat is"
        raise DemoFailure(f"show {a.seat}: {where} prompted to show (phase {rig.phase()})")
    await _press(rig, Action(a.line, "press", button=ConsoleButton.ACK))


async def _button(rig: ScenarioTable, seat: int) -> None:
    before = rig.events_handled()
    if rig.puck is not None:
        rig.gpio.set_puck(rig.puck, False)
        await asyncio.sleep(0.2)  # longer than the sensor's settle time
    rig.gpio.set_puck(seat, True)
    rig.puck = seat
    await wait_until(lambda: rig.events_handled() > before, f"the button puck at seat {seat}")


async def _next_hand(rig: ScenarioTable) -> None:
    cards = [u for u, ant in rig.where.items() if ant not in BET.values()]
    if cards:
        await rig.remove_tags(cards)
    await rig.settled()
    try:
        await wait_until(lambda: rig.phase() == "idle", "the table to reset", 3)
    except DemoFailure:
        raise DemoFailure(
            f"the table did not get ready for the next hand (phase {rig.phase()})"
        ) from None


async def _command(rig: ScenarioTable, a: Action) -> str:
    """A venue command over MQTT: '' when accepted, else the daemon's reason."""
    v = rig.venue
    if a.verb == "seat":
        cmd, args = "seat", {"seat": a.seat, "player_id": f"p{a.seat}",
                             "name": a.text or f"p{a.seat}", "stack": a.amount}  # fmt: skip
    elif a.verb == "unseat":
        cmd, args = "unseat", {"seat": a.seat}
    elif a.verb == "move":
        cmd, args = "move", {"from_seat": a.seat, "to_seat": a.numbers[0]}
    elif a.verb == "level":
        sb, bb, ante = a.numbers
        cmd, args = "set_level", {"level": rig.levels_sent + 1, "small_blind": sb,
                                  "big_blind": bb, "ante": ante}  # fmt: skip
    elif a.verb == "set-profile":
        cmd, args = "set_profile", {"profile": a.text}
    elif a.verb == "hold-deal":
        cmd, args = "hold_deal", {"round": a.amount}
    elif a.verb == "release-deal":
        cmd, args = "release_deal", {}
    else:
        cmd, args = "button_draw", {}
    try:
        await v.do(cmd, **args)
    except DemoFailure as exc:
        prefix = f"command {cmd} refused: "
        if not str(exc).startswith(prefix):
            raise
        return str(exc)[len(prefix) :] or "refused"
    if a.verb == "level":
        rig.levels_sent += 1
    return ""


async def do_action(rig: ScenarioTable, a: Action) -> str:
    """Do ``a`` at the table; a venue command's refusal is returned (else '')."""
    refused = ""
    if a.verb in VENUE_VERBS:
        refused = await _command(rig, a)
    elif a.verb == "button":
        await _button(rig, a.seat)
    elif a.verb == "next-hand":
        await _next_hand(rig)
    elif a.verb in ("hole", "board", "burn", "muck", "take"):
        await _cards(rig, a)
    elif a.verb == "fold":
        hole = [u for u, ant in rig.where.items() if ant == HOLE[a.seat]]
        if not hole:
            raise DemoFailure(f"seat {a.seat} has no cards to muck")
        await rig.move_tags([(u, ZONE_ANTENNA["muck"]) for u in hole])
    elif a.verb in ("bet", "takeback", "sweep", "zone"):
        await _chips(rig, a)
    elif a.verb == "press":
        await _press(rig, a)
    elif a.verb == "ruling":  # a director's ruling: the supervisor's badge, then a button
        rig.put(BadgeTap(rig.now(), a.text, supervisor=True), "pcsc")
        await rig.settled()
        if a.button is not None:
            await _press(rig, a)
    elif a.verb == "badge":
        t = rig.now()
        rig.put(BadgeTap(t, a.text, supervisor=a.long), "pcsc")
        if not a.long:
            rig.put(SetDealer(t, a.text), "pcsc")
    elif a.verb == "wait":
        rig.advance(a.seconds)
        rig.put(Tick(rig.now()), "timer")
    elif a.verb == "fault":
        await _fault(rig, a)
    elif a.verb == "declare":
        await _declare(rig, a)
    elif a.verb == "showdown":
        await _showdown(rig)
    elif a.verb == "show":
        await _show(rig, a)
    else:  # pragma: no cover - the parser knows every verb
        raise DemoFailure(f"unknown action {a.verb}")
    await rig.settled()
    return refused
