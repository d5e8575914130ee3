"""Oracle for datalog/correlation.dl: random modules, and the answers of each branch query found
by enumerating backward ICFG paths one at a time (an explicit call stack for return values, so
call/return matching is by construction), each path ending at its resolution. Tests only."""
from __future__ import annotations

import random

from facts_gen.interprocedural import decide
from facts_gen.query_arithmetic import query_set
from facts_gen.value_sets import _disjoint, _merged, _subset, parse_condition
from pylogic.ir.model import BinOp, Call, Cmp, CondBr, Imm, Mov, Reg, Ret
from pylogic.ir.ops import NEGATED, intervals
from pylogic.ir.parser import parse_module
from pylogic.flow.lattice import BOT, apply

#: ``K REL x`` == ``x SWAP[REL] K``: the oracle's own table, written apart from pylogic.ir.ops on
#: purpose (eq and ne are their own swap)
SWAP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "ltu": "gtu", "gtu": "ltu",
        "leu": "geu", "geu": "leu"}


def edge_conditions(block, target) -> dict:
    """``{register: condition}`` the edge from ``block`` to ``target`` asserts: an unguarded
    ``cbr r`` with two targets says r != 0 (or == 0); when r's last definition in the block is
    ``r = cmp.REL v, C`` (v not redefined before the cbr) it says (v REL C) (or the negation)."""
    term = block.instrs[-1]
    if not isinstance(term, CondBr) or term.guard is not None or term.if_true == term.if_false \
            or not isinstance(term.cond, Reg):
        return {}
    taken = target == term.if_true
    r = term.cond.name
    out = {r: "ne 0" if taken else "eq 0"}
    for k in range(len(block.instrs) - 2, -1, -1):
        ins = block.instrs[k]
        if r not in ins.defs():
            continue
        if not isinstance(ins, Cmp):
            return out
        if ins.guard is not None:
            return {}
        if isinstance(ins.a, Reg) and isinstance(ins.b, Imm):
            v, rel, c = ins.a.name, ins.rel, ins.b.value
        elif isinstance(ins.b, Reg) and isinstance(ins.a, Imm):
            v, rel, c = ins.b.name, SWAP.get(ins.rel, ins.rel), ins.a.value
        elif isinstance(ins.a, Imm) and isinstance(ins.b, Imm) or ins.a == ins.b:
            return out
        else:
            return {}
        if v == r or any(v in later.defs() for later in block.instrs[k + 1:-1]):
            return {}
        out[v] = f"{rel if taken else NEGATED[rel]} {c}"
        return out
    return out


M64 = 1 << 64


def moved(intervals, k: int) -> list:
    """``{wrap64(x + k) : x in intervals}`` (forward: the query's value from the current one)."""
    out = []
    for a, b in intervals:
        if b - a + 1 >= M64:
            return [(-(1 << 63), (1 << 63) - 1)]
        lo, hi = a + k, b + k
        w = lambda x: (x + (1 << 63)) % M64 - (1 << 63)
        out.extend([(w(lo), w(hi))] if w(lo) <= w(hi) else [(w(lo), (1 << 63) - 1), (-(1 << 63), w(hi))])
    return out


def shifted_decide(cond: str, shift: int, rel: str, c: int):
    """The query (x + shift rel c) against the values ``cond`` allows for x."""
    if shift == 0:
        return decide(cond, rel, c)
    s = moved(parse_condition(cond), shift)
    if not s:
        return None
    q = intervals(rel, c)
    return "TRUE" if _subset(s, q) else "FALSE" if _disjoint(s, q) else None


def compare_rewrite(ins, rel, c, shift: int = 0):
    """``(a, rel2, c2)``: at ``t = cmp.REL a, C`` the query (t + shift rel c), which t's 0/1
    range does not decide, asks (a REL C) or its negation; None when the range decides it or a
    is no register."""
    one, zero = shifted_decide("eq 1", shift, rel, c), shifted_decide("eq 0", shift, rel, c)
    if (one, zero) not in (("TRUE", "FALSE"), ("FALSE", "TRUE")):
        return None
    if isinstance(ins.a, Reg) and isinstance(ins.b, Imm):
        a, r, k = ins.a.name, ins.rel, ins.b.value
    elif isinstance(ins.b, Reg) and isinstance(ins.a, Imm):
        a, r, k = ins.b.name, SWAP.get(ins.rel, ins.rel), ins.a.value
    else:
        return None
    if a == ins.dest:
        return None
    return a, r if one == "TRUE" else NEGATED[r], k


def lattice_fold(block, idx):
    """The constant instruction ``idx`` of ``block`` computes from constants set earlier in the
    block (SCCP's evaluator, ``flow.lattice.apply``, on constant operands only), or None."""
    known = {}
    for k, ins in enumerate(block.instrs[:idx + 1]):
        value = None
        ops = [known.get(o.name, BOT) if isinstance(o, Reg) else o.value if isinstance(o, Imm)
               else BOT for o in ins.uses()]
        if ins.guard is None and ops and BOT not in ops and ins.opcode in (
                "mov", "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr",
                "sar", "neg", "not", "cmp", "select"):
            value = apply(ins.rel if ins.opcode == "cmp" else ins.opcode, *ops)
        for r in ins.defs():
            known.pop(r, None)
        if value is not None and value is not BOT and len(ins.defs()) == 1:
            known[ins.defs()[0]] = value
        if k == idx:
            return None if value is BOT else value
    return None

REGS = ("x", "y", "z")
RELS = ("eq", "ne", "lt", "le", "gt", "ge")


def random_module(rng: random.Random, functions: int = 3):
    """A module of ``functions`` functions f0.. (f_k calls only f_j, j < k; main last)."""
    names = [f"f{k}" for k in range(functions - 1)] + ["main"]
    text = []
    for k, name in enumerate(names):
        params = ("x", "y") if name != "main" else ("x",)
        nblocks = rng.randint(2, 6)
        labels = ["entry"] + [f"b{j}" for j in range(1, nblocks)]
        text.append(f"func {name}({', '.join(params)}) {{")
        for j, label in enumerate(labels):
            text.append(f"{label}:")
            for _ in range(rng.randint(0, 3)):
                d, s = rng.choice(REGS), rng.choice(REGS)
                kind = rng.random()
                if kind < 0.3:
                    text.append(f"    {d} = mov {rng.randint(-2, 3)}")
                elif kind < 0.55:
                    text.append(f"    {d} = mov {s}")
                elif kind < 0.7:
                    text.append(f"    {d} = add {s}, 1")
                elif kind < 0.75:
                    text.append(f"    print {s}")
                elif kind < 0.85:
                    text.append(f"    {d} = cmp.{rng.choice(RELS)} {s}, {rng.randint(-1, 2)}")
                elif k > 0:
                    callee = names[rng.randrange(k)]
                    text.append(f"    {d} = call {callee}({s}, {rng.randint(-1, 2)})")
            later = labels[j + 1:] or ["entry"]
            t = rng.random()
            if j == len(labels) - 1 or t < 0.15:
                text.append(f"    ret {rng.choice(REGS + ('1', '0'))}")
            elif t < 0.4:
                text.append(f"    br {rng.choice(later + labels[:j + 1][-1:])}")
            else:
                targets = [rng.choice(labels[j + 1:]), rng.choice(labels)]
                rng.shuffle(targets)
                text.append(f"    t = cmp.{rng.choice(RELS)} {rng.choice(REGS)}, {rng.randint(-1, 2)}")
                text.append(f"    cbr t, {targets[0]}, {targets[1]}")
        text.append("}")
    return parse_module("\n".join(text) + "\n")


class Oracle:
    """Answers of the query raised at a branch, path by path (crossings: entry -> callers)."""

    def __init__(self, module, budget: int, rewrites=()):
        # which rewrites through an add the facts allow (a depth bound, facts_gen): the rewritten
        # query itself is computed here, by the shift, not read from the rows
        self.allowed = {}
        for f, i, _, rel0, c0, _, _, _ in rewrites:
            self.allowed.setdefault((f.split("::")[-1], i), []).append(query_set(rel0, c0))
        self.fns = {f.name: f for f in module.defined_functions()}
        self.budget = budget
        self.sites = {name: [] for name in self.fns}
        for f in self.fns.values():
            for b in f.blocks:
                for k, ins in enumerate(b.instrs):
                    if isinstance(ins, Call) and ins.callee in self.fns:
                        self.sites[ins.callee].append((f.name, b.label, k, ins))
        self.preds = {name: {b.label: [] for b in f.blocks} for name, f in self.fns.items()}
        for name, f in self.fns.items():
            for a, s in f.edges():
                self.preds[name][s].append(a)

    #: the query is on (current variable + shift), wrapped to 64 bits: adds of a constant on the
    #: path (issue #15 part C)
    shift = 0

    def branch(self, fname: str, label: str, k: int, v: str, rel: str, c: int) -> set:
        self.rel, self.c, self.shift, self.out = rel, c, 0, set()
        self.walk(fname, label, k, v, (), 0, frozenset())
        return self.out

    def answer(self, cond: str) -> None:
        self.out.add(self.decides(cond) or "UNDEF")

    def decides(self, cond: str):
        return shifted_decide(cond, self.shift, self.rel, self.c)

    def walk(self, fname, label, k, v, stack, crossings, seen):
        saved = (self.rel, self.c, self.shift)    # a compare or add may rewrite the query here
        try:
            return self._walk(fname, label, k, v, stack, crossings, seen)
        finally:
            self.rel, self.c, self.shift = saved

    def _walk(self, fname, label, k, v, stack, crossings, seen):
        fn = self.fns[fname]
        block = fn.block_map()[label]
        for idx in range(k - 1, -1, -1):
            ins = block.instrs[idx]
            if v not in ins.defs():
                continue
            if isinstance(ins, Mov) and isinstance(ins.src, Imm):
                return self.answer(f"eq {ins.src.value}")
            if isinstance(ins, Mov):
                v = ins.src.name
                continue
            const = lattice_fold(block, idx)
            if const is not None:
                return self.answer(f"eq {const}")
            if isinstance(ins, Cmp):
                new = compare_rewrite(ins, self.rel, self.c, self.shift)
                if new is None:
                    return self.answer("range 0 1")
                v, self.rel, self.c = new
                self.shift = 0
                continue
            if isinstance(ins, BinOp) and ins.op in ("add", "sub") and isinstance(ins.a, Reg) \
                    and isinstance(ins.b, Imm) and ins.guard is None:
                if stack:                   # no rewriting inside a summary (correlation.dl)
                    return self.out.add("UNDEF")
                now = _merged(moved(intervals(self.rel, self.c), -self.shift))
                if now not in self.allowed.get((fname, f"{label}#{idx}"), []):
                    return self.out.add("UNDEF")     # beyond the facts' rewriting bound
                k = ins.b.value if ins.op == "add" else -ins.b.value
                v, self.shift = ins.a.name, (self.shift + k + (1 << 63)) % M64 - (1 << 63)
                continue
            if isinstance(ins, Call) and ins.callee in self.fns:
                callee = self.fns[ins.callee]
                for b in callee.blocks:
                    for j, r in enumerate(b.instrs):
                        if not isinstance(r, Ret):
                            continue
                        if r.value is None or isinstance(r.value, Imm):
                            self.answer(f"eq {r.value.value if r.value is not None else 0}")
                        else:
                            self.walk(callee.name, b.label, j, r.value.name,
                                      stack + ((fname, label, idx, ins),), crossings, seen)
                return None
            return self.out.add("UNDEF")
        state = (fname, label, v, stack, crossings, self.rel, self.c, self.shift)
        if state in seen:
            return None
        seen = seen | {state}
        if label == fn.blocks[0].label:
            if v not in fn.params:
                self.answer("eq 0")
            else:
                p = fn.params.index(v)
                if stack:
                    cf, cl, ck, call = stack[-1]
                    self.arg(cf, cl, ck, call, p, stack[:-1], crossings, seen)
                else:
                    if not self.sites[fname] or fname == "main":
                        self.out.add("UNDEF")
                    for cf, cl, ck, call in self.sites[fname]:
                        if isinstance(call.args[p], Reg) and crossings >= self.budget:
                            self.out.add("UNDEF")
                        else:
                            self.arg(cf, cl, ck, call, p, (), crossings + 1, seen)
        for m in self.preds[fname][label]:
            pm = fn.block_map()[m]
            term = pm.instrs[-1]
            cond = edge_conditions(pm, label).get(v)
            if cond is not None and self.decides(cond):
                self.answer(cond)
                continue
            self.walk(fname, m, len(pm.instrs) - 1, v, stack, crossings, seen)

    def arg(self, cf, cl, ck, call, p, stack, crossings, seen):
        a = call.args[p]
        if isinstance(a, Imm):
            return self.answer(f"eq {a.value}")
        return self.walk(cf, cl, ck, a.name, stack, crossings, seen)


def assert_answers_hold(module, got: dict, taken: set) -> None:
    """The interpreter's check of branch answers: a branch whose only answer in ``got``
    (``{(function, "block#index"): answers}``) is TRUE (FALSE) never took its false (true) edge
    in ``taken`` (the union of edge profiles, ``(function, block, target)``)."""
    for fn in module.defined_functions():
        for b in fn.blocks:
            term = b.instrs[-1]
            if not isinstance(term, CondBr) or term.if_true == term.if_false:
                continue
            ans = got.get((fn.name, f"{b.label}#{len(b.instrs) - 1}"))
            if ans == {"TRUE"}:
                assert (fn.name, b.label, term.if_false) not in taken
            if ans == {"FALSE"}:
                assert (fn.name, b.label, term.if_true) not in taken
