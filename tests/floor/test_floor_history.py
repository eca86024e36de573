"""The console's hand history over HTTP (aiohttp's test client on a loopback socket, the
venue logger's own SQLite store): the search and its pages, a hand street by street, the
OHH and PHH downloads, dealer quality, and the refusals.

The truth is outside the code: the hand page is checked against the source PHH file as
pokerkit plays it (the board and the pot at each street's end, each street's actions, the
hole cards, the showdown), the PHH downloads are played by pokerkit to the source's
finishing stacks, and the quality figures were counted by hand from how the records were
made (one injected dealer error each, hwsim.inject.KINDS)."""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from controller.floor.app import Console, make_app
from controller.floor.auth import Sessions, load_users
from controller.floor.link import FloorLink
from controller.floor.room import Room
from controller.floor.venue import parse_venue
from controller.link.config import BrokerConfig
from controller.venuelog import SqliteHandStore
from tests.floor.records import T0, record, source_streets
from tests.floor.test_floor_auth import RFC_STORED
from tests.shared import PHH, need

pokerkit = pytest.importorskip("pokerkit")
pytestmark = pytest.mark.timeout(120)

# hand no -> (source, table, dealer, injection)
HANDS: dict[int, tuple[str, str, str | None, str | None]] = {
    1: ("pluribus/31/11.phh", "t1", "D1", None),  # a river showdown
    2: ("pluribus/100/0.phh", "t1", "D2", "exposed"),
    3: ("pluribus/84/7.phh", "t2", "D1", "four-card-flop"),
    4: ("wsop-2023-43-day5/2.phh", "t2", None, "wrong-first-seat"),
    5: ("pluribus/30/7.phh", "t1", "D2", None),
}
# the venue file's names: t1 of venue v1 only, t2 of any venue
VENUE = parse_venue({"tables": {"v1/t1": {"number": 1, "name": "Main 1"},
                                "t2": {"number": 7, "name": "Feature"}}})  # fmt: skip
KIND = {"f": {"Fold"}, "cc": {"Check", "Call"}, "cbr": {"Bet", "Raise"}}


def _db(tmp: Path) -> Path:
    db = tmp / "venue.db"
    store = SqliteHandStore(db)
    for n, (src, table, dealer, inj) in HANDS.items():
        assert store.put(record(src, n, table=table, dealer=dealer, inject=inj)) == "stored"
    store.close()
    return db


async def _session(tmp: Path, calls: list[tuple[str, str]]) -> dict[str, Any]:
    users = tmp / "users.toml"
    users.write_text(f'[users.vic]\nrole = "viewer"\npassword = "{RFC_STORED}"\n')
    room = Room(VENUE)
    link = FloorLink(BrokerConfig(tls=False, allow_plaintext=True), room)  # never started
    db = str(_db(tmp))
    console = Console(load_users(users), Sessions(secrets.token_bytes(32)), room, link, db)
    out: dict[str, Any] = {}
    async with TestClient(TestServer(make_app(console), host="127.0.0.1")) as c:
        out["anonymous"] = [(await c.get(p)).status for _, p in calls[:3]]
        r = await c.post("/api/login", json={"user": "vic", "password": "pleaseletmein"})
        assert r.status == 200
        for name, path in calls:
            r = await c.get(path)
            out[name] = (r.status, r.content_type,
                         r.headers.get("Content-Disposition", ""), await r.text())  # fmt: skip
    return out


CALLS = [
    ("all", "/api/history"),
    ("t1_page", "/api/history?table=t1&limit=2&offset=0"),
    ("t1_page2", "/api/history?table=t1&limit=2&offset=2"),
    ("range", f"/api/history?since={T0 + 120}&until={T0 + 240}"),
    ("dealer", "/api/history?dealer=D1"),
    ("player", "/api/history?player=gogo"),
    ("alert", "/api/history?alert=exposed_card"),
    ("hand1", "/api/hand/v1-t1-1"),
    ("hand2", "/api/hand/v1-t1-2"),
    ("hand4", "/api/hand/v1-t2-4"),
    ("missing", "/api/hand/v1-t1-99"),
    ("phh1", "/api/hand/v1-t1-1/export.phh"),
    ("ohh1", "/api/hand/v1-t1-1/export.ohh"),
    ("phh_t1", "/api/history/export.phh?table=t1"),
    ("ohh_d1", "/api/history/export.ohh?dealer=D1"),
    ("quality", "/api/quality"),
    ("quality_t1", "/api/quality?table=t1"),
    ("svg", "/api/quality.svg"),
    ("bad_since", "/api/history?since=yesterday"),
    ("bad_limit", "/api/history?limit=0"),
    ("bad_alert", "/api/history?alert=not%20a%20code"),
    ("bad_range", f"/api/quality?since={T0}&until={T0}"),
    ("t1_any_case", "/api/history?table=T1"),
    ("by_name", "/api/history?table=mAIN%201"),
    ("by_number", "/api/history?table=7"),
    ("by_hash_number", "/api/history?table=%231"),
    ("quality_by_name", "/api/quality?table=main%201"),
    ("phh_by_name", "/api/history/export.phh?table=Feature"),
    ("known_but_none", f"/api/history?table=t1&since={T0 + 10**6}"),
    ("unknown_name", "/api/history?table=Main%209"),
    ("unknown_id", "/api/history?table=t9"),
    ("unknown_export", "/api/history/export.ohh?table=t9"),
    ("unknown_quality", "/api/quality.svg?table=Main%209"),
    ("name_other_venue", "/api/history?table=Main%201&venue=v2"),
    ("page", "/hand/v1-t1-1"),
    ("history_page", "/history"),
    ("asset", "/static/hand.js"),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return asyncio.run(_session(tmp_path_factory.mktemp("history"), CALLS))


def _json(answers: dict[str, Any], name: str) -> Any:
    status, kind, _, text = answers[name]
    assert status == 200, (name, text)
    assert kind == "application/json"
    return json.loads(text)


def _ids(answers: dict[str, Any], name: str) -> list[int]:
    return [h["hand_no"] for h in _json(answers, name)["hands"]]


def _source(n: int) -> Any:
    with need(PHH / HANDS[n][0]).open("rb") as f:
        return pokerkit.HandHistory.load(f)


def test_search_filters_and_pages(answers: dict[str, Any]) -> None:
    assert answers["anonymous"] == [401, 401, 401]
    assert _ids(answers, "all") == [5, 4, 3, 2, 1]
    page = _json(answers, "t1_page")
    assert (page["total"], page["offset"], page["limit"]) == (3, 0, 2)
    assert _ids(answers, "t1_page") == [5, 2] and _ids(answers, "t1_page2") == [1]
    assert _ids(answers, "range") == [3, 2]
    assert _ids(answers, "dealer") == [3, 1]
    gogo = [n for n in HANDS if "Gogo" in _source(n).players]
    assert _ids(answers, "player") == sorted(gogo, reverse=True)
    assert _ids(answers, "alert") == [2]  # the code in lower case is the same code
    row = _json(answers, "all")["hands"][-1]
    assert row["players"][2]["name"] == "Gogo" and row["alerts"] == []
    assert row["pot"] == 20050  # what pokerkit's pot is before the showdown (source)


def test_a_table_by_its_id_in_any_case_or_its_venue_name_or_number(
    answers: dict[str, Any],
) -> None:
    t1, t2 = [5, 2, 1], [4, 3]  # HANDS' tables
    assert _ids(answers, "t1_any_case") == t1
    assert _ids(answers, "by_name") == t1 and _ids(answers, "by_hash_number") == t1
    assert _ids(answers, "by_number") == t2
    assert _json(answers, "quality_by_name") == _json(answers, "quality_t1")
    status, _, _, text = answers["phh_by_name"]
    assert status == 200 and len(list(pokerkit.HandHistory.loads_all(text))) == len(t2)
    # the rows name the table as the venue file does
    rows = {(h["table"], h["room_name"], h["room_number"])
            for h in _json(answers, "all")["hands"]}  # fmt: skip
    assert rows == {("t1", "Main 1", 1), ("t2", "Feature", 7)}
    assert (_json(answers, "hand1")["room_name"], _json(answers, "hand1")["room_number"]) == (
        "Main 1", 1)  # fmt: skip
    # a known table with no hand in the range: an empty answer, not a refusal
    assert _json(answers, "known_but_none")["total"] == 0


def test_an_unknown_table_is_answered_plainly(answers: dict[str, Any]) -> None:
    unknown = "no table has that name or number in the venue file, and no stored hand comes"
    for name, typed in (("unknown_name", "Main 9"), ("unknown_id", "t9"),
                        ("unknown_export", "t9"), ("unknown_quality", "Main 9")):  # fmt: skip
        status, _, _, text = answers[name]
        assert status == 400, (name, text)
        assert text == f'table "{typed}": {unknown} from a table with that id', name
    status, _, _, text = answers["name_other_venue"]
    assert status == 400
    assert text == 'table "Main 1": the venue file places it in venue v1, not v2'


def test_a_search_result_names_no_card(answers: dict[str, Any]) -> None:
    text = answers["all"][3]
    for n in HANDS:
        for line in _source(n).actions:
            if line.startswith("d dh"):
                hole = line.split()[3]
                for card in (hole[:2], hole[2:]):
                    assert f'"{card}"' not in text, (n, card)


def test_hand_page_data_is_the_source_street_by_street(answers: dict[str, Any]) -> None:
    hand = _json(answers, "hand1")
    src = _source(1)
    names = list(src.players)
    # pokerkit plays the source: the board and the pot when each street's betting is over
    want = source_streets(HANDS[1][0])
    streets = hand["streets"]
    assert [s["street"] for s in streets] == ["Preflop", "Flop", "Turn", "River", "Showdown"]
    for got, exp in zip(streets, want, strict=False):
        assert sorted(got["board"]) == sorted(exp["board"]), got["street"]
        assert got["pot"] == exp["pot"], got["street"]
        moves = [(a["name"], a["action"]) for a in got["actions"]
                 if a["action"] not in ("Post SB", "Post BB", "Dealt Cards")]  # fmt: skip
        assert len(moves) == len(exp["moves"]), got["street"]
        for (name, action), (wname, kind) in zip(moves, exp["moves"], strict=True):
            assert name == wname and action in KIND[kind], (got["street"], name, action)
    # the hole cards are the source's, and the showdown is the source's two hands
    holes = {names[int(p[1:]) - 1]: c for _, _, p, c in (a.split() for a in src.actions
                                                           if a.startswith("d dh"))}  # fmt: skip
    for p in hand["players"]:
        assert "".join(p["cards"]) == holes[p["name"]], p["name"]
    shown = [(a["name"], "".join(a["cards"])) for a in streets[-1]["actions"]]
    assert shown == [("MrWhite", "7h5s"), ("Gogo", "QdAd")]
    assert sorted(streets[-1]["board"]) == sorted(["2d", "3h", "6d", "Tc", "Ah"])
    finish = dict(zip(names, src.finishing_stacks, strict=True))
    assert {p["name"]: p["final_stack"] for p in hand["players"]} == finish
    gogo = {"seat": 3, "name": "Gogo", "amount": 20050}
    assert hand["pots"] == [{"number": 0, "amount": 20050, "winners": [gogo]}]
    assert hand["alerts"] == [] and hand["consistent"] is True


def test_hand_page_places_the_alerts_on_their_street(answers: dict[str, Any]) -> None:
    exposed = _json(answers, "hand2")
    placed = {s["street"]: [a["code"] for a in s["alerts"]] for s in exposed["streets"]}
    assert placed["Preflop"] == ["EXPOSED_CARD"]  # a hole card exposed during the deal
    assert all(not v for k, v in placed.items() if k != "Preflop")
    misdeal = _json(answers, "hand4")
    first = misdeal["streets"][0]
    assert [a["code"] for a in first["alerts"]] == ["WRONG_FIRST_SEAT"]
    assert first["alerts"][0]["severity"] == "critical" and first["alerts"][0]["after_action"] == 0
    assert answers["missing"][0] == 404 and "no stored hand v1-t1-99" in answers["missing"][3]


def test_phh_downloads_play_in_pokerkit_to_the_source_stacks(answers: dict[str, Any]) -> None:
    status, kind, disposition, text = answers["phh1"]
    assert status == 200 and kind == "text/plain"
    assert disposition == 'attachment; filename="v1-t1-1.phh"'
    exported = pokerkit.HandHistory.loads(text)
    states = list(exported)
    assert [int(x) for x in states[-1].stacks] == list(_source(1).finishing_stacks)
    status, _, disposition, text = answers["phh_t1"]
    assert status == 200 and disposition == 'attachment; filename="hands.phhs"'
    loaded = list(pokerkit.HandHistory.loads_all(text))
    assert [h.hand for h in loaded] == ["replay-1", "replay-1", "replay-1"]  # the core's
    by_players = {tuple(h.players): h for h in loaded}
    for n in (1, 5):  # no error injected: the source's stacks
        src = _source(n)
        got = by_players[tuple(src.players)]
        assert [int(x) for x in list(got)[-1].stacks] == list(src.finishing_stacks), n


def test_ohh_downloads_are_the_stored_records(answers: dict[str, Any]) -> None:
    status, kind, disposition, text = answers["ohh1"]
    assert status == 200 and kind == "application/json"
    assert disposition == 'attachment; filename="v1-t1-1.ohh"'
    one = json.loads(text)
    assert one["ohh"] == record(*HANDS[1][:1], 1, table="t1", dealer="D1")["ohh"]
    status, _, _, text = answers["ohh_d1"]
    lines = [json.loads(line) for line in text.splitlines() if line]
    assert [o["ohh"]["table_name"] for o in lines] == ["t2", "t1"]  # hands 3 and 1


def test_dealer_quality_over_the_records(answers: dict[str, Any]) -> None:
    q = _json(answers, "quality")
    rows = {d["dealer"]: (d["hands"], d["errors"], d["per_100"], d["by_code"])
            for d in q["dealers"]}  # fmt: skip
    # counted by hand: D1 dealt hands 1 and 3 (a four-card flop), D2 hands 2 (an exposed
    # card) and 5, no badge hand 4 (the first card to the wrong seat, a misdeal)
    assert rows == {
        "D1": (2, 1, 50.0, {"FOUR_CARD_FLOP": 1}),
        "D2": (2, 1, 50.0, {"EXPOSED_CARD": 1}),
        "(none)": (1, 1, 100.0, {"WRONG_FIRST_SEAT": 1}),
    }
    assert (q["hands"], q["errors"], q["per_100"]) == (5, 3, 60.0)
    t1 = _json(answers, "quality_t1")
    assert {d["dealer"]: d["errors"] for d in t1["dealers"]} == {"D1": 0, "D2": 1}
    status, kind, _, svg = answers["svg"]
    assert status == 200 and kind == "image/svg+xml" and svg.startswith("<svg")
    assert "D2: EXPOSED_CARD 1 in 2 hands" in svg


def test_bad_filters_are_refused_by_name(answers: dict[str, Any]) -> None:
    assert answers["bad_since"][0] == 400 and "since: expected Unix seconds" in answers[
        "bad_since"][3]  # fmt: skip
    assert answers["bad_limit"][0] == 400 and "limit 0" in answers["bad_limit"][3]
    assert answers["bad_alert"][0] == 400 and "alert code" in answers["bad_alert"][3]
    assert answers["bad_range"][0] == 400 and "ends before it starts" in answers["bad_range"][3]


def test_pages_are_served_without_a_build_step(answers: dict[str, Any]) -> None:
    for name in ("page", "history_page"):
        status, kind, _, text = answers[name]
        assert status == 200 and kind == "text/html"
        assert "https://" not in text and "http://" not in text  # nothing from the internet
    assert answers["asset"][0] == 200 and answers["asset"][1] == "text/javascript"


def test_every_hand_reads_all_pages_once_while_hands_arrive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export of more than a page (500): every stored hand once, newest first, even when
    the logger stores a hand between two pages (the pages shift by one)."""
    import copy

    from controller.floor import history
    from controller.link.errors import BadInput
    from controller.venuelog.query import HandQuery

    base = record(HANDS[1][0], 1)
    store = SqliteHandStore(tmp_path / "many.db")
    n = 1201

    def hand(i: int) -> dict[str, Any]:
        e = copy.deepcopy(base)
        e.update(hand_id=f"v1-t1-{i}", hand_no=i, record_seq=i, ended_at=T0 + i)
        return e

    for i in range(1, n + 1):
        assert store.put(hand(i)) == "stored"
    got = history.every_hand(store, HandQuery())
    first = [next(got)["hand_no"] for _ in range(500)]
    assert store.put(hand(n + 1)) == "stored"  # the newest, stored while the export reads
    rest = [h["hand_no"] for h in got]
    assert first + rest == list(range(n, 0, -1))  # each once, none missed
    monkeypatch.setattr(history, "MAX_HANDS_READ", 1000)
    with pytest.raises(BadInput, match="1202 hands match: at most 1000"):
        list(history.every_hand(store, HandQuery()))
    store.close()
