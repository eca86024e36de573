"""Each record of the core's state has one writer (issue 21): the package is parsed and a
write to a record's field outside the module that owns it fails the test. A write is an
assignment (plain, augmented, annotated, tuple), a ``del``, an item assignment, or a call of
a mutating method (``clear``, ``add``, ``pop``...) on the field, reached through ``core``
(the table) or through the working hand: ``h``, ``hand``, ``core.hand``, ``self.hand``, a
name annotated ``Hand``, and a local bound to one of the hand's fields (``w = h.wager``;
``w.motions += 1`` writes ``wager.motions``). A ``Player``'s fields are checked as ``player.x``
(``h.players[s].stack``, ``p.stack`` for a ``p`` bound to one: an argument or local annotated
``Player``, ``h.players[s]``, ``h.players.get(s)``, a loop over ``h.players.values()`` /
``items()``, over ``order_from(...)`` or over a ``list[Player]``).

The owners, record by record, are :data:`RECORDS` (docs/architecture.md, "Who writes which
state", shows the same table and is checked against it). A module that needs another
record changed calls a named function of its owner (``rounds.turn_to``, ``clock.stop``,
``board.require_burn``...). A part of a field's record can have its own owner
(``wager.limited``: ``oot_limits.py``).

``hand.py`` creates every field of the hand and of its players (``Hand.__init__``,
``Player.__init__``) and ``engine.py`` every field of the core; ``tabledata.py`` restores
them from a ``TableData``: those are allowed.

There is no exception: a module below the owner in the layering (which cannot import it
without an import circle) has its owner's function called for it, by the handler above
both with the effect the lower one returned (``floor.button`` returns ``floor.Ruled``), or
by the table it is given (``TableCore.round_closed``, ``board_stands``).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from controller.rules.hand import Hand, Player

RULES = Path(__file__).resolve().parents[2] / "controller" / "rules"

#: record -> (its owning module, its fields: of ``TableCore`` for the posts, the
#: hand-for-hand hold and the pending profile, ``player.x`` of each ``Player`` of the hand,
#: else of ``Hand``)
RECORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "posts": ("posting", ("posted", "presence_posts", "coming")),
    "hand-for-hand hold": ("handforhand", ("deal_hold",)),
    "pending profile": ("profile_switch", ("pending_profile",)),
    "hand identity": ("dealing", ("hand_no", "deal_no", "pos", "started_t", "small_blind",
                                  "big_blind", "ante")),
    "deal": ("dealing", ("players", "deal_seq", "deal_idx", "dealt", "jokers", "extra_cards",
                         "seen_codes", "seen", "owner")),
    "exposed cards": ("misdeal", ("exposed", "boxed", "replace", "misdeal_call")),
    "board and burns": ("board", ("street", "board", "burns", "street_burns", "need_burn",
                                  "required_burn", "set_aside", "four_flop", "floor_draw",
                                  "burn_credit", "no_burn", "premature", "pending_board",
                                  "redeal_flop", "last_burn", "read_t", "burn_debt", "refill",
                                  "floor_ok", "void_street")),
    "betting round": ("rounds", ("current_bet", "last_raise", "raises", "pointer",
                                 "last_aggressor", "actions", "window_actions",
                                 "window_chip_actions", "window_seats", "unswept", "oot")),
    "run-out and blinds unconfirmed": ("betting", ("runout", "unconfirmed")),
    "wager's motions": ("rounds", ("wager", "wager.declared", "wager.last_mover",
                                   "wager.motions", "wager.owed", "wager.held")),
    "wager's rulings": ("wagers", ("wager.wrong", "wager.floor_seat", "wager.undo")),
    "out-of-turn limits": ("oot_limits", ("wager.limited",)),
    "clock": ("clock", ("clock_state", "clock_seat", "clock_deadline")),
    "floor hold": ("floor", ("floor_state", "floor_hold", "floor_badge")),
    "given back": ("retrieve", ("given_back",)),
    "designation": ("designate", ("mark", "loose_burn")),
    "showdown": ("showdown", ("show_order", "shows", "show_alerted", "odd_chip", "scores")),
    "alerts": ("engine", ("alerts",)),
    "player's cards": ("dealing", ("player.cards", "player.hole")),
    "player's chips and turn": ("player", ("player.seat", "player.start_stack", "player.stack",
                                           "player.street_bet", "player.total", "player.all_in",
                                           "player.acted", "player.can_raise", "player.folded",
                                           "player.dead")),
}  # fmt: skip

#: field -> the module that alone writes it
OWNERS: dict[str, str] = {f: mod for mod, fields in RECORDS.values() for f in fields}

#: the fields of ``TableCore`` (the rest are the working hand's)
CORE = frozenset({"posted", "presence_posts", "coming", "deal_hold", "pending_profile"})
#: a ``Player``'s fields (``h.players[s].stack``: ``player.stack``)
PLAYER_FIELDS = frozenset(f.name for f in dataclasses.fields(Player))
CREATORS = frozenset({"hand", "tabledata"})
MUTATORS = frozenset(
    {"clear", "add", "discard", "remove", "pop", "popitem", "update", "setdefault", "append",
     "extend", "insert", "sort", "__setitem__", "__delitem__", "difference_update",
     "intersection_update", "symmetric_difference_update", "clear_street"}
)  # fmt: skip


def _part(field: str, attr: str) -> str:
    """``wager.motions`` when that part of the record has its own owner, else the field."""
    part = f"{field}.{attr}"
    return part if part in OWNERS else field


def _is_hand_type(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    return ast.unparse(annotation).strip("'\"") in ("Hand", "Hand | None")


def _annotation(annotation: ast.expr | None) -> str:
    return "" if annotation is None else ast.unparse(annotation).strip("'\"")


def _bindings(tree: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """(target, value) of each plain binding: ``x = v``, ``for x in v`` (``v`` the iterable,
    wrapped in a ``for`` marker: ``ast.Starred``), comprehensions alike."""
    out: list[tuple[ast.expr, ast.expr]] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            out.append((n.targets[0], n.value))
        elif isinstance(n, ast.NamedExpr):
            out.append((n.target, n.value))
        elif isinstance(n, ast.For | ast.comprehension):
            out.append((n.target, ast.Starred(n.iter)))
    return out


class _Scope:
    """The names that stand for the core, the hand, or one of the hand's fields."""

    def __init__(self, tree: ast.AST) -> None:
        self.hands = {"h", "hand"}
        self.aliases: dict[str, str] = {}
        self.players: set[str] = set()  # names that stand for a Player of the hand
        self.player_lists: set[str] = set()  # names annotated list[Player]
        for n in ast.walk(tree):
            if isinstance(n, ast.arg) and _is_hand_type(n.annotation):
                self.hands.add(n.arg)
            elif (
                isinstance(n, ast.AnnAssign)
                and isinstance(n.target, ast.Name)
                and _is_hand_type(n.annotation)
            ):
                self.hands.add(n.target.id)
            name, ann = None, ""
            if isinstance(n, ast.arg):
                name, ann = n.arg, _annotation(n.annotation)
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                name, ann = n.target.id, _annotation(n.annotation)
            if name is not None and ann in ("Player", "Player | None"):
                self.players.add(name)
            elif name is not None and ann in ("list[Player]", "tuple[Player, ...]"):
                self.player_lists.add(name)
        for n in ast.walk(tree):
            if (
                isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name)
            ):
                # w = h.wager; marks = h.boxed if boxed else h.exposed
                value = n.value.body if isinstance(n.value, ast.IfExp) else n.value
                if (
                    isinstance(value, ast.Attribute)
                    and self.is_hand(value.value)
                    and value.attr in OWNERS
                ):
                    self.aliases[n.targets[0].id] = value.attr
        # p = h.players[s]; q = players.get(s); for p in h.players.values(); for s, p in
        # h.players.items(); for p in order_from(...); for p in skipped (list[Player])
        for target, value in _bindings(tree):
            if isinstance(value, ast.Starred):
                it = value.value
                if isinstance(it, ast.Call) and ast.unparse(it.func).endswith("sorted"):
                    it = it.args[0] if it.args else it
                if (
                    isinstance(it, ast.Call)
                    and isinstance(it.func, ast.Attribute)
                    and it.func.attr in ("values", "items")
                    and self.is_players(it.func.value)
                ):
                    one = target
                    if it.func.attr == "items" and isinstance(target, ast.Tuple):
                        one = target.elts[-1]
                    if isinstance(one, ast.Name):
                        self.players.add(one.id)
                elif isinstance(target, ast.Name) and (
                    (isinstance(it, ast.Name) and it.id in self.player_lists)
                    or (isinstance(it, ast.Call) and ast.unparse(it.func).endswith("order_from"))
                ):
                    self.players.add(target.id)
            elif isinstance(target, ast.Name) and self.is_player(value):
                self.players.add(target.id)

    def is_players(self, node: ast.expr) -> bool:
        """``h.players`` (or a local bound to it)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id) == "players"
        return (
            isinstance(node, ast.Attribute) and node.attr == "players" and self.is_hand(node.value)
        )

    def is_player(self, node: ast.expr) -> bool:
        """A ``Player`` of the hand: a name bound to one, ``h.players[s]``,
        ``h.players.get(s)``."""
        if isinstance(node, ast.IfExp):
            return self.is_player(node.body) or self.is_player(node.orelse)
        if isinstance(node, ast.Name):
            return node.id in self.players
        if isinstance(node, ast.Subscript):
            return self.is_players(node.value)
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and self.is_players(node.func.value)
        )

    def is_hand(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.hands
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "hand"
            and isinstance(node.value, ast.Name)
            and node.value.id in ("core", "self")
        )

    def field(self, node: ast.expr) -> str | None:
        """The field of the core or hand that a write to ``node`` changes, else None."""
        while isinstance(node, ast.Subscript):
            node = node.value  # h.shows[2] = ...: an item of the field
        if (
            isinstance(node, ast.Attribute)
            and node.attr in PLAYER_FIELDS
            and self.is_player(node.value)
        ):
            return f"player.{node.attr}"  # p.stack, h.players[s].hole: a Player's field
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return self.aliases[node.id]  # marks = h.boxed; marks.remove(tag)
        while isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Name) and base.id == "core" and node.attr != "hand":
                return node.attr  # the core's own fields
            if self.is_hand(base):
                return node.attr
            if isinstance(base, ast.Name) and base.id in self.aliases:
                return _part(self.aliases[base.id], node.attr)  # w = h.wager; w.motions
            if isinstance(base, ast.Attribute) and self.is_hand(base.value):
                return _part(base.attr, node.attr)  # h.wager.motions: of the field's record
            if isinstance(base, ast.Subscript):
                return None  # an element's attribute that is no Player's field
            node = base
        return None


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        out: list[ast.expr] = []
        for t in node.targets:
            out.extend(t.elts if isinstance(t, ast.Tuple | ast.List) else [t])
        return out
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATORS
    ):
        return [node.func.value]
    return []


def writes(source: str) -> list[tuple[int, str]]:
    """(line, field) of every write to a field of the core or the hand in ``source``."""
    tree = ast.parse(source)
    scope = _Scope(tree)
    out = []
    for node in ast.walk(tree):
        for t in _targets(node):
            if isinstance(t, ast.Name) and not isinstance(node, ast.AugAssign | ast.Call):
                continue  # binding a name (w = h.wager) writes nothing
            f = scope.field(t)
            if f is not None:
                out.append((node.lineno, f))  # type: ignore[attr-defined]
    return sorted(set(out))


def found_writes(root: Path = RULES) -> list[tuple[str, int, str]]:
    """(module, line, field) of every write outside its owner."""
    found = []
    for path in sorted(root.glob("*.py")):
        mod = path.stem
        if mod in CREATORS:
            continue
        for line, f in writes(path.read_text()):
            owner = OWNERS.get(f)
            if owner is not None and owner != mod:
                found.append((mod, line, f))
    return found


def violations(root: Path = RULES) -> list[str]:
    return [
        f"{mod}.py:{line} writes {f} (owned by {OWNERS[f]}.py)"
        for mod, line, f in found_writes(root)
    ]


def test_the_checker_sees_every_kind_of_write(tmp_path: Path) -> None:
    """The check can fail: each kind of write from a module that is not the owner."""
    (tmp_path / "posting.py").write_text("def f(core):\n    core.posted = {}\n")
    (tmp_path / "clock.py").write_text("def f(h):\n    h.clock_seat = 0\n")
    (tmp_path / "other.py").write_text(
        "def f(core, hd: Hand):\n"
        "    core.posted = {}\n"
        "    core.posted[3] = 1\n"
        "    core.posted.clear()\n"
        "    del core.posted[3]\n"
        "    x, core.presence_posts = 1, set()\n"
        "    core.presence_posts.add(2)\n"
        "    core.posted |= {}\n"
        "    y = core.posted.get(3)\n"  # a read
        "    h = core.hand\n"  # 10: binding the hand is no write
        "    h.clock_seat = 0\n"
        "    core.hand.shows[2] = True\n"
        "    hd.oot.pop(3, None)\n"
        "    w = h.wager\n"  # 14
        "    w.motions += 1\n"
        "    h.wager.owed[2] = 1\n"
        "    h.wager.clear_street()\n"
        "    h.players[2].stack += 5\n"  # 18: a player's field
        "    z = h.board[0]\n"  # 19: a read
        "    del h.actions[2:]\n"
        "    m = h.boxed if x else h.exposed\n"  # 21
        "    m.remove(3)\n"
        "    q = h.players[3]\n"  # 23: binding a player is no write
        "    q.stack = 0\n"
        "    for s, r in h.players.items():\n"  # 25
        "        r.acted = False\n"
        "    seat.stack = 0\n"  # 27: a table's seat (seating.Seat), not a player
        "    d.cards = []\n"  # 28: not a player either
        "    z = q.stack\n"  # 29: a read
        "\n"
        "def g(h: Hand, p: Player, skipped: list[Player]):\n"  # 31
        "    p.hole[0] = 'x'\n"
        "    p.folded, x = True, 1\n"
        "    for o in skipped:\n"
        "        o.can_raise = False\n"
        "    players = h.players\n"  # 36
        "    for o in sorted(players.values()):\n"
        "        o.dead = True\n"
        "    h.players.get(2).all_in = True\n"
        "    for o in order_from(h, 1, 9):\n"  # 40
        "        o.total -= 1\n"
        "    self.stack = 0\n"  # 42: an object's own field
    )
    (tmp_path / "player.py").write_text("def f(p: Player, q):\n    p.stack = 0\n")
    (tmp_path / "dealing.py").write_text("def f(p: Player):\n    p.cards.append(1)\n")
    found = violations(tmp_path)
    lines = sorted(int(v.split(":")[1].split()[0]) for v in found)
    assert lines == [2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 15, 16, 17, 18, 20, 22, 24, 26,
                     32, 33, 35, 38, 39, 41]  # fmt: skip
    assert all(v.startswith("other.py") for v in found)
    assert "other.py:32 writes player.hole (owned by dealing.py)" in found
    assert "other.py:18 writes player.stack (owned by player.py)" in found


def _field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_every_field_of_the_hand_has_one_owner() -> None:
    fields = [f for _, fs in RECORDS.values() for f in fs]
    assert len(fields) == len(set(fields)), "a field in two records"
    of_players = {f for f in fields if f.startswith("player.")}
    parts = {f for f in fields if "." in f} - of_players
    assert {f.split(".")[0] for f in parts} <= set(fields), "a part of an unlisted field"
    # the dataclasses' fields, not __slots__: the compiled core's Hand and Player (mypyc
    # native classes) have none (tests/test_compiled_core.py runs tests/rules on it)
    assert _field_names(Hand) == set(fields) - parts - of_players - CORE
    assert {f.removeprefix("player.") for f in of_players} == _field_names(Player)


def test_each_record_is_written_by_its_owner_only() -> None:
    assert violations() == []


def test_the_architecture_doc_names_each_owner() -> None:
    doc = (RULES.parents[1] / "docs" / "architecture.md").read_text()
    for record, (mod, fields) in RECORDS.items():
        row = f"| {record} | `{mod}.py` |"
        assert row in doc, row
        line = doc[doc.index(row) :].split("\n", 1)[0]
        assert all(f"`{f}`" in line for f in fields), line
