"""A process's memory as the kernel accounts it (/proc/PID/smaps_rollup and /proc/PID/smaps).

- ``rss_mb``: the resident set (``Rss``), what ``ps``, psutil and the issue's target count;
- ``uss_mb``: the unique set, ``Private_Clean + Private_Dirty``: the pages only this process
  maps, i.e. what the machine gets back when it exits;
- ``anon_mb``: anonymous pages (``Anonymous``): the Python heap, the objects, thread stacks;
  this part depends only on what the code does;
- ``file_mb``: file-backed resident pages (``Rss - Anonymous``): the interpreter's and the
  extension modules' code and read-only data mapped from their files. How many of those pages
  count as resident is not the code's doing: the kernel maps the pages already in the page
  cache around each page fault ("fault-around"), and how big a chunk the page cache holds
  (a 4 kB page or a large folio of up to 2 MB, after readahead) depends on how the file was
  read before (installed, copied, checksummed, imported by another process). The same
  ``jsonschema_rs.abi3.so`` shows 3.1 MB resident in one venv and 5.7 MB in another. See
  docs/performance.md ("Resident memory: what varies between runs").

    .venv/bin/python bench/memory.py PID [--top 15]   # a running process's biggest mappings
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

_MB = 1024.0  # smaps counts kB


def rollup(pid: int | str = "self") -> dict[str, float]:
    """``rss_mb``, ``uss_mb``, ``anon_mb`` and ``file_mb`` of ``pid`` (see the module)."""
    kb: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0].endswith(":"):
                kb[parts[0][:-1]] = int(parts[1])
    rss, anon = kb["Rss"], kb["Anonymous"]
    return {
        "rss_mb": round(rss / _MB, 1),
        "uss_mb": round((kb["Private_Clean"] + kb["Private_Dirty"]) / _MB, 1),
        "anon_mb": round(anon / _MB, 1),
        "file_mb": round((rss - anon) / _MB, 1),
    }


def by_mapping(pid: int | str = "self") -> list[tuple[str, float, float, float]]:
    """Per mapped file (or ``[anon]``, ``[heap]``, ``[stack]``): (name, Rss, private, anon) in
    MB, biggest resident first."""
    rss: Counter[str] = Counter()
    private: Counter[str] = Counter()
    anon: Counter[str] = Counter()
    name = "[anon]"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if not parts[0].endswith(":"):  # a header: address perms offset dev inode [path]
                name = parts[5] if len(parts) > 5 else "[anon]"
                continue
            key = parts[0][:-1]
            if key == "Rss":
                rss[name] += int(parts[1])
            elif key in ("Private_Clean", "Private_Dirty"):
                private[name] += int(parts[1])
            elif key == "Anonymous":
                anon[name] += int(parts[1])
    return [(n, rss[n] / _MB, private[n] / _MB, anon[n] / _MB) for n, _ in rss.most_common()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("pid", help="a process id, or 'self'")
    ap.add_argument("--top", type=int, default=15, help="mappings to list (default 15)")
    args = ap.parse_args(argv)
    r: dict[str, Any] = rollup(args.pid)
    print("  ".join(f"{k} {v}" for k, v in r.items()))
    print(f"{'rss':>7} {'private':>7} {'anon':>7}  mapping")
    for name, mb, priv, an in by_mapping(args.pid)[: args.top]:
        print(f"{mb:7.2f} {priv:7.2f} {an:7.2f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
