"""The command line a technician meets (issue 16): ``--version``, help on every option, the
``--broker`` forms, an empty replay selection, ``venue-log export`` on a wrong path.

Through the real entry point: ``controller.cli.main([...])`` in-process where only the exit
code and the output matter, the ``railguard`` script as a subprocess for ``--version``."""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller import cli
from controller.tools.args import BrokerAddressError, parse_broker
from controller.venuelog.store import SqliteHandStore
from tests.venuelog.test_venuelog_store_export import envelope

ROOT = Path(__file__).resolve().parents[1]
RAILGUARD = Path(sys.executable).parent / "railguard"
Capture = pytest.CaptureFixture[str]


def _railguard(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    return subprocess.run([*cmd, *args], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip


def test_version_is_the_packages_version() -> None:
    """What pyproject.toml says the version is (the installed metadata comes from it)."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    out = _railguard("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"railguard {declared}"


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """The top parser and every sub-command's (and sub-sub-command's) parser, by name."""
    parser, _ = cli._build_parser()
    out = [("railguard", parser)]
    i = 0
    while i < len(out):
        name, p = out[i]
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                out.extend((f"{name} {n}", sp) for n, sp in action.choices.items())
        i += 1
    return out


def test_every_option_of_every_command_has_help() -> None:
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, p in _parsers()
        for action in p._actions
        if not isinstance(action, argparse._SubParsersAction)
        and not (action.help and action.help.strip())
    ]
    assert not missing, f"options without help: {missing}"


def test_every_command_says_what_it_does() -> None:
    parser, _ = cli._build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert set(helps) == set(sub.choices)
    assert all(h and h.strip() for h in helps.values()), helps


@pytest.mark.parametrize("name", ["demo", "replay", "scenario", "doctor", "venue-log run"])
def test_help_of_each_command_reads_and_exits_0(name: str, capsys: Capture) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main([*name.split(), "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: railguard " + name)
    if name != "doctor":
        assert "--broker" in out


@pytest.mark.parametrize(
    ("text", "host", "port", "tls"),
    [
        ("broker.lan", "broker.lan", None, None),
        ("127.0.0.1:1884", "127.0.0.1", 1884, None),
        ("mqtt://127.0.0.1:1884", "127.0.0.1", 1884, False),
        ("tcp://localhost", "localhost", None, False),
        ("mqtts://broker.lan:8884", "broker.lan", 8884, True),
        ("[::1]:1883", "::1", 1883, None),
    ],
)
def test_broker_forms(text: str, host: str, port: int | None, tls: bool | None) -> None:
    addr = parse_broker(text)
    assert (addr.host, addr.port, addr.tls) == (host, port, tls)


@pytest.mark.parametrize("text", ["", "http://h:1", "h:port", "h:70000", "mqtt://", "h:1/x"])
def test_a_bad_broker_is_named(text: str) -> None:
    with pytest.raises(BrokerAddressError, match="expected mqtt://HOST"):
        parse_broker(text)


def test_the_simulator_commands_refuse_tls_at_once(capsys: Capture) -> None:
    for command in (["demo"], ["replay", "x.phh"]):
        with pytest.raises(SystemExit) as stop:
            cli.main([*command, "--broker", "mqtts://127.0.0.1:8883"])
        assert stop.value.code == 2
        assert "not TLS" in capsys.readouterr().err


def test_venue_log_run_wants_allow_plaintext_for_mqtt(capsys: Capture) -> None:
    code = cli.main(["venue-log", "run", "--broker", "mqtt://127.0.0.1:1", "--db", ":memory:"])
    assert code == 2
    assert "--allow-plaintext" in capsys.readouterr().err


def test_replay_of_an_empty_folder_is_an_error(tmp_path: Path, capsys: Capture) -> None:
    (tmp_path / "notes.txt").write_text("no hands here")
    for extra in ([], ["--core-only"]):
        assert cli.main(["replay", *extra, str(tmp_path)]) == 2
        out = capsys.readouterr()
        assert f"no *.phh files in {tmp_path}" in out.err
        assert "passed" not in out.out


def test_export_of_a_mistyped_database_creates_nothing(tmp_path: Path, capsys: Capture) -> None:
    wrong = tmp_path / "venue-hnads.db"
    assert cli.main(["venue-log", "export", "--db", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert str(wrong) in err and "no such database" in err
    assert not wrong.exists()
    assert list(tmp_path.iterdir()) == []


def test_export_reads_an_existing_database_without_writing_it(
    tmp_path: Path, capsys: Capture
) -> None:
    db = tmp_path / "venue.db"
    store = SqliteHandStore(db)
    for n in (1, 2):
        assert store.put(envelope(n)) == "stored"
    store.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert cli.main(["venue-log", "export", "--db", str(db)]) == 0
    out = capsys.readouterr()
    hands = [json.loads(x) for x in out.out.splitlines()]
    assert [h["ohh"]["game_number"] for h in hands] == [envelope(n)["ohh"]["game_number"]
                                                        for n in (1, 2)]  # fmt: skip
    assert "exported 2 hands" in out.err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_export_of_a_file_that_is_no_database(tmp_path: Path, capsys: Capture) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("not sqlite")
    assert cli.main(["venue-log", "export", "--db", str(notes)]) == 2
    assert "not a venue-log database" in capsys.readouterr().err
    assert notes.read_text() == "not sqlite"
