"""Predicated SSA of one hyperblock region (Carter et al. 1999 as used by Knoop & Rüthing;
predicated_cp.md §2.6, reconstructed construction §3.3).

The input is the region as an acyclic single-entry CFG (``transforms.regions.Region``: blocks in
topological order, head first), which is what the construction needs: the if-converted code
alone does not say which unguarded code is a join (§3.3). Every path from the head gets a
full-path predicate (FPP); a block's predicate is the OR of the FPPs reaching it; an instruction
whose operand versions differ between the paths reaching its block is duplicated once per path
under that path's FPP (no duplicate suppression, as in the paper); a conditional branch becomes
one ``cmp.unc`` per path (Control PSSA).

Names: a path is a tuple of block labels; its FPP is the labels reversed (``("A","C","E","F")``
-> ``"FECA"``; labels of more than one character are joined with ``.``). SSA versions are
``<register>.<n>`` with one counter per register over the region (``x.1``, ``x.2``); the
version live into the region is ``<register>.0``.

References: predicated_cp.md §2.6, §3.3, Table 2 (§4.3).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Optional

from pylogic.errors import PathlogicError
from pylogic.ir.model import (BinOp, Br, Cmp, CondBr, Function, GlobalAddr, Imm, Input, Mov, Print,
                              Reg, Ret, UnOp)
from pylogic.transforms.regions import Region

TRUE = "TRUE"


class PSSAUnsupported(PathlogicError):
    """The region holds something this PSSA construction does not model (its reason says what)."""

    kind = "pssa"


@dataclass(frozen=True)
class PSSAInstr:
    """One PSSA instruction ``(guard) dests = op args``.

    ``op``: ``"or"`` (a predicate OR-statement, unc-like: false when the guard is false),
    ``"cmp.unc"`` (``dests`` = the true and false FPPs, ``cond`` the condition expression), or
    the PIR opcode of a data instruction (``mov``, ``add``, ``cmp.gt``, ``input``, ``print``,
    ...). ``args``: SSA names, integer constants, or for ``or`` predicate names (``TRUE``).
    ``origin``: (block, index) of the source instruction, () when synthesized.
    """
    guard: str
    op: str
    dests: tuple
    args: tuple = ()
    cond: Optional[tuple] = None
    origin: tuple = ()
    path: Optional[tuple] = None     # the FPP path when the guard is an FPP (a duplicate)


@dataclass
class PSSA:
    """The PSSA of one region: instructions in order, the paths reaching each block, the
    versions each path holds at the region's exits."""
    region: Region
    instrs: list = field(default_factory=list)
    paths: dict = field(default_factory=dict)          # block -> [path tuples]
    exits: list = field(default_factory=list)          # (path, target label or "ret", env)
    versions: dict = field(default_factory=dict)       # SSA name -> source register

    def defined_by(self) -> dict:
        """SSA name -> the instructions defining it (duplicates: several)."""
        out = defaultdict(list)
        for ins in self.instrs:
            if ins.op not in ("or", "cmp.unc"):
                for d in ins.dests:
                    out[d].append(ins)
        return out


def fpp_name(path: tuple) -> str:
    """``("A","B","F")`` -> ``"FBA"`` (the paper's naming, §2.6)."""
    sep = "" if all(len(label) == 1 for label in path) else "."
    return sep.join(reversed(path))


def version_name(register: str, n: int) -> str:
    return f"{register}.{n}"


def _operand(op, env: dict):
    if isinstance(op, Imm):
        return op.value
    if isinstance(op, Reg):
        return env.get(op.name, version_name(op.name, 0))
    if isinstance(op, GlobalAddr):
        raise PSSAUnsupported(f"global address operand {op}")
    raise PSSAUnsupported(f"operand {op!r}")


def _rhs(ins) -> tuple[str, tuple]:
    """(opcode, source operands) of a data instruction."""
    if isinstance(ins, Mov):
        return "mov", (ins.src,)
    if isinstance(ins, BinOp):
        return ins.op, (ins.a, ins.b)
    if isinstance(ins, UnOp):
        return ins.op, (ins.a,)
    if isinstance(ins, Cmp):
        return ins.rel, (ins.a, ins.b)
    if isinstance(ins, Input):
        return "input", ()
    if isinstance(ins, Print):
        return "print", (ins.value,)
    raise PSSAUnsupported(f"instruction '{ins.opcode}' (PSSA models mov, arithmetic, cmp, input)")


def _folded_condition(block, fn_use_counts: Counter) -> tuple[Optional[int], Optional[tuple]]:
    """The instruction the final ``cbr`` of ``block`` tests, folded into the condition when its
    result is read by that branch only: ``(index, (rel, a, b))``; else ``(None, None)``."""
    term = block.instrs[-1]
    if not isinstance(term, CondBr) or not isinstance(term.cond, Reg):
        return None, None
    c = term.cond.name
    for k in range(len(block.instrs) - 2, -1, -1):
        ins = block.instrs[k]
        if c in ins.defs():
            if fn_use_counts[c] != 1 or ins.guard is not None:
                return None, None
            if isinstance(ins, Cmp):
                return k, (ins.rel, ins.a, ins.b)
            if isinstance(ins, (BinOp, UnOp)):
                op, args = _rhs(ins)
                return k, ("ne", (op, *args), Imm(0))
            return None, None
    return None, None


def _cond_versions(cond, env: dict):
    """A condition expression with source operands replaced by the path's versions."""
    if isinstance(cond, tuple):
        return (cond[0], *(_cond_versions(a, env) for a in cond[1:]))
    return _operand(cond, env)


def build_pssa(fn: Function, region: Region) -> PSSA:
    """PSSA of ``region`` of ``fn`` (predicated_cp.md §3.3).

    Raises PSSAUnsupported for regions holding predicated code, side exits in the middle of a
    block, memory operations or calls (this construction models ordinary computations, the
    paper's setting).
    """
    bm = fn.block_map()
    inside = set(region.blocks)
    head = region.head
    uses = Counter(op.name for b in fn.blocks for ins in b.instrs
                   for op in ins.uses() if isinstance(op, Reg))
    pssa = PSSA(region)
    emit = pssa.instrs.append
    counter: Counter = Counter()
    env: dict = {(head,): {}}
    pssa.paths[head] = [(head,)]
    emit(PSSAInstr("p0", "or", (head,), (TRUE,)))
    incoming: dict = defaultdict(list)          # block -> paths created by conditional edges

    def internal(target: str) -> bool:
        return target in inside and target != head

    for label in region.blocks:
        block = bm[label]
        for ins in block.instrs:
            if ins.guard is not None:
                raise PSSAUnsupported(f"{label}: predicated instruction in a branchy region")
            if ins.is_terminator and ins is not block.instrs[-1]:
                raise PSSAUnsupported(f"{label}: side exit in the middle of the block (G7)")
        if label != head:
            created = []
            for pred in region.blocks:
                term = bm[pred].instrs[-1]
                if isinstance(term, Br) and term.target == label:     # unconditional in-edge
                    for pi in pssa.paths.get(pred, ()):
                        new = pi + (label,)
                        emit(PSSAInstr(fpp_name(pi), "or", (fpp_name(new),), (TRUE,), path=pi))
                        env[new] = dict(env[pi])
                        created.append(new)
                elif isinstance(term, CondBr) and label in (term.if_true, term.if_false):
                    created += [p for p in incoming[label] if p[-2] == pred]
            pssa.paths[label] = created
            emit(PSSAInstr("p0", "or", (label,), tuple(fpp_name(p) for p in created)))
        paths = pssa.paths[label]
        fold_at, cond = _folded_condition(block, uses)
        for k, ins in enumerate(block.instrs[:-1]):
            if k == fold_at:
                continue
            op, srcs = _rhs(ins)
            dests = ()
            if ins.defs():
                (dest,) = ins.defs()
                counter[dest] += 1
                dests = (version_name(dest, counter[dest]),)
                pssa.versions[dests[0]] = dest
            per_path = [tuple(_operand(s, env[p]) for s in srcs) for p in paths]
            if len(set(per_path)) <= 1:
                emit(PSSAInstr(label, op, dests, per_path[0] if per_path else (),
                               origin=(label, k)))
            else:
                for p, args in zip(paths, per_path):
                    emit(PSSAInstr(fpp_name(p), op, dests, args, origin=(label, k), path=p))
            for p in paths:
                if dests:
                    env[p][dest] = dests[0]
        term = block.instrs[-1]
        if isinstance(term, CondBr):
            if cond is None:
                cond = ("ne", term.cond, Imm(0))
            for p in paths:
                g = label if len(paths) == 1 else fpp_name(p)
                t, f = p + (term.if_true,), p + (term.if_false,)
                emit(PSSAInstr(g, "cmp.unc", (fpp_name(t), fpp_name(f)), (),
                               _cond_versions(cond, env[p]), origin=(label, len(block.instrs) - 1),
                               path=None if len(paths) == 1 else p))
                for succ, q in ((term.if_true, t), (term.if_false, f)):
                    env[q] = dict(env[p])
                    if internal(succ):
                        incoming[succ].append(q)
                    else:
                        pssa.exits.append((q, succ, env[q]))
        elif isinstance(term, Br):
            if not internal(term.target):
                pssa.exits += [(p, term.target, env[p]) for p in paths]
        elif isinstance(term, Ret):
            pssa.exits += [(p, "ret", env[p]) for p in paths]
    return pssa


def _show(x) -> str:
    if isinstance(x, tuple):
        return f"{x[0]}({', '.join(_show(a) for a in x[1:])})"
    if isinstance(x, str) and "." in x and x.rsplit(".", 1)[1].isdigit():
        return x.replace(".", "")          # x.1 -> x1, the paper's spelling
    return str(x)


def show(ins: PSSAInstr) -> str:
    """The paper's notation (Table 2): ``(FBA) cmp.unc GFBA,HFBA (ne(and(z1, 1), 0))``."""
    if ins.op == "or":
        return f"({ins.guard}) {ins.dests[0]} = OR({', '.join(ins.args)})"
    if ins.op == "cmp.unc":
        return f"({ins.guard}) cmp.unc {','.join(ins.dests)} ({_show(ins.cond)})"
    rhs = f"{ins.op}({', '.join(_show(a) for a in ins.args)})"
    return f"({ins.guard}) {', '.join(_show(d) for d in ins.dests)} = {rhs}"
