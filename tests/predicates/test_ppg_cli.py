"""``pathlogic predicates`` (table, --json shape, --check sat, --at, errors) and
``predicate_summary`` (the numbers ``pathlogic analyze`` reports)."""
from __future__ import annotations

import json

import pytest
from analysed import rows_of_module

from pylogic.cli import main
from pylogic.ir.load import load_text
from pylogic.predicates.network import PredicateError
from pylogic.predicates.summary import SUMMARY_RELATIONS, predicate_summary

FIG3B = """
func fig3b(r1) {
entry: !hyperblock
    p2:uf = pcmp.eq 0, 0
    p1:ut, p2:of = pcmp.gt r1, -8
    (p1) p3:ut, p2:of = pcmp.lt r1, 8
    (p3) p4:ut = pcmp.eq r1, 0
    (p2) p5:ut = pcmp.lt r1, 0
    ret
}

func branchy(r1, r2) {
entry:
    p1:ut, p2:uf = pcmp.lt r1, 0
    cbr r2, left, right
left:
    (p1) p3:ut, p4:uf = pcmp.eq r2, 1
    br join
right:
    p3:ut = pcmp.gt r2, 5
    br join
join:
    ret
}
"""
KEYS = {"disjoint", "a_implies_b", "b_implies_a", "covers"}


@pytest.fixture(scope="module")
def pir(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "prog.pir"
    path.write_text(FIG3B)
    return str(path)


def run_cli(capsys, *argv):
    code = main(["predicates", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape_and_answers(pir, capsys):
    code, out, _ = run_cli(capsys, pir, "--json", "--check", "sat")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"fig3b", "branchy"}
    rows = data["fig3b"]
    assert len(rows) == 10                       # 5 predicates, unordered pairs
    assert len({frozenset((r["a"], r["b"])) for r in rows}) == 10
    for r in rows:
        assert set(r) == {"a", "b", "at", "bdd", "sat", "ppg"} and r["at"] == "end"
        assert set(r["bdd"]) == KEYS and r["sat"] == r["bdd"]
        assert r["ppg"] is not None and set(r["ppg"]) == KEYS
        for k in KEYS:                           # sound
            assert not r["ppg"][k] or r["bdd"][k]
    rel = {frozenset((r["a"], r["b"])): r for r in rows}
    p24 = rel[frozenset(("p2", "p4"))]
    assert p24["bdd"]["disjoint"] and p24["ppg"]["disjoint"]
    p34 = rel[frozenset(("p3", "p4"))]
    assert (p34["a"], p34["b"]) in (("p3", "p4"), ("p4", "p3"))
    implied = p34["bdd"]["b_implies_a"] if p34["a"] == "p3" else p34["bdd"]["a_implies_b"]
    assert implied
    assert rel[frozenset(("p1", "p2"))]["ppg"]["covers"]


def test_ppg_null_for_values_lost_at_a_merge(pir, capsys):
    code, out, _ = run_cli(capsys, pir, "--json", "--function", "branchy", "--at", "join")
    assert code == 0
    rows = json.loads(out)["branchy"]
    assert all(r["at"] == "join" and r["sat"] is None for r in rows)
    byp = {frozenset((r["a"], r["b"])): r for r in rows}
    assert byp[frozenset(("p1", "p3"))]["ppg"] is None          # p3 is a merge at join
    p12 = byp[frozenset(("p1", "p2"))]
    assert p12["ppg"]["disjoint"] and p12["ppg"]["covers"] and p12["bdd"]["covers"]


def test_at_block_changes_the_point(pir, capsys):
    _, out, _ = run_cli(capsys, pir, "--json", "--function", "branchy", "--at", "entry")
    rows = json.loads(out)["branchy"]
    p34 = next(r for r in rows if {r["a"], r["b"]} == {"p3", "p4"})
    # both still 0 at the end of entry: equivalent, disjoint, not covering
    assert p34["bdd"] == {"disjoint": True, "a_implies_b": True, "b_implies_a": True,
                          "covers": False} == p34["ppg"]


def test_table(pir, capsys):
    code, out, _ = run_cli(capsys, pir, "--function", "fig3b", "--check", "sat")
    assert code == 0
    assert "function fig3b: 10 pairs" in out
    assert "BDD" in out and "SAT" in out and "PPG" in out
    line = next(l for l in out.splitlines() if l.split()[:2] in (["p2", "p4"], ["p4", "p2"]))
    assert line.split()[2:] == ["disjoint", "disjoint", "disjoint"]
    assert "PPG proves" in out and "DISAGREES" not in out


@pytest.mark.parametrize("argv, message", [
    (["{missing}"], "no such file"),
    (["{pir}", "--function", "nope"], "no function 'nope'"),
    (["{pir}", "--function", "fig3b", "--at", "nowhere"], "no block 'nowhere'"),
    (["{bad}"], "prog_bad.pir:"),
])
def test_errors_are_located_without_traceback(pir, capsys, argv, message):
    bad = pir.replace("prog.pir", "prog_bad.pir")
    with open(bad, "w") as fh:
        fh.write("func f( {\n")
    argv = [a.format(pir=pir, bad=bad, missing=pir + ".nope") for a in argv]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1
    assert message in err and "Traceback" not in err


def test_predicate_summary():
    module = load_text(FIG3B, "prog.pir")
    run = rows_of_module(module, "sub/prog.pir", SUMMARY_RELATIONS)      # one engine call
    rows = {r["function"]: r for r in predicate_summary(module, "sub/prog.pir", run)}
    f = rows["fig3b"]
    assert f["defines"] == 5 and f["predicates"] == 5 and f["pairs"] == 10
    assert f["ppg_modelled_pairs"] == 10 and f["ppg_violations"] == 0
    for k in ("disjoint", "implied", "covers"):
        assert 0 < f[f"{k}_ppg"] <= f[f"{k}_bdd"]
    assert f["disjoint_bdd"] == 5 and f["implied_bdd"] == 4
    assert f["queries_bdd"] > 0 and f["queries_ppg"] > 0
    assert f["seconds_bdd"] >= 0 and f["seconds_ppg"] > 0 and f["bdd_nodes"] > 0
    b = rows["branchy"]
    # p3 read at the end of right, p4 at the end of left: all modelled; S = entry | vSE and
    # entry = left | right (join is equivalent to entry, ppg.md Def 8)
    assert b["ppg_modelled_pairs"] == b["pairs"] == 6 and b["cdg_partitions"] == 2
    only = predicate_summary(module, "sub/prog.pir", run, functions=["branchy"])
    assert [r["function"] for r in only] == ["branchy"] and only[0]["pairs"] == 6


def test_predicate_summary_needs_ppg_rows():
    module = load_text(FIG3B, "prog.pir")
    pas_only = rows_of_module(module, "prog.pir")
    with pytest.raises(PredicateError, match="ppg_node"):
        predicate_summary(module, "prog.pir", pas_only)
