"""PIR for a simplified PSSA region: one ``!hyperblock`` (predicated_cp.md §3.9 "Table 3"
form, runnable).

- ``(g) P = OR(TRUE)`` -> ``(g) P:ut = pcmp.eq 0, 0`` (P = g, written even when g is 0);
  ``(p0) P = OR(a, b)`` -> ``P:uf = pcmp.eq 0, 0`` then ``(a) P:ot = pcmp.eq 0, 0`` per operand;
- ``(g) cmp.unc P,Q (rel(x, y))`` -> ``(g) P:ut, Q:uf = pcmp.rel x, y`` (inner operations of a
  folded condition computed into fresh registers under g; TRUE/FALSE -> ``pcmp.eq/ne 0, 0``);
- data instructions keep their guard (``p0`` -> none); SSA versions become fresh registers,
  the live-in version ``x.0`` is ``x``;
- every exit path whose predicate is not known false copies its versions back to the source
  registers under its predicate and leaves by a guarded side exit (the last one unguarded).

A predicate whose definition was removed as off-predicated keeps a stale value in a loop, but
nothing reads it: every reader is guarded by it, or by a predicate it implies, and was removed
too (F1), and its exits are dropped.
"""
from __future__ import annotations

from typing import Optional

from pylogic.ir.model import (BINARY_OPS, RELATIONS, TRUE_PREDICATES, BinOp, Block, Br, Cmp, Imm,
                              Input, Mov, PredDefine, PredDest, Print, Reg, Ret, UnOp)
from pylogic.transforms.naming import FreshNames
from pylogic.transforms.pcp.pssa import PSSA, TRUE, PSSAInstr, PSSAUnsupported, fpp_name


class _Names(FreshNames):
    """SSA version / predicate name -> a PIR register name unused in the function."""

    def __init__(self, used: set):
        super().__init__(set(used))
        self.map: dict = {}

    def version(self, v: str) -> str:
        source, n = v.rsplit(".", 1)
        if n == "0":
            return source
        if v not in self.map:
            self.map[v] = self.fresh(f"{source}.pcp{n}")
        return self.map[v]

    def pred(self, p: str) -> Optional[str]:
        if p in TRUE_PREDICATES or p == TRUE:
            return None
        key = ("pred", p)
        if key not in self.map:
            self.map[key] = self.fresh(f"%pp.{p}")
        return self.map[key]


def _operand(a, names: _Names):
    return Imm(a) if isinstance(a, int) else Reg(names.version(a))


def emit_region(pssa: PSSA, instrs: list[PSSAInstr], names: _Names, false_preds: set,
                ret_operands: dict) -> Block:
    """The hyperblock for ``instrs`` (a simplified PSSA of ``pssa.region``).

    ``false_preds``: predicates known false (their exits are dropped); ``ret_operands``: block
    label -> the source register (or int) its ``ret`` returns.
    """
    out: list = []

    def define(guard, dests, rel, a, b):
        out.append(PredDefine(guard=guard, dests=tuple(PredDest(d, t) for d, t in dests), rel=rel,
                              a=a, b=b))

    def expression(e, guard):
        if not isinstance(e, tuple):
            return _operand(e, names)
        args = [expression(x, guard) for x in e[1:]]
        tmp = names.fresh("%pp.t")
        if e[0] in RELATIONS:
            out.append(Cmp(guard=guard, rel=e[0], dest=tmp, a=args[0], b=args[1]))
        elif e[0] in BINARY_OPS:
            out.append(BinOp(guard=guard, op=e[0], dest=tmp, a=args[0], b=args[1]))
        else:
            out.append(UnOp(guard=guard, op=e[0], dest=tmp, a=args[0]))
        return Reg(tmp)

    for ins in instrs:
        g = names.pred(ins.guard)
        if ins.op == "OR":
            p = names.pred(ins.dests[0])
            if ins.args == (TRUE,):
                define(g, [(p, "ut")], "eq", Imm(0), Imm(0))
                continue
            if g is not None:
                raise PSSAUnsupported("a guarded OR of predicates")
            define(None, [(p, "uf")], "eq", Imm(0), Imm(0))
            for a in ins.args:
                define(names.pred(a), [(p, "ot")], "eq", Imm(0), Imm(0))
        elif ins.op == "cmp.unc":
            t, f = (names.pred(d) for d in ins.dests)
            if ins.cond in (TRUE, "FALSE"):
                define(g, [(t, "ut"), (f, "uf")], "eq" if ins.cond == TRUE else "ne",
                       Imm(0), Imm(0))
                continue
            rel, a, b = ins.cond
            if rel not in RELATIONS:
                raise PSSAUnsupported(f"condition {rel}")
            define(g, [(t, "ut"), (f, "uf")], rel, expression(a, g), expression(b, g))
        else:
            args = [_operand(a, names) for a in ins.args]
            d = names.version(ins.dests[0]) if ins.dests else None
            if ins.op == "mov":
                out.append(Mov(guard=g, dest=d, src=args[0]))
            elif ins.op == "input":
                out.append(Input(guard=g, dest=d))
            elif ins.op == "print":
                out.append(Print(guard=g, value=args[0]))
            elif ins.op in RELATIONS:
                out.append(Cmp(guard=g, rel=ins.op, dest=d, a=args[0], b=args[1]))
            elif ins.op in BINARY_OPS:
                out.append(BinOp(guard=g, op=ins.op, dest=d, a=args[0], b=args[1]))
            else:
                out.append(UnOp(guard=g, op=ins.op, dest=d, a=args[0]))
    exits = [(path, target, env) for path, target, env in pssa.exits
             if fpp_name(path) not in false_preds]
    for k, (path, target, env) in enumerate(exits):
        last = k == len(exits) - 1
        p = names.pred(fpp_name(path))
        written = sorted((s, v) for s, v in env.items()
                         if isinstance(s, str) and isinstance(v, str))    # not a folded compare
        for source, version in written:
            if not version.endswith(".0"):
                out.append(Mov(guard=p, dest=source, src=Reg(names.version(version))))
        guard = None if last else p
        if target == "ret":
            value = ret_operands[path[-1]]
            if isinstance(value, Reg):
                value = Reg(names.version(env.get(value.name, value.name + ".0")))
            out.append(Ret(guard=guard, value=value))
        else:
            out.append(Br(guard=guard, target=target))
    return Block(label=pssa.region.head, instrs=tuple(out), hyperblock=True)
