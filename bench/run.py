"""All of railguard's benchmarks in one run, each beside a baseline measured in the same run;
rewrites the generated figures section of docs/performance.md (between its markers; the
rest of the file is kept) and prints, last, one JSON object.

    .venv/bin/python bench/run.py            # full: about 8 minutes on the 2-core dev machine
                                             # (+4 the first time: the compiled core's build)
    .venv/bin/python bench/run.py --quick    # smoke run with small counts (under a minute)
    .venv/bin/python bench/run.py --quick --no-write

What each figure is: see the docstrings of bench/e2e.py, bench/idle.py, bench/pipeline.py,
bench/fleet.py and bench/bench_core.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import e2e, fleet, idle, pipeline, startup_rss  # noqa: E402
from hwsim.broker import mosquitto_path, plain_broker  # noqa: E402

DOC = ROOT / "docs" / "performance.md"
BEGIN = "<!-- bench/run.py: generated figures begin -->"
END = "<!-- bench/run.py: generated figures end -->"

FULL = {"core_hands": 1000, "core_repeat": 7, "compiled": True, "events": 5000,
        "pipeline_hands": 20, "idle_s": 60.0, "fleet_tables": 100, "fleet_s": 120.0}  # fmt: skip
QUICK = {"core_hands": 50, "core_repeat": 1, "compiled": False, "events": 200,
         "pipeline_hands": 1, "idle_s": 3.0, "fleet_tables": 20, "fleet_s": 4.0}  # fmt: skip


def core_bench(hands: int, repeat: int, compiled: bool = False) -> dict[str, Any]:
    """bench/bench_core.py's own main(), its JSON line parsed. ``compiled`` also builds the
    mypyc-compiled, profile-guided core of the current sources (about 4 minutes; cached by
    their hash) and times it."""
    import bench_core  # type: ignore[import-not-found]

    out = io.StringIO()
    argv = sys.argv
    sys.argv = ["bench_core.py", "--hands", str(hands), "--repeat", str(repeat)]
    if compiled:
        sys.argv.append("--compiled")
    try:
        with contextlib.redirect_stdout(out):
            bench_core.main()
    finally:
        sys.argv = argv
    result: dict[str, Any] = json.loads(out.getvalue().strip().splitlines()[-1])
    return result


def versions() -> dict[str, str]:
    v = {"python": platform.python_version()}
    for pkg in ("aiomqtt", "paho-mqtt", "pyserial-asyncio-fast", "pokerkit", "psutil"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            v[pkg] = metadata.version(pkg)
    try:
        text = subprocess.run([mosquitto_path(), "-h"], capture_output=True, text=True,
                              timeout=5, check=False).stdout  # fmt: skip
        v["mosquitto"] = text.split("version", 1)[1].split()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        v["mosquitto"] = "?"
    return v


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break

    return f"{os.cpu_count()}-core {platform.machine()} ({cpu}), {platform.system()} " \
           f"{platform.release()}"  # fmt: skip


def _step(name: str) -> None:
    print(f"== {name}", file=sys.stderr, flush=True)


def measure(n: dict[str, Any], work: Path) -> dict[str, Any]:
    r: dict[str, Any] = {}
    how = ", building the compiled core first" if n["compiled"] else ""
    _step(f"rules core vs pokerkit ({n['core_hands']} hands{how})")
    r.update(core_bench(n["core_hands"], n["core_repeat"], n["compiled"]))
    _step(f"end-to-end latency ({n['events']} events) and its floor")
    with plain_broker() as b:
        r.update(asyncio.run(e2e.run(b.port, n["events"], work / "e2e")))
    _step(f"pipeline ({n['pipeline_hands']} hands through the demo table)")
    with plain_broker() as b:
        r.update(asyncio.run(pipeline.run(b.port, n["pipeline_hands"], work / "pipeline")))
    _step(f"idle daemon and baseline ({n['idle_s']:.0f} s)")
    with plain_broker() as b:
        r.update(asyncio.run(idle.run(b.port, n["idle_s"], work / "idle")))
    _step("the daemon's start-up, stage by stage (resident memory)")
    r.update(startup_rss.run())
    _step(f"fleet ({n['fleet_tables']} tables, {n['fleet_s']:.0f} s)")
    with plain_broker() as b:
        r.update(asyncio.run(fleet.run(b.port, n["fleet_tables"], n["fleet_s"], work / "fleet")))
    return r


def figures_section(r: dict[str, Any], v: dict[str, str], quick: bool, when: str) -> str:
    cmd = ".venv/bin/python bench/run.py" + (" --quick" if quick else "")
    vers = ", ".join(f"{k} {x}" for k, x in v.items())
    core_rows = []
    if "compiled_vs_pokerkit" in r:
        core_rows.append(
            (
                "rules core as a Pi install runs it (compiled with mypyc, profile-guided, "
                "scripts/install-pi.sh) vs pokerkit, same PHH hands",
                f"{r['compiled_hands_per_s']:,} hands/s",
                f"pokerkit {r['compiled_pokerkit_hands_per_s']:,} hands/s, timed beside it in "
                "its process, slice by slice (against the pure core's pokerkit, in the other "
                f"process: {r['compiled_vs_pokerkit_across']}×)",
                f"**{r['compiled_vs_pokerkit']}×**",
                "≥ 20×",
            )
        )
    core_rows.append(
        (
            "rules core, pure Python (the developers' editable install) vs pokerkit (the dispatch "
            f"of the same events with nothing judged: {r['dispatch_floor_vs_pokerkit']}× pokerkit)",
            f"{r['core_hands_per_s']:,} hands/s ({r['core_us_per_event']} µs an event)",
            f"pokerkit {r['pokerkit_hands_per_s']:,} hands/s",
            f"**{r['core_vs_pokerkit']}×**",
            "" if core_rows else "≥ 20× (compiled core not measured: `--compiled`)",
        )
    )
    rows = [
        *core_rows,
        (f"frame on the pty → alert at an MQTT subscriber ({r['events']:,} events, daemon in "
         "its own process)", f"p50 {r['e2e_p50_ms']} ms, p99 {r['e2e_p99_ms']} ms "
         f"(max {r['e2e_max_ms']})", f"floor (bare pty hop + bare broker hop): p50 "
         f"{r['floor_p50_ms']} ms, p99 {r['floor_p99_ms']} ms; with the pty read by a process of "
         f"its own: p50 {r['proc_floor_p50_ms']} ms, p99 {r['proc_floor_p99_ms']} ms "
         f"({r['e2e_vs_proc_floor']}× p99)", f"**{r['e2e_vs_floor']}×** p99 "
         f"({r['e2e_vs_floor_p50']}× p50)", "≤ 1.5× p99"),
        (f"pipeline: hands through board, GPIO, daemon, broker, logger ({r['pipeline_hands']} "
         "generated hands)", f"{r['pipeline_hands_per_s']} hands/s "
         f"({r['pipeline_records_logged']} records logged, {r['pipeline_mismatches']} "
         "mismatches)", f"dealer pacing floor: {r['pipeline_pacing_floor_hands_per_s']} "
         f"hands/s ({r['pipeline_steps_per_hand']} steps/hand × 2 scans × 20 ms)",
         f"{r['pipeline_hands_per_s'] / r['pipeline_pacing_floor_hands_per_s']:.2f} of the "
         "floor", ""),
        (f"idle daemon CPU (psutil, {r['idle_seconds']:.0f} s)",
         f"{r['idle_cpu_s_per_min']} CPU-s/min", f"bare asyncio + aiomqtt + pty reader: "
         f"{r['baseline_cpu_s_per_min']} CPU-s/min",
         f"{r['idle_cpu_s_per_min'] / max(r['baseline_cpu_s_per_min'], 1e-6):.1f}×", "< 0.2"),
        ("daemon resident memory (the demo table, idle; beside it the private memory (USS) and "
         "the file-backed share, which varies between runs: bench/memory.py)",
         f"{r['rss_mb']} MB (USS {r['uss_mb']} MB; anon {r['anon_mb']} MB, file-backed "
         f"{r['file_mb']} MB)", f"same baseline: {r['baseline_rss_mb']} MB (USS "
         f"{r['baseline_uss_mb']} MB)", f"{r['rss_mb'] / r['baseline_rss_mb']:.1f}×", "< 45 MB"),
        ("the daemon's start-up, resident memory after each stage (bench/startup_rss.py; "
         f"{r['startup_modules']} modules; not for the table: "
         f"{', '.join(r['run_imports_not_for_the_table']) or 'none'}; first hands: "
         f"{r['startup_hands']} demo hands through the core, the evaluator's memo then "
         f"{r['startup_memo_entries']} entries; link up: the row above)",
         "; ".join(f"{k} {v}" for k, v in r["startup_rss_mb"].items()) + " MB (config "
         "loaded: " + ", ".join(f"{k.removesuffix('_mb')} {v}"
                                for k, v in r["startup_memory_mb"].items())
         + " MB; after the hands: " + ", ".join(f"{k.removesuffix('_mb')} {v}" for k, v
                                                in r["first_hands_memory_mb"].items())
         + " MB)", "", "", ""),
        (f"fleet: {r['fleet_tables']} tables at 10× human speed, one logger, one broker "
         f"({r['fleet_seconds']:.0f} s)", f"{r['fleet_records_per_s']} records/s, lag p50 "
         f"{r['fleet_lag_ms']} ms, p99 {r['fleet_lag_p99_ms']} ms, lost {r['fleet_lost']} of "
         f"{r['fleet_submitted']}", f"bare broker hop p50 {r['broker_p50_ms']} ms, p99 "
         f"{r['broker_p99_ms']} ms", f"{r['fleet_lag_ms'] / max(r['broker_p50_ms'], 1e-6):.0f}×"
         " p50", "lost 0"),
    ]  # fmt: skip
    lines = [
        BEGIN,
        "## Figures from `bench/run.py`",
        "",
        f"Generated {when} by `{cmd}`"
        + (" (a smoke run: small counts)" if quick else "")
        + f" on {machine()}; {vers}.",
        "",
        "| what | figure | baseline in the same run | ratio | target |",
        "| --- | --- | --- | --- | --- |",
        *(f"| {' | '.join(row)} |" for row in rows),
        "",
        "How each is measured: the end-to-end clock starts when the board writes the frame that "
        "completes the debounce (2 scans of 10 ms) and stops when the REJECTED alert (an unknown "
        "tag on a hole-card antenna of a table without a button) reaches a subscriber; the "
        "board shares the bench process, the subscriber has its own (bench/sub_process.py), "
        "and the daemon runs alone in "
        "`railguard run --config` (for this figure the board reports every antenna every scan, "
        "so the frame completing the debounce is a real frame). Idle: the daemon with "
        "production reader defaults (50 ms scan, changes-only reporting with a full refresh) "
        'and nothing on the table; the baseline reads a board\'s bytes. A fleet "table" is '
        "a lightweight simulated table: "
        "its own `VenueLink` and SQLite outbox fed real OHH records as the daemon stores "
        "them (committed on a thread by the outbox lane's own connection, then sent), one "
        "hand every 12 s (a live table deals about 30 an hour); lag is the logger's store "
        "time minus the time the record was handed to the outbox. Details in the "
        "docstrings of `bench/e2e.py`, `bench/idle.py`, `bench/pipeline.py`, `bench/fleet.py`.",
        END,
    ]
    return "\n".join(lines)


def write_doc(section: str) -> None:
    text = DOC.read_text()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + section + tail
    else:
        marker = "\n## Where the rules core's time goes"
        head, sep, tail = text.partition(marker)
        text = head.rstrip("\n") + "\n\n" + section + "\n" + sep + tail if sep else (
            text.rstrip("\n") + "\n\n" + section + "\n")  # fmt: skip
    DOC.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small counts: a smoke run")
    ap.add_argument("--no-write", action="store_true", help="do not touch docs/performance.md")
    ap.add_argument("--events", type=int, help="end-to-end events (default 5000; quick 200)")
    ap.add_argument(
        "--compiled",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="build and time the compiled core (default: yes, with --quick no)",
    )
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL, force=True)  # in-process daemon: quiet
    n = dict(QUICK if args.quick else FULL)
    if args.events is not None:
        if args.events < 1:
            ap.error("--events must be at least 1")
        n["events"] = args.events
    if args.compiled is not None:
        n["compiled"] = args.compiled
    sys.path.insert(0, str(ROOT / "bench"))
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="railguard-bench-") as tmp:
        r = measure(n, Path(tmp))
    v = versions()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = figures_section(r, v, args.quick, when)
    print(section.split("\n", 2)[2].rsplit("\n", 1)[0])
    if not args.no_write:
        write_doc(section)
        print(f"(wrote {DOC.relative_to(ROOT)})")
    print(f"(bench took {time.monotonic() - t0:.0f} s)")
    print(json.dumps({**r, "quick": args.quick, "versions": v}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
