"""Event files for the tournament tests (TOML text, as a venue writes them)."""

from __future__ import annotations

from controller.tournament.event import Event, load_event_text

LEVELS = """
[[levels]]
minutes = 20
small_blind = 25
big_blind = 50

[[levels]]
minutes = 20
small_blind = 50
big_blind = 100
ante = 100
big_blind_ante = true

[[levels]]
break = true
minutes = 10
colour_up = "25s"

[[levels]]
minutes = 20
small_blind = 100
big_blind = 200
ante = 200
big_blind_ante = true
"""


def event_text(
    profile: str = "a2c-000",
    tables: list[int] | None = None,
    entrants: int = 0,
    extra: str = "",
    stack: int | None = 5000,
) -> str:
    seats = tables or [9, 9, 9]
    head = f'[event]\nname = "ev1"\nvenue = "v1"\nprofile = "{profile}"\n'
    if stack is not None:
        head += f"starting_stack = {stack}\n"
    head += extra
    body = "".join(f'\n[[tables]]\nid = "t{i}"\nseats = {n}\n' for i, n in enumerate(seats, 1))
    ents = "".join(
        f'\n[[entrants]]\nid = "p{i}"\nname = "Player {i}"\n' for i in range(1, entrants + 1)
    )
    return head + LEVELS + body + ents


def make_event(**kw: object) -> Event:
    return load_event_text(event_text(**kw))  # type: ignore[arg-type]
