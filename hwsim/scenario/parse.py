"""Read ``.scn`` scenario files (the format is documented in ``docs/scenarios.md``).

    from hwsim.scenario.parse import parse_file
    sc = parse_file("scenarios/tda-2024/000-S3-misdeal-1h-wrong-first-seat.scn")

Every problem raises :class:`~hwsim.scenario.model.ScenarioError` naming the file, the line
and what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path

from controller.rules.cards import Card
from controller.rules.catalogue import BY_WIRE
from controller.rules.errors import BadCard, ConfigError
from controller.rules.events import ConsoleButton, Declaration
from controller.rules.phases import Phase
from controller.rules.profile import get_profile
from hwsim.scenario.model import Action, CardRef, Expect, Scenario, ScenarioError, Step

BUTTONS = {b.value: b for b in ConsoleButton}
ALERT_CODES = frozenset(BY_WIRE)  # the catalogue's codes, the daemon's own included
SEVERITIES = ("info", "warning", "critical")
PHASES = {p.value for p in Phase}
STREETS = ("idle", "preflop", "flop", "turn", "river", "showdown")
READER = ("connecting", "online", "stalled", "offline", "version_mismatch")
FAULTS = ("garbage", "bitflip", "reboot", "unplug", "replug", "stall", "heartbeat-stall",
          "resume", "bounce")  # fmt: skip
CARD_VERBS = ("hole", "board", "burn", "muck", "take")
MAX_SEAT = 10  # the simulated table seats one to ten
#: actions that are venue commands over MQTT: only their step may ``expect refused``
VENUE_VERBS = ("seat", "unseat", "move", "level", "draw", "set-profile", "hold-deal",
               "release-deal")  # fmt: skip
_CLAUSE_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+-]*$")
_HEX = re.compile(r"^(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{14}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{20})$")


class _Line:
    """One line's words, with the helpers that turn them into values or errors."""

    def __init__(self, path: str, no: int, words: list[str]) -> None:
        self.path, self.no, self.words = path, no, words

    def error(self, problem: str) -> ScenarioError:
        return ScenarioError(self.path, self.no, problem)

    def int_(self, word: str, what: str, *, low: int = 0) -> int:
        try:
            n = int(word)
        except ValueError:
            raise self.error(f"{what}: expected a whole number, got {word!r}") from None
        if n < low:
            raise self.error(f"{what}: {n} is below {low}")
        return n

    def seat(self, word: str) -> int:
        n = self.int_(word, "seat", low=1)
        if n > MAX_SEAT:
            raise self.error(f"seat {n}: the simulated table has seats 1..{MAX_SEAT}")
        return n

    def arity(self, low: int, high: int | None = None, usage: str = "") -> None:
        n = len(self.words) - 1
        high = low if high is None else high
        if not low <= n <= high:
            raise self.error(f"{self.words[0]}: expected {usage}")

    def card(self, word: str) -> CardRef:
        if word.lower().startswith("tag:"):
            hexpart = word[4:]
            if not _HEX.match(hexpart):
                raise self.error(
                    f"{word}: an unregistered tag is tag:HEX, a UID of 4, 7, 8 or 10 bytes"
                    " (8, 14, 16 or 20 hex digits)"
                )
            return CardRef(tag=hexpart.upper())
        deck = "A"
        text = word
        if ":" in word:
            deck, text = word.split(":", 1)
            if deck not in ("A", "B"):
                raise self.error(f"{word}: deck {deck!r} is not A or B")
        try:
            card = Card.parse(text)
        except BadCard as exc:
            raise self.error(str(exc)) from None
        if card.is_joker and deck != "A":
            raise self.error(f"{word}: the joker has no deck prefix")
        return CardRef(str(card), deck)


def _cards(ln: _Line, words: list[str]) -> tuple[tuple[CardRef, ...], bool]:
    together = bool(words) and words[-1] == "together"
    if together:
        words = words[:-1]
    if not words:
        raise ln.error(f"{ln.words[0]}: name at least one card")
    return tuple(ln.card(w) for w in words), together


def _action(ln: _Line) -> Action:
    w = ln.words
    verb, args, no = w[0], w[1:], ln.no
    if verb == "seat":
        ln.arity(2, 3, "seat N STACK [NAME]")
        return Action(no, verb, seat=ln.seat(args[0]), amount=ln.int_(args[1], "stack"),
                      text=args[2] if len(args) > 2 else "")  # fmt: skip
    if verb in ("unseat", "button", "fold"):
        ln.arity(1, 1, f"{verb} N")
        return Action(no, verb, seat=ln.seat(args[0]))
    if verb == "move":
        ln.arity(2, 2, "move FROM TO (seats)")
        return Action(no, verb, seat=ln.seat(args[0]), numbers=(ln.seat(args[1]),))
    if verb == "set-profile":
        ln.arity(1, 1, "set-profile NAME")
        try:
            get_profile(args[0])
        except ConfigError as exc:
            raise ln.error(f"set-profile {args[0]}: {exc}") from None
        return Action(no, verb, text=args[0])
    if verb == "level":
        ln.arity(2, 3, "level SB BB [ANTE]")
        nums = tuple(ln.int_(a, "level") for a in args)
        if nums[1] <= 0 or nums[0] > nums[1]:
            raise ln.error(f"level {' '.join(args)}: needs 0 <= SB <= BB and BB > 0")
        return Action(no, verb, numbers=nums if len(nums) == 3 else (*nums, 0))
    if verb == "hold-deal":
        ln.arity(1, 1, "hold-deal ROUND (the hand-for-hand round, 1 or more)")
        return Action(no, verb, amount=ln.int_(args[0], "hold-deal round", low=1))
    if verb in ("draw", "next-hand", "sweep", "release-deal"):
        ln.arity(0, 0, verb + " (no arguments)")
        return Action(no, verb)
    if verb in CARD_VERBS:
        if verb == "hole":
            if len(args) < 2:
                raise ln.error("hole: expected hole N CARD... [together]")
            cards, together = _cards(ln, args[1:])
            return Action(no, verb, seat=ln.seat(args[0]), zone="hole", cards=cards,
                          together=together)  # fmt: skip
        cards, together = _cards(ln, args)
        return Action(no, verb, zone="" if verb == "take" else verb, cards=cards,
                      together=together)  # fmt: skip
    if verb == "bet":
        if len(args) < 2:
            raise ln.error("bet: expected bet N AMOUNT or bet N chips D D ...")
        seat = ln.seat(args[0])
        if args[1] == "chips":
            if len(args) < 3:
                raise ln.error("bet N chips: name at least one chip")
            chips = tuple(ln.int_(a, "chip", low=1) for a in args[2:])
            return Action(no, verb, seat=seat, amount=sum(chips), numbers=chips)
        ln.arity(2, 2, "bet N AMOUNT or bet N chips D D ...")
        return Action(no, verb, seat=seat, amount=ln.int_(args[1], "amount", low=1))
    if verb == "zone":
        ln.arity(2, 2, "zone N TOTAL (the chips in seat N's betting zone then total TOTAL)")
        return Action(no, verb, seat=ln.seat(args[0]), amount=ln.int_(args[1], "total"))
    if verb == "takeback":
        ln.arity(1, 2, "takeback N [AMOUNT]")
        amount = ln.int_(args[1], "amount", low=1) if len(args) > 1 else 0
        return Action(no, verb, seat=ln.seat(args[0]), amount=amount)
    if verb == "press":
        ln.arity(1, 2, "press BUTTON [long]")
        button, long = _button(ln, args)
        return Action(no, verb, button=button, long=long)
    if verb == "ruling":
        ln.arity(1, 3, "ruling BADGE [BUTTON [long]] (a supervisor's badge, then a button)")
        if len(args) == 1:
            return Action(no, verb, text=args[0])
        button, long = _button(ln, args[1:])
        return Action(no, verb, text=args[0], button=button, long=long)
    if verb == "badge":
        ln.arity(2, 2, "badge dealer|supervisor ID")
        if args[0] not in ("dealer", "supervisor"):
            raise ln.error(f"badge {args[0]}: expected dealer or supervisor")
        return Action(no, verb, text=args[1], long=args[0] == "supervisor")
    if verb == "wait":
        ln.arity(1, 1, "wait SECONDS")
        try:
            secs = float(args[0])
        except ValueError:
            raise ln.error(f"wait {args[0]}: expected seconds") from None
        if not 0 <= secs <= 3600:
            raise ln.error(f"wait {args[0]}: seconds must be 0..3600")
        return Action(no, verb, seconds=secs)
    if verb == "fault":
        return _fault(ln)
    if verb == "declare":
        return _declare(ln)
    if verb == "show":
        return _show(ln)
    if verb == "showdown":
        ln.arity(0, 0, "showdown (no arguments)")
        return Action(ln.no, "showdown")
    raise ln.error(f"unknown instruction {verb!r}")


def _button(ln: _Line, args: list[str]) -> tuple[ConsoleButton, bool]:
    button = BUTTONS.get(args[0])
    if button is None:
        raise ln.error(f"{ln.words[0]} {args[0]}: unknown button (one of {', '.join(BUTTONS)})")
    if len(args) > 1 and args[1] != "long":
        raise ln.error(f"{ln.words[0]} {args[0]} {args[1]}: only 'long' may follow the button")
    return button, len(args) > 1


DECLARATIONS = {d.value: d for d in Declaration}


def _declare(ln: _Line) -> Action:
    """``declare N WORD``: the dealer records what seat N said (issue 14)."""
    ln.arity(2, 2, "declare N WORD")
    word = ln.words[2].lower().replace("-", "_")
    if word not in DECLARATIONS:
        raise ln.error(f"declare: {ln.words[2]!r} is not one of {', '.join(DECLARATIONS)}")
    return Action(ln.no, "declare", seat=ln.seat(ln.words[1]), text=word)


def _show(ln: _Line) -> Action:
    """``show N``: at the showdown seat N tables its hand (the dealer's ACK for the seat the
    table prompts; the runner checks it is seat N)."""
    ln.arity(1, 1, "show N")
    return Action(ln.no, "show", seat=ln.seat(ln.words[1]))


def _expect_pots(ln: _Line, args: list[str], xfail: str) -> Expect:
    """``expect pot-winners AMOUNT SEAT[,SEAT...] ...``: each pot of the last hand record over
    MQTT, in order (main pot first), its amount and the seats that won chips from it
    (``expect pots`` checks the seats eligible for each pot instead)."""
    if not args or len(args) % 2:
        raise ln.error("expect pot-winners: expected AMOUNT SEAT[,SEAT...] for each pot")
    pots = []
    for amount, seats in zip(args[::2], args[1::2], strict=True):
        won = sorted(ln.seat(s) for s in seats.split(","))
        pots.append(f"{ln.int_(amount, 'pot amount', low=1)}:{','.join(map(str, won))}")
    return Expect(ln.no, "pot-winners", text=" ".join(pots), xfail=xfail)


def _fault(ln: _Line) -> Action:
    args = ln.words[1:]
    if not args or args[0] not in FAULTS:
        raise ln.error(f"fault: expected one of {', '.join(FAULTS)}")
    kind = args[0]
    if kind == "bounce":
        ln.arity(2, 2, "fault bounce BUTTON")
        button = BUTTONS.get(args[1])
        if button is None:
            raise ln.error(f"fault bounce {args[1]}: unknown button")
        return Action(ln.no, "fault", text=kind, button=button)
    if kind in ("garbage", "bitflip"):
        ln.arity(1, 2, f"fault {kind} [N]")
        n = ln.int_(args[1], kind, low=1) if len(args) > 1 else (32 if kind == "garbage" else 1)
        return Action(ln.no, "fault", text=kind, amount=n)
    ln.arity(1, 1, f"fault {kind} (no arguments)")
    return Action(ln.no, "fault", text=kind)


def _expect(ln: _Line, xfail: str) -> Expect:
    w = ln.words[1:]
    if not w:
        raise ln.error("expect: expected what (alert, no-alert, pot, ...)")
    what, args, no = w[0], w[1:], ln.no
    if what == "alert":
        return _alert(ln, args, xfail)
    if what == "no-alert":
        if args[:1] == ["above"]:
            if len(args) != 2 or args[1] not in SEVERITIES[:2]:
                raise ln.error("expect no-alert above info|warning")
            return Expect(no, what, severity=args[1], xfail=xfail)
        if len(args) > 1:
            raise ln.error("expect no-alert [CODE] or expect no-alert above info|warning")
        code = args[0].upper() if args else ""
        if code and code not in ALERT_CODES:
            raise ln.error(f"expect no-alert {args[0]}: unknown alert code")
        return Expect(no, what, code=code, xfail=xfail)
    if what == "no-instruction":
        if args:
            raise ln.error("expect no-instruction (no arguments)")
        return Expect(no, what, xfail=xfail)
    if what == "refused":
        return Expect(no, what, text=_text(args), xfail=xfail)
    if what == "pots":
        return Expect(no, what, pots=_pots(ln, args), xfail=xfail)
    if what == "eliminated":
        if not args:
            raise ln.error("expect eliminated: name the seat(s) out, or none")
        seats = tuple(sorted(ln.seat(a) for a in args)) if args != ["none"] else ()
        return Expect(no, what, values=seats, xfail=xfail)
    if what in ("instruction", "remedy"):
        if not args:
            raise ln.error(f"expect {what}: give the text it must contain")
        return Expect(no, what, text=_text(args), xfail=xfail)
    if what in ("button", "sb", "bb", "to-act"):
        ln.words = ["expect", *args]
        ln.arity(1, 1, f"expect {what} N")
        seat_no = 0 if args[0] == "none" else ln.int_(args[0], what)
        return Expect(no, what, value=seat_no, xfail=xfail)
    if what in ("pot", "hand"):
        ln.words = ["expect", *args]
        ln.arity(1, 1, f"expect {what} N")
        return Expect(no, what, value=ln.int_(args[0], what), xfail=xfail)
    if what == "stack":
        ln.words = ["expect", *args]
        ln.arity(2, 2, "expect stack SEAT AMOUNT")
        return Expect(no, what, seat=ln.seat(args[0]), value=ln.int_(args[1], "stack"),
                      xfail=xfail)  # fmt: skip
    if what == "pot-winners":
        return _expect_pots(ln, args, xfail)
    if what == "winners":
        if not args:
            raise ln.error("expect winners: name the winning seat(s)")
        return Expect(no, what, values=tuple(sorted(ln.seat(a) for a in args)), xfail=xfail)
    for name, allowed in (("phase", PHASES), ("street", STREETS), ("reader", READER)):
        if what == name:
            if len(args) != 1 or args[0] not in allowed:
                raise ln.error(f"expect {name}: one of {', '.join(sorted(allowed))}")
            return Expect(no, what, text=args[0], xfail=xfail)
    raise ln.error(f"expect {what}: unknown expectation")


def _alert(ln: _Line, args: list[str], xfail: str) -> Expect:
    if not args:
        raise ln.error("expect alert: name the alert code")
    code = args[0].upper()
    if code not in ALERT_CODES:
        raise ln.error(f"expect alert {args[0]}: unknown alert code")
    severity, seat, card, within = "", None, "", 1
    rest = args[1:]
    while rest:
        if len(rest) < 2:
            raise ln.error(f"expect alert: {rest[0]!r} needs a value")
        key, val = rest[0], rest[1]
        rest = rest[2:]
        if key == "severity":
            if val not in SEVERITIES:
                raise ln.error(f"severity {val}: one of {', '.join(SEVERITIES)}")
            severity = val
        elif key == "seat":
            seat = ln.seat(val)
        elif key == "card":
            ref = ln.card(val)
            if ref.tag:
                raise ln.error(f"card {val}: an unregistered tag names no card")
            card = ref.card
        elif key == "within":
            within = ln.int_(val, "within", low=1)
            if rest[:1] in (["steps"], ["step"]):
                rest = rest[1:]
        else:
            raise ln.error(
                f"expect alert: unknown qualifier {key!r} (severity, seat, card, within N steps)"
            )
    return Expect(ln.no, "alert", code=code, severity=severity, seat=seat, card=card,
                  within=within, xfail=xfail)  # fmt: skip


def _pots(ln: _Line, args: list[str]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``AMOUNT:SEAT,SEAT ...``: each pot of the last hand record, main pot first."""
    if not args:
        raise ln.error("expect pots: give each pot as AMOUNT:SEAT,SEAT (main pot first)")
    out = []
    for word in args:
        amount, sep, seats = word.partition(":")
        if not sep or not seats:
            raise ln.error(f"expect pots {word}: expected AMOUNT:SEAT,SEAT (e.g. 300:1,2,3)")
        eligible = tuple(sorted(ln.seat(x) for x in seats.split(",")))
        if len(set(eligible)) != len(eligible):
            raise ln.error(f"expect pots {word}: a seat named twice")
        out.append((ln.int_(amount, "pot amount", low=1), eligible))
    return tuple(out)


def _text(words: list[str]) -> str:
    """Free text (a title, an instruction's words), without surrounding quotes."""
    return " ".join(words).strip().strip('"').strip()


def parse_text(text: str, path: str = "<scenario>") -> Scenario:
    sc = Scenario(path)
    xfail = ""
    xfail_line = 0
    for no, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        ln = _Line(path, no, words)
        head = words[0]
        if head == "profile":
            ln.arity(1, 1, "profile NAME")
            if sc.profile:
                raise ln.error("profile given twice")
            if sc.steps:
                raise ln.error("profile must come before the first action")
            try:
                get_profile(words[1])
            except ConfigError as exc:
                raise ln.error(f"profile {words[1]}: {exc}") from None
            sc.profile = words[1]
        elif head == "title":
            sc.title = _text(words[1:])
        elif head == "clause":
            ln.arity(1, 20, "clause ID [ID ...] (clause-inventory row ids)")
            if sc.steps:
                raise ln.error("clause must come before the first action")
            for cid in words[1:]:
                if not _CLAUSE_ID.match(cid):
                    raise ln.error(
                        f"clause {cid!r}: not a clause-inventory id (e.g. 000-S3-misdeal-1h)"
                    )
                if cid in sc.clauses:
                    raise ln.error(f"clause {cid} given twice")
                sc.clauses.append(cid)
        elif head == "xfail":
            if len(words) < 2:
                raise ln.error("xfail: give the reason (what the controller gets wrong)")
            if xfail:
                raise ln.error(f"xfail after the xfail of line {xfail_line}: one per expect")
            xfail, xfail_line = " ".join(words[1:]), no
        elif head == "expect":
            exp = _expect(ln, xfail)
            xfail = ""
            if exp.what == "refused" and (not sc.steps or sc.steps[-1].action.verb
                                          not in VENUE_VERBS):  # fmt: skip
                raise ln.error("expect refused follows a venue command: one of "
                               + ", ".join(VENUE_VERBS))  # fmt: skip
            if exp.within > 1 and exp.within > len(sc.steps):
                raise ln.error(f"within {exp.within} steps: only {len(sc.steps)} step(s) so far")
            (sc.steps[-1].expects if sc.steps else sc.setup).append(exp)
        else:
            if xfail:
                raise ScenarioError(path, xfail_line, "xfail must be followed by an expect line")
            if not sc.profile:
                raise ln.error("the profile line must come first")
            sc.steps.append(Step(_action(ln)))
    if xfail:
        raise ScenarioError(path, xfail_line, "xfail must be followed by an expect line")
    if not sc.profile:
        raise ScenarioError(path, 1, "no profile line (profile NAME)")
    if not sc.steps:
        raise ScenarioError(path, 1, "no actions")
    if sc.clauses and not sc.setup and not any(st.expects for st in sc.steps):
        raise ScenarioError(path, 1, "a scenario naming clauses must assert (no expect line)")
    return sc


def parse_file(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(p, 0, f"cannot read: {exc}") from None
    return parse_text(text, str(p))


def scenario_files(paths: list[str]) -> list[Path]:
    """Files named, and the ``*.scn`` files under folders named (sorted)."""
    out: list[Path] = []
    for name in paths:
        p = Path(name)
        if p.is_dir():
            out += sorted(p.rglob("*.scn"))
        else:
            out.append(p)
    return out
