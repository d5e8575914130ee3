"""Value-flow facts (PathFinder ch. 3-4, pathfinder.md §10.1): the lexical expressions and loads of
a function -- the separable Value Name Graph of §3.5, one name per lexical expression -- with
their operands, the instructions that compute them (generators = users, §4.1) and the
instructions that may change their value (kills).

Naming: an expression is written ``op(a,b)`` with its operands as text (``add(%x,4)``,
``cmp.lt(%i,%n)``, ``load.4s(%p)``, ``select(%c,%a,%b)``); the operands of commutative
operators are sorted, so ``add(a,b)`` and ``add(b,a)`` are one name.

Only *candidate* expressions are listed: those computed at least twice in the function, or once
in a block on a CFG cycle (a loop-invariant user reuses its own value around the loop, Def 4.1).
Any other expression cannot be redundant, so leaving it out keeps the availability relations
output-sensitive.

Generators and users: every unguarded instruction computing the expression (§4.1: for arithmetic
"users alone suffice"; loads are users, Ex. 4.1). A guarded computation is neither (it may be
nullified) but its write is still a kill. Kills: an instruction writing an operand register
(guarded or not); for loads also every store and call (may-alias, no disambiguation; Ex. 4.1
"stores that could not be disambiguated").

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> m = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n ret y\\n}\\n")
>>> out = {"vf_expr": [], "vf_expr_operand": [], "vf_occurs": [], "vf_kill": []}
>>> value_flow_facts("t::f", m.functions[0], out)
>>> out["vf_expr"], out["vf_occurs"]
([('t::f', 'add(1,a)', 'add')], [('t::f', 'e#0', 'add(1,a)'), ('t::f', 'e#1', 'add(1,a)')])

References: pathfinder.md §3.5 (separable VNG), §4.1 (generators, users, kills), §6.3.1.4
(lexical PRE: ``a op b`` with a, b not redefined), §10.1 (relations Python extracts).
"""
from __future__ import annotations

from typing import Optional

import networkx as nx

from pylogic.ir.model import (BinOp, Call, Cmp, Function, GlobalAddr, Imm, Instr, Load, Reg,
                              Select, Store, UnOp)
from facts_gen.naming import instr_id

#: Relations this module writes (declared in datalog/schema.dl, "Value flow" section).
VALUE_FLOW_RELATIONS = ("vf_expr", "vf_expr_operand", "vf_occurs", "vf_kill")

COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "cmp.eq", "cmp.ne"})


def _text(op) -> str:
    if isinstance(op, (Reg, GlobalAddr)):
        return op.name
    if isinstance(op, Imm):
        return str(op.value)
    raise TypeError(f"not an operand: {op!r}")


def expression_of(ins: Instr) -> Optional[tuple[str, str, tuple]]:
    """``(name, op, operands)`` of the lexical expression ``ins`` computes, or None (moves,
    calls, stores, allocas, inputs, predicate defines, branches compute none)."""
    if isinstance(ins, BinOp):
        op, args = ins.op, [ins.a, ins.b]
    elif isinstance(ins, UnOp):
        op, args = ins.op, [ins.a]
    elif isinstance(ins, Cmp):
        op, args = f"cmp.{ins.rel}", [ins.a, ins.b]
    elif isinstance(ins, Select):
        op, args = "select", [ins.cond, ins.a, ins.b]
    elif isinstance(ins, Load):
        op, args = f"load.{ins.size}{'s' if ins.signed else 'u'}", [ins.addr]
    else:
        return None
    if op in COMMUTATIVE:
        args.sort(key=_text)
    return f"{op}({','.join(_text(a) for a in args)})", op, tuple(args)


def is_load(op: str) -> bool:
    return op.startswith("load.")


def clobbers_memory(ins: Instr) -> bool:
    """A store or a call: may change any loaded value (no alias analysis)."""
    return isinstance(ins, (Store, Call))


def cyclic_blocks(fn: Function) -> set[str]:
    """Blocks on some CFG cycle (a non-trivial strongly connected component or a self loop)."""
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from(fn.edges())
    out: set[str] = set()
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1:
            out |= comp
    out |= {a for a, b in g.edges() if a == b}
    return out


def candidate_expressions(fn: Function) -> dict[str, tuple[str, tuple]]:
    """``{name: (op, operands)}`` of the expressions that can be redundant in ``fn`` (computed by
    an unguarded instruction at least twice, or once on a cycle)."""
    seen: dict[str, list] = {}
    where: dict[str, list[str]] = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None:
                continue
            found = expression_of(ins)
            if found is not None:
                seen.setdefault(found[0], [found[1], found[2]])
                where.setdefault(found[0], []).append(b.label)
    cyclic = None
    out = {}
    for name, blocks in where.items():
        if len(blocks) < 2:
            if cyclic is None:
                cyclic = cyclic_blocks(fn)
            if blocks[0] not in cyclic:
                continue
        out[name] = tuple(seen[name])
    return out


def value_flow_facts(f: str, fn: Function, out: dict[str, list[tuple]]) -> None:
    """Append ``vf_expr``, ``vf_expr_operand``, ``vf_occurs`` and ``vf_kill`` of one defined
    function to ``out``."""
    exprs = candidate_expressions(fn)
    if not exprs:
        return
    by_reg: dict[str, list[str]] = {}
    loads: list[str] = []
    for name, (op, args) in sorted(exprs.items()):
        out["vf_expr"].append((f, name, op))
        for pos, a in enumerate(args):
            kind = "reg" if isinstance(a, Reg) else "const" if isinstance(a, Imm) else "global"
            out["vf_expr_operand"].append((f, name, pos, kind, _text(a)))
            if kind == "reg":
                by_reg.setdefault(a.name, []).append(name)
        if is_load(op):
            loads.append(name)
    for b in fn.blocks:
        for idx, ins in enumerate(b.instrs):
            i = instr_id(b.label, idx)
            if ins.guard is None:
                found = expression_of(ins)
                if found is not None and found[0] in exprs:
                    out["vf_occurs"].append((f, i, found[0]))
            killed = {e for r in ins.defs() for e in by_reg.get(r, ())}
            if clobbers_memory(ins):
                killed.update(loads)
            out["vf_kill"].extend((f, i, e) for e in sorted(killed))
