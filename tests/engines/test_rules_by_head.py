"""pylogic.engines.semantics.rules_by_head: the one map from a relation to the rules whose head
it is (the clingo translation, magic sets, the DuckDB strata and explanations read it)."""
from __future__ import annotations

from pylogic.engines.program import load_program
from pylogic.engines.semantics import rules_by_head

PROGRAM = """
.decl e(x: number, y: number)
.input e
.decl p(x: number, y: number)
.decl q(x: number)
p(x, y) :- e(x, y).
q(x) :- p(x, _).
p(x, z) :- p(x, y), e(y, z).
.output p
.output q
"""


def test_relations_in_first_rule_order_rules_in_program_order(tmp_path):
    checked = load_program(tmp_path / "p.dl", text=PROGRAM)
    got = rules_by_head(checked.rules)
    assert list(got) == ["p", "q"]                  # e has no rules: no key
    assert got["p"] == [r for r in checked.rules if r.head.rel == "p"] and len(got["p"]) == 2
    assert [r.head.rel for r in got["q"]] == ["q"]
    got["p"].clear()                                # new lists each call
    assert len(rules_by_head(checked.rules)["p"]) == 2
