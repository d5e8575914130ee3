"""The shipped rules' semi-naive versions compiled ahead of time (``precompiled_versions``,
written by ``analysis/precompile_versions.py``): the module is what the generator writes today,
the python engine runs those functions for the shipped programs and code of its own for any
other rule, and both give the same rows (compiled to C, the precompiled functions are checked
against the same source run by the interpreter)."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from facts_gen.extract import empty_facts, extract_module
from pylogic.analysis import catalog
from pylogic.analysis.precompile_versions import TARGET, module_text
from pylogic.engines import indexed, load_program, run_checked
from pylogic.engines import python_engine
from pylogic.ir.parser import parse_file

ROOT = Path(__file__).resolve().parents[2]

#: shipped programs the optimizer and ``analyze`` run on the python engine
PROGRAMS = ("dominance.dl", "cfg_analyses.dl", "correlation.dl", "pre.dl",
            "predicated_deadness.dl", "vng.dl", "ppg.dl")


@pytest.mark.slow
def test_the_module_is_what_the_generator_writes():
    assert TARGET.read_text() == module_text(), \
        "out of date: python -m pylogic.analysis.precompile_versions"


def _facts() -> dict:
    facts = empty_facts()
    for path in sorted((ROOT / "examples").glob("*.pir")):
        extract_module(parse_file(path), path.name, facts)
    return facts


@pytest.mark.slow
@pytest.mark.parametrize("name", PROGRAMS)
def test_precompiled_and_run_time_versions_give_the_same_rows(name, monkeypatch):
    facts = _facts()
    path = catalog.datalog_dir() / name
    made = []
    real = indexed.CompiledComponent._functions

    def recording(self):
        real(self)
        made.append((len(self.keys), len(self.code)))
    monkeypatch.setattr(indexed.CompiledComponent, "_functions", recording)
    ahead = run_checked(load_program(path), None, "python", facts)
    versions = sum(n for n, _ in made)
    assert versions > 0 and sum(c for _, c in made) == 0     # every version precompiled
    made.clear()
    monkeypatch.setattr(indexed, "VERSIONS", {})
    here = run_checked(load_program(path), None, "python", facts)
    assert sum(c for _, c in made) == sum(n for n, _ in made) > 0
    assert here == ahead
    assert sum(map(len, ahead.values())) > 0


USER = """
.decl e(a: number, b: number)
.input e
.decl path(a: number, b: number, s: symbol)
.output path
path(a, b, "one") :- e(a, b).
path(a, c, "more") :- path(a, b, _), e(b, c).
"""


def test_a_rule_of_ones_own_is_compiled_at_run_time_and_plans_pickle(tmp_path):
    path = tmp_path / "user.dl"
    path.write_text(USER)
    program = load_program(path)
    rows = run_checked(program, None, "python", {"e": [(1, 2), (2, 3)]})
    assert rows["path"] == [(1, 2, "one"), (1, 3, "more"), (2, 3, "one")]
    plan = python_engine.Plan(program, set(program.relations), frozenset(program.relations))
    assert plan.refused is None and plan.components
    assert all(len(c.code) == len(c.keys) for c in plan.components)     # none shipped
    again = pickle.loads(pickle.dumps(plan))
    assert [c.keys for c in again.components] == [c.keys for c in plan.components]
    # a plan kept by a build that precompiled a version this one does not: not loaded (a miss)
    state = plan.components[0].__getstate__()
    state["code"] = {}
    with pytest.raises(ValueError):
        indexed.CompiledComponent.__new__(indexed.CompiledComponent).__setstate__(state)
