"""Sample payloads for link and logger tests: an OHH 1.4 hand (Dwan-Ivey 2009 style,
three-handed, hole cards dealt and shown), a state, an alert, signed commands."""

from __future__ import annotations

import copy
import time
import uuid
from typing import Any

from controller.link.commands import sign

BASE_OHH: dict[str, Any] = {
    "spec_version": "1.4.6",
    "site_name": "railguard",
    "network_name": "railguard",
    "internal_version": "0.1.0",
    "tournament": True,
    "game_number": "v1-t1-1",
    "start_date_utc": "2026-11-30T20:00:00Z",
    "table_name": "t1",
    "game_type": "Holdem",
    "bet_limit": {"bet_type": "NL", "bet_cap": 0},
    "table_size": 9,
    "currency": "CHIPS",
    "dealer_seat": 3,
    "small_blind_amount": 1000,
    "big_blind_amount": 2000,
    "ante_amount": 500,
    "players": [
        {"id": 0, "seat": 1, "name": "Ivey", "starting_stack": 1125600},
        {"id": 1, "seat": 2, "name": "Antonius", "starting_stack": 2000000},
        {"id": 2, "seat": 3, "name": "Dwan", "starting_stack": 553500},
    ],
    "rounds": [
        {
            "id": 0,
            "street": "Preflop",
            "actions": [
                {"action_number": 1, "player_id": 0, "action": "Post Ante", "amount": 500},
                {"action_number": 2, "player_id": 1, "action": "Post Ante", "amount": 500},
                {"action_number": 3, "player_id": 2, "action": "Post Ante", "amount": 500},
                {"action_number": 4, "player_id": 0, "action": "Post SB", "amount": 1000},
                {"action_number": 5, "player_id": 1, "action": "Post BB", "amount": 2000},
                {
                    "action_number": 6,
                    "player_id": 0,
                    "action": "Dealt Cards",
                    "cards": ["Ac", "2d"],
                },
                {
                    "action_number": 7,
                    "player_id": 1,
                    "action": "Dealt Cards",
                    "cards": ["Kh", "Kd"],
                },
                {
                    "action_number": 8,
                    "player_id": 2,
                    "action": "Dealt Cards",
                    "cards": ["7h", "6h"],
                },
                {"action_number": 9, "player_id": 2, "action": "Raise", "amount": 7000},
                {"action_number": 10, "player_id": 0, "action": "Raise", "amount": 22000},
                {"action_number": 11, "player_id": 1, "action": "Fold"},
                {"action_number": 12, "player_id": 2, "action": "Call", "amount": 16000},
            ],
        },
        {
            "id": 1,
            "street": "Flop",
            "cards": ["Jc", "3d", "5c"],
            "actions": [
                {"action_number": 13, "player_id": 0, "action": "Bet", "amount": 35000},
                {"action_number": 14, "player_id": 2, "action": "Call", "amount": 35000},
            ],
        },
        {
            "id": 2,
            "street": "Turn",
            "cards": ["4h"],
            "actions": [
                {"action_number": 15, "player_id": 0, "action": "Bet", "amount": 90000},
                {"action_number": 16, "player_id": 2, "action": "Raise", "amount": 232600},
                {"action_number": 17, "player_id": 0, "action": "Raise", "amount": 977100},
                {
                    "action_number": 18,
                    "player_id": 2,
                    "action": "Call",
                    "amount": 262400,
                    "is_allin": True,
                },
            ],
        },
        {"id": 3, "street": "River", "cards": ["Jh"], "actions": []},
        {
            "id": 4,
            "street": "Showdown",
            "actions": [
                {
                    "action_number": 19,
                    "player_id": 0,
                    "action": "Shows Cards",
                    "cards": ["Ac", "2d"],
                },
                {
                    "action_number": 20,
                    "player_id": 2,
                    "action": "Shows Cards",
                    "cards": ["7h", "6h"],
                },
            ],
        },
    ],
    "pots": [
        {
            "number": 0,
            "amount": 1104500,
            "rake": 0,
            "player_wins": [{"player_id": 2, "win_amount": 1104500}],
        },
    ],
}


def ohh(hand_no: int, table: str = "t1", venue: str = "v1") -> dict[str, Any]:
    h = copy.deepcopy(BASE_OHH)
    h["game_number"] = f"{venue}-{table}-{hand_no}"
    h["table_name"] = table
    return h


def state(hand_no: int = 1, pot: int = 4500) -> dict[str, Any]:
    return {
        "hand_no": hand_no,
        "street": "flop",
        "board": ["Jc", "3d", "5c"],
        "pot": pot,
        "button": 3,
        "to_act": 1,
        "seats": [
            {
                "seat": 1,
                "player_id": "p1",
                "name": "Ivey",
                "stack": 1100000,
                "bet": 0,
                "cards_held": 2,
                "status": "active",
            },
            {
                "seat": 2,
                "player_id": "p2",
                "name": "Antonius",
                "stack": 1997500,
                "bet": 0,
                "cards_held": 0,
                "status": "folded",
            },
            {
                "seat": 3,
                "player_id": "p3",
                "name": "Dwan",
                "stack": 530000,
                "bet": 0,
                "cards_held": 2,
                "status": "active",
            },
        ],
    }


def alert(code: str = "EXPOSED_CARD", seat: int | None = 4) -> dict[str, Any]:
    return {
        "code": code,
        "severity": "error",
        "clause": "TDA-2024 R35",
        "remedy": "Card is turned face up and becomes the burn card",
        "seat": seat,
        "message": "a card was exposed during the deal",
    }


def command(
    name: str,
    args: dict[str, Any],
    *,
    key: bytes | None = None,
    ts: float | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    cmd = {
        "request_id": request_id or uuid.uuid4().hex,
        "ts": time.time() if ts is None else ts,
        "command": name,
        "issuer": "td-desk",
        "args": args,
    }
    return sign(cmd, key) if key is not None else cmd
