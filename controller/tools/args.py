"""The arguments of the table commands (argparse only: ``railguard --help`` stays fast)."""

from __future__ import annotations

import argparse


def _config(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the daemon's TOML config file")
    p.add_argument("--reader-timeout", type=float, default=10.0,
                   help="seconds to wait for the board (or desk reader) to answer")  # fmt: skip


def calibrate(p: argparse.ArgumentParser) -> None:
    _config(p)
    p.add_argument("--seats", type=int, default=None,
                   help="seats to calibrate, 1..N (default: table.size of the config)")  # fmt: skip
    p.add_argument("--board-antennas", type=int, default=1,
                   help="antennas under the board (one step each)")  # fmt: skip
    p.add_argument("--no-bets", action="store_true", help="no betting-zone antennas")
    p.add_argument("--confirm-cycles", type=int, default=10,
                   help="scan cycles a card must be read before its antenna is taken")  # fmt: skip
    p.add_argument("--write", action="store_true",
                   help="write [zones] into the config file (the rest is kept)")  # fmt: skip


def enroll(p: argparse.ArgumentParser) -> None:
    _config(p)
    p.add_argument("--deck", required=True, help="the deck's name (replaces a deck of that name)")
    p.add_argument("--source", default="pcsc",
                   help="'pcsc' (the desk reader) or 'antenna:N' (table antenna N)")  # fmt: skip
    p.add_argument("--back", default="", help="the back design or colour, for the dealer")


def deck_check(p: argparse.ArgumentParser) -> None:
    _config(p)
    p.add_argument("--deck", required=True, help="the enrolled deck to check")
    p.add_argument(
        "--cycles",
        type=int,
        default=5,
        help="scan cycles to read (a card missed in one is read in another)",
    )
