"""LLVM values and constants: parsing operand text, evaluating constant expressions, and laying
global initialisers out as bytes plus relocations (addresses only known at run time).

Value terms are tuples: ('local', name) ('global', name) ('int', n) ('zero',) ('agg', [(T, V)...])
('cstr', bytes) ('float', text) ('expr', op, payload). ``null``/``undef``/``poison``/
``zeroinitializer`` are all ('zero',) — PIR has no undefined values (reading is 0, docs/pir.md).
"""
from __future__ import annotations

import re
import struct

from pylogic.ir.llvm.types import (ArrayT, Cursor, DataLayout, FloatT, IntT, StructT,
                                   Unsupported, VectorT, parse_type)

CAST_OPS = ("trunc", "zext", "sext", "ptrtoint", "inttoptr", "bitcast", "addrspacecast")
BIN_OPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr")
FLAG_WORDS = frozenset(("inbounds", "nuw", "nsw", "nusw", "exact", "disjoint", "nneg", "samesign",
                        "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"))
#: Parameter attributes that may sit between an argument's type and its value.
_ATTR_WITH_ARG = frozenset(("align", "dereferenceable", "dereferenceable_or_null", "byval",
                            "sret", "byref", "preallocated", "inalloca", "elementtype",
                            "captures", "nofpclass", "range", "initializes", "alignstack",
                            "memory"))
_VALUE_WORDS = frozenset(("true", "false", "null", "undef", "poison", "zeroinitializer",
                          "getelementptr", "blockaddress", "dso_local_equivalent", "no_cfi",
                          "splat", "none") + CAST_OPS + BIN_OPS + ("icmp", "select"))


def canon(value: int, bits: int) -> int:
    """The canonical 64-bit register value of an iN constant: i1 is 0/1, wider ints are
    sign-extended from bit N-1 (see lower.py, 'Value model')."""
    if bits == 1:
        return value & 1
    if bits >= 64:
        value &= (1 << 64) - 1
        return value - (1 << 64) if value >> 63 else value
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def skip_attribute(c: Cursor) -> tuple[str, object] | None:
    """Skip one parameter attribute (``noundef``, ``align 8``, ``byval(%struct.S)`` ...) and
    return ``(word, type_or_None)``; None when the next token is not an attribute."""
    t = c.peek()
    if t is None or t.kind != "word" or t.text in _VALUE_WORDS:
        return None
    c.next()
    if t.text == "align" and c.peek() is not None and c.peek().kind == "num":
        c.next()
        return (t.text, None)
    if t.text in ("byval", "sret", "byref", "elementtype", "preallocated", "inalloca") and c.at("("):
        c.next()
        ty = parse_type(c)
        c.expect(")")
        return (t.text, ty)
    c.skip_parenthesized()
    return (t.text, None)


def skip_attributes(c: Cursor) -> dict:
    """Skip a run of parameter attributes; returns {word: type_or_None}."""
    seen = {}
    while (a := skip_attribute(c)) is not None:
        seen[a[0]] = a[1]
    return seen


def parse_typed(c: Cursor, attrs: bool = False):
    """``TYPE [attrs] VALUE`` -> (type, value)."""
    ty = parse_type(c)
    if attrs:
        skip_attributes(c)
    return ty, parse_value(c, ty)


def parse_value(c: Cursor, ty) -> tuple:
    """One value of a known type."""
    t = c.next()
    k, x = t.kind, t.text
    if k == "local":
        return ("local", x)
    if k == "glob":
        return ("global", x)
    if k == "num":
        if isinstance(ty, FloatT) or "." in x or x.lower().startswith("0x"):
            return ("float", x)
        return ("int", int(x))
    if k == "cstr":
        return ("cstr", decode_cstring(x[2:-1]))
    if x == "true":
        return ("int", 1)
    if x == "false":
        return ("int", 0)
    if x in ("null", "undef", "poison", "zeroinitializer", "none"):
        return ("zero",)
    if x == "[" or x == "{" or (x == "<" and c.at("{")):
        if x == "<":
            c.next()
        close = {"[": "]", "{": "}", "<": "}"}[x]
        elems = []
        if not c.accept(close):
            while True:
                elems.append(parse_typed(c))
                if c.accept(close):
                    break
                c.expect(",")
        if x == "<":
            c.expect(">")
        return ("agg", elems)
    if x == "<":
        raise Unsupported("vector constant")
    if x == "getelementptr":
        while c.peek() is not None and (c.peek().text in FLAG_WORDS or c.peek().text.startswith("inrange")):
            tok = c.next()
            if tok.text.startswith("inrange") and c.at("("):
                while c.next().text != ")":
                    pass
        c.expect("(")
        src = parse_type(c)
        idx = []
        while c.accept(","):
            idx.append(parse_typed(c))
        c.expect(")")
        return ("expr", "getelementptr", (src, idx))
    if x in CAST_OPS:
        c.expect("(")
        src_t, v = parse_typed(c)
        c.expect("to")
        dst_t = parse_type(c)
        c.expect(")")
        return ("expr", x, (src_t, v, dst_t))
    if x in BIN_OPS:
        while c.peek() is not None and c.peek().text in FLAG_WORDS:
            c.next()
        c.expect("(")
        a = parse_typed(c); c.expect(","); b = parse_typed(c)
        c.expect(")")
        return ("expr", x, (a, b))
    raise Unsupported(f"constant form {x!r}")


def decode_cstring(body: str) -> bytes:
    """LLVM ``c"..."`` body: printable ASCII with ``\\XX`` hex escapes."""
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and body[i + 1:i + 2] == "\\":  # LLVM prints a backslash as \\
            out.append(0x5C); i += 2
        elif ch == "\\":  # otherwise two hex digits
            out.append(int(body[i + 1:i + 3], 16)); i += 3
        else:
            out.extend(ch.encode("latin-1")); i += 1
    return bytes(out)


# ---------------------------------------------------------------- constant evaluation

class Address(tuple):
    """A link-time constant address: (symbol, byte offset)."""

    def __new__(cls, name: str, offset: int):
        return super().__new__(cls, (name, offset))

    name = property(lambda s: s[0])
    offset = property(lambda s: s[1])


def eval_const(ty, v, layout: DataLayout):
    """Evaluate a constant operand: an int (canonical for its type) or an Address."""
    kind = v[0]
    if kind == "int":
        return canon(v[1], ty.bits) if isinstance(ty, IntT) else v[1]
    if kind == "zero":
        return 0
    if kind == "global":
        return Address(v[1], 0)
    if kind == "float":
        raise Unsupported("floating point constant")
    if kind == "expr":
        op, p = v[1], v[2]
        if op == "getelementptr":
            src, idx = p
            base = eval_const(idx[0][0], idx[0][1], layout)
            off = gep_constant_offset(src, [eval_const(t, x, layout) for t, x in idx[1:]], layout)
            return _add(base, off)
        if op in CAST_OPS:
            src_t, x, dst_t = p
            val = eval_const(src_t, x, layout)
            if isinstance(val, Address):
                if op in ("bitcast", "ptrtoint", "inttoptr", "addrspacecast") and (
                        not isinstance(dst_t, IntT) or dst_t.bits == 64):
                    return val
                raise Unsupported(f"constant {op} of an address")
            if isinstance(dst_t, IntT):
                if op == "zext" and isinstance(src_t, IntT):
                    return canon(val & ((1 << src_t.bits) - 1), dst_t.bits)
                return canon(val, dst_t.bits)
            return val & ((1 << 64) - 1) if op == "inttoptr" and isinstance(src_t, IntT) and src_t.bits < 64 else val
        if op in BIN_OPS:
            (ta, a), (tb, b) = p
            va, vb = eval_const(ta, a, layout), eval_const(tb, b, layout)
            bits = ta.bits if isinstance(ta, IntT) else 64
            if op == "add" and (isinstance(va, Address) or isinstance(vb, Address)):
                if isinstance(va, Address) and isinstance(vb, Address):
                    raise Unsupported("sum of two addresses")
                return _add(va, vb) if isinstance(va, Address) else _add(vb, va)
            if op == "sub" and isinstance(va, Address) and not isinstance(vb, Address):
                return Address(va.name, va.offset - vb)
            if op == "sub" and isinstance(va, Address) and isinstance(vb, Address) and va.name == vb.name:
                return canon(va.offset - vb.offset, bits)
            if isinstance(va, Address) or isinstance(vb, Address):
                raise Unsupported(f"constant {op} on addresses")
            mask = (1 << bits) - 1
            ua, ub = va & mask, vb & mask
            r = {"add": lambda: va + vb, "sub": lambda: va - vb, "mul": lambda: va * vb,
                 "and": lambda: va & vb, "or": lambda: va | vb, "xor": lambda: va ^ vb,
                 "shl": lambda: va << (ub % 64), "lshr": lambda: ua >> (ub % 64),
                 "ashr": lambda: va >> (ub % 64)}[op]()
            return canon(r, bits)
    raise Unsupported(f"constant {v[0]} used as a scalar")


def _add(base, off: int):
    if isinstance(base, Address):
        return Address(base.name, base.offset + off)
    return base + off


def gep_constant_offset(src, indices: list, layout: DataLayout) -> int:
    """Byte offset of a GEP with constant (int) indices over source element type ``src``."""
    if any(isinstance(i, Address) for i in indices):
        raise Unsupported("address used as a GEP index")
    if not indices:
        return 0
    off = indices[0] * layout.size(src)
    ty = src
    for i in indices[1:]:
        ty = layout.resolve(ty)
        if isinstance(ty, StructT):
            off += layout.field_offsets(ty)[i]
            ty = ty.fields[i]
        elif isinstance(ty, (ArrayT, VectorT)):
            off += i * layout.size(ty.elem)
            ty = ty.elem
        else:
            raise Unsupported(f"GEP into non-aggregate {ty}")
    return off


# ---------------------------------------------------------------- initialisers

def layout_initializer(ty, v, layout: DataLayout, buf: bytearray, off: int, relocs: list):
    """Write constant ``v`` of type ``ty`` into ``buf`` at ``off``; addresses become relocations
    ``(offset, size, Address)`` that run-time init code stores."""
    ty = layout.resolve(ty)
    kind = v[0]
    if kind == "zero":
        return
    if kind == "cstr":
        buf[off:off + len(v[1])] = v[1]
        return
    if kind == "agg":
        if isinstance(ty, StructT):
            offs = layout.field_offsets(ty)
            for (ft, fv), fo in zip(v[1], offs):
                layout_initializer(ft, fv, layout, buf, off + fo, relocs)
        elif isinstance(ty, (ArrayT, VectorT)):
            step = layout.size(ty.elem)
            for k, (et, ev) in enumerate(v[1]):
                layout_initializer(et, ev, layout, buf, off + k * step, relocs)
        else:
            raise Unsupported(f"aggregate constant for {ty}")
        return
    if isinstance(ty, FloatT):
        raise Unsupported("floating point initialiser")
    val = eval_const(ty, v, layout)
    size = layout.store_size(ty)
    if isinstance(val, Address):
        relocs.append((off, size, val))
        return
    buf[off:off + size] = (val & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


class Irregular(Exception):
    """write_initializer met a form it leaves to parse_value + layout_initializer."""


_ZERO_WORDS = frozenset(("null", "undef", "poison", "zeroinitializer", "none"))
_CLOSE = {"[": "]", "{": "}"}


def write_initializer(c: Cursor, ty, layout: DataLayout, buf: bytearray, off: int, relocs: list,
                      templates: dict) -> None:
    """``layout_initializer(ty, parse_value(c, ty), ...)`` in one pass over the tokens, with no
    value terms for integers, strings and aggregates (csmith's global initialisers are arrays of
    structs of hundreds of thousands of integers, #32). An element's type is parsed once per
    declared type (``templates``: id(declared type) -> (declared type, its tokens)) and later
    only compared token by token. Raises Irregular where the result could differ from the two
    steps (their error, an element type other than the declared one): the caller then runs them.
    """
    rty = layout.resolve(ty)
    t = c.next()
    k, x = t.kind, t.text
    if k == "num" and type(rty) is IntT and "." not in x and not x.lower().startswith("0x"):
        _write_int(buf, off, rty.bits, int(x))
    elif x == "true" or x == "false":
        if type(rty) is not IntT:
            raise Irregular(x)
        _write_int(buf, off, rty.bits, int(x == "true"))
    elif x in _ZERO_WORDS:
        return
    elif k == "cstr":
        v = decode_cstring(x[2:-1])
        buf[off:off + len(v)] = v
    elif (x == "[" or x == "{") and k == "punct":
        close = _CLOSE[x]
        if type(rty) is StructT:
            offs = layout.field_offsets(rty)
            decl = rty.fields
        elif type(rty) is ArrayT:
            step = layout.size(rty.elem)
            offs = None
            decl = rty.elem
        else:
            raise Irregular(x)
        if c.accept(close):
            return
        n = 0
        while True:
            if offs is None:
                et, eo = decl, off + n * step
            elif n < len(offs):
                et, eo = decl[n], off + offs[n]
            else:
                raise Irregular("more elements than fields")
            _skip_element_type(c, et, templates)
            write_initializer(c, et, layout, buf, eo, relocs, templates)
            n += 1
            if c.accept(close):
                return
            c.expect(",")
    else:  # addresses, constant expressions, packed structs, floats, vectors, errors
        c.i -= 1
        try:
            layout_initializer(ty, parse_value(c, ty), layout, buf, off, relocs)
        except Unsupported as exc:
            raise Irregular(exc.reason)


#: An integer element of a printed constant: ``iN NUMBER`` inside ``[...]``/``{ ... }``, or
#: ``iN undef``/``poison`` (zero bytes, as write_initializer leaves them; csmith's structs end
#: in ``i8 undef`` padding).
_INT_ELEMENT = re.compile(r"(?<=[ \[{])i(\d+) (-?\d+|undef|poison)(?=,| ?[\]}])")
_NUMBER = re.compile(r"-?\d+")


def write_int_initializer(ty, init: str, layout: DataLayout, buf: bytearray) -> bool:
    """What write_initializer writes for the printed initialiser ``init`` of type ``ty`` when
    it spells out integers (or undef) only (most of csmith's global bytes, #32), by two regex
    passes and no tokens: ``init`` without its integer elements must be the shape of ``ty``,
    and their widths its leaves' (``DataLayout.int_form``); the leaves then take the numbers in
    order. False, having written nothing, for any other initialiser."""
    form = layout.int_form(ty)
    if form is None:
        return False
    if not form[0]:                             # iN: one number
        if not _NUMBER.fullmatch(init):
            return False
        _write_int(buf, 0, form[1][0][1], int(init))
        return True
    parts = _INT_ELEMENT.split(init)            # [text, N, NUMBER, text, N, NUMBER, ..., text]
    if "".join(parts[0::3]) != form[0] or parts[1::3] != form[2]:
        return False
    values = parts[2::3]
    run = form[3]
    if run is not None and "u" not in init and "p" not in init:     # no undef or poison
        # byte-sized leaves back to back: one pack, the bytes _write_int writes one by one
        # (canon then the store size's mask is the value modulo 2**bits)
        fmt, mask = run
        struct.pack_into(fmt, buf, 0, *[int(v) & mask for v in values])
        return True
    for (off, bits), v in zip(form[1], values):
        if v[0] != "u" and v[0] != "p":
            _write_int(buf, off, bits, int(v))
    return True


def _write_int(buf: bytearray, off: int, bits: int, value: int) -> None:
    """What layout_initializer writes for ('int', value) of type iN."""
    size = (bits + 7) // 8
    buf[off:off + size] = (canon(value, bits) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _skip_element_type(c: Cursor, declared, templates: dict) -> None:
    """Move past an aggregate element's type, which must be ``declared`` (else Irregular)."""
    got = templates.get(id(declared))
    if got is not None and got[0] is declared:
        toks = got[1]
        i = c.i
        if c.toks[i:i + len(toks)] == toks:
            c.i = i + len(toks)
            return
    start = c.i
    if parse_type(c) != declared:
        raise Irregular("element type")
    templates[id(declared)] = (declared, c.toks[start:c.i])
