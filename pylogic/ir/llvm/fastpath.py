"""Line readers for the most common LLVM instruction forms, without tokens (issue #32).

About 20 us of the importer's time per LLVM instruction went to tokenizing the line, building a
Cursor and descending the type and value grammar. The forms csmith's and gcc's programs are
mostly made of (``%x = load i32, ptr %p, align 4``, ``store``, ``getelementptr`` with integer
indices, casts, ``icmp``, integer binary operators, ``br``, ``ret``, ``alloca``, direct calls,
``llvm.memcpy``/``memmove``/``memset``; operands also constant GEPs of a global) are read here
by one compiled regex each and handed to the same lowering methods the token path calls
(``lower.FunctionLowerer``: ``load``, ``store``, ``gep``, ``cast``, ``icmp``, ``binary``,
``jump``, ``branch``, ``ret``, ``alloca``, ``call``, ``memory_intrinsic``; binary operators and
``icmp`` on integers wider than 64 bits to ``wide.WideLowering``'s, as the token path does;
``phi`` lines are lowered on the edges), with the types and value terms ``types.parse_type``
and ``values.parse_value`` would give. Any other line -- other spellings, flags, metadata,
quoted names, wide integers elsewhere -- is left to the token path (``read_line`` returns False
before doing anything), so the PIR is the same either way (tests/ir/llvm/test_fastpath.py
lowers corpora and random lines both ways).
"""
from __future__ import annotations

import re

from pylogic.ir.llvm.types import (PTR, Cursor, IntT, Unsupported, VoidT, parse_type,
                                   tokenize)

#: Whether the importer reads lines here first (and global initialisers of integers by
#: ``values.write_int_initializer``); tests turn it off for the reference.
ENABLED = True

_NAME = r"[-A-Za-z$._0-9]+"
#: A scalar or named type; _ATY also arrays of them (a GEP's source type).
_TY = rf"(i\d+|ptr|%{_NAME})"
_ATY_TEXT = rf"(?:\[\d+ x )*(?:i\d+|ptr|%{_NAME})\]*"
_ATY = rf"({_ATY_TEXT})"
#: A constant GEP of a global with integer indices (``getelementptr inbounds ([4 x i32], ptr
#: @g, i64 0, i64 1)``: csmith's operands naming a global's element or field).
_CONSTANT_GEP = rf"getelementptr (?:inbounds )?\({_ATY_TEXT}, ptr @{_NAME}(?:, i\d+ -?\d+)*\)"
_CONSTANT_GEP_PARTS = re.compile(rf"getelementptr (?:inbounds )?\({_ATY}, ptr (@{_NAME})"
                                 rf"((?:, i\d+ -?\d+)*)\)")
#: A value parse_value reads as a local, a global, an integer, one of the words below or a
#: constant GEP.
_VAL = rf"(%{_NAME}|@{_NAME}|-?\d+|true|false|null|undef|poison|{_CONSTANT_GEP})"
_DEST = rf"(%{_NAME}) = "

_LOAD = re.compile(rf"{_DEST}load (?:volatile )?{_TY}, ptr {_VAL}, align \d+\Z")
_STORE = re.compile(rf"store (?:volatile )?{_TY} {_VAL}, ptr {_VAL}, align \d+\Z")
_GEP = re.compile(rf"{_DEST}getelementptr (?:inbounds )?{_ATY}, ptr {_VAL}((?:, i\d+ (?:%{_NAME}|-?\d+))*)\Z")
_GEP_INDEX = re.compile(rf", (i\d+) (%{_NAME}|-?\d+)")
_CAST = re.compile(rf"{_DEST}(trunc|zext|sext|ptrtoint|inttoptr|bitcast) {_TY} {_VAL} to {_TY}\Z")
_ICMP = re.compile(rf"{_DEST}icmp (eq|ne|slt|sle|sgt|sge|ult|ule|ugt|uge) {_TY} {_VAL}, {_VAL}\Z")
_BINARY = re.compile(rf"{_DEST}(add|sub|mul|and|or|xor|shl|lshr|ashr|sdiv|srem|udiv|urem)"
                     rf"(?: (?:nuw|nsw|exact|disjoint))* {_TY} {_VAL}, {_VAL}\Z")
_JUMP = re.compile(rf"br label %({_NAME})(?:, !llvm\.loop !\d+)?\Z")
_RET = re.compile(rf"ret (?:void|{_TY} {_VAL})\Z")
_ALLOCA = re.compile(rf"{_DEST}alloca {_ATY}, align \d+\Z")
_BRANCH = re.compile(rf"br i1 {_VAL}, label %({_NAME}), label %({_NAME})\Z")

_ARG_WORDS = r"(?: (?:noundef|signext|zeroext))*"
_ARG = rf"(?:i\d+|ptr){_ARG_WORDS} {_VAL}"
#: A direct call; a variadic callee's type (``call i32 (ptr, ...) @printf(...)``) is skipped as
#: the token path skips it.
_CALL = re.compile(rf"(?:{_DEST})?call (?:(?:noundef|signext|zeroext) )*(void|i\d+|ptr) "
                   rf"(?:\([^()]*\) )?(@{_NAME})\(((?:{_ARG}(?:, {_ARG})*)?)\)\Z")
_CALL_ARG = re.compile(rf"(i\d+|ptr)((?: (?:noundef|signext|zeroext))*) {_VAL}")
#: A call of llvm.memcpy/memmove/memset (lower.MEM_INTRINSICS).
_MEMORY_ARG = rf"(?:i\d+|ptr)(?: align \d+)? {_VAL}"
_MEMORY = re.compile(rf"call void @(llvm\.(?:memcpy|memmove|memset)\.{_NAME})"
                     rf"\(({_MEMORY_ARG}(?:, {_MEMORY_ARG})*)\)\Z")
_MEMORY_ARGS = re.compile(rf"(i\d+|ptr)(?: align \d+)? {_VAL}")

#: A value's text ``value`` reads; ``ptr VALUE`` elements of a constant array, as many as it
#: has (``pointer_elements``).
_VALUE = re.compile(_VAL)
_POINTER_ARRAY = re.compile(rf"\[ptr {_VAL}(?:, ptr {_VAL})*\]")
_POINTER_ELEMENT = re.compile(rf"ptr {_VAL}")

#: A phi of a scalar type (``%x = phi i32 [ %a, %bb1 ], [ 0, %bb2 ]``; lowered on the edges:
#: lower.FunctionLowerer._collect_phis reads it with ``phi``).
_PHI = re.compile(rf"{_DEST}phi {_TY} (\[ {_VAL}, %{_NAME} \](?:, \[ {_VAL}, %{_NAME} \])*)\Z")
_PHI_INCOMING = re.compile(rf"\[ {_VAL}, %({_NAME}) \]")

_WORD_VALUES = {"true": ("int", 1), "false": ("int", 0), "null": ("zero",), "undef": ("zero",),
                "poison": ("zero",)}
I1 = IntT(1)


class _NotRead(Exception):
    """A value the token path reads otherwise (readers call ``value`` before lowering)."""


def value(text: str) -> tuple:
    """The value term parse_value gives for a _VAL match (of an integer or pointer type)."""
    first = text[0]
    if first == "%":
        return ("local", text)
    if first == "@":
        return ("global", text)
    word = _WORD_VALUES.get(text)
    if word is not None:
        return word
    if first == "g":
        return _constant_gep(text)
    return ("int", int(text))


def pointer_elements(init: str, count: int | None) -> list | None:
    """The value terms of a pointer constant's text ``init`` (``count`` None) or of a constant
    ``[count x ptr]`` array's (``[ptr @a, ptr null]``), as parse_value gives them; None for any
    other text."""
    try:
        if count is None:
            return [value(init)] if _VALUE.fullmatch(init) else None
        if not _POINTER_ARRAY.fullmatch(init):
            return None
        texts = _POINTER_ELEMENT.findall(init)
        return [value(v) for v in texts] if len(texts) == count else None
    except _NotRead:
        return None


#: _constant_gep's terms by text (csmith names the same element of a global again and again;
#: the terms are only read); cleared when large, as types.tokenize's tokens.
_CONSTANT_GEPS: dict[str, tuple] = {}
_CONSTANT_GEPS_MAX = 100_000


def _constant_gep(text: str) -> tuple:
    """parse_value's term of a _CONSTANT_GEP: (source type, [(ptr, the global), (iN, index),
    ...])."""
    got = _CONSTANT_GEPS.get(text)
    if got is None:
        if len(_CONSTANT_GEPS) > _CONSTANT_GEPS_MAX:
            _CONSTANT_GEPS.clear()
        got = _CONSTANT_GEPS[text] = _read_constant_gep(text)
    return got


def _read_constant_gep(text: str) -> tuple:
    m = _CONSTANT_GEP_PARTS.fullmatch(text)
    src = type_of(m[1])
    indices = [(type_of(t), ("int", int(v))) for t, v in _GEP_INDEX.findall(m[3])]
    if src is None or None in [t for t, _ in indices]:
        raise _NotRead(text)
    return ("expr", "getelementptr", (src, [(PTR, ("global", m[2]))] + indices))


_TYPES: dict[str, object] = {}


def type_of(text: str):
    """The type parse_type reads from exactly ``text``; None if it reads something else or
    rejects it (the token path then reports it)."""
    ty = _TYPES.get(text)
    if ty is None:
        c = Cursor(tokenize(text))
        try:
            ty = parse_type(c)
        except (Unsupported, ValueError, IndexError):
            return None
        if not c.done():
            return None
        _TYPES[text] = ty
    return ty


def _scalar(ty) -> bool:
    """Integer types up to 64 bits and ``ptr``: what the readers below lower directly."""
    return ty is PTR or (type(ty) is IntT and ty.bits <= 64)


def _integer(ty) -> bool:
    """Integer types of any width and ``ptr``: what ``cast`` and, through ``lw.wide`` for
    integers wider than 64 bits (wide.py), ``binary`` and ``icmp`` lower."""
    return ty is PTR or type(ty) is IntT


def _load(lw, text: str) -> bool:
    m = _LOAD.match(text)
    if m is None:
        return False
    ty = type_of(m[2])
    if ty is None:
        return False
    if _scalar(ty):                 # load's scalar case, its checks passed
        lw.load_scalar(lw.regs.get(m[1]), ty, lw.op(PTR, value(m[3])))
        return True
    lw.load(lw.regs.get(m[1]), ty, PTR, value(m[3]))
    return True


def _store(lw, text: str) -> bool:
    m = _STORE.match(text)
    if m is None:
        return False
    ty = type_of(m[1])
    if ty is None:
        return False
    v, p = value(m[2]), value(m[3])
    if _scalar(ty):                 # store's scalar case, its checks passed: address first
        addr = lw.op(PTR, p)
        lw.store_scalar(ty, lw.op(ty, v), addr)
        return True
    lw.store(ty, v, PTR, p)
    return True


def _gep(lw, text: str) -> bool:
    m = _GEP.match(text)
    if m is None:
        return False
    src = type_of(m[2])
    if src is None:
        return False
    index_text = m[4]
    if "%" not in index_text:        # constant indices: their offset, once per module and text
        offsets = lw.ctx.constant_gep_offsets
        key = (m[2], index_text)
        offset = offsets.get(key)
        if offset is not None:
            lw.offset_by(lw.regs.get(m[1]), lw.op(PTR, value(m[3])), offset)
            return True
    indices = iter([(type_of(t), value(v)) for t, v in _GEP_INDEX.findall(index_text)])
    offset = lw.gep(lw.regs.get(m[1]), src, PTR, value(m[3]), lambda: next(indices, None))
    if offset is not None and "%" not in index_text:
        offsets[key] = offset
    return True


def _cast(lw, text: str) -> bool:
    m = _CAST.match(text)
    if m is None:
        return False
    st, dt = type_of(m[3]), type_of(m[5])
    if not (_integer(st) and _integer(dt)):
        return False
    lw.cast(lw.regs.get(m[1]), m[2], st, value(m[4]), dt)
    return True


def _icmp(lw, text: str) -> bool:
    m = _ICMP.match(text)
    if m is None:
        return False
    ty = type_of(m[3])
    if not _integer(ty):
        return False
    if ty is not PTR and ty.bits > 64:
        lw.wide.icmp(m[2], lw.regs.get(m[1]), ty, value(m[4]), value(m[5]))
        return True
    lw.icmp(lw.regs.get(m[1]), m[2], ty, value(m[4]), value(m[5]))
    return True


def _binary(lw, text: str) -> bool:
    m = _BINARY.match(text)
    if m is None:
        return False
    ty = type_of(m[3])
    if type(ty) is not IntT:
        return False
    if ty.bits > 64:
        lw.wide.binary(m[2], lw.regs.get(m[1]), ty, value(m[4]), value(m[5]))
        return True
    lw.binary(lw.regs.get(m[1]), m[2], ty, value(m[4]), value(m[5]))
    return True


def _br(lw, text: str) -> bool:
    m = _JUMP.match(text)
    if m is not None:
        lw.jump(m[1])
        return True
    m = _BRANCH.match(text)
    if m is None:
        return False
    lw.branch(lw.op(I1, value(m[1])), m[2], m[3])
    return True


def _ret(lw, text: str) -> bool:
    m = _RET.match(text)
    if m is None:
        return False
    if m[1] is None:
        lw.ret(None, None)
        return True
    ty = type_of(m[1])
    if not _scalar(ty):
        return False
    lw.ret(ty, value(m[2]))
    return True


def _alloca(lw, text: str) -> bool:
    m = _ALLOCA.match(text)
    if m is None:
        return False
    ty = type_of(m[2])
    if ty is None:
        return False
    lw.alloca(lw.regs.get(m[1]), lw.L.size(ty))
    return True


def _phi(lw, text: str) -> bool:
    return True                 # lowered as copies on the edges (lower._collect_phis)


def phi(text: str) -> tuple | None:
    """(destination as written, type, {predecessor label: value term}) of a phi line of an
    integer (up to 64 bits) or pointer type, as the token path reads it (the first value
    of a label repeated wins); None for any other line."""
    m = _PHI.match(text)
    if m is None:
        return None
    ty = type_of(m[2])
    if not _scalar(ty):
        return None
    pairs = _PHI_INCOMING.findall(m[3])
    if ", ".join(f"[ {v}, %{label} ]" for v, label in pairs) != m[3]:
        return None                 # split otherwise than the text reads
    incoming: dict = {}
    try:
        for v, label in pairs:
            incoming.setdefault(label, value(v))
    except _NotRead:
        return None
    return m[1], ty, incoming


def _memory(lw, text: str) -> bool:
    m = _MEMORY.match(text)
    if m is None:
        return False
    args = [(type_of(t), value(v)) for t, v in _MEMORY_ARGS.findall(m[2])]
    lw.memory_intrinsic(m[1], [lw.call_operand(ty, v) for ty, v in args])
    return True


def _call(lw, text: str) -> bool:
    if text.startswith("call void @llvm.mem"):
        return _memory(lw, text)
    m = _CALL.match(text)
    if m is None or m[3].startswith("@llvm."):
        return False
    rt = type_of(m[2])
    if not (rt is PTR or type(rt) is VoidT or (type(rt) is IntT and rt.bits <= 64)):
        return False
    args = [(type_of(t), dict.fromkeys(words.split()), value(v))
            for t, words, v in _CALL_ARG.findall(m[4])]

    def typed_args():               # as lower.FunctionLowerer._typed_call_args, in its order
        return [(ty, attrs, lw.call_operand(ty, v)) for ty, attrs, v in args]
    lw.call(lw.regs.get(m[1]) if m[1] else None, rt, m[3], typed_args)
    return True


_READERS = {"call": _call, "load": _load, "store": _store, "getelementptr": _gep, "br": _br,
            "icmp": _icmp, "ret": _ret, "alloca": _alloca, "phi": _phi,
            **{op: _cast for op in ("trunc", "zext", "sext", "ptrtoint", "inttoptr", "bitcast")},
            **{op: _binary for op in ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr",
                                      "ashr", "sdiv", "srem", "udiv", "urem")}}


def read_line(lw, text: str) -> bool:
    """Lower one instruction line with ``lw`` (a FunctionLowerer) if it has one of the forms
    above; False, having done nothing, otherwise."""
    if text[:1] == "%":
        i = text.find(" = ")
        if i < 0:
            return False
        j = text.find(" ", i + 3)
        opcode = text[i + 3:j]
    else:
        opcode = text[:text.find(" ")]
    reader = _READERS.get(opcode)
    try:
        return reader is not None and reader(lw, text)
    except _NotRead:
        return False
