"""Definitions of a function's registers: every instruction writing each one, and the registers
written once (PIR registers may be written many times: phis lowered to copies, PRE's
temporaries, blocks pre-mr duplicated).

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> text = "func f(a) {\\ne:\\n x = add a, 1\\n x = add x, 1\\n y = mov x\\n ret y\\n}\\n"
>>> fn = parse_module(text).functions[0]
>>> sorted(definitions(fn)), sorted(single_definitions(fn))
(['a', 'x', 'y'], ['y'])

References: Aho, Sethi, Ullman, "Compilers", §9.2 (ud-chains); docs/pir.md (registers, parameters);
docs/pir.md "Extensions" (typed parameters).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import Function, Instr

#: function -> its ``single_definitions``: the flow analyses of one pass ask for them several
#: times per function (address roots, offsets, known bytes, spans), and the passes of a pipeline
#: keep the functions they leave alone (csmith-22, simplify,pre-mr,pre-m,simplify: 1,534 calls)
_SINGLE = IdentityCache(256)


class Definitions(dict):
    """``{register: every instruction writing it}`` (parameters: a ``None`` entry), with
    ``ranges``: ``{parameter: (lo, hi)}`` of the typed parameters (docs/pir.md "Extensions": a
    call with an argument outside the range is a run-time error), the values a ``None``
    entry may stand for."""

    def __init__(self, *args, ranges=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.ranges = ranges or {}


def definitions(fn: Function) -> Definitions:
    """``{register: every instruction writing it}`` (parameters: a ``None`` entry; typed ones
    with their range in ``ranges``).

    References: Aho, Sethi, Ullman, "Compilers", §9.2 (ud-chains)."""
    out = Definitions({p: [None] for p in fn.params},
                      ranges=fn.param_ranges() if fn.param_types else None)
    for b in fn.blocks:
        for ins in b.instrs:
            for r in ins.defs():
                out.setdefault(r, []).append(ins)
    return out


def single_definitions(fn: Function) -> dict[str, Instr]:
    """``{register: its definition}`` for registers written once, unguarded (identical copies
    of one definition, as in blocks pre-mr duplicated, count as one). One dict per function
    object, shared by every caller: read it, never change it."""
    return _SINGLE.get_or_compute(fn, lambda: _single(definitions(fn)))


def _single(defs: Definitions) -> dict[str, Instr]:
    out = {}
    for r, ds in defs.items():
        first = ds[0]
        if first is not None and first.guard is None and (
                len(ds) == 1 or all(_same(d, first) for d in ds[1:])):
            out[r] = first
    return out


def _same(a: Optional[Instr], b: Instr) -> bool:
    """Whether ``a`` is a copy of ``b`` (annotations aside)."""
    return a is b or (a is not None and equal_but_annotations(a, b))


def equal_but_annotations(a: Instr, b: Instr) -> bool:
    """Whether ``a`` and ``b`` are equal with their annotations left out: the fields the
    dataclasses' ``==`` compares, ``annotations`` aside, without a copy of each (restructured
    code compares the definitions of every register: copying each tagged one was most of it)."""
    kind = type(a)
    if kind is not type(b):
        return False
    names = _COMPARED.get(kind)
    if names is None:
        names = _COMPARED[kind] = tuple(f.name for f in dataclasses.fields(kind)
                                        if f.compare and f.name != "annotations")
    for name in names:
        if getattr(a, name) != getattr(b, name):
            return False
    return True


#: instruction class -> the fields ``equal_but_annotations`` compares
_COMPARED: dict = {}
