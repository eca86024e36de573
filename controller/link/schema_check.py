"""A small compiled checker for the JSON Schema keywords the MQTT contract's schemas use.

:func:`compile_schema` turns a schema into Python source, one small function per
(sub)schema with one ``if ...: return False`` line per keyword, and compiles it: checking a
live state of three seats takes about 10 µs, as long as jsonschema-rs and the walk for
integral floats it needed took together, with no interpretation of the schema at check
time. It replaced jsonschema-rs as :func:`controller.link.schemas.fast_valid`'s fast path
(#23): the same answers for a fraction of the memory (the Rust extension kept 3 to 9 MB of
the table daemon resident, depending on the page cache; docs/performance.md).

It is exact only for plain JSON values: dicts with string keys, lists (tuples are arrays,
as for jsonschema-rs), strings, ints, finite floats, booleans and None. Anything else
anywhere in the value (a float NaN, bytes, a Decimal, a key that is not a string, a value
of a class it does not know) raises :class:`Unsure`, and the caller asks ``jsonschema``.
"integer" means an int that is not a bool (not 3.0, not True), as in the contract.

Only the keywords listed in :data:`KEYWORDS` (and the annotations in :data:`ANNOTATIONS`)
are understood; a schema with any other keyword is refused when compiled (``ValueError``),
so a schema that grows a new keyword cannot be checked half-way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

Check = Callable[[object], bool]

#: keywords the checker applies
KEYWORDS: Final = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties",
    "propertyNames", "minProperties", "maxProperties", "items", "minItems", "maxItems",
    "uniqueItems", "minLength", "maxLength", "pattern", "minimum", "maximum", "oneOf",
    "allOf", "if", "then", "else",
})  # fmt: skip
#: keywords that only describe (no effect on validity)
ANNOTATIONS: Final = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "examples", "default"}
)


class Unsure(Exception):
    """The value holds something other than plain JSON: ask ``jsonschema``."""


_ARRAY = (list, tuple)


def _is_number(x: object) -> bool:
    t = type(x)
    if t is int:
        return True
    if t is float:
        if not math.isfinite(x):  # type: ignore[arg-type]
            raise Unsure
        return True
    if t is bool or t is str or t is dict or t is list or t is tuple or x is None:
        return False
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    if isinstance(x, (str, dict, list, tuple)):
        return False
    raise Unsure


def _is_int(x: object) -> bool:
    """The "integer" test for a value whose type is not exactly int (bool, IntEnum, float)."""
    return _is_number(x) and isinstance(x, int) and not isinstance(x, bool)


def _in_enum(x: object, values: tuple[object, ...]) -> bool:
    """Whether ``x`` equals one of the scalar ``values`` as jsonschema counts equality (True
    is not 1, 1 is 1.0)."""
    if isinstance(x, (dict, list, tuple)):
        return False  # never equal to a scalar
    if x is None:
        return any(e is None for e in values)
    if isinstance(x, bool):
        return any(e is x for e in values)
    if isinstance(x, str):
        return any(isinstance(e, str) and e == x for e in values)
    return _is_number(x) and any(
        isinstance(e, (int, float)) and not isinstance(e, bool) and e == x for e in values
    )


def _key(v: object) -> object:
    """A hashable key equal for items jsonschema counts equal (True is not 1, 1 is 1.0)."""
    if v is None or isinstance(v, bool):
        return ("b", v)
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, _ARRAY):
        return ("a", tuple(_key(i) for i in v))
    if isinstance(v, dict):
        return ("o", frozenset((k, _key(i)) for k, i in v.items()))
    if _is_number(v):  # raises Unsure for what is not plain JSON
        return ("n", v)
    raise Unsure


def _unique(x: Any) -> bool:
    """uniqueItems."""
    return len({_key(v) for v in x}) == len(x)


#: the test of each type, as an expression on ``x``
_TYPE_TEST: Final = {
    "object": "isinstance(x, dict)",
    "array": "isinstance(x, _ARRAY)",
    "string": "isinstance(x, str)",
    "boolean": "isinstance(x, bool)",
    "null": "x is None",
    "number": "(type(x) is int or _is_number(x))",
    "integer": "(type(x) is int or _is_int(x))",
}
#: the type a keyword applies to (it passes any other), and that type's test
_APPLIES: Final = {"string": "isinstance(x, str)", "number": "_is_number(x)",
                   "array": "isinstance(x, _ARRAY)", "object": "isinstance(x, dict)"}  # fmt: skip


class _Compiler:
    """Python source for each (sub)schema: one function ``_fN(x) -> bool`` each."""

    def __init__(self) -> None:
        self.names: dict[str, object] = {
            "Unsure": Unsure, "_ARRAY": _ARRAY, "_is_number": _is_number, "_is_int": _is_int,
            "_in_enum": _in_enum, "_unique": _unique,
        }  # fmt: skip
        self.functions: list[str] = []
        self.tables: list[tuple[str, dict[str, str]]] = []  # filled once the functions exist

    def const(self, value: object) -> str:
        name = f"_k{len(self.names)}"
        self.names[name] = value
        return name

    def function(self, schema: Mapping[str, Any] | bool) -> str:
        name = f"_f{len(self.functions)}"
        self.functions.append("")  # reserve the name: children are numbered after it
        index = len(self.functions) - 1
        self.functions[index] = f"def {name}(x):\n" + "".join(
            f"    {line}\n" for line in [*self.body(schema), "return True"]
        )
        return name

    def body(self, schema: Mapping[str, Any] | bool) -> list[str]:
        if schema is True:
            return []
        if schema is False:
            return ["return False"]
        if not isinstance(schema, Mapping):
            raise ValueError(f"not a schema: {schema!r}")
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise ValueError(f"keywords not supported: {sorted(unknown)}")
        s, out = schema, []
        known = None  # the one type the value is known to have after the type test
        if "type" in s:
            names = [s["type"]] if isinstance(s["type"], str) else list(s["type"])
            for n in names:
                if n not in _TYPE_TEST:
                    raise ValueError(f"unknown type {n!r}")
            out.append(f"if not ({' or '.join(_TYPE_TEST[n] for n in names)}): return False")
            if len(names) == 1:
                known = "number" if names[0] == "integer" else names[0]

        def guarded(kind: str, lines: list[str]) -> None:
            if not lines:
                return
            if known == kind:
                out.extend(lines)
            else:
                out.append(f"if {_APPLIES[kind]}:")
                out.extend("    " + line for line in lines)

        if "const" in s or "enum" in s:
            values = (s["const"],) if "const" in s else tuple(s["enum"])
            for v in values:
                if not (v is None or isinstance(v, (str, bool, int, float))):
                    raise ValueError(f"enum/const value {v!r} not supported")
            if all(isinstance(v, str) for v in values):
                k = self.const(frozenset(values))
                out.append(f"if type(x) is str: \n        if x not in {k}: return False")
                out.append(f"elif not _in_enum(x, {self.const(values)}): return False")
            else:
                out.append(f"if not _in_enum(x, {self.const(values)}): return False")
        text = []
        lo, hi = s.get("minLength"), s.get("maxLength")
        if lo is not None:
            text.append(f"if len(x) < {int(lo)}: return False")
        if hi is not None:
            text.append(f"if len(x) > {int(hi)}: return False")
        if "pattern" in s:
            search = self.const(re.compile(s["pattern"]).search)
            text.append(f"if {search}(x) is None: return False")
        guarded("string", text)
        bounds = (("minimum", "<"), ("maximum", ">"))
        guarded("number", [f"if x {op} {self.const(s[k])}: return False" for k, op in bounds
                           if k in s])  # fmt: skip
        array = []
        lo, hi = s.get("minItems"), s.get("maxItems")
        if lo is not None:
            array.append(f"if len(x) < {int(lo)}: return False")
        if hi is not None:
            array.append(f"if len(x) > {int(hi)}: return False")
        if "items" in s:
            item = self.function(s["items"])
            array.append(f"for v in x:\n            if not {item}(v): return False")
        if s.get("uniqueItems") is True:
            array.append("if not _unique(x): return False")
        guarded("array", array)
        guarded("object", self.object_lines(s))
        if "allOf" in s:
            subs = [self.function(sub) for sub in s["allOf"]]
            out.append(f"if not ({' and '.join(f'{f}(x)' for f in subs)}): return False")
        if "oneOf" in s:
            subs = [self.function(sub) for sub in s["oneOf"]]
            out.append(f"if ({' + '.join(f'{f}(x)' for f in subs)}) != 1: return False")
        if "if" in s:
            cond = self.function(s["if"])
            then, other = self.function(s.get("then", True)), self.function(s.get("else", True))
            out.append(f"if not ({then}(x) if {cond}(x) else {other}(x)): return False")
        return out

    def object_lines(self, s: Mapping[str, Any]) -> list[str]:
        lines = []
        required = list(s.get("required", ()))
        if required:
            missing = " or ".join(f"{self.const(k)} not in x" for k in required)
            lines.append(f"if {missing}: return False")
        if "minProperties" in s:
            lines.append(f"if len(x) < {int(s['minProperties'])}: return False")
        if "maxProperties" in s:
            lines.append(f"if len(x) > {int(s['maxProperties'])}: return False")
        props = {k: self.function(v) for k, v in s.get("properties", {}).items()}
        extra = s.get("additionalProperties", True)
        names = self.function(s["propertyNames"]) if "propertyNames" in s else None
        # every key is looked at (a key that is not a string: Unsure), even with nothing to check
        table = None
        if props:
            table = self.const({})
            self.tables.append((table, props))
        loop = ["for k, v in x.items():"]
        other = ["if not isinstance(k, str): raise Unsure"]
        if extra is False:
            other.append("return False")
        elif extra is not True:
            other.append(f"if not {self.function(extra)}(v): return False")
        if table is not None:
            loop += [f"    c = {table}.get(k)", "    if c is not None:",
                     "        if not c(v): return False", "    else:"]  # fmt: skip
            loop += ["        " + line for line in other]
        else:
            loop += ["    " + line for line in other]
        if names is not None:
            loop.append(f"    if not {names}(k): return False")
        return lines + loop

    def build(self, schema: Mapping[str, Any] | bool) -> Check:
        top = self.function(schema)
        for source in self.functions:  # one at a time: compiling is transient memory
            exec(source, self.names)  # our own generated source, from our schemas
        for table, props in self.tables:
            functions = self.names[table]
            assert isinstance(functions, dict)
            functions.update({k: self.names[f] for k, f in props.items()})
        check: Check = self.names[top]  # type: ignore[assignment]
        return check


def compile_schema(schema: Mapping[str, Any] | bool) -> Check:
    """``check(value)``: whether ``value`` is valid for ``schema`` (Draft 2020-12, strict
    integers); raises :class:`Unsure` for a value that is not plain JSON (see the module)."""
    return _Compiler().build(schema)
