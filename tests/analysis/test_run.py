"""One analysis run extracts facts once per module and evaluates each function in exactly one
engine call, which computes every catalogued program of its scope; the composed run gives the
same rows as running each catalogued program on its own."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.analysis import catalog
from pylogic.analysis import run as run_mod
from pylogic.engines import run_program
from pylogic.ir.load import load_directory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def examples():
    loaded = load_directory(ROOT / "examples")
    return [(p.module, p.relpath) for p in loaded.programs]


def counting(monkeypatch):
    calls = {"extract": [], "engine": []}
    real_extract, real_run = run_mod.extract_module, run_mod.run_checked

    def extract_module(module, relpath, *a, **k):
        calls["extract"].append(relpath)
        return real_extract(module, relpath, *a, **k)

    def run_checked(program, facts_dir, engine, facts, **k):
        calls["engine"].append((program.main_file, sorted({r[0] for r in facts["function"]})))
        return real_run(program, facts_dir, engine, facts, **k)

    monkeypatch.setattr(run_mod, "extract_module", extract_module)
    monkeypatch.setattr(run_mod, "run_checked", run_checked)
    return calls


@pytest.mark.slow
def test_facts_once_per_module_and_one_engine_call_per_scope(examples, monkeypatch):
    calls = counting(monkeypatch)
    result = run_mod.analyze_modules(examples, engine="clingo")
    assert sorted(calls["extract"]) == sorted(rel for _, rel in examples)
    seen = [f for _, fs in calls["engine"] for f in fs]
    assert sorted(seen) == sorted(set(seen)), "a function was evaluated twice"
    assert len(calls["engine"]) == len({names for names in result.scopes.values()}) == 2
    predicated = {f for f, names in result.scopes.items() if "ppg" in names}
    assert predicated == {"pas_fig3b.pir::fig3b", "pcp_ifconverted.pir::main", "ppde_hyperblock.pir::main"}
    for f in result.rows.functions():
        rows = result.rows.of(f)
        assert rows["idom"] or f.endswith(("square",)) or rows["block"]
        if f in predicated:
            assert rows["ppg_node"]
        else:
            with pytest.raises(KeyError):
                rows["ppg_node"]


@pytest.mark.slow
def test_jobs_split_the_calls_but_not_the_results(examples):
    one = run_mod.analyze_modules(examples, engine="clingo")
    two = run_mod.analyze_modules(examples, engine="clingo", jobs=2)
    assert one.rows.sorted_tables() == two.rows.sorted_tables()
    assert len(two.calls) == 4


def test_composed_run_equals_each_program_alone(examples):
    result = run_mod.analyze_modules(examples, engine="clingo")
    facts = run_mod.extract(examples)
    tables = result.rows.sorted_tables()
    predicated = {f for f, names in result.scopes.items() if "ppg" in names}
    for analysis in catalog.CATALOG:
        if analysis.scope == "demand":
            continue
        alone = run_program(analysis.path, None, "clingo",
                            {k: v for k, v in facts.items() if k in analysis.program().relations})
        for rel, rows in alone.items():
            if analysis.scope == "predicated":
                rows = [r for r in rows if r[0] in predicated]
                got = [r for r in tables.get(rel, []) if r[0] in predicated]
            else:
                got = tables.get(rel, [])
            assert sorted(rows) == got, (analysis.name, rel)


def test_relations_pick_the_programs(examples, monkeypatch):
    calls = counting(monkeypatch)
    result = run_mod.analyze_modules(examples, engine="clingo", relations=["cdep"])
    assert len(calls["engine"]) == 1
    assert set(result.scopes.values()) == {"control_dependence"}
    assert result.rows["cdep"]
    assert "idom" not in result.rows


def test_a_failing_batch_is_retried_per_function(examples, monkeypatch):
    real = run_mod.run_checked

    def flaky(program, facts_dir, engine, facts, **k):
        if any(r[0] == "loop_call.pir::fib" for r in facts["function"]):
            from pylogic.errors import DatalogError
            raise DatalogError("injected failure")
        return real(program, facts_dir, engine, facts, **k)

    monkeypatch.setattr(run_mod, "run_checked", flaky)
    result = run_mod.analyze_modules(examples, engine="clingo")
    assert list(result.failures) == ["loop_call.pir::fib"]
    assert "injected failure" in result.failures["loop_call.pir::fib"]
    assert result.rows.of("loop_call.pir::main")["idom"]


def test_asking_for_input_facts_only_needs_no_engine(examples, monkeypatch):
    calls = counting(monkeypatch)
    rows = run_mod.module_rows(examples[0][0], examples[0][1], relations=["rpo"], engine="clingo")
    assert calls["engine"] == []
    assert rows.function(examples[0][0].defined_functions()[0].name)["rpo"]


def test_module_rows_of_named_functions_only():
    """``predicates --function F`` analyses F alone (issue #12 item 2): the same rows for F as
    a whole-module run, none for the other functions."""
    from pylogic.analysis.run import module_rows
    from pylogic.ir.load import load_program
    module, _ = load_program(str(ROOT / "examples" / "loop_call.pir"))
    whole = module_rows(module, "lc.pir", relations=("idom", "ipdom"))
    only = module_rows(module, "lc.pir", relations=("idom", "ipdom"), functions=["fib"])
    assert only.functions() == ["lc.pir::fib"]
    assert sorted(only["idom"]) == sorted(r for r in whole["idom"] if r[0] == "lc.pir::fib")
    assert any(r[0] != "lc.pir::fib" for r in whole["idom"])


def test_a_whole_module_analysis_is_one_engine_call(examples, monkeypatch):
    """correlation needs every function of a module in its run (callers, callee summaries):
    neither ``jobs`` nor a function over LARGE_FUNCTION_BLOCKS shares it out, as they do a
    per-function analysis."""
    monkeypatch.setattr(run_mod, "LARGE_FUNCTION_BLOCKS", 0)     # every function "large"
    per_function = run_mod.analyze_modules(examples, engine="clingo", relations=["idom"], jobs=2)
    assert len(per_function.calls) == len(per_function.scopes) > 1
    whole = run_mod.analyze_modules(examples, engine="clingo", relations=["correlation"], jobs=2)
    assert [sorted(c.functions) for c in whole.calls] == [sorted(whole.scopes)]
    assert not whole.failures and whole.rows["correlation"]


def test_a_failed_whole_module_call_fails_every_function(examples, monkeypatch):
    """A failed batch of a per-function analysis is retried one by one; of correlation it is
    every function's failure (alone, a function's queries would find no call sites: other
    answers, silently), and module_rows raises."""
    from pylogic.errors import DatalogError, PathlogicError
    real = run_mod.run_checked

    def batch_fails(program, facts_dir, engine, facts, **k):
        if len({r[0] for r in facts["function"]}) > 1:
            raise DatalogError("injected out of memory")
        return real(program, facts_dir, engine, facts, **k)

    monkeypatch.setattr(run_mod, "run_checked", batch_fails)
    retried = run_mod.analyze_modules(examples, engine="clingo", relations=["idom"])
    assert not retried.failures and retried.rows["idom"]
    failed = run_mod.analyze_modules(examples, engine="clingo", relations=["correlation"])
    assert sorted(failed.failures) == sorted(failed.scopes) and len(failed.failures) > 1
    assert all("injected out of memory" in e for e in failed.failures.values())
    module, relpath = next((m, r) for m, r in examples if len(m.defined_functions()) > 1)
    with pytest.raises(PathlogicError, match="injected out of memory"):
        run_mod.module_rows(module, relpath, relations=["correlation"], engine="clingo")
