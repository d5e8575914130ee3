"""Store-to-load forwarding of typed parameters (issue #14, gcc torture 931004-1, pr64260):
``store.N A, x`` then ``load.N A`` (sign-extending) or ``load.Nu A`` (zero-extending) reads
``x`` back exactly when every value ``x`` may hold survives the truncation to N bytes and that
extension; a parameter of type ``sK`` / ``uK`` (docs/pir.md "Extensions": a call with an
argument outside the type's range is a run-time error) holds -2^(K-1)..2^(K-1)-1 / 0..2^K-1,
so (N < 8) it fits load.N iff K <= 8N (sK) or K < 8N (uK), and load.Nu iff it is a uK with
K <= 8N; every value fits 8 bytes.
``fits_extension`` is checked against the interpreter on every value of s1..s16 and u1..u16
for every N, and PRE forwards the load exactly in those cases."""
from __future__ import annotations

import pytest

from facts_gen.extract import extract_module
from pylogic.flow.definitions import definitions
from pylogic.flow.fits_extension import fits_extension
from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.model import Reg
from pylogic.ir.parser import parse_module

TYPES = [f"{s}{k}" for s in "su" for k in range(1, 17)]
LOADS = [(n, signed) for n in (1, 2, 4, 8) for signed in (True, False)]


def round_trip(ptype: str, n: int, signed: bool, body: str = "") -> str:
    """``@f(x:ptype, a)`` stores x in N bytes at a and loads it back; main calls it with
    every value of the type's range and prints how many did not come back."""
    k = int(ptype[1:])
    lo, hi = (-(1 << (k - 1)), (1 << (k - 1)) - 1) if ptype[0] == "s" else (0, (1 << k) - 1)
    return f"""func @f(x:{ptype}, a) {{
e:
{body}    store.{n} a, x
    y = load.{n}{'' if signed else 'u'} a
    c = cmp.ne y, x
    ret c
}}
func main() {{
e:
    a = alloca 8
    v = mov {lo}
    bad = mov 0
    br head
head:
    c = cmp.le v, {hi}
    cbr c, body, done
body:
    r = call @f(v, a)
    bad = add bad, r
    v = add v, 1
    br head
done:
    print bad
    ret 0
}}
"""


def fits(module, n: int, signed: bool) -> bool:
    f = module.function_map()["@f"]
    return fits_extension(Reg("x"), n, signed, definitions(f))


@pytest.mark.slow
@pytest.mark.parametrize("ptype", TYPES)
def test_fits_extension_is_exact_for_typed_parameters(ptype):
    """The oracle: the interpreter on every value of the type, through each store.N/load.N(u)."""
    k = int(ptype[1:])
    for n, signed in LOADS:
        m = parse_module(round_trip(ptype, n, signed))
        bad = run_module(m, "main", capture_profile=False, fuel=10 ** 8).prints[0]
        assert fits(m, n, signed) == (bad == 0), (ptype, n, signed, bad)
        # the closed form of the module docstring
        rule = (signed and k <= 8 * n) if ptype[0] == "s" else (k < 8 * n if signed else k <= 8 * n)
        assert rule == (bad == 0) or n == 8, (ptype, n, signed)   # 8 bytes: every value


def test_an_untyped_or_rewritten_parameter_does_not_fit():
    m = parse_module(round_trip("s8", 1, True).replace("x:s8", "x"))
    assert not fits(m, 1, True) and fits(m, 8, True)
    wide = parse_module(round_trip("s8", 1, True, "    x = add x, 1\n"))
    assert not fits(wide, 1, True)            # 127 + 1 no longer fits a signed byte
    masked = parse_module(round_trip("s8", 1, True, "    x = and x, 63\n"))
    assert fits(masked, 1, True)              # every write fits: the entry value and the and


def forwarding(ptype: str, load: str) -> str:
    """A loop re-reading a typed parameter stored in a byte (931004-1's shape)."""
    return f"""func @f(x:{ptype}, n) {{
e:
    a = alloca 1
    store.1 a, x
    i = mov 0
    br head
head:
    c = cmp.lt i, n
    cbr c, body, done
body:
    y = {load} a
    print y
    i = add i, 1
    br head
done:
    ret 0
}}
func main(v, n) {{
e:
    r = call @f(v, n)
    ret r
}}
"""


@pytest.mark.parametrize("ptype,load,forwarded", [
    ("s8", "load.1", True), ("s8", "load.1u", False), ("u8", "load.1u", True),
    ("u8", "load.1", False), ("s7", "load.1u", False), ("u7", "load.1", True),
    ("s9", "load.1", False), ("u1", "load.1", True), ("s1", "load.1", True)])
def test_pre_forwards_the_stored_parameter_only_when_it_fits(ptype, load, forwarded):
    m = parse_module(forwarding(ptype, load))
    facts = extract_module(m, "t.pir")
    stores = {r[1] for r in facts["instr"] if r[4] == "store"}
    loads = "load.1s" if load == "load.1" else "load.1u"
    gens = [r for r in facts["vf_store_gen"]
            if r[0].endswith("@f") and r[1] in stores and r[2].startswith(loads)]
    assert bool(gens) == forwarded
    new = optimize(m, ["pre-mr"], "t.pir", engine="clingo").module
    k = int(ptype[1:])
    lo, hi = (-(1 << (k - 1)), (1 << (k - 1)) - 1) if ptype[0] == "s" else (0, (1 << k) - 1)
    for v in sorted({lo, hi, 0, lo + 1, hi - 1, (lo + hi) // 2}):
        assert compare_modules(m, new, [((v, 3), ())]).verdict == "identical", v
    count = lambda mod: expression_evaluations(mod, run_module(mod, "main", args=[hi, 3]))
    before, after = count(m)["loads"], count(new)["loads"]
    assert before == 3 and (after == 0) == forwarded      # kept: hoisted to one load, or 3
