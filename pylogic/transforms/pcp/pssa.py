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
from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import (TRUE_PREDICATES, Alloca, BinOp, Br, Call, Cmp, CondBr, Function,
                              GlobalAddr, Imm, Input, Load, Mov, PredDefine, Print, Reg, Ret,
                              Select, Store, UnOp)
from pylogic.transforms.regions import Region

TRUE = "TRUE"


class PSSAUnsupported(PathlogicError):
    """The region holds something this PSSA construction does not model (its reason says what)."""

    kind = "pssa"


@dataclass(frozen=True)
class PSSAInstr:
    """One PSSA instruction ``(guard) dests = op args``.

    ``op``: ``"OR"`` (a predicate OR-statement, unc-like: false when the guard is false),
    ``"cmp.unc"`` (``dests`` = the true and false FPPs, ``cond`` the condition expression), or
    the PIR opcode of a data instruction (``mov``, ``add``, ``cmp.gt``, ``input``, ``print``,
    ``load``, ``store``, ``call``, ...). ``args``: SSA names, integer constants, or for ``or``
    predicate names (``TRUE``). ``origin``: (block, index) of the source instruction, () when
    synthesized.
    """
    guard: str
    op: str
    dests: tuple
    args: tuple = ()
    cond: Optional[tuple] = None
    origin: tuple = ()
    path: Optional[tuple] = None     # the FPP path when the guard is an FPP (a duplicate)


@dataclass(frozen=True)
class CondRef:
    """On one path, the value of a compare folded into its branch: the condition of the
    ``cmp.unc`` at PSSA index ``index`` (``inner``: the operation inside ``ne(op, 0)``)."""
    index: int
    inner: bool = False


@dataclass
class PSSA:
    """The PSSA of one region: instructions in order, the paths reaching each block, the
    versions each path holds at the region's exits.

    ``points[(block, k)]``: for every path reaching source instruction ``k`` of ``block``,
    ``(path, reads, guard)``: what each register the instruction reads holds on that path (an
    SSA name, a constant, or a :class:`CondRef`) and the 0/1 value of its guard there.
    ``defs[(block, k)]``: ``(path, handle)`` for every path on which the instruction writes its
    destination. ``opaque``: the region reads memory, calls or takes addresses (analysable, but
    not re-emitted as a hyperblock). ``predicated``: the region holds guarded instructions.
    """
    region: Region
    instrs: list = field(default_factory=list)
    paths: dict = field(default_factory=dict)          # block -> [path tuples]
    exits: list = field(default_factory=list)          # (path, target label or "ret", env)
    versions: dict = field(default_factory=dict)       # SSA name -> source register
    points: dict = field(default_factory=dict)
    defs: dict = field(default_factory=dict)
    opaque: bool = False
    predicated: bool = False

    def defined_by(self) -> dict:
        """SSA name -> the instructions defining it (duplicates: several)."""
        out = defaultdict(list)
        for ins in self.instrs:
            if ins.op not in ("OR", "cmp.unc"):
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
        if op.name in TRUE_PREDICATES:
            return 1
        return env.get(op.name, version_name(op.name, 0))
    if isinstance(op, GlobalAddr):
        return str(op)                  # an address: a leaf that is never constant
    raise PSSAUnsupported(f"operand {op!r}")


#: Opcodes of instructions whose result is never constant or that have side effects.
OPAQUE_OPS = ("load", "store", "call", "alloca")


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
    if isinstance(ins, Select):
        return "select", (ins.cond, ins.a, ins.b)
    if isinstance(ins, Input):
        return "input", ()
    if isinstance(ins, Print):
        return "print", (ins.value,)
    if isinstance(ins, Load):
        return "load", (ins.addr,)
    if isinstance(ins, Store):
        return "store", (ins.addr, ins.value)
    if isinstance(ins, Call):
        return "call", tuple(ins.args)
    if isinstance(ins, Alloca):
        return "alloca", (ins.size,)
    raise PSSAUnsupported(f"instruction '{ins.opcode}'")


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


def _truth_key(register: str) -> tuple:
    """Key under which a path's env records the 0/1 truth of a guard register it split on."""
    return ("truth", register)


def _deposits(ins: PredDefine, g: int, env: dict) -> dict:
    """For c = 0 and 1, what each destination of the define holds afterwards on a path whose
    guard value is ``g``: 0/1, or None when it keeps a previous value unknown here."""
    out = {}
    for c in (0, 1):
        vals = []
        for d in ins.dests:
            if d.name in TRUE_PREDICATES:
                continue
            old = env.get(d.name)
            if isinstance(old, int):
                vals.append((d.name, deposit(d.dtype, g, c, int(old != 0))))
            else:
                r0, r1 = deposit(d.dtype, g, c, 0), deposit(d.dtype, g, c, 1)
                vals.append((d.name, r0 if r0 == r1 else None))
        out[c] = vals
    return out


def use_counts(fn: Function) -> Counter:
    """register -> how many operands of ``fn`` read it (``_folded_condition``'s question)."""
    return Counter(op.name for b in fn.blocks for ins in b.instrs
                   for op in ins.uses() if isinstance(op, Reg))


def build_pssa(fn: Function, region: Region, entry: Optional[dict] = None,
               max_paths: Optional[int] = None, uses: Optional[Counter] = None,
               block_map: Optional[dict] = None) -> PSSA:
    """PSSA of ``region`` of ``fn`` (predicated_cp.md §3.3).

    On ordinary (branchy) code this is the paper's construction: paths are CFG paths from the
    head. Guarded instructions (if-converted code, any predicate-define network) are handled
    with the same idea: a path is also split where a predicate define's result depends on its
    condition (a ``cmp.unc`` on that path's FPP), and where a guard's value is not known on the
    path; on each path every predicate then has a known 0/1 value (its deposit, docs/pir.md), so a
    guarded instruction executes on a known set of paths. Side exits end the paths taking them
    (G7). Loads, stores, calls and addresses are modelled as never-constant operations.

    ``entry``: value of registers live into the region; a guard live into the region whose value
    is a constant there is not split on. ``max_paths``: raise :class:`PSSAUnsupported` beyond
    that many paths. ``uses`` and ``block_map``: ``use_counts(fn)`` and ``fn.block_map()`` when
    the caller has them (computed once per function, not once per region).
    """
    entry = entry or {}
    bm = fn.block_map() if block_map is None else block_map
    inside = set(region.blocks)
    head = region.head
    if uses is None:
        uses = use_counts(fn)
    pssa = PSSA(region)
    emit = pssa.instrs.append
    counter: Counter = Counter()
    env: dict = {(head,): {}}
    pssa.paths[head] = [(head,)]
    emit(PSSAInstr("p0", "OR", (head,), (TRUE,)))
    incoming: dict = defaultdict(list)          # block -> [(pred, path, by a conditional edge)]
    n_paths = 1

    def internal(target: str) -> bool:
        return target in inside and target != head

    def grow(by: int) -> None:
        nonlocal n_paths
        n_paths += by
        if max_paths is not None and n_paths > max_paths:
            raise PSSAUnsupported(f"more than {max_paths} paths")

    def split(p: tuple, label: str, k: int, guard: str, cond) -> tuple:
        """Split path ``p`` on ``cond``: ``(FPP(p)) cmp.unc FPP(p+), FPP(p-) (cond)``."""
        t, f = p + (f"{label}:{k}+",), p + (f"{label}:{k}-",)
        emit(PSSAInstr(guard, "cmp.unc", (fpp_name(t), fpp_name(f)), (),
                       _cond_versions(cond, env[p]), origin=(label, k), path=p))
        env[t], env[f] = dict(env[p]), dict(env[p])
        grow(1)
        return t, f

    def guard_on(p: tuple, name: Optional[str]):
        """The 0/1 value of guard ``name`` on path ``p``, or None when not known there."""
        if name is None or name in TRUE_PREDICATES:
            return 1
        v = env[p].get(name)
        if isinstance(v, int):
            return int(v != 0)
        if _truth_key(name) in env[p]:
            return env[p][_truth_key(name)]
        if v is None and isinstance(entry.get(name), int):
            return int(entry[name] != 0)
        return None

    def point(key: tuple, paths: list, reads: list, guard: Optional[str]) -> None:
        """Record what each register ``reads`` holds on each path, and the guard's value."""
        pssa.points[key] = [(p, {r: _operand(Reg(r), env[p]) for r in reads}, guard_on(p, guard))
                            for p in paths]

    def wrote(p: tuple, register: str, value) -> None:
        env[p][register] = value
        env[p].pop(_truth_key(register), None)

    for label in region.blocks:
        block = bm[label]
        if label != head:
            created = []
            for pred in region.blocks:
                for src, pi, conditional in incoming[label]:
                    if src != pred:
                        continue
                    if conditional:
                        created.append(pi)
                        continue
                    new = pi + (label,)
                    emit(PSSAInstr(fpp_name(pi), "OR", (fpp_name(new),), (TRUE,), path=pi))
                    env[new] = dict(env[pi])
                    created.append(new)
            pssa.paths[label] = created
            emit(PSSAInstr("p0", "OR", (label,), tuple(fpp_name(p) for p in created)))
        live = list(pssa.paths[label])
        whole = True                        # live is still exactly the block's paths
        fold_at, cond = _folded_condition(block, uses)
        last = len(block.instrs) - 1
        for k, ins in enumerate(block.instrs):
            if isinstance(ins, Call) and ins.continuations:
                raise PSSAUnsupported(f"{label}: a split call (exit splitting)")
            guard = None if ins.guard in TRUE_PREDICATES else ins.guard
            if guard is not None:
                pssa.predicated = True
                if k == last:
                    raise PSSAUnsupported(f"{label}: guarded final terminator")
                for p in list(live):
                    if guard_on(p, guard) is None:
                        t, f = split(p, label, k, fpp_name(p),
                                     ("ne", Reg(guard), Imm(0)))
                        env[t][_truth_key(guard)], env[f][_truth_key(guard)] = 1, 0
                        at = live.index(p)
                        live[at:at + 1] = [t, f]
                        whole = False
            reads = [op.name for op in ins.uses()
                     if isinstance(op, Reg) and op.name not in TRUE_PREDICATES]
            if k == fold_at:
                point((label, k), live, reads, None)
                continue
            if not isinstance(ins, CondBr):       # a cbr reads its folded compare: after it
                point((label, k), live, reads, guard)
            executing = [p for p in live if guard_on(p, guard) == 1]
            if isinstance(ins, PredDefine):
                pssa.predicated = True
                define_cond = (ins.rel, ins.a, ins.b)
                for p in list(live):
                    results = _deposits(ins, guard_on(p, guard), env[p])
                    if results[0] == results[1]:
                        for name, v in results[0]:
                            if v is not None:
                                wrote(p, name, v)
                        continue
                    t, f = split(p, label, k, fpp_name(p), define_cond)
                    for q, c in ((t, 1), (f, 0)):
                        for name, v in results[c]:
                            if v is not None:
                                wrote(q, name, v)
                    at = live.index(p)
                    live[at:at + 1] = [t, f]
                    whole = False
                continue
            if isinstance(ins, (Br, Ret)):
                for p in executing:
                    if isinstance(ins, Ret):
                        pssa.exits.append((p, "ret", env[p]))
                    elif internal(ins.target):
                        incoming[ins.target].append((label, p, False))
                    else:
                        pssa.exits.append((p, ins.target, env[p]))
                if executing:
                    whole = False
                live = [p for p in live if p not in executing]
                continue
            if isinstance(ins, CondBr):
                if ins.if_true == ins.if_false:
                    raise PSSAUnsupported(f"{label}: cbr with equal targets")
                if cond is None:
                    cond = ("ne", ins.cond, Imm(0))
                c_reg = ins.cond.name if isinstance(ins.cond, Reg) else None
                one = whole and len(live) == 1
                folded = []
                for p in live:
                    if fold_at is not None:
                        ref = CondRef(len(pssa.instrs), inner=cond[0] == "ne"
                                      and isinstance(cond[1], tuple))
                        wrote(p, c_reg, ref)
                        folded.append((p, ref))
                    g = label if one else fpp_name(p)
                    t, f = p + (ins.if_true,), p + (ins.if_false,)
                    emit(PSSAInstr(g, "cmp.unc", (fpp_name(t), fpp_name(f)), (),
                                   _cond_versions(cond, env[p]), origin=(label, k),
                                   path=None if one else p))
                    grow(1)
                    for succ, q in ((ins.if_true, t), (ins.if_false, f)):
                        env[q] = dict(env[p])
                        if internal(succ):
                            incoming[succ].append((label, q, True))
                        else:
                            pssa.exits.append((q, succ, env[q]))
                point((label, k), live, reads, None)
                if folded:
                    pssa.defs[(label, fold_at)] = folded
                live = []
                continue
            op, srcs = _rhs(ins)
            if op in OPAQUE_OPS or any(isinstance(s, GlobalAddr) for s in srcs):
                pssa.opaque = True
            if not executing:
                continue
            dests = ()
            if ins.defs():
                (dest,) = ins.defs()
                counter[dest] += 1
                dests = (version_name(dest, counter[dest]),)
                pssa.versions[dests[0]] = dest
            per_path = [tuple(_operand(s, env[p]) for s in srcs) for p in executing]
            if len(set(per_path)) <= 1:
                if whole and len(executing) == len(live):
                    g = label
                else:
                    g = f"{label}@{k}"
                    emit(PSSAInstr("p0", "OR", (g,), tuple(fpp_name(p) for p in executing)))
                emit(PSSAInstr(g, op, dests, per_path[0], origin=(label, k)))
            else:
                for p, args in zip(executing, per_path):
                    emit(PSSAInstr(fpp_name(p), op, dests, args, origin=(label, k), path=p))
            if dests:
                pssa.defs[(label, k)] = [(p, dests[0]) for p in executing]
                for p in executing:
                    wrote(p, dest, dests[0])
    return pssa


def _show(x) -> str:
    if isinstance(x, tuple):
        return f"{x[0]}({', '.join(_show(a) for a in x[1:])})"
    if isinstance(x, str) and "." in x and x.rsplit(".", 1)[1].isdigit():
        return x.replace(".", "")          # x.1 -> x1, the paper's spelling
    return str(x)


def show(ins: PSSAInstr) -> str:
    """The paper's notation (Table 2): ``(FBA) cmp.unc GFBA,HFBA (ne(and(z1, 1), 0))``."""
    if ins.op == "OR":
        return f"({ins.guard}) {ins.dests[0]} = OR({', '.join(ins.args)})"
    if ins.op == "cmp.unc":
        return f"({ins.guard}) cmp.unc {','.join(ins.dests)} ({_show(ins.cond)})"
    rhs = f"{ins.op}({', '.join(_show(a) for a in ins.args)})"
    return f"({ins.guard}) {', '.join(_show(d) for d in ins.dests)} = {rhs}"
