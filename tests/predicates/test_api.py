"""Query interface details: references, errors, cross-check failures, statistics."""
import pytest
from analysed import RELPATH, pas_of, rows_of, rows_of_module

from pylogic.engines.rows import Rows
from pylogic.errors import PathlogicError
from pylogic.ir.parser import parse_module
from pylogic.predicates import pas as pas_mod
from pylogic.predicates.network import PredicateError
from pylogic.predicates.pas import PAS_RELATIONS, CrossCheckError, PredicateAnalysis

SRC = """
func f(r1, r2) {
entry:
    p1:ut, p2:uf = pcmp.lt r1, 4
    (p1) p3:ct = pcmp.gt r2, 0
    cbr r2, A, B
A:
    p1:uf = pcmp.eq 0, 0
    br B
B:
    (p3) print 1
    ret
}
"""


def analysis(**kw):
    return pas_of(parse_module(SRC, "t.pir").functions[0], **kw)


def test_references():
    pa = analysis()
    assert pa.predicates == ["p1", "p2", "p3"]
    assert pa.value("p1") == pa.value("p1", at="A")            # last defining block is A
    assert pa.always_false(("p1", "A"))
    assert pa.value("p1.0") == pa.value("p1", at=("entry", 1))
    assert pa.ssa_names("p1") == ["p1.0", "p1.1", "p1.2"]      # def, def in A, γ at B
    assert pa.net.ssa["p1"][2].kind == "gamma"
    assert pa.implies(("p1", "B"), ("p1", ("entry", 1)))
    assert pa.always_false(("p1", ("entry", 0)))               # never written: reads 0
    assert pa.always_true("p0") and pa.always_true("true")


def test_livein_free():
    pa = analysis(livein="free")
    assert not pa.always_false(("p1", ("entry", 0)))


@pytest.mark.parametrize("ref", ["nope", "p1.9", ("p1", "Z"), ("p1", ("entry", 99))])
def test_bad_references_are_user_errors(ref):
    with pytest.raises(PathlogicError):
        analysis().value(ref)


def test_bad_options():
    for kw in ({"mode": "x"}, {"check": "x"}, {"lookback": -1}, {"livein": "x"},
               {"merges": "x"}):
        with pytest.raises(PathlogicError):
            analysis(**kw)


def test_crosscheck_detects_wrong_bdd(monkeypatch):
    # inject the misprinted Table 2 ct into the BDD layer: SAT (built from Table 1) must object
    monkeypatch.setitem(pas_mod.DEPOSIT_ITE, "ct", pas_mod.TABLE2_AS_PRINTED["ct"])
    src = SRC.replace("    (p1) p3:ct", "    p3:ut = pcmp.gt r1, 9\n    (p2) p5:ut = pcmp.gt r2, 0"
                      "\n    (p2) p3:ct")
    # correct semantics: p3 == p2 ∧ (r2 > 0) == p5, because old = (r1 > 9) is off when ¬p2
    for oracle in ("sat", "brute"):
        pa = pas_of(parse_module(src, "t.pir").functions[0], check=oracle)
        try:
            pa.equivalent("p3", "p5")
        except CrossCheckError as e:   # plain except: no traceback kept alive past the BDD
            got = (e.bdd_answer, e.other_answer, e.oracle, e.reproducer)
        else:
            pytest.fail("disagreement not detected")
        assert got[:3] == (False, True, oracle)
        assert "(p2) p3:ct = pcmp.gt r2, 0" in got[3]
        assert "p3:ut = pcmp.gt r1, 9" in got[3] and "print" not in got[3]
    monkeypatch.undo()
    assert pas_of(parse_module(src, "t.pir").functions[0], check="sat").equivalent("p3", "p5")


def test_stats_and_query_count():
    pa = analysis()
    pa.disjoint("p1", "p2")
    pa.covers(["p1", "p2"])
    s = pa.stats()
    assert s["defines"] == 3 and s["queries"] == 2
    assert s["manager_nodes"] >= s["predicate_nodes"] > 0
    assert s["families"] == 2


def test_sat_witness_replays():
    from pylogic.predicates.brute_force import BruteForce
    from pylogic.predicates.sat_check import SatChecker
    pa = analysis()
    sat = SatChecker(pa.engine.nets, "family")
    a, _ = pa._node_id("p3")
    assert sat.satisfiable([sat.lit(0, a)])
    w = sat.last_witness
    # replay: the witness's r2 segment value makes r2 > 0 true
    assert w[("family", ("param", "r2"))] > 0
    assert not BruteForce(pa.engine.nets, "family").ask("always_false", [(0, a)])


def test_rows_are_required_and_checked():
    """The CFG structure comes from Datalog rows (PAS_RELATIONS): a relation that was not computed
    is a PredicateError naming it, and rows of another CFG are refused (stale rows)."""
    f = parse_module(SRC, "t.pir").functions[0]
    partial = rows_of_module(parse_module(SRC, RELPATH), relations=PAS_RELATIONS[:-1])
    with pytest.raises(PredicateError, match="live_in"):
        PredicateAnalysis(f, partial.of(f"{RELPATH}::f"))
    full = rows_of_module(parse_module(SRC, RELPATH))
    no_idom = Rows({k: v for k, v in full.items() if k != "idom"}, [f"{RELPATH}::f"])
    with pytest.raises(PredicateError, match="idom"):
        PredicateAnalysis(f, no_idom.of(f"{RELPATH}::f"))
    other = parse_module(SRC.replace("entry:", "start:").replace("cbr r2, A, B", "cbr r2, B, A"),
                         "t.pir").functions[0]
    with pytest.raises(PredicateError, match="stale"):
        PredicateAnalysis(f, rows_of(other))
    with pytest.raises(PredicateError, match="row sets"):
        PredicateAnalysis.group([f, f], [rows_of(f)])
