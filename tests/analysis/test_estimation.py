"""Profile estimators on programs (pylogic.analysis.estimation, issue #31 item 1): the bounds from
the interpreter's edge profile contain the exact reuse of its block paths, and on these programs
the complete PRE (pre-mr) removes exactly that reuse when run. Path profiles
(pylogic.interp.paths) agree with the edge profile and leave the run's behaviour unchanged."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pylogic.analysis.estimation import EstimationError, program_estimates
from pylogic.interp.machine import run_module
from pylogic.interp.paths import run_with_paths
from pylogic.ir.load import load_module, load_text

ROOT = Path(__file__).resolve().parents[2]

#: pathfinder.md §5.4's running example as a loop: loads of x at A, C, E (users, generators),
#: a store to x at D (a kill); which way each iteration goes depends on i, so branches correlate
#: (the edge profile cannot tell which paths ran).
RUNNING = """
global x[8] = {7}
func main() {
entry:
    i = mov 0
    acc = mov 0
    br S
S:
    r3 = rem i, 3
    toA = cmp.ne r3, 0
    cbr toA, A, B
A:
    a = load x
    acc = add acc, a
    r5 = rem i, 5
    toC = cmp.eq r5, 0
    cbr toC, C, h
C:
    c = load x
    acc = add acc, c
    br j
B:
    r2 = rem i, 2
    toh = cmp.eq r2, 0
    cbr toh, h, k
h:
    r7 = rem i, 7
    toj = cmp.lt r7, 3
    cbr toj, j, i2
i2:
    tok = cmp.eq r7, 3
    cbr tok, k, D
k:
    r4 = rem i, 4
    tol = cmp.ne r4, 0
    cbr tol, l, D
l:
    tom = cmp.lt r4, 2
    cbr tom, m, D
j:
    br m
D:
    store x, i
    br m
m:
    e = load x
    acc = add acc, e
    i = add i, 1
    more = cmp.lt i, 200
    cbr more, S, end
end:
    print acc
    ret 0
}
"""


def test_running_example_program():
    report = program_estimates(load_text(RUNNING, "running.pir"), engine="clingo")
    exact = report["exact"]
    assert exact > 0
    for name, bounds in report["estimators"].items():
        assert bounds["lower"] <= exact <= bounds["upper"], name
    # CMP^r and CMP^f are at least as tight as PRE's bounds here (the region has correlation)
    pre, flow = report["estimators"]["PRE"], report["estimators"]["CMPf"]
    assert flow["upper"] - flow["lower"] <= pre["upper"] - pre["lower"]
    assert sum(report["pre_removed"].values()) == exact


@pytest.mark.parametrize("name", ["loop_call.pir", "pas_fig3b.pir", "strings_printf.pir"])
def test_paths_agree_with_edge_profile(name):
    module = load_module(ROOT / "examples" / name)
    result, paths = run_with_paths(module)
    plain = run_module(module)
    assert result.observable() == plain.observable()
    assert result.edge_profile == plain.edge_profile
    taken = Counter((fn, a, b) for fn, ps in paths.items() for p in ps for a, b in zip(p, p[1:]))
    assert taken == Counter({k: v for k, v in plain.edge_profile.items() if v})
    calls = Counter({fn: len(ps) for fn, ps in paths.items()})
    entries = Counter({fn: n for (fn, label), n in plain.block_profile.items()
                       if label == module.function_map()[fn].blocks[0].label and n})
    assert all(calls[fn] <= entries[fn] for fn in calls)   # entry blocks may be loop heads


def test_side_exits_are_refused():
    src = """
func main() {
entry:
    c:ut = pcmp.eq 1, 1
    (c) br out          ; a side exit (hyperblock)
    x = mov 1
    br out
out:
    ret 0
}
"""
    module = load_text(src, "side.pir")
    with pytest.raises(EstimationError, match="side exits"):
        program_estimates(module, engine="clingo")


def test_run_estimate_from_the_cli(tmp_path, capsys):
    """``pathlogic run FILE --estimate``: the program's output on stdout, the exact reuse and every
    estimator's bounds (containing it) on stderr, or all of it in --json."""
    import json

    from pylogic.cli import main
    path = tmp_path / "running.pir"
    path.write_text(RUNNING)
    assert main(["run", str(path), "--estimate"]) == 0
    out = capsys.readouterr()
    assert out.out.strip().isdigit()
    exact = int(out.err.split("exact reuse ")[1].split()[0])
    rows = {line.split()[0]: line.split() for line in out.err.splitlines()
            if line.split() and line.split()[0] in ("PRE", "CMP1", "CMPc", "CMPr", "CMPf")}
    assert len(rows) == 5 and all(int(r[1]) <= exact <= int(r[2]) for r in rows.values())
    assert main(["run", str(path), "--estimate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["estimates"]["exact"] == exact
    # the only expression RUNNING reuses is the load of x: its bounds are all of them
    assert data["estimates"]["loads"] == data["estimates"]["estimators"]
    cmpr = data["estimates"]["loads"]["CMPr"]
    assert f"reusable loads (CMPr): {cmpr['lower']}..{cmpr['upper']}" in out.err


def test_run_estimate_refuses_side_exits_with_one_line(tmp_path, capsys):
    from pylogic.cli import main
    path = tmp_path / "side.pir"
    path.write_text("func main() {\nentry:\n    c:ut = pcmp.eq 1, 1\n    (c) br out\n"
                    "    x = mov 1\n    br out\nout:\n    ret 0\n}\n")
    assert main(["run", str(path), "--estimate"]) == 1
    err = capsys.readouterr().err
    assert "side exits" in err and "Traceback" not in err


def _count_runs(monkeypatch) -> list:
    """Every interpreter run (``Machine.run``) appends to the returned list."""
    from pylogic.interp.machine import Machine
    runs, real = [], Machine.run

    def counted(self, *a, **k):
        runs.append(1)
        return real(self, *a, **k)
    monkeypatch.setattr(Machine, "run", counted)
    return runs


def test_run_estimate_runs_the_program_once(tmp_path, capsys, monkeypatch):
    """One run gives the output, the edge profile and the exact paths; the only other run is
    pre-mr's output (what PRE really removes). With ``--reuse`` too, the simulator's run is the
    third. Same report as ``program_estimates`` running the program itself."""
    import json

    from pylogic.cli import main
    path = tmp_path / "running.pir"
    path.write_text(RUNNING)
    alone = program_estimates(load_text(RUNNING, str(path)))
    runs = _count_runs(monkeypatch)
    assert main(["run", str(path), "--estimate", "--json"]) == 0
    assert len(runs) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["estimates"] == alone and data["engine"] == "interp"
    assert data["estimates"]["evaluations"]["loads"] == data["kinds"]["loads"]
    runs.clear()
    assert main(["run", str(path), "--estimate", "--reuse", "2", "--json"]) == 0
    assert len(runs) == 3
    assert json.loads(capsys.readouterr().out)["estimates"] == alone


def test_a_program_without_its_entry_is_not_estimated_with_a_reason():
    """A compile-only program (no main): the profiling run's own error, not a crash of the
    path observer."""
    module = load_text("func f() {\nentry:\n    ret 0\n}\n", "nomain.pir")
    result, paths = run_with_paths(module)
    assert result.error is not None and paths == {}
    with pytest.raises(EstimationError, match="profiling run failed"):
        program_estimates(module, engine="clingo")


#: A loop-invariant load of x in a do-while loop calling ``twice``, which loads x twice in one
#: block and stores nothing (so its calls kill nothing: the analysis' mod summaries).
INVARIANT_LOAD = """
global x[8] = {7}
func twice() {
entry:
    a = load x
    b = load x
    c = add a, b
    ret c
}
func main() {
entry:
    i = mov 0
    acc = mov 0
    br body
body:
    v = load x
    acc = add acc, v
    w = call twice()
    acc = add acc, w
    i = add i, 1
    more = cmp.lt i, 10
    cbr more, body, exit
exit:
    ret 0
}
"""


def test_load_estimate_of_a_loop_invariant_load_equals_the_simulators_count():
    """By hand: 30 loads of one location, nothing stored. The simulator at h = 1 (ideal
    aliasing) finds 29 redundant in the whole program, 28 intra-procedurally (main's 9 after its
    first; twice's 19 after its first call's first) and 19 within one activation (main's 9,
    twice's second load in each of 10 calls). The analysis captures the latter exactly: main's
    load reused from the back edge 9 times (the loop body is its header: the edge profile leaves
    no doubt, L = U) and twice's block-local reuse 10 times. The CMP^r load estimate from the
    simulated run's own edge profile says 19 = 19; the same run's ``program_estimates`` agrees."""
    from pylogic.analysis.estimation import entries, load_estimate
    from pylogic.interp.reuse import ReuseObserver
    module = load_text(INVARIANT_LOAD, "t.pir")
    observer = ReuseObserver()
    result = run_module(module, observer=observer)
    assert result.error is None
    ideal = observer.report([1])["reuse"]["1"]["ideal"]
    assert {v: r["redundant"] for v, r in ideal.items()} == {"whole": 29, "intra": 28,
                                                             "activation": 19}
    assert load_estimate(module, [result]) == {"lower": 19, "upper": 19, "average": 19.0}
    assert load_estimate(module, [result, result])["average"] == 38.0   # runs' bounds summed
    again, paths = run_with_paths(module)
    assert {f.name: entries(f, result) for f in module.defined_functions()} == \
        {name: len(calls) for name, calls in paths.items()} == {"main": 1, "twice": 10}
    report = program_estimates(module, run=(again, paths))
    assert report["loads"]["CMPr"] == {"lower": 19, "upper": 19, "error": 0.0}
    assert report["exact"] == 19 and report["evaluations"]["loads"] == 30


#: The same load in a while loop (the test at the header).
WHILE_LOAD = INVARIANT_LOAD.replace(
    "    br body\nbody:", "    br head\nhead:\n    go = cmp.lt i, 10\n    cbr go, body, exit\nbody:"
).replace("cbr more, body, exit", "br head")


def test_load_estimate_of_a_while_loop_brackets_the_count():
    """The same load in a while loop (test at the header): the edge profile cannot tell whether
    the value-less entry reaches the body or leaves at once, so CMP^r gives 9..10 for main's
    load; the simulator's 19 within one activation is the lower bound."""
    from pylogic.analysis.estimation import load_estimate
    module = load_text(WHILE_LOAD, "t.pir")
    result = run_module(module)
    assert result.error is None
    assert load_estimate(module, [result]) == {"lower": 19, "upper": 20, "average": 19.5}
