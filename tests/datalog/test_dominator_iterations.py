"""When lib/dominator_tree.dl runs a second iteration: only if some retreating edge p -> n has not
even n's iteration-1 idom dominating p in iteration 1's tree (an escape from n alone is not
enough: the reverse CFGs of structured CFGs escape, and their second iteration changed nothing,
issue #32 item 4). The iterations counted on two small CFGs, both escaping, and the idoms checked
against networkx on every engine."""
from __future__ import annotations

import pytest

from facts_gen.extract import empty_facts, extract_module
from pylogic.analysis import catalog
from pylogic.engines import run_program
from pylogic.ir.model import Module
from pylogic.ir.synthetic import function_from_cfg
from tests.datalog.cfg_oracle import cfg_oracle
from tests.support import ENGINES

PROGRAM = """
#include "{dominance}"
.decl iteration(f: Function, k: number)
.output iteration
iteration(f, k) :- _dt_iter(f, "cfg", k).
.decl escape(f: Function)
.output escape
escape(f) :- _dt_escape(f, "cfg").
"""

# (successors, the iterations expected). Both have the retreating edge c -> b (resp. p -> n)
# whose target does not dominate its source in iteration 1's tree.
CASES = {
    # b and c both entered from a: c -> b escapes b, but idom1(b) = a dominates c
    "two_entry": ({"a": ["b", "c"], "b": ["c"], "c": ["b"]}, [1]),
    # the loop n <-> p entered at p from a too: idom1(n) = x does not dominate p, and n's idom
    # is a, not x (iteration 2 changed it, so iteration 3 runs)
    "changed": ({"a": ["x", "p"], "x": ["n"], "n": ["p"], "p": ["n"]}, [1, 2, 3]),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_second_iteration_only_when_an_idom_can_change(tmp_path, engine, case):
    succs, iterations = CASES[case]
    labels = list(succs)
    program = tmp_path / "iterations.dl"
    program.write_text(PROGRAM.format(dominance=catalog.datalog_dir() / "dominance.dl"))
    facts = empty_facts()
    extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)), "it.pir", facts)
    rows = run_program(program, None, engine=engine, facts=facts)
    assert sorted(k for _, k in rows["iteration"]) == iterations
    assert rows["escape"] == [("it.pir::@f",)]
    edges = [(a, b) for a in labels for b in succs[a]]
    exits = [b for b in labels if not succs[b]]
    idom = {(f, d, n) for f, d, n in run_program(
        catalog.datalog_dir() / "dominance.dl", None, engine=engine, facts=facts)["idom"]}
    assert {r[1:] for r in idom} == cfg_oracle(labels, edges, exits)["idom"]
