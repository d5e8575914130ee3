"""Candidate expressions: the value names of a function that can be redundant -- computed by an
unguarded instruction at least twice, or once in a block on a CFG cycle (a loop-invariant user
reuses its own value around the loop); a store generating a load's value, or a write of known
bytes it reads, counts as a computation of it. Any other expression cannot be redundant, so
leaving it out keeps PRE's availability relations output-sensitive.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n z = mul a, 2\\n"
...                   " ret y\\n}\\n").functions[0]
>>> candidate_expressions(fn, {})
{'add(1,a)': ('add', (Imm(value=1), Reg(name='a')))}

References: pathfinder.md §4.1 (generators = users, Def 4.1), §6.3.1.4 (lexical PRE).
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

from pylogic.flow.definitions import definitions
from pylogic.flow.known_bytes import WRITERS, KnownBytes
from pylogic.flow.value_names import expression_of, store_generated, value_names
from pylogic.ir.cfg import strongly_connected
from pylogic.ir.model import Function, Store


def cyclic_blocks(fn: Function) -> set[str]:
    """Blocks on some CFG cycle (a non-trivial strongly connected component or a self loop).
    Tarjan's components (``ir.cfg.strongly_connected``; networkx's graph cost a tenth of a
    PRE step's candidates on csmith, issue #28 item 1)."""
    succ = {b.label: b.successors() for b in fn.blocks}
    comp = strongly_connected([b.label for b in fn.blocks], succ)
    size = Counter(comp.values())
    return {v for v, c in comp.items() if size[c] > 1} | {a for a, ts in succ.items() if a in ts}


def candidate_expressions(fn: Function, names: Optional[dict] = None, returns=None,
                          known: Optional[KnownBytes] = None,
                          defs: Optional[dict] = None, store_gen=None
                          ) -> dict[str, tuple[str, tuple]]:
    """``{name: (op, leaves)}`` of the expressions that can be redundant in ``fn`` (computed by
    an unguarded instruction at least twice, or once on a cycle; a store generating a load's
    value, or a write of known bytes it reads (``known``), counts as a computation of it),
    named under ``names`` (default: ``value_names(fn)``); ``defs``: ``definitions(fn)`` when
    the caller has it; ``store_gen``: ``store_generated`` of a store under these names, ``defs``
    and ``returns``, when the caller remembers it (``FunctionInputs.stored``).

    References: pathfinder.md §4.1 (generators = users, Def 4.1), §6.3.1.4."""
    return candidates_and_occurrences(fn, names, returns, known, defs, store_gen)[0]


def candidates_and_occurrences(fn: Function, names: Optional[dict] = None, returns=None,
                               known: Optional[KnownBytes] = None,
                               defs: Optional[dict] = None, store_gen=None
                               ) -> tuple[dict, dict[str, tuple]]:
    """``(candidate_expressions, occurrences)`` of ``fn`` from one walk naming each
    instruction (``FunctionInputs`` asks for both; issue #28 item 1)."""
    names = value_names(fn) if names is None else names
    computed: dict[str, list] = {}      # block -> the expression each instruction computes
    seen: dict[str, list] = {}
    where: dict[str, list[str]] = {}
    stored: dict[str, list[str]] = {}
    for b in fn.blocks:
        row = computed[b.label] = []
        for ins in b.instrs:
            row.append(None)
            if ins.guard is not None:
                continue
            if known is not None and isinstance(ins, WRITERS):     # (generated: else empty)
                for e in known.generated(ins):
                    stored.setdefault(e, []).append(b.label)
            if isinstance(ins, Store):
                if store_gen is None:
                    defs = definitions(fn) if defs is None else defs
                for e in (store_gen(ins) if store_gen is not None else
                          store_generated(ins, names, defs, returns)):
                    stored.setdefault(e, []).append(b.label)
                continue
            found = expression_of(ins, names)
            if found is not None:
                row[-1] = found[0]
                seen.setdefault(found[0], [found[1], found[2]])
                where.setdefault(found[0], []).append(b.label)
    for e, blocks in stored.items():
        if e in where:
            where[e] = where[e] + blocks
    cyclic = None
    out = {}
    for name, blocks in where.items():
        if len(blocks) < 2:
            if cyclic is None:
                cyclic = cyclic_blocks(fn)
            if blocks[0] not in cyclic:
                continue
        out[name] = tuple(seen[name])
    return out, {label: tuple(e if e in out else None for e in row)
                 for label, row in computed.items()}


def block_occurrences(block, names: dict, exprs: dict) -> tuple:
    """The candidate expression (a key of ``exprs``) each instruction of ``block`` computes
    unguarded (``expression_of`` under ``names``), else None, in order."""
    row = []
    for ins in block.instrs:
        found = expression_of(ins, names) if ins.guard is None else None
        row.append(found[0] if found is not None and found[0] in exprs else None)
    return tuple(row)


def occurrences(fn: Function, names: dict, exprs: dict) -> dict[str, tuple]:
    """``{block: block_occurrences}`` of every block of ``fn``: what the value-flow facts
    (``vf_occurs``) and PRE(M)'s walks read of each instruction (``FunctionInputs.occurrences``
    has it from ``candidates_and_occurrences`` for both; issue #28 item 1)."""
    return {b.label: block_occurrences(b, names, exprs) for b in fn.blocks}
