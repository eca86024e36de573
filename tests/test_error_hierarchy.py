"""One error hierarchy (developers' guide; docs/architecture.md, "Errors"): every exception
class defined in the product's packages derives from
:class:`controller.rules.errors.RailguardError`, but for the few listed in :data:`ALLOWED`,
each with its reason.

Every ``class`` statement is found with ``ast`` (at module level, in a class or in a
function), then resolved: a module's importable classes from the imported module, a class
defined in a function (or in a module CPython cannot import: the MicroPython-only modules
of the reader firmware) by evaluating its bases where it stands. A class whose bases cannot
be resolved fails the test rather than being skipped.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules.errors import RailguardError

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("controller", "firmware_bridge", "hwsim", "reader_firmware")

#: Modules that cannot be imported here: the reader firmware's Pico binding and entry point
#: import MicroPython's ``machine`` (and ``main`` starts the firmware when imported). Their
#: classes are resolved from their imports instead.
MICROPYTHON_ONLY = frozenset({"reader_firmware.main", "reader_firmware.pico"})
#: ``python -m`` entry points: importing one runs it
ENTRY_POINTS = frozenset({"controller.venuelog.__main__"})

#: Exception classes outside the hierarchy, each with the reason it may stay there.
ALLOWED: dict[str, str] = {
    "controller.link.commands.PlainRefusal": (
        "control flow inside commands.py: _validate_command raises it for a floor command's "
        "arguments, parse_command (the same module) turns it into CommandRefused at once"
    ),
    "controller.link.redact._Leak": (
        "control flow inside redact.py: raised in the payload walk to collect the path on "
        "the way out; check_no_hole_cards (the same module) turns it into RedactionError"
    ),
    "controller.link.schema_check.Unsure": (
        "not an error but the compiled checker's 'cannot tell' (a value that is not plain "
        "JSON): schemas.fast_valid catches it and answers False (ask jsonschema); it never "
        "leaves fast_valid, and a RailguardError handler must not take it if it ever did"
    ),
    "reader_firmware.pn5180.FrontEndError": (
        "firmware running on the reader's Pico under MicroPython, where the controller "
        "package is not installed; caught inside the firmware, reported as a frame"
    ),
    "reader_firmware.protocol.ProtocolError": (
        "firmware running on the reader's Pico under MicroPython (see FrontEndError); the "
        "host side reads the same frames with firmware_bridge.protocol (FrameError)"
    ),
    "reader_firmware.emulation.pn5180_emu.ProtocolViolation": (
        "a test double's assertion (an AssertionError on purpose): the firmware drove the "
        "emulated PN5180 in a way a real chip would refuse; a test failure, not a product error"
    ),
}


@dataclass(frozen=True)
class Found:
    module: str
    qualname: str  # dotted through classes and functions, e.g. _wired_pin_class.WiredPin
    #: the class itself, or (defined in a function or a module not imported) its bases as
    #: evaluated where it stands; None: they could not be resolved (``why``)
    kinds: tuple[type, ...] | None
    why: str = ""

    @property
    def name(self) -> str:
        return f"{self.module}.{self.qualname}"

    @property
    def is_exception(self) -> bool:
        return any(issubclass(k, BaseException) for k in self.kinds or ())

    @property
    def in_hierarchy(self) -> bool:
        return any(issubclass(k, RailguardError) for k in self.kinds or ())


def module_names() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for top in TOPS:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imported(body: list[ast.stmt]) -> dict[str, Any]:
    """What the import statements of ``body`` (a module's or a function's) bind; a module
    that cannot be imported here (MicroPython's ``machine``) is left out, so a base that
    needs it stays unresolved."""
    ns: dict[str, Any] = {}
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            try:
                mod = importlib.import_module(node.module)
            except ImportError:
                continue
            for a in node.names:
                if not hasattr(mod, a.name):  # a submodule its package does not import
                    importlib.import_module(f"{node.module}.{a.name}")
                ns[a.asname or a.name] = getattr(mod, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                try:
                    mod = importlib.import_module(a.name)
                except ImportError:
                    continue
                top = importlib.import_module(a.name.split(".")[0])
                ns[a.asname or a.name.split(".")[0]] = mod if a.asname else top
    return ns


def _bases(node: ast.ClassDef, ns: dict[str, Any]) -> tuple[tuple[type, ...] | None, str]:
    try:
        bases = [eval(ast.unparse(b), {"__builtins__": builtins}, ns) for b in node.bases]
    except Exception as exc:  # a base defined where it cannot be seen from here
        return None, f"bases {[ast.unparse(b) for b in node.bases]} unresolved: {exc!r}"
    return tuple(b for b in bases if isinstance(b, type)), ""


def _visit(module: str, node: ast.AST, qual: list[str], owner: object, ns: dict[str, Any],
           out: list[Found]) -> None:  # fmt: skip
    """Collect the classes under ``node``. ``owner``: the live object ``qual`` names (a
    module or a class), None inside a function or a module that cannot be imported;
    ``ns``: the names a class statement there sees."""
    for ch in ast.iter_child_nodes(node):
        if isinstance(ch, ast.ClassDef):
            q = [*qual, ch.name]
            live = getattr(owner, ch.name, None) if owner is not None else None
            if isinstance(live, type):
                out.append(Found(module, ".".join(q), (live,)))
            else:
                out.append(Found(module, ".".join(q), *_bases(ch, ns)))
            _visit(module, ch, q, live if isinstance(live, type) else None, ns, out)
        elif isinstance(ch, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = {**ns, **_imported(ch.body)}
            _visit(module, ch, [*qual, ch.name], None, inner, out)
        elif isinstance(ch, ast.If) and "TYPE_CHECKING" in ast.unparse(ch.test):
            continue
        else:
            _visit(module, ch, qual, owner, ns, out)


def classes() -> list[Found]:
    """Every class statement of the product's packages, resolved (see the module)."""
    out: list[Found] = []
    for name, path in module_names().items():
        if name in ENTRY_POINTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        if name in MICROPYTHON_ONLY:
            _visit(name, tree, [], None, _imported(tree.body), out)
        else:
            module = importlib.import_module(name)
            _visit(name, tree, [], module, vars(module), out)
    return out


def test_every_product_exception_is_in_the_one_hierarchy() -> None:
    found = classes()
    unresolved = [f"{f.name}: {f.why}" for f in found if f.kinds is None]
    assert not unresolved, f"classes whose bases this test cannot resolve: {unresolved}"
    exceptions = {f.name: f for f in found if f.is_exception}
    # it sees what it must: the root, the packages' own errors, the MicroPython modules'
    # classes and a class defined in a function (not exceptions, but resolved)
    assert exceptions["controller.rules.errors.RailguardError"].kinds == (RailguardError,)
    assert {"firmware_bridge.link_model.ReaderLinkError", "hwsim.layout.TableFailure",
            "controller.link.errors.LinkError", *ALLOWED} <= exceptions.keys()  # fmt: skip
    names = {f.name for f in found}
    assert {"reader_firmware.pico.UsbPort", "hwsim.gpio._wired_pin_class.WiredPin"} <= names
    outside = sorted(n for n, f in exceptions.items() if not f.in_hierarchy and n not in ALLOWED)
    assert not outside, (
        f"exception classes outside controller.rules.errors.RailguardError: {outside}; derive "
        "them from the right base (docs/architecture.md, Errors) or list them in ALLOWED "
        "with the reason"
    )


def test_the_allow_list_names_only_exceptions_outside_the_hierarchy() -> None:
    exceptions = {f.name: f for f in classes() if f.is_exception}
    stale = sorted(n for n in ALLOWED if n not in exceptions)
    assert not stale, f"ALLOWED names classes that are gone or not exceptions: {stale}"
    inside = sorted(n for n in ALLOWED if exceptions[n].in_hierarchy)
    assert not inside, f"ALLOWED names classes already in the hierarchy: {inside}"


def test_the_simulated_tables_failures_are_in_the_hierarchy() -> None:
    """The two that used to be plain ``Exception`` (#errors): caught as before under their
    names and now as a RailguardError and a RuntimeError too."""
    from controller.demo.table import DemoFailure
    from hwsim.layout import TableFailure
    from hwsim.scenario import rig, runner

    assert DemoFailure is TableFailure is rig.DemoFailure
    assert issubclass(TableFailure, RailguardError) and issubclass(TableFailure, RuntimeError)
    exc = runner.StepFailed(7, "deal: card Ah is not on the table")
    assert isinstance(exc, TableFailure) and isinstance(exc, RailguardError)
    assert (exc.line, exc.reason, str(exc)) == (7, "deal: card Ah is not on the table",
                                                "deal: card Ah is not on the table")  # fmt: skip


def test_the_docs_list_the_same_exceptions_outside_the_hierarchy() -> None:
    """docs/architecture.md ("Errors") names, in its table of what stays outside, exactly
    the classes of :data:`ALLOWED`."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc[doc.index("## 8. Errors") :]
    table = section[section.index("| class | why it stays outside |") :]
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), table.splitlines()[2:]))
    named = {n for row in rows for n in re.findall(r"`([\w.]+)`", row.split("|")[1])}
    assert named == set(ALLOWED)
