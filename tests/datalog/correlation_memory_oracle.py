"""Oracle for branch correlation through memory (issue #15 part B): random modules with two
global scalars ``g`` and ``h`` (memory cells by construction: only ``load``/``store`` name them),
a buffer ``buf`` reached through pointers, loads and stores through pointer registers, and calls;
answers found by enumerating backward ICFG paths one at a time, as ``correlation_oracle`` does,
with the cells' values followed through their stores, into every callee that stores them (and
out of it at the call site it was entered from), and a dereference of p deciding (p rel c) as
p != 0. Tests only."""
from __future__ import annotations

import random

from facts_gen.interprocedural import decide
from pylogic.ir.ops import NEGATED
from pylogic.ir.model import Alloca, Call, Cmp, CondBr, GlobalAddr, Imm, Load, Mov, Reg, Ret, Store
from pylogic.ir.parser import parse_module
from tests.datalog.correlation_oracle import Oracle, compare_rewrite, edge_conditions, lattice_fold

REGS = ("x", "y", "p")
CELLS = ("g", "h")
RELS = ("eq", "ne", "lt", "gt")


def random_memory_module(rng: random.Random, functions: int = 3, allocas: bool = False):
    """Functions f0.. then main (f_k calls only f_j, j < k); globals g, h (cells) and buf;
    with ``allocas``, p may also be ``alloca 8`` (never 0) often copied to x or y
    just before a store through p, and
    branches on p (and on half the others) test against 0."""
    pointers = ['mov buf', 'add buf, 8', 'mov 0', 'mov x'] + (['alloca 8'] * 3 if allocas else [])
    names = [f"f{k}" for k in range(functions - 1)] + ["main"]
    text = [f"global g[8] = {{{rng.randint(0, 3)}}}", "global h[8]", "global buf[32]"]
    for k, name in enumerate(names):
        params = ("x", "p") if name != "main" else ("x",)
        nblocks = rng.randint(2, 5)
        labels = ["entry"] + [f"b{j}" for j in range(1, nblocks)]
        text.append(f"func {name}({', '.join(params)}) {{")
        for j, label in enumerate(labels):
            text.append(f"{label}:")
            for _ in range(rng.randint(0, 3)):
                d, s, cell = rng.choice(REGS[:2]), rng.choice(REGS), rng.choice(CELLS)
                kind = rng.random()
                if kind < 0.15:
                    text.append(f"    {d} = load {cell}")
                elif kind < 0.25:
                    text.append(f"    store {cell}, {rng.randint(-1, 2)}")
                elif kind < 0.35:
                    text.append(f"    store {cell}, {s}")
                elif kind < 0.45:
                    text.append(f"    {d} = mov {rng.randint(-1, 2)}")
                elif kind < 0.5:
                    text.append(f"    {d} = mov {s}")
                elif kind < 0.6:
                    text.append(f"    p = {rng.choice(pointers)}")
                    if allocas and rng.random() < 0.5:    # a copy, then an access through p
                        text.append(f"    {d} = mov p")
                        text.append(f"    store p, {rng.randint(-1, 2)}")
                elif kind < 0.7:
                    text.append(f"    {d} = load p")
                elif kind < 0.75:
                    text.append(f"    store p, {s}")
                elif kind < 0.8:
                    text.append(f"    {d} = input")
                elif kind < 0.85:
                    text.append(f"    print {s}")
                elif k > 0:
                    callee = names[rng.randrange(k)]
                    text.append(f"    {d} = call {callee}({s}, {rng.choice(['p', '0', 'buf'])})")
            later = labels[j + 1:] or ["entry"]
            t = rng.random()
            if j == len(labels) - 1 or t < 0.15:
                text.append(f"    ret {rng.choice(REGS + ('1', '0'))}")
            elif t < 0.35:
                text.append(f"    br {rng.choice(later)}")
            else:
                targets = [rng.choice(labels[j + 1:]), rng.choice(labels)]
                rng.shuffle(targets)
                rel, r, c = rng.choice(RELS), rng.choice(REGS), rng.randint(-1, 2)
                if allocas and (r == "p" or rng.random() < 0.5):
                    rel, c = rel if rel in ("eq", "ne") else "eq", 0      # null tests
                text.append(f"    t = cmp.{rel} {r}, {c}")
                text.append(f"    cbr t, {targets[0]}, {targets[1]}")
        text.append("}")
    return parse_module("\n".join(text) + "\n")


def same_value(block, idx: int, a: str, v: str) -> bool:
    """Before instruction idx of block, a and v hold the same value by the block's own copies:
    value numbers forward from the block's start (a register its own number there, a ``mov`` of a
    register copies the number, any other definition a fresh one)."""
    number = {}
    for k, ins in enumerate(block.instrs[:idx]):
        for d in ins.defs():
            if isinstance(ins, Mov) and ins.guard is None and isinstance(ins.src, Reg):
                number[d] = number.get(ins.src.name, ins.src.name)
            else:
                number[d] = ("def", k)
    return number.get(a, a) == number.get(v, v)


class MemoryOracle(Oracle):
    """``Oracle`` with cells ``*g``/``*h`` and dereferences (see the module doc)."""

    def __init__(self, module, budget: int):
        super().__init__(module, budget)
        self.init = {"*" + gl.name: int.from_bytes(gl.init[:8].ljust(8, b"\0"), "little", signed=True)
                     for gl in module.globals if gl.name in CELLS}
        stores = {name: {ins.addr.name for b in f.blocks for ins in b.instrs
                         if isinstance(ins, Store) and isinstance(ins.addr, GlobalAddr)}
                  for name, f in self.fns.items()}
        calls = {name: {ins.callee for b in f.blocks for ins in b.instrs
                        if isinstance(ins, Call) and ins.callee in self.fns}
                 for name, f in self.fns.items()}

        def writes(name, seen=()):
            out = set(stores[name])
            for callee in calls[name] - set(seen):
                out |= writes(callee, seen + (name,))
            return out
        self.writes = {name: {"*" + x for x in writes(name)} for name in self.fns}

    def walk(self, fname, label, k, v, stack, crossings, seen):
        saved = (self.rel, self.c)          # a compare may rewrite the query on this path
        try:
            return self._walk(fname, label, k, v, stack, crossings, seen)
        finally:
            self.rel, self.c = saved

    def _walk(self, fname, label, k, v, stack, crossings, seen):
        fn = self.fns[fname]
        block = fn.block_map()[label]
        for idx in range(k - 1, -1, -1):
            ins = block.instrs[idx]
            defines = v in ins.defs() or (isinstance(ins, Store) and isinstance(ins.addr, GlobalAddr)
                                          and v == "*" + ins.addr.name) \
                or (isinstance(ins, Call) and v in self.writes.get(ins.callee, ()))
            if not defines:
                if isinstance(ins, (Load, Store)) and isinstance(ins.addr, Reg) \
                        and same_value(block, idx, ins.addr.name, v) \
                        and decide("ne 0", self.rel, self.c):
                    return self.answer("ne 0")                        # source 4
                continue
            if isinstance(ins, Store):
                if isinstance(ins.value, Imm):
                    return self.answer(f"eq {ins.value.value}")
                if isinstance(ins.value, Reg):
                    v = ins.value.name
                    continue
                return self.out.add("UNDEF")
            if isinstance(ins, Load) and isinstance(ins.addr, GlobalAddr):
                v = "*" + ins.addr.name
                continue
            if isinstance(ins, Mov) and isinstance(ins.src, Imm):
                return self.answer(f"eq {ins.src.value}")
            if isinstance(ins, Alloca):
                return self.answer("ne 0")            # an alloca's address is never 0
            if isinstance(ins, Mov) and isinstance(ins.src, Reg):
                v = ins.src.name
                continue
            const = lattice_fold(block, idx)
            if const is not None:
                return self.answer(f"eq {const}")
            if isinstance(ins, Cmp):
                new = compare_rewrite(ins, self.rel, self.c)
                if new is None:
                    return self.answer("range 0 1")
                v, self.rel, self.c = new
                continue
            if isinstance(ins, Call) and ins.callee in self.fns:
                callee = self.fns[ins.callee]
                for b in callee.blocks:
                    for j, r in enumerate(b.instrs):
                        if not isinstance(r, Ret):
                            continue
                        frame = stack + ((fname, label, idx, ins),)
                        if v.startswith("*"):
                            self.walk(callee.name, b.label, j, v, frame, crossings, seen)
                        elif r.value is None or isinstance(r.value, Imm):
                            self.answer(f"eq {r.value.value if r.value is not None else 0}")
                        elif isinstance(r.value, Reg):
                            self.walk(callee.name, b.label, j, r.value.name, frame, crossings, seen)
                        else:
                            self.out.add("UNDEF")
                return None
            return self.out.add("UNDEF")
        state = (fname, label, v, stack, crossings, self.rel, self.c)
        if state in seen:
            return None
        seen = seen | {state}
        if label == fn.blocks[0].label:
            if v.startswith("*"):
                if stack:
                    cf, cl, ck, _ = stack[-1]
                    self.walk(cf, cl, ck, v, stack[:-1], crossings, seen)
                else:
                    if fname == "main":
                        self.answer(f"eq {self.init[v]}")
                    elif not self.sites[fname]:
                        self.out.add("UNDEF")
                    for cf, cl, ck, _ in self.sites[fname]:
                        if crossings >= self.budget:
                            self.out.add("UNDEF")
                        else:
                            self.walk(cf, cl, ck, v, (), crossings + 1, seen)
            elif v not in fn.params:
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
            if cond is not None and decide(cond, self.rel, self.c):
                self.answer(cond)
                continue
            self.walk(fname, m, len(pm.instrs) - 1, v, stack, crossings, seen)

    def arg(self, cf, cl, ck, call, p, stack, crossings, seen):
        a = call.args[p]
        if isinstance(a, GlobalAddr):
            return self.out.add("UNDEF")
        return super().arg(cf, cl, ck, call, p, stack, crossings, seen)
