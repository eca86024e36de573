"""Hand records for the hand-history tests, made the way a table makes them: a recorded hand
of the shared corpus dealt through the rules core (with one dealer error injected, as
``railguard replay --inject`` does), written as OHH by ``controller/ohh.py`` and wrapped in
the envelope the venue link sends (``hand.json``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from controller.link import schemas
from controller.ohh import to_ohh
from controller.replay import replay_core, replay_core_injected
from controller.rules.profile import get_profile
from hwsim.phh import load_phh
from tests.shared import PHH, need

START = datetime(2024, 5, 1, 18, 30, tzinfo=UTC)
T0 = START.timestamp()


def record(
    source: str,
    n: int,
    *,
    table: str = "t1",
    ended_at: float | None = None,
    dealer: str | None = "D1",
    inject: str | None = None,
    refs: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The envelope of ``source`` (a file under ../shared/data/phh) as hand ``n`` of
    ``table`` in venue v1; ``refs`` gives players a venue player id (name -> id)."""
    hh = load_phh(need(PHH / source))
    profile = get_profile("tda-2024")
    if inject is None:
        rec, _ = replay_core(hh, profile)
    else:
        rec, _, _ = replay_core_injected(hh, profile, inject)
    assert rec is not None
    ohh = to_ohh(rec, START, table_name=table, table_size=6)
    for p in ohh["players"]:
        p.pop("player_ref", None)
        if refs and p["name"] in refs:
            p["player_ref"] = refs[p["name"]]
    env = {
        "kind": "hand",
        "hand_id": f"v1-{table}-{n}",
        "venue": "v1",
        "table": table,
        "hand_no": n,
        "record_seq": n,
        "replayed": False,
        "ended_at": T0 + 60.0 * n if ended_at is None else ended_at,
        "sent_at": T0 + 60.0 * n + 1,
        "dealer_id": dealer,
        "ohh": ohh,
    }
    schemas.validate("hand", env)
    schemas.validate("ohh", ohh)
    return env


def source_streets(source: str) -> list[dict[str, Any]]:
    """What pokerkit makes of the source file, street by street: the board, the pot once the
    street's betting is over, and the players' moves ((name, PHH verb)), before the showdown."""
    import pokerkit

    with need(PHH / source).open("rb") as f:
        src = pokerkit.HandHistory.load(f)
    names = list(src.players)
    streets: list[dict[str, Any]] = [{"board": [], "moves": [], "pot": 0}]
    for line, state in zip(["start", *src.actions], src, strict=True):
        parts = line.split()
        if line.startswith("d db"):
            board = [str(c).strip("[]") for c in state.board_cards]
            streets.append({"board": board, "moves": [], "pot": state.total_pot_amount})
        elif len(parts) >= 2 and parts[0].startswith("p") and parts[1] in ("f", "cc", "cbr"):
            streets[-1]["moves"].append((names[int(parts[0][1:]) - 1], parts[1]))
            streets[-1]["pot"] = state.total_pot_amount
    return streets
