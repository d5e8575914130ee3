"""PathFinder ch. 7 (spec pathfinder.md §12 items 20-27) on datalog/correlation.dl and the cbe
pass. Programs are PIR models of the thesis' examples; the drawings are lost, so every model is
[Inference] rebuilt from the text, as the spec marks them. Item 20 (a global variable's query
through a callee), item 22's pointer-dereference source and item 26 (Fig. 7.9) are in
``test_pathfinder_memory.py``; items 21/24's removal through return values and item 27 (exit
splitting) are in ``test_pathfinder_exit_splitting.py``."""
from __future__ import annotations

import pytest

from facts_gen.extract import extract_module
from pylogic.analysis import catalog
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.engines import run_checked
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module


def answers(text: str, budget=None) -> dict:
    """``{(function, branch block): answer set}`` of every analyzable branch."""
    module = parse_module(text)
    if budget is None:
        rows = module_rows(module, "m.pir", relations=["correlation"], engine="clingo")["correlation"]
    else:
        facts = extract_module(module, "m.pir")
        facts["correlation_budget"] = [(f, budget) for f, _ in facts["correlation_budget"]]
        rows = run_checked(catalog.get("correlation").program(), None, "clingo", facts,
                           only=["correlation"])["correlation"]
    out: dict = {}
    for f, i, a in rows:
        out.setdefault((f.split("::")[1], i.split("#")[0]), set()).add(a)
    return out


def one_branch(body: str, test: str, params: str = "u, a") -> set:
    """Answers of the branch ``t = TEST; cbr t`` placed after ``body`` in ``main``."""
    text = f"func main({params}) {{\nentry:\n{body}\n    br b\nb:\n    t = {test}\n" \
           "    cbr t, yes, no\nyes:\n    ret 1\nno:\n    ret 0\n}\n"
    return answers(text)[("main", "b")]


# ---- item 22: query resolution
def test_constant_assignment_decides():
    assert one_branch("    v = mov 5", "cmp.eq v, 5") == {"TRUE"}
    assert one_branch("    v = mov 5", "cmp.lt v, 3") == {"FALSE"}


def test_load_is_unknown_and_copies_rewrite_the_query():
    assert one_branch("    v = load a", "cmp.eq v, 0") == {"UNDEF"}
    assert one_branch("    w = mov 7\n    v = mov w", "cmp.gt v, 6") == {"TRUE"}


def test_unsigned_to_signed_conversion_is_non_negative():
    assert one_branch("    v = load.4u a", "cmp.lt v, 0") == {"FALSE"}


def test_true_edge_of_a_branch_decides_and_false_edge_propagates():
    text = """func main(v) {
entry:
    c = cmp.gt v, 10
    cbr c, big, small
big:
    br join
small:
    br join
join:
    t = cmp.eq v, 0
    cbr t, yes, no
yes:
    ret 1
no:
    ret 0
}
"""
    # big: v > 10 decides (v == 0) FALSE; small: v <= 10 does not, and v is a parameter of main
    assert answers(text)[("main", "join")] == {"FALSE", "UNDEF"}


def test_a_branch_correlates_with_itself_around_a_loop():
    text = """func main(v) {
entry:
    br head
head:
    t = cmp.eq v, 3
    cbr t, body, out
body:
    print 1
    br head
out:
    ret 0
}
"""
    # around the loop v is not redefined: the back edge comes from the true edge (TRUE)
    assert answers(text)[("main", "head")] == {"TRUE", "UNDEF"}


# ---- item 23: early termination
CALLERS = """func check(p) {
entry:
    t = cmp.eq p, 0
    cbr t, nil, ok
nil:
    ret 0
ok:
    ret 1
}
func main(a) {
entry:
    x = call check(0)
    y = call check(5)
    ret x
}
"""


def test_budget_turns_the_rest_into_undef_and_never_invents_an_answer():
    full = answers(CALLERS)[("check", "entry")]
    assert full == {"TRUE", "FALSE"}                     # both call sites pass constants
    cut = answers(CALLERS, budget=0)[("check", "entry")]
    assert cut == {"TRUE", "FALSE"}                      # constants at the call site: no crossing
    text = CALLERS.replace("call check(0)", "call check(a)").replace("call check(5)", "call check(a)")
    text = text.replace("entry:\n    x =", "entry:\n    a = mov 0\n    x =")
    assert answers(text)[("check", "entry")] == {"TRUE"}
    assert answers(text, budget=0)[("check", "entry")] == {"UNDEF"}


# ---- item 24: merge sort (Fig. 1.1): the loop's `if compare(...)` and compare's internal `if`
MERGE = """func compare(a, b) {
entry:
    t = cmp.lt a, b
    cbr t, one, zero
one:
    ret 1
zero:
    ret 0
}
func main(n) {
entry:
    i = mov 0
    s = mov 0
    br loop
loop:
    c = call compare(i, 5)
    t = cmp.ne c, 0
    cbr t, take_a, take_b
take_a:
    s = add s, 1
    br next
take_b:
    s = add s, 2
    br next
next:
    i = add i, 1
    d = cmp.lt i, 10
    cbr d, loop, done
done:
    print s
    ret 0
}
"""


def test_merge_sort_compare_is_fully_correlated_through_its_return():
    # return 1 => TRUE, return 0 => FALSE, no UNDEF: full correlation (removal needs exit
    # splitting of compare, icbe)
    assert answers(MERGE)[("main", "loop")] == {"TRUE", "FALSE"}


# ---- item 25: linked-list removal (§7.1.1)
LIST = """func remove(l) {
entry:
    e = cmp.eq l, 0
    cbr e, nil, some
nil:
    ret 0
some:
    n = load l
    store l, 0
    ret l
}
func main(l) {
entry:
    r = call remove(l)
    z = cmp.eq r, 0
    cbr z, empty, got
empty:
    print 0
    ret 0
got:
    print 1
    ret 1
}
"""


def test_list_removal_nil_test_is_fully_correlated():
    # nil path: returns 0 (TRUE); the other returns l on the false edge of l == 0 (FALSE)
    assert answers(LIST)[("main", "entry")] == {"TRUE", "FALSE"}


# ---- item 21: GNU stdio model (Fig. 7.1 / 7.6) [Inference: a small model of libc 1.09]
STDIO = """global buf[16] = {104, 105, 255, 0, 7}
global cnt[8] = {5}
global pos[8]
func fillbuf(fp) {
entry:
    n = load cnt
    e = cmp.le n, 0
    cbr e, eof, refill
eof:
    ret -1
refill:
    p = load pos
    a = add buf, p
    c = load.1u a
    p = add p, 1
    store pos, p
    n = sub n, 1
    store cnt, n
    ret c
}
func fgetc(fp) {
entry:
    bad = cmp.eq fp, 0
    cbr bad, fail, ok
fail:
    ret -1
ok:
    r = call fillbuf(fp)
    ret r
}
func main() {
entry:
    fp = mov buf
    null = cmp.eq fp, 0
    cbr null, out, loop
loop:
    c = call fgetc(fp)
    eofp = cmp.eq c, -1
    cbr eofp, out, body
body:
    print c
    br loop
out:
    ret 0
}
"""


def test_stdio_eof_test_is_fully_correlated_through_fgetc_and_fillbuf():
    got = answers(STDIO)
    # P0 (c == EOF): EOF returns (TRUE), the unsigned char from the buffer (FALSE), through
    # fgetc's call of fillbuf: full correlation
    assert got[("main", "loop")] == {"TRUE", "FALSE"}
    # P1, fgetc's fp == NULL test: fp is main's, tested non-null before the loop and not
    # redefined around it: fully redundant (FALSE on every path)
    assert got[("fgetc", "entry")] == {"FALSE"}


def test_stdio_with_fillbuf_unknown_leaves_p0_undef_on_that_path():
    text = STDIO.replace("r = call fillbuf(fp)", "r = call ext(fp)") + "extern func ext(fp)\n"
    assert answers(text)[("main", "loop")] == {"TRUE", "UNDEF"}


def test_stdio_icbe_removes_the_fp_test_from_the_loop():
    """Per iteration the model executes P0, fgetc's fp test and fillbuf's count test: 3. Entry
    splitting of fgetc for main's call (fp tested before the loop) leaves 2; with exit
    splitting (fgetc's returns decide P0) 1, in one round (a second removes nothing)."""
    from pylogic.analysis.run import module_rows
    from pylogic.transforms.cbe.icbe import NEEDS, icbe
    module = parse_module(STDIO)
    once, _ = icbe(module, module_rows(module, "m.pir", relations=NEEDS), exits=False)
    result = optimize(module, ["icbe"], "m.pir")
    new = result.module
    assert result.passes[0].record.rounds == 2
    before = conditional_branches(module, run_module(module))
    iterations = 6                       # 5 characters, then EOF
    for out, per_iteration in ((once, 2), (new, 1)):
        assert compare_modules(module, out, [((), ())]).verdict == "identical"
        after = conditional_branches(out, run_module(out))
        assert (before, after) == (1 + 3 * iterations, 1 + per_iteration * iterations)


def test_cbe_keeps_behaviour_on_the_models():
    for text, args in ((MERGE, (0,)), (LIST, (0,)), (STDIO, ())):
        module = parse_module(text)
        new = optimize(module, ["cbe"], "m.pir").module
        assert compare_modules(module, new, [(args, ())]).verdict == "identical"
        assert conditional_branches(new, run_module(new, args=args)) <= \
            conditional_branches(module, run_module(module, args=args))
