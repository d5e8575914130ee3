"""The in-process engine (``python_engine.py``): aggregates compiled (``indexed._aggregate``),
"auto"'s choice per call (``run.auto_engine``), refusals located, each run's relations freed
without the collector. Every shipped program and the dialect's constructs are compared with the
other engines elsewhere (``tests/support.ENGINES``, the differential fuzzer)."""
from __future__ import annotations

import gc

import pytest

from pylogic.engines import engine as registered_engine
from pylogic.engines import indexed, load_program, run_checked
from pylogic.engines import run as engines_run
from pylogic.errors import DatalogError

AGGREGATES = """
.decl edge(a: number, b: number)
.input edge
.decl w(a: number, v: number)
.input w
.decl node(n: number)
node(a) :- edge(a, _).
node(b) :- edge(_, b).
// per node: out-degree, the sum and the extremes of its successors' weights (none: no row)
.decl deg(n: number, d: number)
.output deg
deg(n, d) :- node(n), d = count : { edge(n, _) }.
.decl total(n: number, s: number)
.output total
total(n, s) :- node(n), s = sum v : { edge(n, m), w(m, v) }.
.decl lo(n: number, x: number)
.output lo
lo(n, x) :- node(n), x = min v : { edge(n, m), w(m, v) }.
.decl hi(n: number, x: number)
.output hi
hi(n, x) :- node(n), x = max v : { edge(n, m), w(m, v) }.
// recursive, its aggregate over a lower stratum: reached nodes with their in-degrees
.decl reach(n: number, k: number)
.output reach
reach(0, k) :- k = count : { edge(_, 0) }.
reach(m, k) :- reach(n, _), edge(n, m), k = count : { edge(_, m) }.
// the result bound before the aggregate: a node whose out-degree is its own number
.decl fixed(n: number)
.output fixed
fixed(n) :- node(n), n = count : { edge(n, _) }.
"""

EDGES = [(0, 1), (0, 2), (1, 2), (2, 0), (2, 3), (4, 4)]
WEIGHTS = [(1, 5), (2, -7), (3, 2147483647), (0, 1)]


def test_aggregates_give_the_rows_computed_by_hand_and_clingos(tmp_path):
    path = tmp_path / "agg.dl"
    path.write_text(AGGREGATES)
    program = load_program(path)
    facts = {"edge": EDGES, "w": WEIGHTS}
    got = run_checked(program, None, "python", facts=facts)
    assert got == run_checked(program, None, "clingo", facts=facts)
    assert got["deg"] == [(0, 2), (1, 1), (2, 2), (3, 0), (4, 1)]
    # 2 -> 0 (1) and 2 -> 3 (2147483647): the sum wraps to 32 bits, as every engine's
    assert got["total"] == [(0, -2), (1, -7), (2, -2147483648), (3, 0), (4, 0)]
    assert got["lo"] == [(0, -7), (1, -7), (2, 1)]
    assert got["hi"] == [(0, 5), (1, -7), (2, 2147483647)]
    assert got["reach"] == [(0, 1), (1, 1), (2, 2), (3, 1)]
    assert got["fixed"] == [(1,), (2,)]


RECORD_ORDER = """
.decl e(a: number, b: number)
.input e
.type P = [a: number, b: number]
.decl p(a: number, b: number)
.output p
p(a, b) :- e(a, b), [a, b] < [b, a].
"""


def test_a_rule_it_does_not_compile_is_refused_located_and_auto_runs_it_elsewhere(
        tmp_path, monkeypatch):
    """An ordering comparison of records (clingo compares them; the python and duckdb engines
    number records in the order they were met, so they refuse): ``--engine python`` refuses at
    the rule, "auto" gives clingo's rows (clingo standing for "auto"'s first available engine:
    Soufflé rejects the comparison, "Ambiguous record")."""
    monkeypatch.setattr(engines_run, "resolve_engine",
                        lambda name="auto": "clingo" if name == "auto" else name)
    path = tmp_path / "rec.dl"
    path.write_text(RECORD_ORDER)
    program = load_program(path)
    facts = {"e": [(1, 2), (2, 1)]}
    with pytest.raises(DatalogError) as info:
        run_checked(program, None, "python", facts=facts)
    assert info.value.loc is not None and info.value.loc.line == 7
    assert "python engine does not evaluate" in info.value.message
    assert engines_run.auto_engine(program, facts, ["p"]) == "auto"
    assert run_checked(program, None, "auto", facts=facts) == \
        run_checked(program, None, "clingo", facts=facts)


def test_auto_runs_a_small_call_in_process_and_a_large_one_on_the_first_engine(
        tmp_path, monkeypatch):
    path = tmp_path / "agg.dl"
    path.write_text(AGGREGATES)
    program = load_program(path)
    facts = {"edge": EDGES, "w": WEIGHTS}
    ran = []
    for name in ("python", "clingo"):
        runner = registered_engine(name)
        monkeypatch.setattr(runner, "run", lambda *a, _real=runner.run, _name=name, **k:
                            ran.append(_name) or _real(*a, **k))
    monkeypatch.setattr(engines_run, "resolve_engine",      # souffle on PATH or not
                        lambda name="auto": "clingo" if name == "auto" else name)
    small = run_checked(program, None, "auto", facts=facts)
    assert ran == ["python"]
    monkeypatch.setattr(engines_run, "SMALL_CALL_ROWS", len(EDGES) + len(WEIGHTS) - 1)
    large = run_checked(program, None, "auto", facts=facts)
    assert ran == ["python", "clingo"]
    assert small == large
    # only the relations the outputs read are counted: deg reads edge alone
    run_checked(program, None, "auto", facts=facts, only=["deg"])
    assert ran[-1] == "python"
    # facts read from files are not counted: "auto" is the first available engine there
    monkeypatch.setattr(engines_run, "SMALL_CALL_ROWS", 10 ** 9)
    facts_dir = tmp_path / "facts"
    facts_dir.mkdir()
    (facts_dir / "edge.facts").write_text("".join(f"{a}\t{b}\n" for a, b in EDGES))
    run_checked(program, facts_dir, "auto")
    assert ran[-1] == "clingo"


def _program(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return load_program(path)


def _recorded(monkeypatch, owner, method: str, what) -> list:
    """``owner.method`` patched to append ``what(*args)`` to the list returned, then run."""
    log, real = [], getattr(owner, method)

    def recording(self, *a, **k):
        log.append(what(*a))
        return real(self, *a, **k)
    monkeypatch.setattr(owner, method, recording)
    return log


def test_the_plan_is_compiled_once_per_relation_sets(tmp_path, monkeypatch):
    program = _program(tmp_path, "agg.dl", AGGREGATES)
    compiled = _recorded(monkeypatch, indexed.CompiledComponent, "__init__", lambda rels, *_: rels)
    facts = {"edge": EDGES, "w": WEIGHTS}
    first = run_checked(program, None, "python", facts=facts)
    n = len(compiled)
    assert n > 0
    again = run_checked(program, None, "python", facts={"edge": EDGES[:3], "w": WEIGHTS})
    assert len(compiled) == n and again != first
    run_checked(program, None, "python", facts={"edge": EDGES})   # w empty: another plan
    assert len(compiled) > n


def test_a_run_leaves_no_garbage_for_the_collector(tmp_path):
    """A run's relations and indexes are held by its component's ``_K`` (``_Made``), which
    the shared version functions do not hold (``CompiledComponent.bind``), so they are freed by
    reference counting when the run ends, not kept until a collection."""
    path = tmp_path / "agg.dl"
    path.write_text(AGGREGATES)
    program = load_program(path)
    facts = {"edge": EDGES, "w": WEIGHTS}
    run_checked(program, None, "python", facts=facts)       # compiled outside the window
    gc.collect()
    gc.disable()
    try:
        run_checked(program, None, "python", facts=facts)
        assert gc.collect() == 0
    finally:
        gc.enable()


KILLS = """
.decl load(f: symbol, e: symbol)
.input load
.decl clobber(f: symbol, i: symbol)
.input clobber
.decl root(f: symbol, e: symbol, r: symbol)
.input root
.decl at(f: symbol, i: symbol, k: number)
.input at
.decl kill(f: symbol, e: symbol, k: number)
.output kill
kill(f, e, k) :- load(f, e), clobber(f, i), root(f, e, "*"), at(f, i, k).
"""


PREDECESSORS = """
.decl node(x: symbol)
.decl edge(x: symbol, y: symbol)
.input node
.input edge
.decl entered(y: symbol)
.output entered
entered(y) :- node(y), edge(_, y).
"""


def test_an_atom_that_binds_nothing_is_a_test_of_its_keys(tmp_path, monkeypatch):
    # edge(_, y) with y bound binds nothing: a test of its index's keys, not a loop over the
    # edges into y that would run the rest of the body once per edge (pre.dl's rpo(f, a, _))
    program = _program(tmp_path, "preds.dl", PREDECESSORS)
    tested = _recorded(monkeypatch, indexed.Relations, "projection",
                       lambda rel, positions: (rel, positions))
    facts = {"node": [(n,) for n in "abcde"],
             "edge": [(p, n) for n in "abc" for p in "pqrstu"]}
    got = run_checked(program, None, "python", facts=facts)
    assert got == run_checked(program, None, "clingo", facts=facts)
    assert got["entered"] == [("a",), ("b",), ("c",)]
    assert ("edge", (1,)) in tested


def test_a_projection_alone_is_a_set_of_keys_kept_up_to_date():
    # a test of an index's keys needs no lists of rows: the keys alone, grown by ``add`` as the
    # indexes are (a recursive component adds rows while its rules test them)
    store = indexed.Relations(lambda rel: [(1, "a", 5), (2, "b", 6)])
    keys = store.projection("r", (0, 1))
    assert keys == {(1, "a"), (2, "b")} and ("r", (0, 1)) not in store.indexes
    store.add("r", {(3, "c", 7)})
    assert (3, "c") in keys and store.projection("r", (0, 1)) is keys
    idx = store.index("r", (2,))
    store.add("r", {(4, "d", 8)})
    assert 8 in idx and (4, "d") in keys and store.projection("r", (2,)) == idx.keys()


def test_a_selection_by_constants_is_a_scan_kept_for_the_run():
    # a rule that runs once reads the rows of a final relation with constant keys once: a scan
    # (kept: every such rule of the run shares it), or the index when one is built already
    store = indexed.Relations(lambda rel: [(1, "a", 5), (2, "b", 5), (3, "a", 6)])
    rows = store.select("r", (2,), 5)
    assert sorted(rows) == [(1, "a", 5), (2, "b", 5)] and ("r", (2,)) not in store.indexes
    assert store.select("r", (2,), 5) is rows and store.select("r", (1, 2), ("a", 6)) == [(3, "a", 6)]
    assert store.select("r", (2,), 7) == []
    store.index("r", (1,))
    assert sorted(store.select("r", (1,), "a")) == [(1, "a", 5), (3, "a", 6)]


def test_atoms_are_joined_most_bound_first(tmp_path, monkeypatch):
    # pre.dl's _pre_kill_at as written joins every load with every clobber of its function
    # before the test of root(f, e, "*"); bound first, the constant's index is read first and
    # load(f, e) is a membership test (indexed._most_bound); the rule runs once, so the
    # constant's rows are selected by a scan, not an index (Relations.select)
    program = _program(tmp_path, "kills.dl", KILLS)
    built = _recorded(monkeypatch, indexed.Relations, "index",
                      lambda rel, positions: (rel, positions))
    selected = _recorded(monkeypatch, indexed.Relations, "select",
                         lambda rel, positions, key: (rel, positions))
    loads = [("f", f"e{n}") for n in range(20)]
    facts = {"load": loads, "clobber": [("f", f"i{n}") for n in range(20)],
             "root": [("f", "e3", "*"), ("f", "e4", "@g")],
             "at": [("f", f"i{n}", n) for n in range(20)]}
    got = run_checked(program, None, "python", facts=facts)
    assert got == run_checked(program, None, "clingo", facts=facts)
    assert got["kill"] == [("f", "e3", n) for n in range(20)]
    assert selected == [("root", (2,))] and ("root", (2,)) not in built
    assert not any(rel == "load" for rel, _ in built)
