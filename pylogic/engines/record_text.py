"""Records and ADT values in facts files, read as Soufflé 2.5 reads them (``readRecord``,
``readADT`` in ``include/souffle/io/ReadStream.h``): ``nil`` or ``[f1, f2]`` with blanks around
the fields; an ADT value ``$Branch`` or ``$Branch(a, b)``; a symbol field either quoted
(``"a, b"``, backslash escapes the next character) or the text up to the next ``,`` or closing
bracket, blanks included (``[a , b]`` holds ``"a "``); numbers as ``std::stoi`` reads them in
base 10 (``0x10`` is refused, measured), floats as ``std::stof``.

``parse`` builds the value through two functions of its caller, so each engine gets its own
representation: ``leaf(kind, value)`` (a number, an unsigned value, a float's key, a symbol's
text) and ``node(tag, children)`` (tag ``"[]"`` for a record, ``"nil"``, ``"$Branch"``)."""
from __future__ import annotations

import re

from pylogic.engines import floats

_INT = re.compile(r"[ \t\n\r\f\v]*([+-]?)([0-9]+)")     # base 10 only (RamSignedFromString)
_FLOAT = re.compile(r"[ \t\n\r\f\v]*([+-]?(?:inf(?:inity)?|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)"
                    r"(?:[eE][+-]?[0-9]+)?))", re.IGNORECASE)
_NAME = re.compile(r"[ \t\n\r\f\v]*([A-Za-z0-9_?.]*)")


class _Reader:
    def __init__(self, text: str, types, leaf, node):
        self.text, self.pos, self.types, self.leaf, self.node = text, 0, types, leaf, node

    def blanks(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def char(self, c: str) -> None:
        self.blanks()
        if self.pos >= len(self.text):
            raise ValueError("unexpected end of input")
        if self.text[self.pos] != c:
            raise ValueError(f"expected '{c}', got '{self.text[self.pos]}'")
        self.pos += 1

    def value(self, kind: str, stops: str):
        self.blanks()
        if kind == "symbol":
            return self.leaf(kind, self.symbol(stops))
        if kind in ("number", "unsigned"):
            m = _INT.match(self.text, self.pos)
            if not m:
                raise ValueError(f"not a {kind}: {self.text[self.pos:]!r}")
            self.pos = m.end()
            v = -int(m.group(2)) if m.group(1) == "-" else int(m.group(2))
            low, high = (0, 2 ** 32 - 1) if kind == "unsigned" else (-2 ** 31, 2 ** 31 - 1)
            if not low <= v <= high:
                raise ValueError(f"{v} is outside the 32-bit {kind} range")
            return self.leaf(kind, v)
        if kind == "float":
            m = _FLOAT.match(self.text, self.pos)
            if not m:
                raise ValueError(f"not a float: {self.text[self.pos:]!r}")
            self.pos = m.end()
            return self.leaf(kind, floats.parse(m.group(1)))
        if kind.startswith("record:"):
            return self.record(kind)
        if kind.startswith("adt:"):
            return self.adt(kind)
        raise ValueError(f"a value of kind {kind}")

    def symbol(self, stops: str) -> str:
        text, start = self.text, self.pos
        if start < len(text) and text[start] == '"':
            out, i, escaped = [], start + 1, False
            while i < len(text):
                c = text[i]
                if escaped:
                    out.append(c)
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == '"':
                    self.pos = i + 1
                    return "".join(out)
                else:
                    out.append(c)
                i += 1
            raise ValueError("unexpected end of input")
        ends = [j for j in (text.find(c, start) for c in stops) if j >= 0]
        if not ends:
            raise ValueError("unexpected end of input")
        self.pos = min(ends)
        return text[start:self.pos]

    def record(self, kind: str):
        self.blanks()
        if self.text.startswith("nil", self.pos):
            self.pos += 3
            return self.node("nil", ())
        fields = self.types.record_fields(kind)
        self.char("[")
        out = []
        for i, f in enumerate(fields):
            if i:
                self.char(",")
            out.append(self.value(self.types.kind(f, None), ",]"))
        self.char("]")
        return self.node("[]", tuple(out))

    def adt(self, kind: str):
        self.char("$")
        m = _NAME.match(self.text, self.pos)
        name = m.group(1)
        self.pos = m.end()
        branch = self.types.branches.get(name)
        if branch is None or f"adt:{branch[0]}" != kind:
            raise ValueError(f"${name} is no branch of {kind[4:]}")
        out = []
        if branch[1]:
            self.char("(")
            for i, f in enumerate(branch[1]):
                if i:
                    self.char(",")
                out.append(self.value(self.types.kind(f, None), ",)"))
            self.char(")")
        return self.node("$" + name, tuple(out))


def parse(text: str, kind: str, types, leaf, node):
    """The value of a facts-file field of ``kind`` (a record or ADT kind); ValueError with the
    reason if Soufflé would not read it."""
    reader = _Reader(text, types, leaf, node)
    value = reader.value(kind, "")
    reader.blanks()
    if reader.pos != len(text):
        raise ValueError(f"unexpected text after the value: {text[reader.pos:]!r}")
    return value


def is_structured(kind: str) -> bool:
    """A record or an ADT kind (read by ``parse``)."""
    return kind.startswith(("record:", "adt:"))
