"""T2 (predicated_pde.md §2.2, §9): the control predicates of the running example's region R2
(blocks 1, HB, 6) and the executing predicates of a=c+e and y=c+d (p3), as PAS BDDs
(``predicates.control_predicates``), checked against the paper's values and against the
interpreter: a block runs on an input exactly when its C-PRED holds there."""
from __future__ import annotations

import itertools
import pathlib

from pylogic.analysis.run import module_rows
from pylogic.interp import run_module
from pylogic.ir.load import load_module
from pylogic.ir.model import Br
from pylogic.predicates.control_predicates import control_predicates, executing_predicate
from pylogic.predicates.pas import PAS_RELATIONS, PredicateAnalysis

EXAMPLE = pathlib.Path(__file__).with_name("running_example.pir")
REGION = ["B1", "HB", "B6"]            # R2 of §4.3 (block 7 is the loop region R3)


def _analysis():
    module = load_module(str(EXAMPLE))
    rows = module_rows(module, "r.pir", relations=PAS_RELATIONS, engine="clingo")
    fn = module.function_map()["main"]
    return module, fn, PredicateAnalysis(fn, rows.of("r.pir::main"))


def test_t2_control_and_executing_predicates_of_the_running_example():
    module, fn, pa = _analysis()
    hb = fn.block_map()["HB"]
    c = control_predicates(pa, fn, REGION)
    bdd = pa.engine.bdd
    p1 = pa.condition("c1", "ne", 0, at=("B1", 2))           # the paper's p1: block 1's branch
    side_exit = next(k for k, ins in enumerate(hb.instrs) if isinstance(ins, Br) and ins.guard == "p6")
    p5 = pa.value("p5", at=("HB", side_exit))
    assert c["B1"] == bdd.true                                # C-PRED(1) = p0
    assert c["HB"] == p1                                      # C-PRED(HB) = p1
    assert c["B6"] == p1 & p5                                 # C-PRED(6) = p5 (p5 within p1)
    a_def = next(k for k, ins in enumerate(hb.instrs) if ins.defs() == ("a",))
    y_def = next(k for k, ins in enumerate(hb.instrs) if ins.defs() == ("y",) and ins.guard == "p3")
    assert executing_predicate(pa, c, "HB", a_def) == p1      # M-PRED p0: E-PRED = C-PRED(HB)
    p3 = pa.value("p3", at=("HB", y_def))
    assert pa.guard("HB", a_def) == bdd.true                  # M-PRED(a=c+e) = p0
    assert pa.guard("HB", y_def) == p3                        # M-PRED(y=c+d (p3)) = p3
    assert executing_predicate(pa, c, "HB", y_def) == p1 & p3  # = p3 inside HB (Eq. 1)
    assert c["B6"] != c["HB"] and (c["B6"] & ~c["HB"]) == bdd.false


def test_t2_control_predicates_agree_with_the_interpreter():
    """On every input of {-1, 0, 1} for k, g, h (the conditions of the region), block B runs
    exactly when C-PRED(B), evaluated on that input's conditions, holds."""
    module, fn, pa = _analysis()
    c = control_predicates(pa, fn, REGION)
    bdd = pa.engine.bdd
    k_pos = pa.condition("k", "gt", 0, at=("B1", 1))
    h_pos = pa.condition("h", "gt", 0, at=("HB", 6))
    for k, g, h in itertools.product((-1, 0, 1), repeat=3):
        run = run_module(module, args=(1, 2, 3, 4, 5, g, h, k))
        ran = {label for (f, label), n in run.block_profile.items() if n and f == "main"}
        # the BDD restricted to this input's conditions: k > 0 and h > 0 decide R2's paths
        env = (k_pos if k > 0 else ~k_pos) & (h_pos if h > 0 else ~h_pos)
        for label in REGION:
            holds = (c[label] & env) != bdd.false
            assert holds == (label in ran), (label, k, g, h)
