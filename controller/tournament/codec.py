"""Journal events and proposals as JSON (the journal's rows, the published proposal)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from controller.tournament.errors import Refused
from controller.tournament.state import (
    ClockOp,
    HandForHandSet,
    HandPlayed,
    HandSeat,
    JournalEvent,
    Move,
    MovesDone,
    Proposal,
    ProposalKind,
    Proposed,
    Seated,
    Seating,
    Withdrawn,
)

KINDS: dict[type, str] = {
    Seated: "seated",
    HandPlayed: "hand",
    Proposed: "proposed",
    MovesDone: "moved",
    Withdrawn: "withdrawn",
    ClockOp: "clock",
    HandForHandSet: "hand_for_hand",
}


def proposal_json(p: Proposal) -> dict[str, Any]:
    return {"id": p.id, "kind": p.kind.value, "reason": p.reason, "clauses": list(p.clauses),
            "breaks": list(p.breaks), "moves": [asdict(m) for m in p.moves]}  # fmt: skip


def proposal_of(d: dict[str, Any]) -> Proposal:
    return Proposal(int(d["id"]), ProposalKind(d["kind"]), tuple(Move(**m) for m in d["moves"]),
                    str(d["reason"]), tuple(d["clauses"]), tuple(d["breaks"]))  # fmt: skip


def encode(ev: JournalEvent) -> tuple[str, str]:
    kind = KINDS[type(ev)]
    body: dict[str, Any] = proposal_json(ev.proposal) if isinstance(ev, Proposed) else asdict(ev)
    return kind, json.dumps(body, sort_keys=True, separators=(",", ":"))


def decode(kind: str, text: str) -> JournalEvent:
    d = json.loads(text)
    try:
        if kind == "seated":
            return Seated(tuple(Seating(**s) for s in d["seatings"]), d["kind"])
        if kind == "hand":
            seats = tuple(HandSeat(**s) for s in d["seats"])
            return HandPlayed(d["table"], d["hand_id"], seats, d.get("record_seq", 0))
        if kind == "proposed":
            return Proposed(proposal_of(d))
        if kind == "moved":
            return MovesDone(d["proposal"], tuple((str(a), int(b)) for a, b in d["stacks"]))
        if kind == "withdrawn":
            return Withdrawn(d["proposal"])
        if kind == "clock":
            return ClockOp(d["op"], d["at"], d["seconds"])
        if kind == "hand_for_hand":
            return HandForHandSet(d["on"])
    except (KeyError, TypeError, ValueError) as exc:
        raise Refused("journal", f"journal row of kind {kind}: {exc}") from None
    raise Refused("journal", f"journal row of unknown kind {kind!r}")
