"""The table daemon's resident memory stage by stage of its start-up, and its import set.

A fresh interpreter follows ``railguard run --config FILE``'s path one import group at a time
and reads its resident set size (``VmRSS`` of /proc/self/status) after each:

1. ``interpreter``: Python, ``site`` and the editable install's finder;
2. ``asyncio + logging``: the standard library the daemon's loop needs (asyncio imports
   ``ssl``, and with it OpenSSL's libcrypto, whether or not the link uses TLS; aiomqtt does
   too);
3. ``cli (run)``: ``controller.cli`` with the parser built for ``run`` (only the run
   command's arguments are registered; the other commands' modules are not imported);
4. ``mqtt (aiomqtt, paho)``;
5. ``schemas``: ``controller.link.schemas`` and its compiled checker;
6. ``rules core``: ``controller.rules.engine`` (with ``treys`` and the evaluator's tables);
7. ``drivers``: pyserial-asyncio-fast, gpiozero and the mock pin factory, firmware_bridge;
8. ``daemon``: ``controller.daemon.config`` and ``controller.daemon.service`` (what the run
   command imports), the venue link;
9. ``config loaded``: the demo table's config read and checked;
10. ``core built``: the table's rules core (``TableCore`` of the config's profile, as the
    daemon builds it) and the schema checkers of the messages it sends, compiled;
11. ``first hands``: :data:`HANDS` generated demo hands (``controller.demo.hands``, planned
    in the parent and handed over pickled, so the generator is not in this process) through
    a rules core, one core per hand as bench/bench_core.py does; what stays is what playing
    leaves behind (the evaluator's memo, caches), measured once the hands' events are
    dropped.

The daemon with its venue link up (the process ``railguard run`` itself, idle on the demo
table) is bench/idle.py's ``rss_mb``; bench/run.py shows it beside these stages.

Beside the RSS, each stage reports (from /proc/self/smaps_rollup, as bench/memory.py) the
private memory (USS), the anonymous pages (the Python heap: what the code allocates) and the
file-backed resident pages (code and read-only data of the interpreter and the extension
modules). The file-backed part varies between runs and machines with identical code (how much
of each shared library the kernel maps at a page fault depends on the page cache; see
bench/memory.py and docs/performance.md): compare stages by their anonymous memory.

The child also lists the modules the run path imported that the table never uses
(:data:`NOT_FOR_THE_TABLE`), taken at ``config loaded`` before the hands are fed;
tests/bench/test_run_imports.py asserts that list is empty.

    .venv/bin/python bench/startup_rss.py [--hands 200]   # a table, then one JSON object
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(ROOT))

#: packages (and their submodules) ``railguard run`` never needs: the floor console and its
#: web server, the venue logger, the simulator's scenario runner and demo, PostgreSQL, the
#: pure-Python schema validator (loaded only for an invalid message), jsonschema-rs (no
#: longer a dependency since #23, still installed in an older venv), test-only libraries
NOT_FOR_THE_TABLE = (
    "aiohttp",
    "controller.floor",
    "controller.venuelog",
    "controller.demo",
    "controller.replay",
    "controller.replay_system",
    "hwsim.scenario",
    "jsonschema",
    "jsonschema_rs",
    "psycopg",
    "pokerkit",
    "selenium",
)
#: hands fed to the core for the ``first hands`` stage
HANDS = 200

_CHILD = r"""
import importlib, json, sys
out = []
memory = []
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
def rollup():  # bench/memory.py's rollup(), inline: importing bench would add modules
    kb = {}
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            p = line.split()
            if len(p) == 3 and p[0].endswith(":"):
                kb[p[0][:-1]] = int(p[1])
    uss = kb["Private_Clean"] + kb["Private_Dirty"]
    return {"uss_mb": round(uss / 1024, 1), "anon_mb": round(kb["Anonymous"] / 1024, 1),
            "file_mb": round((kb["Rss"] - kb["Anonymous"]) / 1024, 1)}
def stage(name, *modules):
    for m in modules:
        importlib.import_module(m)
    out.append((name, round(rss(), 1), len(sys.modules)))
    memory.append(rollup())
stage("interpreter")
stage("asyncio + logging", "asyncio", "logging", "signal")
from controller import cli
parser, handlers = cli._build_parser(["run", "--config", CONFIG])
args = parser.parse_args(["run", "--config", CONFIG])
stage("cli (run)")
stage("mqtt (aiomqtt, paho)", "aiomqtt")
stage("schemas", "controller.link.schemas")
stage("rules core", "controller.rules.engine")
stage("drivers (serial, gpiozero, firmware_bridge)", "serial_asyncio_fast", "gpiozero",
      "gpiozero.pins.mock", "firmware_bridge.serial_link", "firmware_bridge.gpio")
stage("daemon (config, service, venue link)", "controller.daemon.config",
      "controller.daemon.service")
from controller.daemon.config import load
cfg = load(args.config)
stage("config loaded")
loaded = list(sys.modules)
from controller.link import schemas
from controller.rules.engine import TableCore
core = TableCore(cfg.profile, cfg.table)
for kind in ("status", "state", "event", "alert", "hand", "ohh", "response", "command"):
    schemas.fast_valid(kind, {})  # compiles the checker (the daemon does at its first send)
stage("core built")
import gc, pickle
from controller.rules import evaluate
with open(HANDS_FILE, "rb") as f:  # one hand's events at a time, as a table sees them
    while True:
        try:
            events = pickle.load(f)
        except EOFError:
            break
        core = TableCore(cfg.profile, cfg.table)
        for ev in events:
            core.handle(ev)
del events, ev
gc.collect()
stage("first hands")
sys.path.append(ROOT)  # last: only for this module's own strays()
from bench.startup_rss import strays
print(json.dumps({"stages": out, "memory": memory, "not_for_the_table": strays(loaded),
                  "memo_entries": len(evaluate._UNSUITED_BEST)}))
"""


def strays(modules: Iterable[str]) -> list[str]:
    """The modules of ``modules`` that belong to :data:`NOT_FOR_THE_TABLE`, sorted."""
    return sorted(
        m for m in modules if any(m == p or m.startswith(p + ".") for p in NOT_FOR_THE_TABLE)
    )


def plan_hands(path: Path, hands: int = HANDS, seed: int = 6) -> None:
    """Pickle the events of ``hands`` generated demo hands to ``path``, one pickle a hand."""
    from controller.demo.hands import generated_hands
    from controller.rules.profile import get_profile

    plans = generated_hands(random.Random(seed), hands, get_profile("tda-2024"))
    with path.open("wb") as f:
        for h in plans:
            pickle.dump(h.plan.events, f)


def measure(python: str = sys.executable, hands: int = HANDS) -> dict[str, Any]:
    """Run the child (a fresh interpreter, in a scratch directory so the checkout is not
    first on its path beyond what the install puts there) and return its JSON."""
    from hwsim.layout import SIX, config_mapping  # not in the child: the simulated table's
    from hwsim.table import write_config

    with tempfile.TemporaryDirectory(prefix="railguard-startup-") as tmp:
        config = Path(tmp) / "railguard.toml"
        write_config(config, config_mapping("/dev/null", "127.0.0.1", 1883, "t1", "tda-2024",
                                            Path(tmp) / "state", {}, layout=SIX))  # fmt: skip
        hands_file = Path(tmp) / "hands.pickle"
        plan_hands(hands_file, hands)
        code = (f"CONFIG = {str(config)!r}\nROOT = {str(ROOT)!r}\n"
                f"HANDS_FILE = {str(hands_file)!r}\n" + _CHILD)  # fmt: skip
        proc = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp,
            check=False,
        )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"the start-up child failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def summary(r: dict[str, Any]) -> dict[str, Any]:
    """bench/run.py's figures from :func:`measure`'s result: the RSS after each stage, in
    MB, the private/anonymous/file-backed share at ``config loaded`` and after the hands,
    and the stray imports."""
    names = [name for name, _, _ in r["stages"]]
    at = dict(zip(names, r["memory"], strict=True))
    return {
        "startup_rss_mb": {name: mb for name, mb, _ in r["stages"]},
        # the private (USS), anonymous and file-backed share (bench/memory.py)
        "startup_memory_mb": at["config loaded"],
        "first_hands_memory_mb": at["first hands"],
        "startup_modules": r["stages"][names.index("config loaded")][2],
        "startup_hands": HANDS,
        "startup_memo_entries": r["memo_entries"],
        "run_imports_not_for_the_table": r["not_for_the_table"],
    }


def run() -> dict[str, Any]:
    """bench/run.py's figures (:func:`summary`)."""
    return summary(measure())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=HANDS, help=f"hands fed (default {HANDS})")
    args = ap.parse_args(argv)
    r = measure(hands=args.hands)
    prev = 0.0
    print(f"{'stage':46s} {'RSS':>6}  {'(+)':>7}  {'USS':>5} {'anon':>5} {'file':>5}")
    for (name, mb, mods), m in zip(r["stages"], r["memory"], strict=True):
        label = f"first hands ({args.hands})" if name == "first hands" else name
        print(f"{label:46s} {mb:6.1f}  (+{mb - prev:4.1f})  {m['uss_mb']:5.1f} {m['anon_mb']:5.1f} "
              f"{m['file_mb']:5.1f} MB  {mods} modules")  # fmt: skip
        prev = mb
    print(f"imported but not for the table: {r['not_for_the_table'] or 'none'}")
    print(f"the evaluator's memo after the hands: {r['memo_entries']} entries")
    print(json.dumps(summary(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
