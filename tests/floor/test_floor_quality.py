"""Dealer quality (controller/floor/quality.py) against a set of records counted by hand.

Twelve hands by three dealers and one with no badge; the alerts are written here the way
the records carry them (``ohh.alerts``: code, severity). The expected figures were counted
by hand from the table below, with the rule docs/floor.md states: an alert of severity
warning or above whose code is one of the dealer's own irregularities is one error;
players' irregularities, info alerts and a misdeal's consequence are not."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from controller.floor.quality import DEALER_CODES, chart_svg, quality
from controller.rules.decisions import AlertCode


def _hand(dealer: str | None, *alerts: tuple[str, str]) -> dict[str, Any]:
    return {"dealer_id": dealer, "ohh": {"alerts": [{"code": c, "severity": s} for c, s in alerts]}}


RECORDS = [
    # ann: 5 hands; errors: EXPOSED_CARD, EXPOSED_CARD, MISSING_BURN = 3 -> 60 per 100
    _hand("ann", ("EXPOSED_CARD", "warning")),
    _hand("ann"),
    _hand("ann", ("EXPOSED_CARD", "warning"), ("ACTION_OUT_OF_TURN", "warning")),  # player's
    _hand("ann", ("MISSING_BURN", "warning"), ("SWEEP_BEFORE_BURN", "info")),  # info: not
    _hand("ann", ("STRING_BET", "warning")),  # a player's
    # bob: 4 hands; errors: WRONG_FIRST_SEAT (the MISDEAL it caused is not counted again),
    # FOUR_CARD_FLOP = 2 -> 50 per 100
    _hand("bob", ("WRONG_FIRST_SEAT", "critical"), ("MISDEAL", "critical")),
    _hand("bob"),
    _hand("bob", ("FOUR_CARD_FLOP", "warning")),
    _hand("bob", ("CLOCK_STARTED", "info"), ("FOREIGN_CARD", "critical")),  # the deck's
    # cy: 2 hands, no error -> 0
    _hand("cy", ("FLOOR_DECISION", "info")),
    _hand("cy"),
    # no badge: 1 hand, LOSING_HAND_LIVE (warning) -> 100 per 100
    _hand(None, ("LOSING_HAND_LIVE", "warning")),
]


def test_quality_matches_the_hand_count() -> None:
    q = quality(RECORDS).as_json()
    assert q["hands"] == 12 and q["errors"] == 6
    assert q["per_100"] == 50.0  # 6 errors in 12 hands
    rows = {d["dealer"]: d for d in q["dealers"]}
    assert [d["dealer"] for d in q["dealers"]] == ["(none)", "ann", "bob", "cy"]  # worst first
    assert (rows["ann"]["hands"], rows["ann"]["errors"], rows["ann"]["per_100"]) == (5, 3, 60.0)
    assert rows["ann"]["by_code"] == {"EXPOSED_CARD": 2, "MISSING_BURN": 1}
    assert rows["ann"]["by_code_per_100"] == {"EXPOSED_CARD": 40.0, "MISSING_BURN": 20.0}
    assert (rows["bob"]["hands"], rows["bob"]["errors"], rows["bob"]["per_100"]) == (4, 2, 50.0)
    assert rows["bob"]["by_code"] == {"FOUR_CARD_FLOP": 1, "WRONG_FIRST_SEAT": 1}
    assert (rows["cy"]["hands"], rows["cy"]["errors"], rows["cy"]["per_100"]) == (2, 0, 0.0)
    assert rows["(none)"]["by_code"] == {"LOSING_HAND_LIVE": 1}
    # the codes seen, most errors first, then by name
    assert q["codes"] == [
        "EXPOSED_CARD",
        "FOUR_CARD_FLOP",
        "LOSING_HAND_LIVE",
        "MISSING_BURN",
        "WRONG_FIRST_SEAT",
    ]
    assert quality([]).as_json() == {"hands": 0, "errors": 0, "per_100": 0.0, "codes": [],
                                     "dealers": []}  # fmt: skip


def test_dealer_codes_are_the_rules_core_codes() -> None:
    """Every counted code is one the rules core raises (a typo would count nothing)."""
    core = {c.value.upper() for c in AlertCode}
    assert core >= DEALER_CODES, DEALER_CODES - core


def test_chart_is_svg_with_a_bar_segment_per_dealer_and_code() -> None:
    hostile = _hand("<script>alert(1)</script>", ("EXPOSED_CARD", "warning"))
    svg = chart_svg(quality([*RECORDS, hostile]))
    root = ET.fromstring(svg)  # well-formed: every name is escaped
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    segments = [r.find(f"{ns}title") for r in root.iter(f"{ns}rect")]
    titles = sorted(t.text or "" for t in segments if t is not None)
    assert titles == sorted(
        [
            "<script>alert(1)</script>: EXPOSED_CARD 1 in 1 hands",
            "(none): LOSING_HAND_LIVE 1 in 1 hands",
            "ann: EXPOSED_CARD 2 in 5 hands",
            "ann: MISSING_BURN 1 in 5 hands",
            "bob: FOUR_CARD_FLOP 1 in 4 hands",
            "bob: WRONG_FIRST_SEAT 1 in 4 hands",
        ]
    )
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "60.0 (3/5)" in texts and "0.0 (0/2)" in texts  # ann's and cy's figures
    assert "<script>" not in svg
    empty = ET.fromstring(chart_svg(quality([])))
    assert next(t.text for t in empty.iter(f"{ns}text")) == "No hands in this range."
