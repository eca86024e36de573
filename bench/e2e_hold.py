"""The reader held while the alert crosses (``reader.alert_hold_ms``), paired in one run:
half the alerts held, half not, chosen at random, under the same minutes of the machine.

Separate runs of ``bench/e2e.py`` with and without the hold differ from each other by more
than the hold does at p99 on this shared 2-core machine: the floor's own p99 moved from
1.4 to 10 ms between runs of one hour. Here one daemon serves both arms: a
``sitecustomize`` on its ``PYTHONPATH`` (the checkout's own packages, unchanged) lets the
venue link tell the daemon of a written alert (``VenueLink.on_alert_written``, which
holds the reader) only for alert ids whose last hex digit is even. The ids are random
(uuid4), so the arms interleave at random; the bench reads each sample's arm from its id.
Everything else is bench/e2e.py's: the table, the stamping board, the subscriber in its
own process, the floor sampled after each event, the daemon's stage stamps.

    .venv/bin/python bench/e2e_hold.py [--events 3000] [--hold-ms 1.0]

Prints one JSON object: per arm the end-to-end p50/p99, the alert's broker hop (the
daemon's encoded stamp to the subscriber) p50/p99 and the count; the floor of the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import e2e
from bench.procs import pct
from hwsim.broker import plain_broker

ROOT = Path(__file__).resolve().parents[1]

SITECUSTOMIZE = '''\
"""bench/e2e_hold.py: the venue link tells of a written alert only for even alert ids, and
the daemon then holds its reader for HOLD seconds."""
import atexit
import json

import controller.daemon.service as _service
import controller.link.client as _client

HOLD = {hold!r}
HELD = []  # the ids of the alerts the reader was held for, written at exit


@atexit.register
def _write():
    with open({out!r}, "w") as f:
        json.dump(HELD, f)

_send_now = _client.VenueLink._send_now


def _paired(self, msg):
    told = self.on_alert_written
    if told is not None and not held(str(msg.get("alert_id", ""))):
        self.on_alert_written = None
        try:
            return _send_now(self, msg)
        finally:
            self.on_alert_written = told
    written = _send_now(self, msg)
    if written and told is not None:
        HELD.append(str(msg.get("alert_id", "")))
    return written


def held(alert_id):
    return bool(alert_id) and int(alert_id[-1], 16) % 2 == 0


def _alert_written(self):
    if self.reader is not None:
        self.reader.hold(HOLD)


_client.VenueLink._send_now = _paired
_service.Daemon.alert_written = _alert_written
'''


def held(alert_id: str) -> bool:
    """The arm of an alert, as the daemon's sitecustomize chose it."""
    return bool(alert_id) and int(alert_id[-1], 16) % 2 == 0


def sources(tmp: Path, hold_ms: float) -> Path:
    """The daemon's PYTHONPATH: the checkout's packages (linked) and the sitecustomize."""
    d = tmp / "sources"
    d.mkdir()
    for pkg in ("controller", "hwsim", "firmware_bridge"):
        (d / pkg).symlink_to(ROOT / pkg)
    text = SITECUSTOMIZE.format(hold=hold_ms / 1000, out=str(d / "held.json"))
    (d / "sitecustomize.py").write_text(text)
    return d


def check_arms(run: e2e.Run, held_ids: list[str]) -> None:
    """The daemon held its reader for exactly the held arm's alerts that it wrote directly
    (``held.json``, from its sitecustomize): the arms are what they claim to be."""
    told = set(held_ids)
    wrong = [s.alert_id for s in run.samples
             if (s.alert_id in told) is not held(s.alert_id)
             and e2e.direct(run.stages.get(s.alert_id))]  # fmt: skip
    if wrong or not told:
        raise RuntimeError(f"the daemon's holds do not match the arms: {wrong[:5]}, "
                           f"{len(told)} held")  # fmt: skip


def arms(run: e2e.Run) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for arm, want in (("held", True), ("not_held", False)):
        lat: list[float] = []
        hop: list[float] = []
        for s in run.samples:
            if held(s.alert_id) is not want:
                continue
            lat.append(s.received - s.frame)
            st = run.stages.get(s.alert_id)
            if st is not None and st.get("encoded"):
                hop.append(s.received - st["encoded"] / 1e9)
        if not lat:
            raise RuntimeError(f"no alert of the {arm} arm arrived")
        out[arm] = {
            "n": len(lat),
            "e2e_p50_ms": e2e.ms(statistics.median(lat)),
            "e2e_p99_ms": e2e.ms(pct(lat, 0.99)),
            "alert_hop_p50_ms": e2e.ms(statistics.median(hop)) if hop else None,
            "alert_hop_p99_ms": e2e.ms(pct(hop, 0.99)) if hop else None,
        }
    return out


async def run(port: int, events: int, workdir: Path, hold_ms: float) -> dict[str, Any]:
    e2e.check_clocks()
    env = {"PYTHONPATH": str(sources(workdir, hold_ms))}
    r = await e2e.daemon_e2e(port, events, workdir / "e2e", env)
    check_arms(r, json.loads((workdir / "sources" / "held.json").read_text()))
    floor = e2e.summary(r)
    return {
        "events": events,
        "hold_ms": hold_ms,
        "timeouts": r.timeouts,
        **arms(r),
        "floor_p50_ms": floor["floor_p50_ms"],
        "floor_p99_ms": floor["floor_p99_ms"],
        "floor_hop_p50_ms": floor["broker_p50_ms"],
        "floor_hop_p99_ms": floor["broker_p99_ms"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--events", type=int, default=3000, help="events (default 3000)")
    ap.add_argument("--hold-ms", type=float, default=1.0,
                    help="reader.alert_hold_ms of the held arm (default 1.0)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.events < 2:
        ap.error("--events must be at least 2")
    with tempfile.TemporaryDirectory(prefix="railguard-hold-") as tmp, plain_broker() as b:
        r = asyncio.run(run(b.port, args.events, Path(tmp), args.hold_ms))
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
