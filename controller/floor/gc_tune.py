"""The console's garbage collector (issue 23): what ``railguard floor run`` sets once it has
started, and again once the room has loaded.

At a 500-table festival, at CPython's defaults (700, 10, 10), the console ran 13 young
collections a second and a full one every 9 s, each full one walking the whole heap (about
48,000 objects, nearly all of them the modules, classes and functions loaded at start-up,
which never become garbage) for 190-290 ms of a starved console's time (docs/performance.md,
"The console's garbage"). The young ones were freeing paho's reference cycles, one a message
(controller/floor/link.py :func:`~controller.floor.link.no_topic_callbacks` ends them). Here:

- :func:`after_start`: one full collection, then :func:`gc.freeze`: what start-up made is
  moved out of the collector's generations for good (still freed by reference counting when
  dropped; only a reference cycle among it would now never be collected, and start-up makes
  no garbage after the collection before the freeze). A full collection then walks the
  room, 2,500-4,500 objects, not the interpreter. Then :data:`THRESHOLDS`.
- :func:`after_load` (:data:`LOADED_S` after start): the same freeze once the room holds
  every table's retained state and the web server its first connections, so that the tiles
  and the server's long-lived objects leave the generations too.
- :data:`THRESHOLDS`: a young collection after 10,000 more container objects than were
  freed (not 700). Without cyclic garbage the count grows only with what stays: a backlog
  waiting in the MQTT client's queue, which a young collection walks and promotes; fewer,
  larger young collections of it (0-81 in a 60 s festival run, 20 ms of pauses in all).
"""

from __future__ import annotations

import gc

#: (young, middle, old): see the module's docstring
THRESHOLDS = (10_000, 10, 10)
#: seconds after start-up when the loaded room is frozen too (:func:`after_load`)
LOADED_S = 15.0


def after_start(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Collect once, freeze what start-up made, set the thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


def after_load() -> None:
    """Freeze what the loaded room and the running server hold (after a full collection,
    so that no garbage is frozen)."""
    gc.collect()
    gc.freeze()
