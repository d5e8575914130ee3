"""Branch queries relating two registers (issue #15 part C: ``datalog/correlation/pairs.dl``,
``facts_gen/pair_queries.py``): answers equal a backward path-enumeration oracle on random
modules (its implications decided on 64-bit values of its own choosing), ``cbe`` removes the
branches of gcc torture compare-1/compare-3 they decide, and the engines agree."""
from __future__ import annotations

import random
from itertools import product

import pytest

from facts_gen.pair_queries import pair_decision
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.model import Cmp, CondBr, Mov, Reg
from pylogic.ir.parser import parse_module
from tests.support import ENGINES

# the oracle's own relation semantics, written apart from pylogic.ir.ops on purpose
RELS = ("eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu")
NEG = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le",
       "ltu": "geu", "geu": "ltu", "leu": "gtu", "gtu": "leu"}
SWAP = {"eq": "eq", "ne": "ne", "lt": "gt", "gt": "lt", "le": "ge", "ge": "le",
        "ltu": "gtu", "gtu": "ltu", "leu": "geu", "geu": "leu"}
VALUES = [-(1 << 63), -(1 << 62), -5, -2, -1, 0, 1, 2, 5, 1 << 62, (1 << 63) - 1]


def holds64(rel, x, y):
    u, v = x % (1 << 64), y % (1 << 64)
    return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y,
            "ltu": u < v, "leu": u <= v, "gtu": u > v, "geu": u >= v}[rel]


def implied(asserted, queried):
    """The oracle's own decision: over 64-bit values around the sign boundaries."""
    seen = {holds64(queried, x, y) for x, y in product(VALUES, repeat=2) if holds64(asserted, x, y)}
    return "TRUE" if seen == {True} else "FALSE" if seen == {False} else None


def test_the_implication_table():
    assert pair_decision("lt", "ne") == "TRUE" and pair_decision("eq", "ne") == "FALSE"
    assert pair_decision("lt", "ge") == "FALSE" and pair_decision("lt", "ltu") is None
    assert pair_decision("gtu", "ne") == "TRUE" and pair_decision("le", "lt") is None
    for a, q in product(RELS, repeat=2):
        assert pair_decision(a, q) == implied(a, q), (a, q)


def random_pair_module(rng: random.Random):
    """One function on x, y, z: compares of two registers feeding branches, copies between
    them, constants and adds (which make a pair query UNDEF)."""
    regs = ("x", "y", "z")
    n = rng.randint(3, 7)
    labels = ["entry"] + [f"b{j}" for j in range(1, n)]
    text = ["func main(x, y) {"]
    for j, label in enumerate(labels):
        text.append(f"{label}:")
        for _ in range(rng.randint(0, 2)):
            d, s = rng.sample(regs, 2)
            kind = rng.random()
            if kind < 0.5:
                text.append(f"    {d} = mov {s}")
            elif kind < 0.7:
                text.append(f"    {d} = mov {rng.randint(-1, 2)}")
            elif kind < 0.85:
                text.append(f"    {d} = add {s}, 1")
            else:
                text.append(f"    print {s}")
        if j == n - 1 or rng.random() < 0.1:
            text.append(f"    ret {rng.choice(regs)}")
        elif rng.random() < 0.25:
            text.append(f"    br {rng.choice(labels[j + 1:] + [label])}")
        else:
            a, b = rng.sample(regs, 2)
            targets = [rng.choice(labels[j + 1:]), rng.choice(labels)]
            rng.shuffle(targets)
            text.append(f"    t = cmp.{rng.choice(RELS)} {a}, {b}")
            text.append(f"    cbr t, {targets[0]}, {targets[1]}")
    text.append("}")
    return parse_module("\n".join(text) + "\n")


class PairOracle:
    """Answers of a pair query, path by path backwards (copies rename, anything else that
    writes v or w is UNDEF, so is the entry; an edge of a branch on the same two registers, in
    either order, answers when it implies or excludes the query)."""

    def __init__(self, fn):
        self.fn = fn
        self.blocks = fn.block_map()
        self.preds = {b.label: [] for b in fn.blocks}
        for a, b in fn.edges():
            self.preds[b].append(a)

    def branch(self, label, k, v, rel, w):
        self.rel, self.out = rel, set()
        self.walk(label, k, v, w, frozenset())
        return self.out

    def edge(self, m, n, v, w):
        term = self.blocks[m].instrs[-1]
        if not isinstance(term, CondBr) or term.if_true == term.if_false or len(self.blocks[m].instrs) < 2:
            return None
        cmp = self.blocks[m].instrs[-2]
        if not isinstance(cmp, Cmp) or cmp.dest != term.cond.name or not isinstance(cmp.a, Reg) \
                or not isinstance(cmp.b, Reg) or cmp.a == cmp.b or cmp.dest in (cmp.a.name, cmp.b.name):
            return None
        rel = cmp.rel if n == term.if_true else NEG[cmp.rel]
        if (cmp.a.name, cmp.b.name) == (v, w):
            return rel
        if (cmp.a.name, cmp.b.name) == (w, v):
            return SWAP[rel]
        return None

    def walk(self, label, k, v, w, seen):
        block = self.blocks[label]
        for idx in range(k - 1, -1, -1):
            ins = block.instrs[idx]
            hit = {v, w} & set(ins.defs())
            if not hit:
                continue
            if not isinstance(ins, Mov) or not isinstance(ins.src, Reg):
                return self.out.add("UNDEF")
            if hit == {v}:
                v = ins.src.name
            else:
                w = ins.src.name
            if v == w:
                return self.out.add(implied("eq", self.rel) or "UNDEF")
        if (label, v, w) in seen:
            return None
        seen = seen | {(label, v, w)}
        if label == self.fn.blocks[0].label:
            self.out.add("UNDEF")
        for m in self.preds[label]:
            asserted = self.edge(m, label, v, w)
            if asserted is not None and implied(asserted, self.rel):
                self.out.add(implied(asserted, self.rel))
                continue
            self.walk(m, len(self.blocks[m].instrs) - 1, v, w, seen)


def pair_branches(fn):
    for b in fn.blocks:
        term = b.instrs[-1]
        if isinstance(term, CondBr) and len(b.instrs) > 1:
            cmp = b.instrs[-2]
            if isinstance(cmp, Cmp) and cmp.dest == term.cond.name and isinstance(cmp.a, Reg) \
                    and isinstance(cmp.b, Reg) and cmp.a != cmp.b and cmp.dest not in (cmp.a.name, cmp.b.name):
                yield b.label, len(b.instrs) - 1, cmp.a.name, cmp.rel, cmp.b.name


def answers(module, engine="clingo"):
    rows = module_rows(module, "p.pir", relations=["correlation", "correlation_edge"], engine=engine)
    out = {}
    for f, i, a in rows["correlation"]:
        out.setdefault(i, set()).add(a)
    return out, rows


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.slow
def test_answers_equal_the_pair_oracle(seed):
    module = random_pair_module(random.Random(seed))
    got, _ = answers(module)
    fn = module.function_map()["main"]
    oracle = PairOracle(fn)
    for label, k, v, rel, w in pair_branches(fn):
        assert got.get(f"{label}#{k}", set()) == oracle.branch(label, k, v, rel, w), (seed, label)


def test_the_oracle_decides_pair_branches():
    decided = 0
    for seed in range(40):
        fn = random_pair_module(random.Random(seed)).function_map()["main"]
        oracle = PairOracle(fn)
        decided += sum(bool(oracle.branch(*b) & {"TRUE", "FALSE"}) for b in pair_branches(fn))
    assert decided >= 15


@pytest.mark.parametrize("seed", range(40, 60))
def test_cbe_on_random_pair_modules_keeps_the_behaviour(seed):
    module = random_pair_module(random.Random(seed))
    new = optimize(module, ["cbe"], "p.pir").module
    cases = [((x, y), ()) for x in (-1, 0, 2) for y in (-1, 0, 2)]
    check = compare_modules(module, new, cases, fuel=5_000)
    assert check.verdict != "different", check.first_difference


# gcc torture compare-3 / compare-1 (as imported, one test each): (x == y) && (x != y), and
# (x < y) && (x != y)
COMPARE = """
func main(x, y) {
entry:
    t = cmp.REL1 x, y
    cbr t, second, out
second:
    u = cmp.REL2 y, x
    cbr u, bad, out
bad:
    ret 1
out:
    ret 0
}
"""


@pytest.mark.parametrize("rel1, rel2, answer", [("eq", "ne", "FALSE"), ("lt", "ne", "TRUE"),
                                                ("lt", "gt", "TRUE"), ("ltu", "lt", None)])
@pytest.mark.slow
def test_a_test_on_the_same_two_registers_decides_the_second(rel1, rel2, answer):
    module = parse_module(COMPARE.replace("REL1", rel1).replace("REL2", rel2))
    got, _ = answers(module)
    assert got["second#1"] == ({answer} if answer else {"UNDEF"})
    new = optimize(module, ["cbe"], "p.pir").module
    cases = [((x, y), ()) for x in (-1, 0, 2) for y in (-1, 0, 2)]
    assert compare_modules(module, new, cases).verdict == "identical"
    before = sum(conditional_branches(module, run_module(module, args=a)) for a, _ in cases)
    after = sum(conditional_branches(new, run_module(new, args=a)) for a, _ in cases)
    taken = sum(run_module(module, args=a).block_profile.get(("main", "second"), 0) for a, _ in cases)
    assert after == (before - taken if answer else before)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree(engine):
    for seed in range(8):
        module = random_pair_module(random.Random(seed))
        _, base = answers(module, "clingo")
        _, other = answers(module, engine)
        for rel in base:
            assert sorted(base[rel]) == sorted(other[rel]), (seed, rel)
