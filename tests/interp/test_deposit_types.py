"""Predicate defines against IR.md's deposit-type table, transcribed independently here (the
interpreter itself derives its code from pylogic.ir.deposit_types.deposit)."""
import itertools

import pytest

from conftest import main_body, run_pir

# IR.md "Predicate defines": new value for (g, C, old) in the order
# (0,0,0) (0,0,1) (0,1,0) (0,1,1) (1,0,0) (1,0,1) (1,1,0) (1,1,1).
EXPECTED = {
    "ut":    (0, 0, 0, 0, 0, 0, 1, 1),   # g ∧ C
    "uf":    (0, 0, 0, 0, 1, 1, 0, 0),   # g ∧ ¬C
    "ot":    (0, 1, 0, 1, 0, 1, 1, 1),   # old ∨ (g ∧ C)
    "of":    (0, 1, 0, 1, 1, 1, 0, 1),   # old ∨ (g ∧ ¬C)
    "at":    (0, 1, 0, 1, 0, 0, 0, 1),   # old ∧ ¬(g ∧ ¬C)
    "af":    (0, 1, 0, 1, 0, 1, 0, 0),   # old ∧ ¬(g ∧ C)
    "ct":    (0, 1, 0, 1, 0, 0, 1, 1),   # g ? C : old
    "cf":    (0, 1, 0, 1, 1, 1, 0, 0),   # g ? ¬C : old
    "disjt": (0, 1, 1, 1, 1, 1, 1, 1),   # old ∨ g ∨ C
    "disjf": (1, 1, 0, 1, 1, 1, 1, 1),   # old ∨ g ∨ ¬C
    "conjt": (0, 0, 0, 0, 0, 0, 0, 1),   # old ∧ g ∧ C
    "conjf": (0, 0, 0, 0, 0, 1, 0, 0),   # old ∧ g ∧ ¬C
}
CASES = list(itertools.product((0, 1), repeat=3))  # (g, c, old)
UNICODE = {"disjt": "∨t", "disjf": "∨f", "conjt": "∧t", "conjf": "∧f"}


def expected(dtype, g, c, old):
    return EXPECTED[dtype][g * 4 + c * 2 + old]


def define_case(dtype, g, c, old, guard="g", dest="d"):
    """Set `dest` to old and `g` to the guard value, run the define, print `dest`."""
    return (f"    {dest}:ut = pcmp.eq {old}, 1\n"
            f"    g:ut = pcmp.eq {g}, 1\n"
            f"    cv = mov {c}\n"
            f"    ({guard}) {dest}:{dtype} = pcmp.eq cv, 1\n"
            f"    print {dest}\n")


@pytest.mark.parametrize("dtype", sorted(EXPECTED))
def test_every_deposit_type_all_eight_cases(dtype):
    for g, c, old in CASES:
        res = run_pir(main_body(define_case(dtype, g, c, old) + "    ret 0"))
        assert res.error is None
        assert res.prints == [expected(dtype, g, c, old)], (dtype, g, c, old)
        # a predicate define is never nullified: its guard is an input
        assert res.counts["nullified"] == 0


@pytest.mark.parametrize("dtype", sorted(EXPECTED))
@pytest.mark.parametrize("guard_form", ["unguarded", "p0", "true"])
def test_always_true_guard_forms_match_g1(dtype, guard_form):
    for c, old in itertools.product((0, 1), repeat=2):
        body = f"    d:ut = pcmp.eq {old}, 1\n    cv = mov {c}\n"
        prefix = "" if guard_form == "unguarded" else f"({guard_form}) "
        body += f"    {prefix}d:{dtype} = pcmp.eq cv, 1\n    print d\n    ret 0"
        assert run_pir(main_body(body)).prints == [expected(dtype, 1, c, old)]


@pytest.mark.parametrize("dtype", sorted(UNICODE))
def test_unicode_aliases(dtype):
    for g, c, old in CASES:
        src = main_body(define_case(UNICODE[dtype], g, c, old) + "    ret 0")
        assert run_pir(src).prints == [expected(dtype, g, c, old)]


def test_nonzero_register_values_count_as_true():
    # guard 7 and old 5 are "true"; the deposit result is still 0/1
    src = main_body("    g = mov 7\n    d = mov 5\n    (g) d:ot = pcmp.eq 0, 1\n"
                    "    print d\n    (g) e:ut = pcmp.eq 0, 0\n    print e\n    ret 0")
    assert run_pir(src).prints == [1, 1]


@pytest.mark.slow
def test_two_destinations_all_type_pairs_one_module():
    """Both destinations see the same g and C and their own old (IR.md)."""
    lines, want = [], []
    for t1, t2 in itertools.product(sorted(EXPECTED), repeat=2):
        for g, c, o1, o2 in itertools.product((0, 1), repeat=4):
            lines += [f"    d1:ut = pcmp.eq {o1}, 1", f"    d2:ut = pcmp.eq {o2}, 1",
                      f"    g:ut = pcmp.eq {g}, 1", f"    (g) d1:{t1}, d2:{t2} = pcmp.lt 0, {c}",
                      "    print d1", "    print d2"]
            want += [expected(t1, g, c, o1), expected(t2, g, c, o2)]
    res = run_pir(main_body("\n".join(lines) + "\n    ret 0"))
    assert res.error is None
    assert res.prints == want


def test_define_reading_its_own_destination_uses_value_before():
    # C is computed from d before d is written
    src = main_body("    d = mov 1\n    d:uf, e:ut = pcmp.eq d, 1\n    print d\n    print e\n"
                    "    ret 0")
    assert run_pir(src).prints == [0, 1]


def test_writes_to_p0_and_true_are_discarded():
    src = main_body(
        "    p0:ut = pcmp.eq 0, 1\n    true:uf, d:ut = pcmp.eq 0, 0\n"
        "    (p0) print 5\n    (true) print 6\n    print p0\n    print true\n    print d\n"
        "    x = add p0, true\n    print x\n    ret 0")
    res = run_pir(src)
    assert res.prints == [5, 6, 1, 1, 1, 2]
    assert res.counts["nullified"] == 0


# IR.md: IA-64 spellings -> (type of P1, type of P2)
IA64 = {"unc": ("ut", "uf"), "": ("ct", "cf"), "or": ("ot", "ot"), "orcm": ("of", "of"),
        "and": ("at", "at"), "andcm": ("af", "af"), "or.andcm": ("ot", "af"),
        "and.orcm": ("at", "of")}


@pytest.mark.parametrize("completer", sorted(IA64))
def test_ia64_spellings(completer):
    t1, t2 = IA64[completer]
    op = "pcmp.eq" + (f".{completer}" if completer else "")
    lines, want = [], []
    for g, c, o1, o2 in itertools.product((0, 1), repeat=4):
        lines += [f"    d1:ut = pcmp.eq {o1}, 1", f"    d2:ut = pcmp.eq {o2}, 1",
                  f"    g:ut = pcmp.eq {g}, 1", f"    cv = mov {c}",
                  f"    (g) {op} d1, d2 = cv, 1", "    print d1", "    print d2"]
        want += [expected(t1, g, c, o1), expected(t2, g, c, o2)]
    assert run_pir(main_body("\n".join(lines) + "\n    ret 0")).prints == want


def test_guarded_ordinary_instruction_is_nullified_and_counted():
    src = main_body("    p:ut = pcmp.eq 1, 0\n    x = mov 3\n    (p) x = mov 4\n"
                    "    (p) print 99\n    print x\n    ret 0")
    res = run_pir(src)
    assert res.prints == [3]
    assert res.counts == {**res.counts, "instructions": 6, "nullified": 2, "executed": 4}
