"""The clingo translation folds an aggregate once per group (``to_clingo._with_groups``) when the
rest of its rule binds more than the group: the groups become a relation, the aggregate a rule
over it, and the rows stay the rule's own (an empty group: count and sum 0, min and max
nothing, as in Soufflé). Where the rest binds only the group of a count or sum, the groups with elements
are the aggregate's and the others are 0 by negation; a recursive rule is translated as it
is."""
from __future__ import annotations

import shutil

import pytest

from pylogic.engines.clingo_engine import run_clingo
from pylogic.engines.program import load_program
from pylogic.engines.to_clingo import program_text

# dominator_tree.dl's next predecessor: per (n, p) the least rank above p's, read once per q
PROGRAM = """
.decl pred(n: symbol, p: symbol, r: number)
.input pred
.decl next(n: symbol, p: symbol, q: symbol)
.output next
next(n, p, q) :- pred(n, p, rp), pred(n, q, rq), rq > rp, rq = min r : { pred(n, _, r), r > rp }.
.decl above(n: symbol, p: symbol, c: number, s: number, m: number)
.output above
above(n, p, c, s, m) :- pred(n, p, rp), pred(n, _, rq), rq >= rp,
    c = count : { pred(n, _, r), r > rp }, s = sum r : { pred(n, _, r), r > rp },
    m = max r : { pred(n, _, r) }.
.decl later(n: symbol, p: symbol, c: number)
.output later
later(n, p, c) :- pred(n, p, rp), pred(n, q, _), q != p, c = count : { pred(n, _, r), r > rp }.
.decl top(n: symbol, p: symbol, m: number)
.output top
top(n, p, m) :- pred(n, p, rp), pred(n, q, _), q != p, m = max r : { pred(n, _, r), r > rp }.
.decl reach(n: symbol, c: number)
.output reach
reach(n, 0) :- pred(n, _, _).
reach(n, c) :- reach(n, k), pred(n, q, _), k < 3, c = count : { pred(n, q, r), r > k }.
.decl fan(n: symbol, c: number)
.output fan
fan(p, c) :- pred(_, p, _), c = count : { pred(p, _, _) }.
fan(n, c) :- pred(n, _, _), c = count : { pred(n, _, _) }.
"""

FACTS = {"pred": [("A", "x", 1), ("A", "y", 4), ("A", "z", 2), ("B", "u", 7), ("B", "v", 3)]}


def _checked(tmp_path):
    path = tmp_path / "groups.dl"
    path.write_text(PROGRAM)
    return load_program(path)


def test_the_aggregate_reads_its_groups_not_each_binding_of_the_rest(tmp_path):
    text = program_text(_checked(tmp_path))
    lines = text.splitlines()
    # next: the groups (n, rp), the minimum per group, the rule reading it
    assert any(line.startswith("r_agg'0d(Vn,Vrp) :- r_pred(Vn,Vp,Vrp)") for line in lines)
    assert any(line.startswith("r_agg'0(Vn,Vrp,") and "#min{" in line for line in lines)
    assert any(line.startswith("r_next(Vn,Vp,Vq) :- ") and "r_agg'0(Vn,Vrp," in line
               and "#min" not in line for line in lines)
    # three aggregates in one rule, a recursive rule: as they were
    above = [line for line in lines if line.startswith("r_above(")]
    assert above and "#count{" in above[0] and "#sum{" in above[0]
    reach = [line for line in lines if line.startswith("r_reach(Vn,Vc) :- ")]
    assert reach and "#count{" in reach[0]
    # fan: groups with elements counted (once per group: the group's atom binds the rest), the
    # others 0 without an aggregate
    fan = [line for line in lines if line.startswith("r_fan(")]
    assert len(fan) == 4 and sum("#count" in line for line in fan) == 2
    assert all(line.index("r_agg'") < line.index("#count") for line in fan if "#count" in line)
    assert sum("not r_agg'" in line for line in fan) == 2


def test_the_rows_are_the_rules_own(tmp_path):
    rows = run_clingo(_checked(tmp_path), FACTS, ["next", "above", "later", "top", "reach", "fan"])
    # by hand: A's ranks x 1, z 2, y 4; B's v 3, u 7
    assert rows["next"] == [("A", "x", "z"), ("A", "z", "y"), ("B", "v", "u")]
    assert rows["later"] == [("A", "x", 2), ("A", "y", 0), ("A", "z", 1), ("B", "u", 0),
                             ("B", "v", 1)]           # an empty group counts 0
    assert rows["top"] == [("A", "x", 4), ("A", "z", 4), ("B", "v", 7)]   # and has no max
    assert rows["above"] == [("A", "x", 2, 6, 4), ("A", "y", 0, 0, 4), ("A", "z", 1, 4, 4),
                             ("B", "u", 0, 0, 7), ("B", "v", 1, 7, 7)]
    assert rows["reach"] == [("A", 0), ("A", 1), ("B", 0), ("B", 1)]
    assert rows["fan"] == [("A", 3), ("B", 2), ("u", 0), ("v", 0), ("x", 0), ("y", 0), ("z", 0)]


@pytest.mark.skipif(shutil.which("souffle") is None,
                    reason="souffle not on PATH (the comparison with Soufflé 2.5 is skipped)")
def test_the_rows_are_souffles(tmp_path):
    from pylogic.engines import run_checked
    checked = _checked(tmp_path)
    outputs = ["next", "above", "later", "top", "reach", "fan"]
    assert run_checked(checked, None, "clingo", FACTS, only=outputs) == \
        run_checked(checked, None, "souffle", FACTS, only=outputs)


# correlation.dl's segments: every row of one atom is a group (no projection), the rest of the
# body a comparison; the groups are that atom's rows, not a relation of their own
SEGMENTS = """
.decl event(n: symbol, e: number)
.input event
.decl seg(n: symbol, t: number, hi: number)
.output seg
seg(n, t, hi) :- event(n, e), t = e + 1, t != 3, hi = min e2 : { event(n, e2), e2 > e }.
"""


def test_groups_that_are_an_atoms_rows_read_that_atom(tmp_path):
    path = tmp_path / "segments.dl"
    path.write_text(SEGMENTS)
    checked = load_program(path)
    text = program_text(checked)
    assert "r_agg'0d" not in text
    assert any(line.startswith("r_agg'0(Vn,Ve,") and line.count("r_event(") == 2
               for line in text.splitlines())
    events = [("A", 0), ("A", 2), ("A", 5), ("B", 1), ("B", 4), ("C", 7)]
    # brute force: per event, the next event of its block, unless t = e + 1 is 3
    want = sorted((n, e + 1, min(x for m, x in events if m == n and x > e))
                  for n, e in events if e + 1 != 3 and any(m == n and x > e for m, x in events))
    assert run_clingo(checked, {"event": events}, ["seg"])["seg"] == want
