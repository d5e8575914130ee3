"""simplify on functions it already simplified (issue #28 item 1): a function a round left
unchanged is remembered with everything simplify read for it (``simplify._SIMPLIFIED``), so
simplifying it again with the same reads is one round that changes nothing. Checked against
simplify with nothing remembered, also when what a callee returns changed in between."""
from __future__ import annotations

import dataclasses

from pylogic.analysis.optimize import optimize
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.transforms.simplify import simplify as simplify_module

PROGRAM = """
func byte(k) {
entry:
    c = cmp.gt k, 5
    cbr c, far, near
far:
    ret RESULT
near:
    v = and k, 3
    ret v
}
func other(n) {
entry:
    a = add n, 0
    ret a
}
func main(k) {
entry:
    b = call byte(k)
    r = cmp.gt b, 200         ; constant 0 when byte returns 100
    print r
    o = call other(k)
    print o
    ret 0
}
"""


def _simplify(module):
    result = optimize(module, ["simplify"], "t.pir", engine="clingo")
    return result.module, result.passes[0].record.applied


def _fresh(module):
    """simplify with nothing remembered (the oracle)."""
    simplify_module._SIMPLIFIED.clear()
    return _simplify(module)


def test_simplifying_again_is_one_round_that_changes_nothing():
    once, _ = _fresh(parse_module(PROGRAM.replace("RESULT", "100"), "t.pir"))
    again, applied = _simplify(once)
    assert all(a.rounds == 1 and not a.rewritten and not a.removed for a in applied)
    assert all(again.function_map()[f.name] is f for f in once.defined_functions())
    fresh, fresh_applied = _fresh(once)
    assert print_module(again) == print_module(fresh) and applied == fresh_applied


def test_a_callee_returning_other_values_is_simplified_afresh():
    once, _ = _fresh(parse_module(PROGRAM.replace("RESULT", "300"), "t.pir"))
    assert "cmp.gt b, 200" in print_module(once)        # 300 > 200 may hold: kept
    byte = parse_module(PROGRAM.replace("RESULT", "100"), "t.pir").function_map()["byte"]
    changed = dataclasses.replace(once, functions=tuple(
        byte if f.name == "byte" else f for f in once.functions))
    again, applied = _simplify(changed)
    fresh, fresh_applied = _fresh(changed)
    assert print_module(again) == print_module(fresh) and applied == fresh_applied
    assert "cmp.gt b, 200" not in print_module(again)      # byte returns at most 100 now


def test_rows_are_asked_only_for_the_functions_not_settled():
    """``rows_for``: the dominators of a settled function are not computed (its entry decides);
    a function whose callee changed is asked, as is the changed callee; the result equals
    simplify with nothing remembered and every function's rows."""
    once, _ = _fresh(parse_module(PROGRAM.replace("RESULT", "300"), "t.pir"))
    assert simplify_module.rows_for(once) == []             # all settled: no rows at all
    again, applied = _simplify(once)
    assert all(a.rounds == 1 and not a.rewritten for a in applied)
    byte = parse_module(PROGRAM.replace("RESULT", "100"), "t.pir").function_map()["byte"]
    changed = dataclasses.replace(once, functions=tuple(
        byte if f.name == "byte" else f for f in once.functions))
    # main calls byte, whose bits may differ now; other is settled and calls nothing
    assert sorted(simplify_module.rows_for(changed)) == ["byte", "main"]
    assert simplify_module.rows_for(changed, functions=["main"]) is None
    again, applied = _simplify(changed)
    fresh, fresh_applied = _fresh(changed)
    assert print_module(again) == print_module(fresh) and applied == fresh_applied
