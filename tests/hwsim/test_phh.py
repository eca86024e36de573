"""hwsim.phh: the whole real corpus, spot checks, and malformed files with file:line: problem."""

from __future__ import annotations

import time
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from controller.rules.cards import parse_cards
from controller.rules.errors import BadInput
from hwsim.phh import (
    BetRaise,
    CheckCall,
    DealBoard,
    DealHole,
    Fold,
    HandHistory,
    PhhError,
    Show,
    UnsupportedVariant,
    iter_phh_paths,
    load_phh,
    parse_phh,
)
from tests.shared import PHH, requires

DATA = PHH  # ../shared/data/phh beside the checkout (tests/shared.py)
needs_data = requires(DATA)  # fails, never skips, without ../shared


# -- the corpus ---------------------------------------------------------------------------------


@needs_data
@pytest.mark.timeout(120)
def test_every_file_of_the_corpus() -> None:
    """Every NT file parses; every other variant is refused as unsupported, naming it."""
    paths = list(iter_phh_paths([DATA]))
    assert len(paths) == len(list(DATA.rglob("*.phh"))) >= 8400
    parsed = refused = 0
    start = time.perf_counter()
    for path in paths:
        raw = tomllib.loads(path.read_text())  # the oracle for what the file says
        if raw["variant"] != "NT":
            with pytest.raises(UnsupportedVariant, match=repr(raw["variant"])):
                load_phh(path)
            refused += 1
            continue
        hand = load_phh(path)
        parsed += 1
        n = len(raw["starting_stacks"])
        assert hand.player_count == n
        assert len([a for a in raw["actions"] if a.split("#")[0].strip()]) == len(hand.actions)
        holes = [a for a in hand.actions if isinstance(a, DealHole)]
        assert sorted(a.player for a in holes) == list(range(n))
        assert len(hand.board()) <= 5
        assert len(set(hand.board())) == len(hand.board())
        fractional = any(
            isinstance(x, float) and not x.is_integer()
            for key in ("antes", "blinds_or_straddles", "starting_stacks", "finishing_stacks")
            for x in raw.get(key, ())
        )
        assert hand.fractional_chips == fractional, path
    elapsed = time.perf_counter() - start
    assert parsed >= 8400 and refused == len(paths) - parsed
    assert elapsed < 60, f"{len(paths)} files took {elapsed:.1f} s"


@needs_data
def test_spot_check_wsop_bba_hand() -> None:
    hand = load_phh(DATA / "wsop-2023-43-day5" / "1.phh")
    assert hand.variant == "NT"
    assert hand.players[1] == "Kristopher Tong"
    assert hand.antes == (0, 120000, 0, 0, 0)
    assert hand.ante_amounts() == hand.antes  # not heads-up: not reversed
    assert hand.blind_amounts() == (40000, 80000, 0, 0, 0)
    assert hand.min_bet == 80000
    assert hand.button_index() == 4
    assert hand.ante_trimming_status is False
    assert hand.hand == 1
    assert hand.finishing_stacks == (7340000, 3775000, 5110000, 8935000, 4545000)
    assert hand.actions[0] == DealHole(0, parse_cards("7s4s"))
    assert hand.actions[5] == Fold(2)
    assert hand.actions[6] == BetRaise(3, 170000)
    assert hand.actions[9] == CheckCall(1)
    assert hand.actions[10] == DealBoard(parse_cards("JcTs2d"))
    assert hand.actions[-1] == Show(1, parse_cards("Js8h"))
    assert hand.board() == parse_cards("JcTs2dAsQs")
    assert hand.metadata["city"] == "Las Vegas"
    assert not hand.fractional_chips


@needs_data
def test_spot_check_unknown_cards_and_comments() -> None:
    hand = load_phh(DATA / "famous" / "dwan-ivey-2009.phh")
    assert hand.players == ("Phil Ivey", "Patrik Antonius", "Tom Dwan")
    assert hand.actions[1] == DealHole(1, (None, None))
    assert not hand.actions[1].known  # type: ignore[union-attr]
    assert hand.hole_cards(1) == (None, None)
    assert hand.actions[2].line == 15  # comments and blank lines counted
    assert hand.currency == "USD" and hand.event is not None
    assert hand.metadata["year"] == 2009
    shows = [a for a in hand.actions if isinstance(a, Show)]
    assert [(s.player, s.cards) for s in shows] == [
        (0, parse_cards("Ac2d")),
        (2, parse_cards("7h6h")),
    ]
    assert hand.board() == parse_cards("Jc3d5c4hJh")


@needs_data
def test_pluribus_hand_and_natural_order() -> None:
    paths = list(iter_phh_paths([DATA / "pluribus" / "30"]))
    names = [p.name for p in paths]
    assert names[:3] == ["0.phh", "1.phh", "2.phh"]
    assert names.index("9.phh") < names.index("10.phh")
    hand = load_phh(paths[0])
    assert hand.player_count == 6 and hand.blind_amounts() == (50, 100, 0, 0, 0, 0)
    assert hand.starting_stacks == (10000,) * 6


@needs_data
def test_other_variants_are_refused_clearly() -> None:
    with pytest.raises(UnsupportedVariant) as info:
        load_phh(DATA / "famous" / "antonius-blom-2009.phh")
    assert "'PO'" in str(info.value) and "only 'NT'" in str(info.value)
    assert info.value.line == 4
    assert isinstance(info.value, BadInput)


# -- synthetic hands ----------------------------------------------------------------------------

BASE = """\
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200, 200, 200]
players = ["A", "B", "C"]
actions = [
  "d dh p1 AsKs",  # line 8
  "d dh p2 ????",
  "d dh p3 7h6h",
  "p3 cbr 6",
  "p1 cc",
  "p2 f",
  "d db Jc3d5c",
  "p1 cc",
  "p3 cc",
  "d db 4h",
  "p1 cc",
  "p3 cc",
  "d db Jh",
  "p1 cbr 10.5",
  "p3 cc",
  "p1 sm -",
  "p3 sm",
]
finishing_stacks = [216.5, 198, 185.5]
"""


def test_base_hand_parses() -> None:
    hand = parse_phh(BASE, "base.phh")
    assert hand.actions[-2] == Show(0, parse_cards("AsKs"))  # 'sm -' shows the dealt cards
    last = hand.actions[-1]
    assert isinstance(last, Show) and last.mucked
    assert hand.actions[13] == BetRaise(0, Fraction(21, 2))
    assert hand.finishing_stacks == (Fraction(433, 2), 198, Fraction(371, 2))
    assert hand.fractional_chips
    assert hand.actions[0].line == 8 and hand.actions[-1].line == 24
    assert hand.source == "base.phh"


def test_heads_up_blinds_and_antes_are_reversed() -> None:
    text = """variant = "NT"
antes = [0, 5]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, inf]
actions = ['d dh p1 AsKs', 'd dh p2 QdQc', 'p2 cc', 'p1 cc']
"""
    hand = parse_phh(text)
    assert hand.blind_amounts() == (2, 1)
    assert hand.ante_amounts() == (5, 0)
    assert hand.button_index() == 1
    assert hand.starting_stacks == (100, None)  # inf: unknown stack
    assert hand.players == ("", "")


def test_one_line_actions_and_comments_with_quotes() -> None:
    text = BASE.replace('  "p1 xx",', "")
    lines = text.splitlines()
    start, end = lines.index("actions = ["), lines.index("]")
    one_line = (
        "actions = ['"
        + "', '".join(line.strip().split('"')[1] for line in lines[start + 1 : end]).replace(
            "p2 f", "p2 fold"
        )
        + "']"
    )
    text = "\n".join([*lines[:start], one_line, *lines[end + 1 :]])
    with pytest.raises(PhhError) as info:
        parse_phh(text, "one.phh")
    assert info.value.line == start + 1
    assert "unknown action 'fold'" in str(info.value)
    tricky = BASE.replace('"p3 cbr 6",', "# Dwan's \"raise\" ['x']\n  '''p3 cbr 6''',").replace(
        '"p2 f"', '"p2 zz # it\'s a typo"'
    )
    with pytest.raises(PhhError) as info:
        parse_phh(tricky, "tricky.phh")
    assert info.value.line == 14
    assert "unknown action 'zz'" in info.value.problem


def _broken(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new, 1)


BROKEN = [
    # (name, text, line, problem)
    ("unknown action", _broken('"p1 cc",', '"p1 xx",'), 12, "unknown action 'xx'"),
    ("bad card", _broken("d dh p3 7h6h", "d dh p3 7h6x"), 10, "bad card '6x'"),
    ("bad rank", _broken("d db 4h", "d db 1h"), 17, "bad card '1h'"),
    ("joker card", _broken("d db 4h", "d db Jk"), 17, "bad card 'Jk'"),
    ("player out of range", _broken('"p2 f"', '"p4 f"'), 13, "player index p4 out of range"),
    ("player zero", _broken('"p2 f"', '"p0 f"'), 13, "unknown actor 'p0'"),
    ("negative amount", _broken("p3 cbr 6", "p3 cbr -6"), 11, "negative amount -6"),
    ("zero amount", _broken("p3 cbr 6", "p3 cbr 0"), 11, "must be positive"),
    ("amount not a number", _broken("p3 cbr 6", "p3 cbr six"), 11, "'six' is not a number"),
    ("missing amount", _broken("p3 cbr 6", "p3 cbr"), 11, "wrong number of arguments"),
    ("missing required key", _broken("min_bet = 2\n", ""), None, "missing required key 'min_bet'"),
    ("missing actions", _broken("actions = [", "acts = ["), None, "missing required key 'actions'"),
    ("TOML syntax", _broken("min_bet = 2", "min_bet = "), 4, "not valid TOML"),
    ("negative ante", _broken("antes = [0, 0, 0]", "antes = [0, -1, 0]"), 2, "negative amount -1"),
    ("zero stack", _broken("[200, 200, 200]", "[200, 0, 200]"), 5, "must be positive"),
    ("string amount", _broken("min_bet = 2", 'min_bet = "2"'), 4, "expected a number"),
    ("array length", _broken("[1, 2, 0]", "[1, 2]"), 3, "2 entries for 3 players"),
    ("card dealt twice", _broken("d dh p3 7h6h", "d dh p3 AsKd"), 10, "card As dealt twice"),
    ("unknown actor", _broken('"p2 f"', '"x1 f"'), 13, "unknown actor 'x1'"),
    ("dealer action", _broken("d db 4h", "d dd 4h"), 17, "unknown dealer action 'dd'"),
    ("too many board", _broken("d db Jh", "d db JhQh"), 20, "6 board cards"),
    ("three hole cards", _broken("d dh p1 AsKs", "d dh p1 AsKsQs"), 8, "NT deals 2 hole cards"),
    ("show mismatch", _broken("p1 sm -", "p1 sm QcQd"), 23, "but was dealt AsKs"),
    ("acts after fold", _broken('"p3 cc",\n  "d db 4h"', '"p2 cc",\n  "d db 4h"'), 16, "after"),
    ("discard in NT", _broken('"p1 cc",', '"p1 sd AsKs",'), 12, "'sd' (discard) is not an NT"),
    ("not a string", _broken('"p1 cc",', "12,"), 12, "expected a string"),
    ("bad variant", _broken('variant = "NT"', 'variant = "PO"'), 1, "'PO' (pot-limit Omaha"),
    ("bool stack", _broken("[200, 200, 200]", "[200, true, 200]"), 5, "expected a number"),
    ("limit key in NT", _broken("min_bet = 2", "min_bet = 2\nsmall_bet = 2"), 5, "'small_bet'"),
]


@pytest.mark.parametrize(
    ("name", "text", "line", "problem"), BROKEN, ids=[case[0] for case in BROKEN]
)
def test_malformed_file_names_file_line_and_problem(
    tmp_path: Path, name: str, text: str, line: int | None, problem: str
) -> None:
    path = tmp_path / f"{name.replace(' ', '-')}.phh"
    path.write_text(text)
    with pytest.raises(PhhError) as info:
        load_phh(path)
    err = info.value
    assert isinstance(err, BadInput)
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert str(err).startswith(where), str(err)
    assert problem in str(err), str(err)
    assert err.path == str(path) and err.line == line


def test_not_utf8_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.phh"
    path.write_bytes(BASE.replace("p3 cbr 6", "p3 cbr 6 # caf\xe9").encode("latin-1"))
    with pytest.raises(PhhError, match=r"latin1\.phh:11: not UTF-8"):
        load_phh(path)
    with pytest.raises(PhhError, match="cannot read"):
        load_phh(tmp_path / "nope.phh")
    with pytest.raises(PhhError, match="no such file or folder"):
        list(iter_phh_paths([tmp_path / "missing"]))


def test_iter_phh_paths_expands_folders_naturally(tmp_path: Path) -> None:
    for rel in ["10.phh", "2.phh", "1.phh", "b/3.phh", "a10/1.phh", "a9/1.phh", "notes.txt"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(BASE)
    single = tmp_path / "notes.txt"
    got = [p.relative_to(tmp_path).as_posix() for p in iter_phh_paths([tmp_path, single])]
    assert got == ["1.phh", "2.phh", "10.phh", "a9/1.phh", "a10/1.phh", "b/3.phh", "notes.txt"]
    assert all(isinstance(load_phh(tmp_path / g), HandHistory) for g in got)


def test_hand_history_is_frozen() -> None:
    hand = parse_phh(BASE)
    with pytest.raises(AttributeError):
        hand.variant = "PO"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hand.metadata["x"] = 1  # type: ignore[index]


@needs_data
@pytest.mark.timeout(120)
def test_pluribus_showdowns_agree_with_the_evaluator() -> None:
    """Real showdowns: the shown hands that gained the most chips are the ones winners() picks.

    Pluribus stacks are all equal, so there are no side pots: every player still in at showdown
    put in the same amount, and the best shown hand (or a split) takes the largest net gain.
    """
    from controller.rules.evaluate import winners

    checked = 0
    for path in iter_phh_paths([DATA / "pluribus"]):
        hand = load_phh(path)
        shown = {
            a.player: a.cards
            for a in hand.actions
            if isinstance(a, Show) and a.cards and None not in a.cards
        }
        board = hand.board()
        stacks = hand.starting_stacks
        if len(shown) < 2 or len(board) != 5 or hand.finishing_stacks is None:
            continue
        if len(set(stacks)) != 1:
            continue
        net = {p: hand.finishing_stacks[p] - (stacks[p] or 0) for p in shown}
        best = max(net.values())
        expected = sorted(p for p, v in net.items() if v == best)
        cards = {p: tuple(c for c in hole if c is not None) for p, hole in shown.items()}
        assert winners(cards, board) == expected, path
        checked += 1
    assert checked >= 500
