"""``railguard demo`` end to end as a user runs it: a subprocess with its own broker, daemon,
simulated board and GPIO plays three seeded hands and exits 0 with the summary line; the
floor console it opens serves the room with the demo table in it."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
RAILGUARD = Path(sys.executable).parent / "railguard"
CONSOLE_LINE = re.compile(r"floor console (http://\S+/) \(user (\S+), password (\S+)\)")
SEAT_LINE = re.compile(r"^    seat \d+\s+(\S+)\s+\d+$")
T = TypeVar("T")


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    proc = subprocess.Popen(
        [*cmd, "demo", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the demo and its private mosquitto
        out, _ = proc.communicate()
        pytest.fail(f"railguard demo timed out:\n{out}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


needs_mosquitto = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)


@needs_mosquitto
@pytest.mark.timeout(150)
@pytest.mark.parametrize("source", ["auto", "generated"])
def test_demo_plays_three_seeded_hands(source: str) -> None:
    r = _run("--hands", "3", "--seed", "1", "--source", source, "--error-rate", "0.5",
             "--tables", "1")  # fmt: skip
    assert r.returncode == 0, r.stdout
    assert re.search(r"^demo: 3 hands played, 0 records missing, 0 mismatches, seed 1: OK$",
                     r.stdout, re.M), r.stdout  # fmt: skip
    assert "hand records: daemon 3, over MQTT 3, stored by the venue logger 3" in r.stdout
    assert "\x1b[" not in r.stdout  # not a terminal: no colour codes


@needs_mosquitto
@pytest.mark.timeout(150)
def test_demo_is_reproducible_with_a_seed() -> None:
    a = _run("--hands", "2", "--seed", "7", "--source", "generated", "--tables", "1")
    b = _run("--hands", "2", "--seed", "7", "--source", "generated", "--tables", "1")
    assert a.returncode == b.returncode == 0, a.stdout + b.stdout

    def hands(out: str) -> list[str]:
        keep = ("    seat ", "    finishing stacks")
        return [ln for ln in out.splitlines() if ln.startswith(keep)]

    assert hands(a.stdout) and hands(a.stdout) == hands(b.stdout)


@needs_mosquitto
@pytest.mark.timeout(150)
@pytest.mark.parametrize("profile", ["vistancia-002", "club-003"])
def test_demo_with_no_dealer_error_raises_no_alert_above_info(profile: str) -> None:
    """With no error injected the dealer plays clean: an alert above info is a false alarm,
    and the demo fails on one (issue 24). Generated four-handed hands with seed 3 include
    limped pots (their sweep drew CHIPS_TAKEN_BACK under 002) and showdowns (003's
    LOSING_HAND_LIVE; and WINNING_HAND_MUCKED at the room's second table, where the demo's
    dealer mucked a losing hand before the daemon had taken the ACK tabling the winner)."""
    r = _run("--hands", "3", "--seed", "3", "--source", "generated", "--error-rate", "0",
             "--profile", profile, "--no-console")  # fmt: skip
    assert "FALSE ALARMS" not in r.stdout, r.stdout
    assert r.returncode == 0, r.stdout
    assert "dealer errors injected: 0" in r.stdout


def test_demo_rejects_a_bad_broker_url() -> None:
    r = _run("--hands", "1", "--broker", "http://example.invalid", "--source", "generated",
             timeout=60)  # fmt: skip
    assert r.returncode != 0
    assert "mqtt://" in r.stdout


@needs_mosquitto
def test_demo_dealer_makes_errors_of_several_kinds_and_each_raises_its_alert() -> None:
    # every hand with a dealer error (error rate 1): hwsim.inject's kinds and their remedies
    # through the whole table; the remedies keep every hand's result
    res = _run("--hands", "8", "--seed", "5", "--error-rate", "1.0", "--source", "generated",
               "--tables", "1", timeout=240)  # fmt: skip
    assert res.returncode == 0, res.stdout
    errors = re.findall(r"dealer error: (.+)", res.stdout)
    assert len(errors) >= 5 and len(set(errors)) >= 3, errors
    assert "remedy: " in res.stdout
    summary = re.search(r"dealer errors injected: (\d+); alerts: (.*)", res.stdout)
    assert summary is not None and int(summary.group(1)) == len(errors)
    fired = dict(kv.split("=") for kv in summary.group(2).split(", "))
    assert len(fired) >= 3, fired
    assert re.search(r"demo: 8 hands played, 0 records missing, 0 mismatches", res.stdout)


def _start(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """The demo in the background; its output lines collected as they come."""
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    proc = subprocess.Popen(
        [*cmd, "demo", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    lines: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return proc, lines


def _until(cond: Callable[[], T | None], what: str, timeout: float = 60) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


DIRECTOR_LINE = re.compile(r"director login: user (\S+), password (\S+) ")


@needs_mosquitto
@pytest.mark.timeout(240)
def test_demo_opens_the_room_in_the_floor_console() -> None:
    # the address and logins the demo prints serve the console; its room shows the demo's
    # three tables (six, nine and eight seats, as each table's zone map says in its state)
    # as they published them, the first with the players the demo's own view printed; the
    # hand search finds every table's hands (the logger's database, issue 22) and dealer
    # quality names the dealers who tapped their badges
    proc, lines = _start("--hands", "3", "--seed", "3", "--source", "generated",
                         "--console-port", "0", "--error-rate", "0")  # fmt: skip
    try:
        banner = _until(lambda: next((m for ln in lines if (m := CONSOLE_LINE.search(ln))), None),
                        "the console's address")  # fmt: skip
        url, user, password = banner.group(1), banner.group(2), banner.group(3)
        director = _until(lambda: next((m for ln in lines if (m := DIRECTOR_LINE.search(ln))),
                                       None), "the director's login")  # fmt: skip
        jar = http.cookiejar.CookieJar()
        web = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with web.open(url, timeout=10) as page:
            assert page.status == 200 and "text/html" in page.headers["Content-Type"]
            assert b"/static/floor.js" in page.read()
        with pytest.raises(urllib.error.HTTPError) as refused:  # no session, no room
            web.open(url + "api/room", timeout=10)
        assert refused.value.code == 401

        def login(name: str, pw: str) -> str:
            body = json.dumps({"user": name, "password": pw}).encode()
            req = urllib.request.Request(url + "api/login", method="POST", data=body,
                                         headers={"Content-Type": "application/json"})  # fmt: skip
            with web.open(req, timeout=10) as r:
                return str(json.load(r)["role"])

        assert login(director.group(1), director.group(2)) == "director"
        assert login(user, password) == "supervisor"

        def tiles() -> dict[str, dict[str, Any]] | None:
            with web.open(url + "api/room", timeout=10) as r:
                room = json.load(r)
            got = {t["key"]: t for t in room["tiles"]
                   if t["status"] == "online" and t["state"].get("seats")}  # fmt: skip
            return got if len(got) == 3 else None

        seen = _until(tiles, "the demo's three tables in the room")
        assert {k: len(t["state"]["table_seats"]) for k, t in seen.items()} == {
            "v1/t1": 6, "v1/t2": 9, "v1/t3": 8}  # fmt: skip
        # named and numbered by the venue file the demo wrote for its console
        assert {k: (t["name"], t["number"]) for k, t in seen.items()} == {
            "v1/t1": ("Table 1 (6 seats)", 1), "v1/t2": ("Table 2 (9 seats)", 2),
            "v1/t3": ("Table 3 (8 seats)", 3)}  # fmt: skip
        printed = {m.group(1) for ln in lines if (m := SEAT_LINE.match(ln))}
        names = {s["name"] for s in seen["v1/t1"]["state"]["seats"]}
        assert names and names <= printed, (names, printed)

        def get(path: str) -> Any:
            with web.open(url + path, timeout=10) as r:
                return json.load(r)

        _until(lambda: {h["table"] for h in get("api/hands")["hands"]} == {"t1", "t2", "t3"},
               "a hand of each table in the hand search")  # fmt: skip
        # the hand history takes the name as the floor calls it, and gives it back
        named = get("api/history?table=table%202%20(9%20seats)")["hands"]
        assert named and {(h["table"], h["room_name"]) for h in named} == {
            ("t2", "Table 2 (9 seats)")}  # fmt: skip
        # each table's first dealer tapped in before its first hand (the second takes over
        # half way): dealer quality has their names, not "(none)"
        dealers = {d["dealer"] for d in get("api/quality")["dealers"]}
        assert {"Ana", "Chloe", "Eva"} <= dealers, dealers
        proc.wait(timeout=200)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, "\n".join(lines)
    assert re.search(r"^demo: 9 hands played, 0 records missing, 0 mismatches", "\n".join(lines),
                     re.M), lines  # fmt: skip
    with pytest.raises(urllib.error.URLError):  # the demo closed its console as it ended
        urllib.request.urlopen(url, timeout=5)
