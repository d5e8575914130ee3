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
(guarded or not), in ``vf_kill``; for loads also every store and call (may-alias, no
disambiguation; Ex. 4.1 "stores that could not be disambiguated"): ``vf_clobber`` lists those
instructions once and ``vf_load`` the load expressions, instead of one ``vf_kill`` row per pair.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> m = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n ret y\\n}\\n")
>>> out = {name: [] for name in VALUE_FLOW_RELATIONS}
>>> value_flow_facts("t::f", m.functions[0], out)
>>> out["vf_expr"], out["vf_occurs"]
([('t::f', 'add(1,a)', 'add')], [('t::f', 'e#0', 'add(1,a)'), ('t::f', 'e#1', 'add(1,a)')])

References: pathfinder.md §3.5 (separable VNG), §4.1 (generators, users, kills), §6.3.1.4
(lexical PRE: ``a op b`` with a, b not redefined), §10.1 (relations Python extracts).
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import networkx as nx

from pylogic.ir.model import (BinOp, Call, Cmp, Function, GlobalAddr, Imm, Instr, Load, Mov,
                              Reg, Select, Store, UnOp)
from facts_gen.naming import instr_id

#: Relations this module writes (declared in datalog/schema.dl, "Value flow" section).
VALUE_FLOW_RELATIONS = ("vf_expr", "vf_expr_operand", "vf_occurs", "vf_kill", "vf_load",
                        "vf_clobber")

COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "cmp.eq", "cmp.ne"})


def _text(op) -> str:
    if isinstance(op, (Reg, GlobalAddr)):
        return op.name
    if isinstance(op, Imm):
        return str(op.value)
    raise TypeError(f"not an operand: {op!r}")


def _operand_name(a, names: dict) -> tuple[str, tuple]:
    """(text, leaves) of operand ``a`` under ``names`` ({register: (name, leaves)})."""
    if isinstance(a, Reg) and a.name in names:
        return names[a.name]
    return _text(a), (a,)


def _compose(op: str, parts: list) -> tuple[str, tuple]:
    """(name, leaves) of ``op`` applied to operand (text, leaves) pairs."""
    if op in COMMUTATIVE:
        parts = sorted(parts, key=lambda p: p[0])
    leaves: dict = {}
    for _, ls in parts:
        for leaf in ls:
            leaves.setdefault(leaf, None)
    return f"{op}({','.join(t for t, _ in parts)})", tuple(leaves)


def _op_and_args(ins: Instr):
    if isinstance(ins, BinOp):
        return ins.op, [ins.a, ins.b]
    if isinstance(ins, UnOp):
        return ins.op, [ins.a]
    if isinstance(ins, Cmp):
        return f"cmp.{ins.rel}", [ins.a, ins.b]
    if isinstance(ins, Select):
        return "select", [ins.cond, ins.a, ins.b]
    if isinstance(ins, Load):
        return f"load.{ins.size}{'s' if ins.signed else 'u'}", [ins.addr]
    return None, None


def expression_of(ins: Instr, names: Optional[dict] = None) -> Optional[tuple[str, str, tuple]]:
    """``(name, op, leaves)`` of the expression ``ins`` computes, or None (moves, calls, stores,
    allocas, inputs, predicate defines, branches compute none). ``names`` (``value_names``)
    substitutes registers by the values they hold; ``leaves`` are the operands the name is
    built from (the instruction's own operands when nothing is substituted)."""
    op, args = _op_and_args(ins)
    if op is None:
        return None
    name, leaves = _compose(op, [_operand_name(a, names or {}) for a in args])
    return name, op, leaves


def substituted(ins: Instr, names: dict) -> bool:
    """Whether some operand of ``ins`` is named through ``names`` (not a leaf itself)."""
    return any(isinstance(a, Reg) and a.name in names for a in ins.uses())


#: Longest value name built by substitution; a longer one keeps its register as a leaf.
MAX_NAME = 160


def value_names(fn: Function, keep: frozenset = frozenset()) -> dict[str, tuple[str, tuple]]:
    """``{register: (name, leaves)}``: registers that can be named by the value they hold --
    symbolic back-substitution (pathfinder.md §3.4.1.2) with copies and pure expressions
    substituted, as far as it is exact.

    A register qualifies when it has one definition (or identical copies of it, as restructuring
    makes), unguarded, a copy or a pure expression (no
    load: memory is not in the name), it is no parameter, and it is never read (by any
    instruction, guards included) where it may be *stale*: not yet written since the entry, or
    a leaf of its name rewritten since its definition. Then at every read its value is its name
    evaluated on the current leaves, so kills of the name are the definitions of its leaves,
    and a copy named by a register can be replaced by that register at every read. Found by
    iteration: a register read while possibly stale becomes a leaf, and the names built on it
    change. Registers in ``keep`` are never substituted (always leaves).
    """
    count: dict[str, int] = dict.fromkeys(fn.params, 1)
    first: dict[str, Instr] = {}
    for b in fn.blocks:
        for ins in b.instrs:
            for r in ins.defs():
                same = dataclasses.replace(ins, annotations=())
                if first.get(r) == same:
                    continue        # a copy of one definition (a block duplicated by pre-mr)
                first[r] = same
                count[r] = count.get(r, 0) + 1
    define = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None or len(ins.defs()) != 1 or count[ins.defs()[0]] != 1 \
                    or ins.defs()[0] in keep:
                continue
            op, _ = _op_and_args(ins)
            if isinstance(ins, Mov) or (op is not None and not is_load(op)):
                define[ins.defs()[0]] = ins
    succ = {b.label: b.successors() for b in fn.blocks}
    while define:
        names: dict = {}
        bad: set = set()

        def name(r: str, visiting: set):
            if r in names:
                return names[r]
            if r in visiting:
                bad.add(r)
                return r, (Reg(r),)
            visiting.add(r)
            ins = define[r]
            parts = [name(a.name, visiting) if isinstance(a, Reg) and a.name in define
                     else (_text(a), (a,)) for a in ins.uses()]
            visiting.discard(r)
            if isinstance(ins, Mov):
                out = parts[0]
            else:
                out = _compose(_op_and_args(ins)[0], parts)
            if len(out[0]) > MAX_NAME:
                bad.add(r)
            names[r] = out
            return out

        for r in define:
            name(r, set())
        if not bad:
            bad = _stale_reads(fn, names, succ)
        if not bad:
            return names
        for r in bad:
            del define[r]
    return {}


def _stale_reads(fn: Function, names: dict, succ: dict) -> set:
    """Named registers some instruction may read while stale (see
    ``value_names``): a forward may-analysis, stale at the entry, made stale by a definition of
    a leaf, made fresh by the register's own definition. Sets are bit masks over the named
    registers (one Python int per block state)."""
    index = {r: k for k, r in enumerate(names)}
    dependents: dict[str, int] = {}
    for r, (_, leaves) in names.items():
        for leaf in leaves:
            if isinstance(leaf, Reg):
                dependents[leaf.name] = dependents.get(leaf.name, 0) | (1 << index[r])
    plans: dict[str, list] = {}  # block -> per instruction (reads, [(made stale, made fresh)])
    for b in fn.blocks:
        steps = []
        for ins in b.instrs:
            reads = 0
            for a in ins.uses():
                if isinstance(a, Reg) and a.name in index:
                    reads |= 1 << index[a.name]
            if ins.guard in index:
                reads |= 1 << index[ins.guard]
            effects = [(dependents.get(x, 0),
                        (1 << index[x]) if x in index and ins.guard is None else 0)
                       for x in ins.defs()]
            steps.append((reads, effects))
        plans[b.label] = steps
    stale_in = {b.label: 0 for b in fn.blocks}
    stale_in[fn.blocks[0].label] = (1 << len(index)) - 1
    bad = 0
    work = [b.label for b in fn.blocks]
    while work:
        label = work.pop()
        stale = stale_in[label]
        for reads, effects in plans[label]:
            bad |= reads & stale
            for made_stale, made_fresh in effects:
                stale = (stale | made_stale) & ~made_fresh
        for s in succ[label]:
            if s in stale_in and stale & ~stale_in[s]:
                stale_in[s] |= stale
                work.append(s)
    return {r for r, k in index.items() if bad >> k & 1}


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


def candidate_expressions(fn: Function, names: Optional[dict] = None
                          ) -> dict[str, tuple[str, tuple]]:
    """``{name: (op, leaves)}`` of the expressions that can be redundant in ``fn`` (computed by
    an unguarded instruction at least twice, or once on a cycle), named under ``names``
    (default: ``value_names(fn)``)."""
    names = value_names(fn) if names is None else names
    seen: dict[str, list] = {}
    where: dict[str, list[str]] = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None:
                continue
            found = expression_of(ins, names)
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
    names = value_names(fn)
    exprs = candidate_expressions(fn, names)
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
            out["vf_load"].append((f, name))
    for b in fn.blocks:
        for idx, ins in enumerate(b.instrs):
            i = instr_id(b.label, idx)
            if ins.guard is None:
                found = expression_of(ins, names)
                if found is not None and found[0] in exprs:
                    out["vf_occurs"].append((f, i, found[0]))
            killed = {e for r in ins.defs() for e in by_reg.get(r, ())}
            out["vf_kill"].extend((f, i, e) for e in sorted(killed))
            if loads and clobbers_memory(ins):
                out["vf_clobber"].append((f, i))
