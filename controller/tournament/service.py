"""The event at the venue (``railguard tournament run``): the core driven by the tables' own
data, its journal, and what it sends. No MQTT here: the link (:mod:`.link`) feeds it the
tables' hand records, states and command responses and the floor's event commands, and
gives it a ``send`` for table commands and a ``publish`` for the event's topics (so the
bench drives the same object without a broker).

- a hand record: the eliminations and stacks it says (:func:`~.standings.hand_from_record`);
  after an elimination or a move, any proposal pending is withdrawn and the room proposed
  again (:func:`~.balance.propose`); standings and the proposal are published;
- a table's state: each player's live stack, the button (for the moved player's
  entitlement);
- every second (:meth:`EventService.tick`): the clock published, and at a level change
  ``set_level`` to every table with players (the table applies it at its next hand, G11);
- the floor's event commands (:meth:`EventService.command`): ``draw``, ``register``,
  ``confirm``, ``withdraw``, ``clock``, ``hand_for_hand``.

Hand-for-hand: the round is tracked in the state (which tables completed the round's hand,
bust-outs of the round placed together when every table has completed it); a table whose
record completes its hand is sent ``hold_deal`` (its rules core holds the next deal: a card
dealt there is DEALT_WHILE_HELD), and when the last table completes the round every table
is sent ``release_deal`` at once (docs/tournament.md). The holds are not journaled: after a
restart (or the link's reconnection) :meth:`EventService.resync_holds` sends them again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from controller.tournament.balance import propose
from controller.tournament.codec import proposal_json
from controller.tournament.draw import RandomSource, draw_seats, late_seat
from controller.tournament.errors import Refused
from controller.tournament.event import Entrant
from controller.tournament.standings import hand_from_record, standings
from controller.tournament.state import (
    ClockOp,
    HandForHandSet,
    JournalEvent,
    Move,
    MovesDone,
    Proposed,
    Seated,
    TournamentState,
    Withdrawn,
    apply,
)
from controller.tournament.store import Journal
from controller.venuelog.store import HandStore

log = logging.getLogger("railguard.tournament")

Send = Callable[[str, str, dict[str, Any]], Awaitable[dict[str, Any]]]  # table, command, args
Publish = Callable[[str, dict[str, Any], bool], Awaitable[None]]  # topic kind, body, retain


def event_topic(event: str, kind: str) -> str:
    return f"railguard/_event/{event}/{kind}"


@dataclass
class Live:
    """What the tables' states say now (not journaled: the states are retained)."""

    stacks: dict[str, int] = field(default_factory=dict)  # player -> stack
    buttons: dict[str, int] = field(default_factory=dict)  # table -> button seat
    #: table -> its seats as its last state showed them
    seats: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: table -> the level it shows (the pending one, else the one in force)
    levels: dict[str, tuple[Any, ...]] = field(default_factory=dict)


class EventService:
    def __init__(
        self,
        state: TournamentState,
        journal: Journal,
        rng: RandomSource,
        now: Callable[[], float],
        send: Send,
        publish: Publish,
    ) -> None:
        self.state, self.journal, self.rng, self.now = state, journal, rng, now
        self.send, self.publish = send, publish
        self.live = Live()
        self.pushed_level: int | None = None
        self.held: set[str] = set()  # hand-for-hand: the tables that answered hold_deal
        self.last_clock: tuple[Any, ...] | None = None

    # ------------------------------------------------------------------ the journal
    def commit(self, ev: JournalEvent) -> None:
        """Apply ``ev`` (Refused: nothing changes), write it, then keep the new state."""
        new = apply(self.state, ev)
        self.journal.append(ev)
        self.state = new

    # ------------------------------------------------------------------ the tables' data
    async def on_hand(self, record: dict[str, Any]) -> None:
        if record.get("venue") != self.state.event.venue:
            return
        if record.get("table") not in self.state.event.by_id:
            return  # another game at the venue: not the event's
        hp = hand_from_record(record)
        before = (len(self.state.eliminations), self.state.h4h.round)
        was_on = self.state.h4h.on
        self.commit(hp)
        for hs in hp.seats:
            self.live.stacks.pop(hs.player, None)  # the record is newer than the last state
        if was_on and self.state.h4h.round != before[1]:
            await self.release_all()  # the round complete: every table deals again
        elif self.state.h4h.on and hp.table in self.state.h4h.done:
            await self.hold(hp.table)  # completed the round's hand: wait for the others
        if (len(self.state.eliminations), self.state.h4h.round) != before:
            self.rebalance()
            await self.publish_all()
        else:
            await self.publish_standings()

    # ------------------------------------------------------------------ hand-for-hand
    async def hold(self, table: str) -> None:
        """``hold_deal`` to ``table``: it has completed this round's hand."""
        rnd = self.state.h4h.round
        resp = await self.send(table, "hold_deal", {"round": rnd})
        if resp.get("ok"):
            self.held.add(table)
            log.info("tournament: hand-for-hand round %d: %s held", rnd, table)
        else:
            log.warning("tournament: hold_deal at %s: %s", table, resp.get("reason"))

    async def release_all(self) -> list[dict[str, Any]]:
        """``release_deal`` to every table with players, at once (those not held answer
        ok too): the hand-for-hand round is complete, or hand-for-hand is off."""
        tables = [t for t, seats in self.state.occupied().items() if seats] + sorted(
            t for t in self.held if not self.state.occupied().get(t)
        )
        answers = await asyncio.gather(*(self.send(t, "release_deal", {}) for t in tables))
        self.held.clear()
        out = []
        for t, resp in zip(tables, answers, strict=True):
            out.append({"table": t, **_answer(resp)})
            if not resp.get("ok"):
                log.warning("tournament: release_deal at %s: %s", t, resp.get("reason"))
        log.info("tournament: hand-for-hand: %d tables released", len(tables))
        return out

    async def check_hold(self, table: str, body: dict[str, Any]) -> None:
        """A table's state: a table held this round that shows no hold (its daemon restarted:
        the hold is not in the table store) is held again."""
        if (
            self.state.h4h.on
            and table in self.held
            and table in self.state.h4h.done
            and body.get("deal_hold") is None
        ):
            self.held.discard(table)
            await self.hold(table)

    async def resync_holds(self) -> None:
        """After a restart or a reconnection: hold again the tables that completed the
        round's hand (the tables' own holds survive their restarts; this is for ours)."""
        if self.state.h4h.on:
            for t in sorted(self.state.h4h.done):
                await self.hold(t)

    def catch_up(self, store: HandStore) -> int:
        """The hand records the venue logger stored that this event has not applied (those
        sent while the service was down: its MQTT session keeps nothing), per table in the
        table's record order after the last one applied; the room proposed again after.
        Returns how many were applied."""
        n = 0
        before = len(self.state.eliminations)
        for t in self.state.event.tables:
            last = self.state.last_record.get(t.id, 0)
            seen = self.state.hands_seen.get(t.id, ())
            for rec in store.hands(self.state.event.venue, t.id):
                seq = rec.get("record_seq")
                if not isinstance(seq, int) or seq <= last or rec.get("hand_id") in seen:
                    continue
                try:
                    self.commit(hand_from_record(rec))
                    n += 1
                except Refused as exc:
                    log.warning("tournament: stored hand %s: %s", rec.get("hand_id"), exc)
        if len(self.state.eliminations) != before:
            self.rebalance()
        return n

    def on_state(self, table: str, body: dict[str, Any]) -> bool:
        """Take a table's state; True when what the event finds irregular there changed
        (the standings are then published again)."""
        if table not in self.state.event.by_id:
            return False
        before = self.irregular_at(table)
        seats = [x for x in body.get("seats") or [] if isinstance(x, dict)]
        self.live.seats[table] = seats
        for x in seats:
            if isinstance(x.get("player_id"), str):
                stack = x.get("stack")
                if isinstance(stack, int) and not isinstance(stack, bool):
                    self.live.stacks[x["player_id"]] = stack
        if isinstance(body.get("button"), int):
            self.live.buttons[table] = body["button"]
        lv = body.get("pending_level") or body.get("level")
        if isinstance(lv, dict):
            self.live.levels[table] = _level_key(lv)
        return self.irregular_at(table) != before

    def irregular_at(self, table: str) -> list[tuple[Any, str, str]]:
        out = []
        for x in self.live.seats.get(table, []):
            if isinstance(x.get("player_id"), str) and (why := self._irregular(table, x)):
                out.append((x.get("seat"), x["player_id"], why))
        return out

    def _irregular(self, table: str, seat: dict[str, Any]) -> str:
        """Why a seat the table shows is not the event's, or "" (004 [L135]: a player
        eliminated is not seated again; a seat the event did not draw is the floor's)."""
        p = self.state.players.get(seat["player_id"])
        if p is None:
            return "not an entrant of the event (seat through the event's register)"
        if p.table is None:
            return "eliminated: this event allows no re-entry (004 [L135], 004-TG-25)"
        if p.table != table or p.seat != seat.get("seat"):
            return f"the event has this player at {p.table} seat {p.seat}"
        return ""

    def rebalance(self) -> None:
        """After an elimination or a move: the pending proposal withdrawn, the room
        proposed again (000 [L40], 004 [L109]-[L113], 002 [L35])."""
        if self.state.proposal is not None:
            self.commit(Withdrawn(self.state.proposal.id))
        prop = propose(self.state, self.rng, self.live.buttons)
        if prop is not None:
            self.commit(Proposed(prop))
            log.info("tournament: proposal %d (%s): %s", prop.id, prop.kind.value, prop.reason)

    # ------------------------------------------------------------------ publishing
    def standings(self) -> dict[str, Any]:
        irregular = [
            {"table": t, "seat": seat, "player_id": pid, "reason": why}
            for t in sorted(self.live.seats)
            for seat, pid, why in self.irregular_at(t)
        ]
        return {**standings(self.state, self.live.stacks), "irregular": irregular}

    def proposal(self) -> dict[str, Any]:
        p = self.state.proposal
        return {"event": self.state.event.name, "proposal": None if p is None else proposal_json(p)}

    def clock(self) -> dict[str, Any]:
        ev, c = self.state.event, self.state.clock
        due = c.due(ev.levels, self.now())
        left = len(self.state.playing())

        def level(lv: Any) -> dict[str, Any] | None:
            if lv is None:
                return None
            return {
                "level": lv.number,
                "small_blind": lv.small_blind,
                "big_blind": lv.big_blind,
                "ante": lv.ante,
                "big_blind_ante": lv.big_blind_ante,
                "break": lv.is_break,
                "minutes": lv.minutes,
                "label": lv.label(),
            }

        return {
            "event": ev.name,
            "started": c.started is not None,
            "paused": due.paused,
            "index": due.index,
            "level": level(due.level),
            "next": level(due.next),
            "seconds_left": int(due.seconds_left),
            "players_left": left,
            "average": self.state.chips() // left if left else 0,
            "ts": self.now(),
        }

    async def publish_standings(self) -> None:
        await self.publish("standings", self.standings(), True)

    async def publish_all(self) -> None:
        await self.publish("proposal", self.proposal(), True)  # the floor's first
        await self.publish_standings()
        await self.publish("clock", self.clock(), True)

    async def tick(self) -> None:
        """Once a second: the clock published when its second changes, and the level pushed
        to every table at a change (000 [L35]-[L36]; a table mid-hand applies it at its
        next hand, G11: the daemon's set_level answers ``next hand``)."""
        c = self.clock()
        key = (c["index"], c["seconds_left"], c["paused"], c["players_left"], c["average"])
        if key != self.last_clock:
            self.last_clock = key
            await self.publish("clock", c, True)
        if self.state.clock.started is None:
            return
        due = self.state.clock.due(self.state.event.levels, self.now())
        if due.playing.number != self.pushed_level:
            self.pushed_level = due.playing.number
            await self.push_level()

    async def push_level(self) -> list[dict[str, Any]]:
        due = self.state.clock.due(self.state.event.levels, self.now())
        lv = due.playing
        args = {
            "level": lv.number,
            "small_blind": lv.small_blind,
            "big_blind": lv.big_blind,
            "ante": lv.ante,
            "big_blind_ante": lv.big_blind_ante,
        }
        out = []
        for table, seats in self.state.occupied().items():
            if seats and self.live.levels.get(table) != _level_key(args):
                resp = await self.send(table, "set_level", args)
                out.append({"table": table, **_answer(resp)})
                if not resp.get("ok"):
                    log.warning(
                        "tournament: set_level %d at %s: %s", lv.number, table, resp.get("reason")
                    )
        return out

    # ------------------------------------------------------------------ the floor's commands
    async def command(self, name: str, args: dict[str, Any], issuer: str) -> dict[str, Any]:
        """One event command; the answer's ``data``. Refused: the state is unchanged."""
        handlers: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {
            "draw": self._draw,
            "register": self._register,
            "confirm": self._confirm,
            "withdraw": self._withdraw,
            "clock": self._clock,
            "hand_for_hand": self._h4h,
            "push_level": self._push_level,
        }
        if name not in handlers:
            raise Refused("unknown", f"unknown event command {name!r} (one of {sorted(handlers)})")
        log.info("tournament: %s by %s", name, issuer)
        data = await handlers[name](args)
        await self.publish_all()
        return data

    async def _seat_all(self, seated: Seated) -> list[dict[str, Any]]:
        out = []
        for s in seated.seatings:
            resp = await self.send(
                s.table,
                "seat",
                {"seat": s.seat, "player_id": s.player, "name": s.name, "stack": s.stack},
            )
            out.append({"player_id": s.player, "table": s.table, "seat": s.seat, **_answer(resp)})
        return out

    async def _draw(self, args: dict[str, Any]) -> dict[str, Any]:
        """The initial seat draw of the event file's entrants (000 [L30], 002 [L21], 003
        [L23], 004 [L87]); a player already seated is left where he is."""
        todo = [e for e in self.state.event.entrants if e.id not in self.state.players]
        if not todo:
            raise Refused("drawn", "every entrant of the event file is already seated")
        seated = draw_seats(self.state, todo, self.rng)
        self.commit(seated)
        return {"seated": await self._seat_all(seated)}

    async def _register(self, args: dict[str, Any]) -> dict[str, Any]:
        """A late registration: the emptiest table by draw; the stack must be the event's
        starting stack (000 [L31], 003 [L7]); a busted player is refused (004 [L135])."""
        pid, name, stack = args.get("player_id"), args.get("name"), args.get("stack")
        if not isinstance(pid, str) or not isinstance(name, str):
            raise Refused("args", "register: player_id and name are strings")
        if stack is None:
            stack = self.state.event.starting_stack
        if isinstance(stack, bool) or not isinstance(stack, int):
            raise Refused("args", "register: stack is an integer")
        seated = late_seat(self.state, Entrant(pid, name), stack, self.rng)
        self.commit(seated)
        out = await self._seat_all(seated)
        self.rebalance()
        return {"seated": out}

    async def _withdraw(self, args: dict[str, Any]) -> dict[str, Any]:
        self.commit(Withdrawn(_int(args, "proposal")))
        return {}

    async def _confirm(self, args: dict[str, Any]) -> dict[str, Any]:
        """The floor confirmed the pending proposal: every moved player unseated at his
        table (which answers his stack), then seated at the new seat with that stack (a
        moved player keeps his stack); a refused step puts the players back."""
        pid = _int(args, "proposal")
        prop = self.state.proposal
        if prop is None or prop.id != pid:
            raise Refused(
                "stale",
                f"proposal {pid} is not the one pending"
                + (f" (proposal {prop.id} is)" if prop else ""),
            )
        moves = [m for m in prop.moves if (m.from_table, m.from_seat) != (m.to_table, m.to_seat)]
        steps: list[dict[str, Any]] = []
        stacks: dict[str, int] = {}
        for m in moves:
            resp = await self._step(steps, m.from_table, "unseat", {"seat": m.from_seat})
            if not resp.get("ok"):
                await self._undo(moves, stacks, steps, seated=set())
                raise Refused(
                    "move_failed",
                    f"{m.from_table} refused to unseat seat"
                    f" {m.from_seat}: {resp.get('reason')}; nothing moved",
                )
            stack = (resp.get("data") or {}).get("stack")
            stacks[m.player] = (
                stack if isinstance(stack, int) else self.state.players[m.player].stack
            )
        seated: set[str] = set()
        for m in moves:
            resp = await self._seat(steps, m, m.to_table, m.to_seat, stacks[m.player])
            if not resp.get("ok"):
                await self._undo(moves, stacks, steps, seated)
                raise Refused(
                    "move_failed",
                    f"{m.to_table} refused seat {m.to_seat} for"
                    f" {m.player}: {resp.get('reason')}; the players were put back",
                )
            seated.add(m.player)
        self.commit(MovesDone(pid, tuple(sorted(stacks.items()))))
        self.rebalance()
        return {"steps": steps}

    async def _undo(
        self,
        moves: list[Any],
        stacks: dict[str, int],
        steps: list[dict[str, Any]],
        seated: set[str],
    ) -> None:
        for m in moves:
            if m.player in seated:
                await self._step(steps, m.to_table, "unseat", {"seat": m.to_seat})
        for m in moves:
            if m.player in stacks:
                await self._seat(steps, m, m.from_table, m.from_seat, stacks[m.player])

    async def _seat(
        self, steps: list[dict[str, Any]], m: Move, table: str, seat: int, stack: int
    ) -> dict[str, Any]:
        """Seat the moved player ``m`` at ``table``'s ``seat`` with ``stack``: a step."""
        args = {"seat": seat, "player_id": m.player, "name": m.name, "stack": stack}
        return await self._step(steps, table, "seat", args)

    async def _step(
        self, steps: list[dict[str, Any]], table: str, command: str, args: dict[str, Any]
    ) -> dict[str, Any]:
        """One table command of a confirm, its answer added to ``steps``; the response."""
        resp = await self.send(table, command, args)
        steps.append({"table": table, "command": command, **_answer(resp)})
        return resp

    async def _clock(self, args: dict[str, Any]) -> dict[str, Any]:
        op = args.get("op")
        if not isinstance(op, str):
            raise Refused("args", "clock: op is one of start, pause, resume, adjust")
        seconds = args.get("seconds", 0)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise Refused("args", "clock: seconds is a number")
        self.commit(ClockOp(op, self.now(), float(seconds)))
        await self.tick()
        return {"clock": self.clock()}

    async def _h4h(self, args: dict[str, Any]) -> dict[str, Any]:
        on = args.get("on")
        if not isinstance(on, bool):
            raise Refused("args", "hand_for_hand: on is true or false")
        was = self.state.h4h.on
        self.commit(HandForHandSet(on))
        if not on:
            self.rebalance()
            if was:
                return {"hand_for_hand": on, "released": await self.release_all()}
        return {"hand_for_hand": on}

    async def _push_level(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"tables": await self.push_level()}


def _level_key(lv: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(lv.get(k) for k in ("level", "small_blind", "big_blind", "ante"))


def _int(args: dict[str, Any], key: str) -> int:
    v = args.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Refused("args", f"{key}: an integer")
    return v


def _answer(resp: dict[str, Any]) -> dict[str, Any]:
    return {"ok": bool(resp.get("ok")), "reason": str(resp.get("reason", ""))}
