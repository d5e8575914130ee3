"""Store-to-load forwarding of call results (issue #14 part D, gcc torture pr45070 and
20170401-1: a struct returned in a register is stored to an alloca and its 2-byte field loaded
back). ``store.N A, v`` generates ``load.N(A)`` only when ``v`` fits N bytes so extended; for a
call's result that holds when every ``ret`` of the callee does (``ReturnFits``). Checked against
the interpreter on every input of a small sweep, and by the loads evaluated."""
from __future__ import annotations

import pytest

from facts_gen.extract import extract_module
from pylogic.flow.fits_extension import ReturnFits
from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module

CALLEES = """func @narrow(p) {
e:
    c = cmp.gt p, 3
    cbr c, big, small
big:
    x = load.2u @g
    ret x
small:
    ret 65535
}
func @wide(p) {
e:
    ret p
}
func @loop(p) {
e:
    c = cmp.gt p, 0
    cbr c, again, stop
again:
    q = sub p, 1
    r = call @loop(q)
    ret r
stop:
    ret 7
}
"""


def program(callee: str) -> str:
    return ("global @g[8] = {1, 128}\n" + CALLEES +
            "func main(a, n) {\ne:\n rv = alloca 2\n i = mov 0\n br head\nhead:\n"
            " c = cmp.lt i, n\n cbr c, body, done\nbody:\n"
            f" r = call {callee}(a)\n store.2 rv, r\n x = load.2u rv\n print x\n"
            " y = load.2u rv\n z = cmp.eq y, 65535\n print z\n i = add i, 1\n br head\n"
            "done:\n ret 0\n}\n")


def test_return_fits_follows_every_ret():
    fits = ReturnFits(parse_module(program("@narrow")))
    assert fits("@narrow", 2, False) and not fits("@narrow", 2, True)   # 65535: unsigned only
    assert fits("@narrow", 4, True) and fits("@narrow", 8, True)
    assert not fits("@wide", 2, False) and not fits("@undefined", 2, False)
    assert not fits("@loop", 2, False)            # recursive: not proved (conservative)


@pytest.mark.parametrize("callee,forwarded", [("@narrow", True), ("@wide", False),
                                              ("@loop", False)])
def test_call_results_are_forwarded_only_when_they_fit(callee, forwarded):
    m = parse_module(program(callee))
    facts = extract_module(m, "t.pir")
    stores = {r[1] for r in facts["instr"] if r[4] == "store"}
    gens = [r for r in facts["vf_store_gen"] if r[0].endswith("main") and r[1] in stores]
    assert bool(gens) == forwarded           # (the alloca generates its zeros: KnownBytes)
    new = optimize(m, ["pre-mr"], "t.pir", engine="clingo").module
    for a in (0, 5, -3, 40):
        assert compare_modules(m, new, [((a, 4), ())]).verdict == "identical", a
    count = lambda mod: expression_evaluations(mod, run_module(mod, "main", args=[5, 4]))
    before, after = count(m)["loads"], count(new)["loads"]
    # per round: the two loads of rv (and @narrow's load of @g); forwarded: none of rv's
    assert after == (before - 8 if forwarded else before - 4)
