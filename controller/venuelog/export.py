"""Export stored hands: OHH (one JSON object per line, or one JSON array) and PHH (TOML per
the phh-std specification): one ``<hand_id>.phh`` file per hand in a folder
(:func:`export_phh_dir`, what ``railguard replay`` and pokerkit's ``HandHistory.load`` read), or
several hands in one ``.phhs`` stream as ``[hand_id]`` tables (:func:`export_phh`, pokerkit's
``HandHistory.loads_all``).

PHH players are ordered from the seat after the button (small blind first), heads-up
reversed as the spec says; ``cbr`` amounts are the player's street total ("raise to").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from controller.link.errors import BadInput

_VARIANTS = {("Holdem", "NL"): "NT", ("Holdem", "FL"): "FT", ("Omaha", "PL"): "PO"}


def export_ohh(hands: Iterable[dict[str, Any]], out: TextIO, *, array: bool = False) -> int:
    """Write each stored hand as an OHH file object ``{"ohh": {...}}``; returns the count."""
    objs = ({"ohh": env["ohh"]} for env in hands)
    n = 0
    if array:
        out.write("[")
        for obj in objs:
            out.write(("," if n else "") + "\n" + json.dumps(obj, separators=(",", ":")))
            n += 1
        out.write("\n]\n")
        return n
    for obj in objs:
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        n += 1
    return n


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise BadInput(f"PHH export: cannot write {type(value).__name__}")


def ohh_to_phh(ohh: dict[str, Any]) -> dict[str, Any]:
    """The PHH fields of one OHH hand (hold'em / Omaha)."""
    variant = _VARIANTS.get((ohh["game_type"], ohh["bet_limit"]["bet_type"]))
    if variant is None:
        raise BadInput(f"PHH export: {ohh['game_type']} {ohh['bet_limit']['bet_type']} unsupported")
    players = sorted(ohh["players"], key=lambda p: p["seat"])
    after_button = [p for p in players if p["seat"] > ohh["dealer_seat"]]
    order = after_button + [p for p in players if p["seat"] <= ohh["dealer_seat"]]
    if len(order) == 2:
        order.reverse()  # heads-up: the button posts the small blind
    index = {p["id"]: i for i, p in enumerate(order)}
    n = len(order)
    antes, blinds = [0] * n, [0] * n
    actions: list[str] = []
    shows: list[str] = []
    last_move = -1  # where the last player action went: the hands are shown after it
    for rnd in ohh["rounds"]:
        street_total = [0] * n
        if rnd["street"] in ("Flop", "Turn", "River") and rnd.get("cards"):
            actions.append("d db " + "".join(rnd["cards"]))
        for act in rnd["actions"]:
            i = index[act["player_id"]]
            who, kind, amount = f"p{i + 1}", act["action"], act.get("amount", 0)
            if kind == "Post Ante":
                antes[i] = amount
            elif kind in ("Post SB", "Post BB", "Straddle"):
                blinds[i] = amount
                street_total[i] += amount
            elif kind == "Dealt Cards":
                actions.append(f"d dh {who} " + "".join(act.get("cards") or ["????"]))
            elif kind == "Fold":
                actions.append(f"{who} f")
                last_move = len(actions)
            elif kind in ("Check", "Call"):
                street_total[i] += amount
                actions.append(f"{who} cc")
                last_move = len(actions)
            elif kind in ("Bet", "Raise"):
                street_total[i] += amount
                actions.append(f"{who} cbr {_toml(street_total[i])}")
                last_move = len(actions)
            elif kind == "Shows Cards":
                shows.append(f"{who} sm " + "".join(act.get("cards") or ["????"]))
            elif kind == "Mucks Cards":
                shows.append(f"{who} sm")
            else:
                actions.append(f"# {who} {kind} {amount}")
    # the hands are shown once the betting is over: after the last player action, before the
    # rest of the board when the players were all in (pokerkit's order; the PHH spec's)
    at = last_move if last_move >= 0 else len(actions)
    actions[at:at] = shows
    fields: dict[str, Any] = {
        "variant": variant,
        "ante_trimming_status": False,  # an ante is dead money: never given back
        "antes": antes,
        "blinds_or_straddles": blinds,
        "min_bet": ohh["big_blind_amount"],
        "starting_stacks": [p["starting_stack"] for p in order],
        "actions": actions,
        "players": [p["name"] for p in order],
        "seats": [p["seat"] for p in order],
        "seat_count": ohh["table_size"],
        "hand": ohh["game_number"],
        "table": ohh.get("table_name", ""),
    }
    if all("final_stack" in p for p in order):
        fields["finishing_stacks"] = [p["final_stack"] for p in order]
    return fields


def phh_text(ohh: dict[str, Any]) -> str:
    fields = ohh_to_phh(ohh)
    return "".join(f"{k} = {_toml(v)}\n" for k, v in fields.items())


def export_phh(hands: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write every hand as a ``[hand_id]`` table of one ``.phhs`` stream; returns the count."""
    n = 0
    for env in hands:
        out.write(("\n" if n else "") + f"[{json.dumps(env['hand_id'])}]\n" + phh_text(env["ohh"]))
        n += 1
    return n


def phh_file_name(hand_id: str) -> str:
    """A hand's file name: its id with anything but letters, digits, ``.``, ``_``, ``-``
    replaced, and ``.phh``."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", hand_id).lstrip(".") + ".phh"


def export_phh_dir(hands: Iterable[dict[str, Any]], folder: Path) -> int:
    """Write every hand as ``folder/<hand_id>.phh`` (the folder is made if need be); returns
    the count. A hand that cannot be written as PHH raises :class:`BadInput` naming it."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for env in hands:
        hid = str(env["hand_id"])
        try:
            text = phh_text(env["ohh"])
        except (BadInput, KeyError) as exc:
            raise BadInput(f"PHH export of hand {hid}: {exc}") from exc
        (folder / phh_file_name(hid)).write_text(text, encoding="utf-8")
        n += 1
    return n
