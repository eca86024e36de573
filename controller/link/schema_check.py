"""A small compiled checker for the JSON Schema keywords the MQTT contract's schemas use.

:func:`compile_schema` turns a schema into Python source and compiles it: one ``if ...:
return False`` line per keyword, the checks of a member or an array item written inline in
its parent's function (only the branches of ``allOf``, ``oneOf`` and ``if`` are functions of
their own), so a check interprets nothing. A live state of three seats takes 3.6 µs, an OHH
hand record 14 µs (jsonschema-rs with the walk for integral floats it needed: 3.8 and 17 µs).
It replaced jsonschema-rs as :func:`controller.link.schemas.fast_valid`'s fast path (#23):
the same answers for a fraction of the memory (the Rust extension kept 3 to 9 MB of the
table daemon resident, depending on the page cache; docs/performance.md).

It is exact for plain JSON values: dicts with string keys, lists (tuples are arrays, as for
jsonschema-rs), strings, ints, finite floats, booleans and None. Where it meets anything
else (a float NaN, bytes, a Decimal, a member name that is not a string, a value of a class
it does not know) it raises :class:`Unsure`, and the caller asks ``jsonschema``. "integer"
means an int that is not a bool (not 3.0, not True), as in the contract.

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
#: the keywords about an object's members
OBJECT_KEYWORDS: Final = frozenset({"properties", "required", "additionalProperties",
                                    "propertyNames", "minProperties", "maxProperties"})  # fmt: skip
#: keywords that only describe (no effect on validity)
ANNOTATIONS: Final = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "examples", "default"}
)


_MISSING: Final = object()


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


#: the test of each type, as an expression on the value ``{x}``
_TYPE_TEST: Final = {
    "object": "isinstance({x}, dict)",
    "array": "isinstance({x}, _ARRAY)",
    "string": "isinstance({x}, str)",
    "boolean": "isinstance({x}, bool)",
    "null": "{x} is None",
    "number": "(type({x}) is int or _is_number({x}))",
    "integer": "(type({x}) is int or _is_int({x}))",
}
#: the type a keyword applies to (it passes any other), and that type's test
_APPLIES: Final = {
    "string": "isinstance({x}, str)",
    "number": "_is_number({x})",
    "array": "isinstance({x}, _ARRAY)",
    "object": "isinstance({x}, dict)",
}


def _length_checks(x: str, lo: Any, hi: Any) -> list[str]:
    """The lines that check ``len(x)`` against a schema's lower and upper bound (a string's
    ``minLength``/``maxLength``, an array's ``minItems``/``maxItems``), either absent."""
    out = []
    if lo is not None:
        out.append(f"if len({x}) < {int(lo)}: return False")
    if hi is not None:
        out.append(f"if len({x}) > {int(hi)}: return False")
    return out


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


class _Compiler:
    """Python source for a schema: the checks of a sub-schema are written inline in its
    parent's function (one line per keyword, ``return False`` at the first failure), except
    under ``allOf``, ``oneOf`` and ``if``, whose sub-schemas are functions of their own
    (their answer is needed as a value)."""

    def __init__(self) -> None:
        self.names: dict[str, object] = {
            "Unsure": Unsure, "_ARRAY": _ARRAY, "_is_number": _is_number, "_is_int": _is_int,
            "_in_enum": _in_enum, "_unique": _unique, "_MISSING": _MISSING,
        }  # fmt: skip
        self.functions: list[str] = []
        self.variables = 0

    def const(self, value: object) -> str:
        name = f"_k{len(self.names)}"
        self.names[name] = value
        return name

    def variable(self) -> str:
        self.variables += 1
        return f"x{self.variables}"

    def function(self, schema: Mapping[str, Any] | bool) -> str:
        name = f"_f{len(self.functions)}"
        self.functions.append("")  # reserve the name: children are numbered after it
        index = len(self.functions) - 1
        lines = [f"def {name}(x0):", *_indent([*self.body(schema, "x0"), "return True"])]
        self.functions[index] = "\n".join(lines) + "\n"
        return name

    def body(self, schema: Mapping[str, Any] | bool, x: str) -> list[str]:
        """Lines that ``return False`` unless the value in variable ``x`` is valid."""
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
            tests = " or ".join(_TYPE_TEST[n].format(x=x) for n in names)
            out.append(f"if not ({tests}): return False")
            if len(names) == 1:
                known = "number" if names[0] == "integer" else names[0]

        def guarded(kind: str, lines: list[str]) -> None:
            if not lines or known not in (None, kind):
                return  # nothing to check, or the value cannot be of that type here
            if known == kind:
                out.extend(lines)
            else:
                out.append(f"if {_APPLIES[kind].format(x=x)}:")
                out.extend(_indent(lines))

        if "const" in s or "enum" in s:
            values = (s["const"],) if "const" in s else tuple(s["enum"])
            for v in values:
                if not (v is None or isinstance(v, (str, bool, int, float))):
                    raise ValueError(f"enum/const value {v!r} not supported")
            if all(isinstance(v, str) for v in values):
                out += [f"if type({x}) is str:",
                        f"    if {x} not in {self.const(frozenset(values))}: return False",
                        f"elif not _in_enum({x}, {self.const(values)}): return False"]  # fmt: skip
            else:
                out.append(f"if not _in_enum({x}, {self.const(values)}): return False")
        text = _length_checks(x, s.get("minLength"), s.get("maxLength"))
        if "pattern" in s:
            search = self.const(re.compile(s["pattern"]).search)
            text.append(f"if {search}({x}) is None: return False")
        guarded("string", text)
        bounds = (("minimum", "<"), ("maximum", ">"))
        guarded("number", [f"if {x} {op} {self.const(s[k])}: return False" for k, op in bounds
                           if k in s])  # fmt: skip
        array = _length_checks(x, s.get("minItems"), s.get("maxItems"))
        if "items" in s:
            item = self.variable()
            array += [f"for {item} in {x}:", *_indent(self.body(s["items"], item) or ["pass"])]
        if s.get("uniqueItems") is True:
            array.append(f"if not _unique({x}): return False")
        guarded("array", array)
        guarded("object", self.object_lines(s, x))
        if "allOf" in s:
            subs = [self.function(sub) for sub in s["allOf"]]
            out.append(f"if not ({' and '.join(f'{f}({x})' for f in subs)}): return False")
        if "oneOf" in s:
            subs = [self.function(sub) for sub in s["oneOf"]]
            out.append(f"if ({' + '.join(f'{f}({x})' for f in subs)}) != 1: return False")
        if "if" in s:
            cond = self.function(s["if"])
            then, other = self.function(s.get("then", True)), self.function(s.get("else", True))
            out.append(f"if not ({then}({x}) if {cond}({x}) else {other}({x})): return False")
        return out

    def object_lines(self, s: Mapping[str, Any], x: str) -> list[str]:
        lines = []
        required = list(s.get("required", ()))
        if required:
            missing = " or ".join(f"{self.const(k)} not in {x}" for k in required)
            lines.append(f"if {missing}: return False")
        if "minProperties" in s:
            lines.append(f"if len({x}) < {int(s['minProperties'])}: return False")
        if "maxProperties" in s:
            lines.append(f"if len({x}) > {int(s['maxProperties'])}: return False")
        props: dict[str, Any] = dict(s.get("properties", {}))
        for name, sub in props.items():  # each declared member, when present
            body = self.body(sub, v := self.variable())
            if body:
                lines += [f"{v} = {x}.get({self.const(name)}, _MISSING)",
                          f"if {v} is not _MISSING:", *_indent(body)]  # fmt: skip
        extra = s.get("additionalProperties", True)
        declared = self.const(frozenset(props))
        k = self.variable()
        if extra is False:  # a member not declared: refused (a key not a string: Unsure)
            lines += [f"if not {x}.keys() <= {declared}:",
                      f"    for {k} in {x}:",
                      f"        if {k} not in {declared} and not isinstance({k}, str):",
                      "            raise Unsure",
                      "    return False"]  # fmt: skip
        elif extra is not True:
            v = self.variable()
            lines += [f"for {k}, {v} in {x}.items():",
                      f"    if {k} not in {declared}:",
                      f"        if not isinstance({k}, str): raise Unsure",
                      *_indent(_indent(self.body(extra, v)))]  # fmt: skip
        if "propertyNames" in s:
            lines += [f"for {k} in {x}:", *_indent(self.body(s["propertyNames"], k) or ["pass"])]
        return lines

    def build(self, schema: Mapping[str, Any] | bool) -> Check:
        top = self.function(schema)
        for source in self.functions:  # one at a time: compiling is transient memory
            exec(source, self.names)  # our own generated source, from our schemas
        check: Check = self.names[top]  # type: ignore[assignment]
        return check


def compile_schema(schema: Mapping[str, Any] | bool) -> Check:
    """``check(value)``: whether ``value`` is valid for ``schema`` (Draft 2020-12, strict
    integers); raises :class:`Unsure` for a value that is not plain JSON (see the module)."""
    return _Compiler().build(schema)
