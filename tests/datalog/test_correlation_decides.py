"""The ``decides`` table holds only the rows correlation.dl can read (``readable_queries`` of
facts_gen/interprocedural.py, issue #28 item 1): every output of correlation.dl is the same as
with the table of every query of the module, on random modules with calls, memory cells,
dereferences and query rewrites, on the examples, and on modules whose one question is decided
only in another function."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import facts_gen.interprocedural as ip
from facts_gen.extract import extract_module
from pylogic.analysis.correlation_rounds import BRANCH_KEYED, SUMMARY_KEYED, TRACE
from pylogic.analysis.run import module_rows
from pylogic.ir.parser import parse_module
from tests.datalog.correlation_memory_oracle import random_memory_module
from tests.datalog.correlation_oracle import random_module
from tests.datalog.test_correlation_rewrite import random_merge_module

OUTPUTS = list(BRANCH_KEYED) + list(SUMMARY_KEYED) + list(TRACE)
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.pir"))


class _Every:
    """Every query readable in every function: the table before the cut."""

    def get(self, _f, _default=None):
        return self

    def __contains__(self, _q):
        return True


def _modules():
    for seed in range(12):
        yield f"calls-{seed}", random_module(random.Random(seed), functions=4)
        yield f"memory-{seed}", random_memory_module(random.Random(seed), functions=4,
                                                     allocas=seed % 2 == 1)
        yield f"merge-{seed}", random_merge_module(random.Random(seed))
    for path in EXAMPLES:
        yield path.name, parse_module(path.read_text())


def _rows(module, monkeypatch, cut: bool):
    if not cut:
        monkeypatch.setattr(ip, "readable_queries", lambda *_args: _Every())
    try:
        return (module_rows(module, "r.pir", relations=OUTPUTS, engine="clingo"),
                extract_module(module, "r.pir")["decides"])
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("name,module", list(_modules()),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_the_cut_table_gives_every_output_unchanged(name, module, monkeypatch):
    full, full_decides = _rows(module, monkeypatch, cut=False)
    cut, cut_decides = _rows(module, monkeypatch, cut=True)
    assert set(cut_decides) <= set(full_decides)
    for r in OUTPUTS:
        assert sorted(cut[r]) == sorted(full[r]), (name, r)


def test_the_cut_leaves_rows_out():
    """Not vacuous: on these modules the table is smaller than every query of the module."""
    kept = total = 0
    for _name, module in _modules():
        kept += len(extract_module(module, "r.pir")["decides"])
        saved = ip.readable_queries
        ip.readable_queries = lambda *_args: _Every()
        try:
            total += len(extract_module(module, "r.pir")["decides"])
        finally:
            ip.readable_queries = saved
    assert kept < 0.8 * total, (kept, total)


# Each question below is asked in one function and decided only by a constant in another, which
# the query reaches through a memory cell: at the callee's entry, to its caller (CELL_AT_ENTRY);
# at a call that may store the cell, into the callee and its callee (CELL_SUMMARY).
CELL_AT_ENTRY = """global g[8]
func check() {
entry:
    v = load g
    t = cmp.eq v, 7
    cbr t, yes, no
yes:
    ret 1
no:
    ret 0
}
func main() {
entry:
    store g, 7
    r = call check()
    print r
    ret 0
}
"""
CELL_SUMMARY = """global g[8]
func inner() {
entry:
    store g, 9
    ret 0
}
func set() {
entry:
    r = call inner()
    ret r
}
func main() {
entry:
    r = call set()
    v = load g
    t = cmp.eq v, 9
    cbr t, yes, no
yes:
    print 1
    ret 0
no:
    ret 1
}
"""


# Decided by a constant two steps away, without memory: through a parameter to the caller's
# register argument (PARAM), through a returned register to the callee's callee (RETURNED).
PARAM = """func check(x) {
entry:
    t = cmp.eq x, 5
    cbr t, yes, no
yes:
    ret 1
no:
    ret 0
}
func main() {
entry:
    a = mov 5
    r = call check(a)
    print r
    ret 0
}
"""
RETURNED = """func five() {
entry:
    ret 5
}
func pass() {
entry:
    x = call five()
    ret x
}
func main() {
entry:
    r = call pass()
    t = cmp.eq r, 5
    cbr t, yes, no
yes:
    print 1
    ret 0
no:
    ret 1
}
"""


@pytest.mark.parametrize("text", [CELL_AT_ENTRY, CELL_SUMMARY, PARAM, RETURNED],
                         ids=["cell-entry", "cell-summary", "param", "returned"])
def test_a_question_decided_in_another_function(text, monkeypatch):
    module = parse_module(text)
    full, _ = _rows(module, monkeypatch, cut=False)
    cut, _ = _rows(module, monkeypatch, cut=True)
    assert [row[2] for row in cut["correlation"]] == ["TRUE"]
    for r in OUTPUTS:
        assert sorted(cut[r]) == sorted(full[r]), r
