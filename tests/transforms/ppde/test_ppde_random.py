"""T26 (predicated_pde.md §9, Definition 1): PPDE on 320 generated hyperblock regions (chains of
predicated blocks with nested complementary defines, guarded arithmetic, prints, side exits).
Properties: semantics preserved (interpreter, 27 inputs covering every valuation of the three
conditions); no run executes more instructions; no compare or predicate added; each original's
copies have mutually disjoint existing predicates within the original's (PAS BDD); a second
application changes nothing."""
from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, product

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr, print_module
from pylogic.predicates.network import PAS_RELATIONS
from pylogic.predicates.pas import PredicateAnalysis
from pylogic.transforms.ppde import ppde as ppde_pass

REGS = ("r0", "r1", "r2", "r3")
CASES = [((a, g, h), ()) for a, g, h in product((-1, 0, 1), repeat=3)]
FUNCTIONS, BLOCKS = 8, 10          # per module; 4 modules = 320 regions


def region(rng: random.Random, b: int, last: bool) -> list[str]:
    """One hyperblock: p1|p2 = cond, p3|p4 under p1, p5|p6 under p2, p7|p8 under p3."""
    n = lambda k: f"b{b}p{k}"                                       # noqa: E731
    out = [f"B{b}: !hyperblock",
           f"    {n(1)}:ut, {n(2)}:uf = pcmp.gt a, {rng.randint(-1, 1)}",
           f"    ({n(1)}) {n(3)}:ut, {n(4)}:uf = pcmp.gt g, {rng.randint(-1, 1)}",
           f"    ({n(2)}) {n(5)}:ut, {n(6)}:uf = pcmp.gt h, {rng.randint(-1, 1)}",
           f"    ({n(3)}) {n(7)}:ut, {n(8)}:uf = pcmp.eq h, {rng.randint(-1, 1)}"]
    guards = ["p0"] + [n(k) for k in range(1, 9)]
    for _ in range(rng.randint(4, 10)):
        g = rng.choice(guards)
        prefix = "" if g == "p0" else f"({g}) "
        roll = rng.random()
        if roll < 0.7:
            dest = rng.choice(REGS)
            ops = [rng.choice(REGS + ("a", "g", "h", "1", "2"))for _ in range(2)]
            out.append(f"    {prefix}{dest} = {rng.choice(('add', 'sub', 'xor', 'mul'))} "
                       f"{ops[0]}, {ops[1]}")
        elif roll < 0.92:
            out.append(f"    {prefix}print {rng.choice(REGS)}")
        elif not last:
            out.append(f"    ({rng.choice(guards[1:])}) br B{b + 1}")
    out.append(f"    ret {rng.choice(REGS)}" if last else f"    br B{b + 1}")
    return out


def module_text(seed: int) -> str:
    rng = random.Random(seed)
    funcs = []
    for f in range(FUNCTIONS):
        body = [f"func f{f}(a, g, h) {{", "E:"] + [f"    {r} = add a, {j}" for j, r in
                                                   enumerate(REGS)] + ["    br B0"]
        for b in range(BLOCKS):
            body += region(rng, b, b == BLOCKS - 1)
        funcs.append("\n".join(body) + "\n}\n")
    main = ["func main(a, g, h) {", "entry:"]
    for f in range(FUNCTIONS):
        main += [f"    v{f} = call f{f}(a, g, h)", f"    print v{f}"]
    main.append("    ret 0\n}\n")
    return "".join(funcs) + "\n".join(main)


def pcmps(module) -> Counter:
    return Counter(print_instr(i).strip() for f in module.defined_functions()
                   for b in f.blocks for i in b.instrs if i.opcode == "pcmp")


def guards(module) -> set:
    return {i.guard for f in module.defined_functions() for b in f.blocks for i in b.instrs}


def assert_copies_within_original(module, rows, record) -> int:
    """Definition 1 on one round's ``record.copies_of``: each copy's guard implies its
    original's and the copies' guards are pairwise disjoint (PAS BDDs at the block); the number
    of originals checked."""
    fns = {fn.name: fn for fn in module.defined_functions()}
    checked = 0
    for (fname, label, _, original), copies in record.copies_of.items():
        pas = PredicateAnalysis(fns[fname], rows.function(fname))
        value = lambda p: pas.bdd.true if p == "p0" else pas.value((p, label))   # noqa: E731
        for c in copies:
            assert value(c) & ~value(original) == pas.bdd.false, (fname, label, c, original)
        for c, d in combinations(copies, 2):
            assert value(c) & value(d) == pas.bdd.false, (fname, label, c, d)
        checked += 1
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_t26_definition_1_properties(seed):
    module = parse_module(module_text(seed))
    # one round, to see each original's copies (the record of that round)
    rows = module_rows(module, "t.pir", relations=ppde_pass.NEEDS + PAS_RELATIONS,
                       engine="clingo")
    _, record = ppde_pass.ppde(module, rows)
    assert assert_copies_within_original(module, rows, record) >= 5
    # the pass to its fixpoint
    result = optimize(module, ["ppde"], "t.pir", engine="clingo")
    new = result.module
    check = compare_modules(module, new, CASES)
    assert check.verdict == "identical", [c.detail for c in check.comparisons if c.detail]
    for c in check.comparisons:
        assert c.after.counts["instructions"] <= c.before.counts["instructions"]
    assert pcmps(new) == pcmps(module) and guards(new) <= guards(module)
    again = optimize(new, ["ppde"], "t.pir", engine="clingo").module
    assert print_module(again) == print_module(new)
    totals = result.passes[0].record.totals()
    assert totals["deleted"] + totals["split"] > 0


def test_t26_sample_size():
    regions = sum(1 for seed in range(4) for f in parse_module(module_text(seed)).functions
                  for b in f.blocks if b.hyperblock)
    assert regions >= 300
