"""A stored hand as the console's hand page shows it: street by street, with the cards.

Only completed hands reach here (the venue logger's store holds a record once the hand
ended), so the hole cards in it are the record's, never a live hand's. Built from the OHH
object alone (``controller/ohh.py``'s conventions): each street's board so far, its
actions with the player's name, the pot at the end of the street (the chips the actions
put in so far; the uncalled bets given back at the end), and the alerts raised there
(``ohh.alerts``' ``street``); then the pots and who won them.
"""

from __future__ import annotations

from typing import Any

from controller.ohh import totals

_NOT_CHIPS = ("Dealt Cards", "Shows Cards", "Mucks Cards")
SUMMARY_KEYS = ("hand_id", "venue", "table", "hand_no", "ended_at", "dealer_id")


def summary(env: dict[str, Any]) -> dict[str, Any]:
    """A hand's row in a search result: the envelope's fields, the players' names and ids,
    the alert codes and the pot; no card."""
    ohh = env.get("ohh", {})
    row = {k: env.get(k) for k in SUMMARY_KEYS}
    row["players"] = [
        {"seat": p.get("seat"), "name": p.get("name"), "player_ref": p.get("player_ref")}
        for p in ohh.get("players", ())
    ]
    row["alerts"] = [a.get("code") for a in ohh.get("alerts", ())]
    row["pot"] = sum(int(p.get("amount", 0)) for p in ohh.get("pots", ()))
    row["voided"] = "Voided" in ohh.get("flags", ())
    return row


def hand_view(env: dict[str, Any]) -> dict[str, Any]:
    """The hand page's data (see the module docstring)."""
    ohh = env["ohh"]
    names = {p["id"]: p.get("name", f"seat {p['seat']}") for p in ohh["players"]}
    players: dict[int, dict[str, Any]] = {
        p["id"]: {
            "seat": p["seat"],
            "name": p.get("name"),
            "player_ref": p.get("player_ref"),
            "starting_stack": p.get("starting_stack"),
            "final_stack": p.get("final_stack"),
            "cards": [],
            "won": 0,
        }
        for p in ohh["players"]
    }
    alerts = list(ohh.get("alerts", ()))
    has_showdown = any(r["street"] == "Showdown" for r in ohh["rounds"])
    streets: list[dict[str, Any]] = []
    board: list[str] = []
    pot = 0
    for rnd in ohh["rounds"]:
        new = list(rnd.get("cards", ()))
        board = board + new
        actions = []
        for a in rnd["actions"]:
            pid = a["player_id"]
            if a["action"] == "Dealt Cards" and pid in players:
                players[pid]["cards"] = list(a.get("cards", ()))
            if a["action"] not in _NOT_CHIPS:
                pot += int(a.get("amount", 0))
            actions.append(
                {
                    "n": a.get("action_number"),
                    "seat": pid,
                    "name": names.get(pid, f"seat {pid}"),
                    "action": a["action"],
                    "amount": a.get("amount"),
                    "all_in": bool(a.get("is_allin", False)),
                    "declaration": a.get("declaration"),
                    "cards": a.get("cards"),
                }
            )
        street = rnd["street"]
        here = [x for x in alerts if x.get("street") == street]
        if street == ohh["rounds"][-1]["street"]:
            # alerts of a street the record has no round for (a showdown's codes in a hand
            # that ended without one) go to the last street shown
            here += [x for x in alerts if x.get("street") == "Showdown" and not has_showdown]
        streets.append(
            {
                "street": street,
                "board": board,
                "new_cards": new,
                "actions": actions,
                "pot": pot,
                "alerts": here,
            }
        )
    pots = []
    for p in ohh.get("pots", ()):
        winners = []
        for w in p.get("player_wins", ()):
            pid = w["player_id"]
            if pid in players:
                players[pid]["won"] += int(w["win_amount"])
            winners.append({"seat": pid, "name": names.get(pid), "amount": w["win_amount"]})
        pots.append({"number": p.get("number"), "amount": p["amount"], "winners": winners})
    uncalled = [
        {"seat": u["player_id"], "name": names.get(u["player_id"]), "amount": u["amount"]}
        for u in ohh.get("uncalled_bets", ())
    ]
    put, in_pots, won = totals(ohh)
    return {
        **{k: env.get(k) for k in SUMMARY_KEYS},
        "game_number": ohh.get("game_number"),
        "start_date_utc": ohh.get("start_date_utc"),
        "table_name": ohh.get("table_name"),
        "button": ohh.get("dealer_seat"),
        "small_blind": ohh.get("small_blind_amount"),
        "big_blind": ohh.get("big_blind_amount"),
        "ante": ohh.get("ante_amount"),
        "voided": "Voided" in ohh.get("flags", ()),
        "players": sorted(players.values(), key=lambda p: p["seat"]),
        "streets": streets,
        "pots": pots,
        "uncalled": uncalled,
        "alerts": alerts,
        "consistent": put == in_pots == won,
    }
