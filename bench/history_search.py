"""The floor console's hand-history search on a large SQLite store, as ratios to a baseline
of the same run: each filter's query time over the time of the plain newest-first page
(``ORDER BY ended_at DESC LIMIT 25``, the index's own order).

The store is filled with N copies of two real records (tests/floor/records.py: corpus hands
dealt through the rules core, one with an exposed card), spread over 40 tables and 25
dealers. The table and time-range filters use columns; the dealer, player and alert filters
the store's tags, and then, on the same store untagged (as an older logger left it, opened
read-only), the records' JSON; both must find the same hands. Prints a table and, last,
one JSON line.

    .venv/bin/python bench/history_search.py [--hands 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.venuelog.query import HandQuery, tags
from controller.venuelog.store import SqliteHandStore, SqliteReadOnlyStore, _body, _row
from tests.floor.records import T0, record

QUERIES = {
    "newest page (baseline)": HandQuery(),
    "table": HandQuery(table="t3"),
    "last 5% of the time": None,  # set from --hands
    "dealer": HandQuery(dealer="D3"),
    "player (found)": HandQuery(player="gogo"),
    "player (none)": HandQuery(player="nobody"),
    "alert": HandQuery(alert="EXPOSED_CARD"),
    "table + dealer + player": HandQuery(table="t2", dealer="D2", player="gogo"),
}


def fill(store: SqliteHandStore, n: int) -> None:
    base = [record("pluribus/31/11.phh", 1, refs={"Gogo": "P-77"}),
            record("pluribus/100/0.phh", 2, inject="exposed")]  # fmt: skip
    rows, tagged = [], []
    for i in range(n):
        e = copy.deepcopy(base[i % 2])
        e.update(hand_id=f"v1-t{i % 40}-{i + 1}", table=f"t{i % 40}", hand_no=i + 1,
                 record_seq=i + 1, ended_at=T0 + i, dealer_id=f"D{i % 25}")  # fmt: skip
        rows.append(_row(e, _body(e)))
        tagged += [(e["hand_id"], k, v) for k, v in tags(e)]  # as SqliteHandStore.put does
    with store.db.transaction("filling the bench store", durable=False) as con:
        con.executemany("INSERT INTO hands VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.executemany("INSERT INTO hand_tags (hand_id, kind, value) VALUES (?, ?, ?)", tagged)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    QUERIES["last 5% of the time"] = HandQuery(since=T0 + args.hands * 0.95)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteHandStore(Path(tmp) / "venue.db")
        fill(store, args.hands)
        found = {name: store.search(q)[1] for name, q in QUERIES.items() if q}  # warm-up
        runs: dict[str, list[float]] = {name: [] for name in QUERIES}
        for _ in range(args.repeat):  # interleaved: the machine's load hits every query
            for name, q in QUERIES.items():
                assert q is not None
                t = time.perf_counter()
                store.search(q)
                runs[name].append(time.perf_counter() - t)
        times = {name: statistics.median(r) for name, r in runs.items()}
        # the same searches through the records' JSON: the store as a logger of the
        # previous version left it, opened read-only as the console does
        with store.db.transaction("untagging", durable=False) as con:
            con.execute("DELETE FROM store_meta")
        ro = SqliteReadOnlyStore(Path(tmp) / "venue.db")
        assert not ro.tagged
        json_runs: dict[str, list[float]] = {name: [] for name in QUERIES}
        for _ in range(args.repeat):
            for name, q in QUERIES.items():
                assert q is not None
                t = time.perf_counter()
                _, n = ro.search(q)
                json_runs[name].append(time.perf_counter() - t)
                assert n == found[name], (name, n, found[name])  # the same answers
        json_times = {name: statistics.median(r) for name, r in json_runs.items()}
        ro.close()
        store.close()
    base = times["newest page (baseline)"]
    print(f"{args.hands} hands; median of {args.repeat}; ratio to the newest page (tagged)")
    print(f"  {'':28} {'found':>7}  {'tags':>8}  {'JSON':>8}")
    for name, t in times.items():
        print(f"  {name:28} {found[name]:7d}  x{t / base:7.2f}  x{json_times[name] / base:7.2f}")
    print(json.dumps({"hands": args.hands,
                      "tags": {k: round(t / base, 2) for k, t in times.items()},
                      "json": {k: round(t / base, 2) for k, t in json_times.items()}}))  # fmt: skip


if __name__ == "__main__":
    main()
