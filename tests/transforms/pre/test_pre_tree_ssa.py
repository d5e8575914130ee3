"""The PRE passes on a fixed sample of GCC's own PRE tests (gcc.dg/tree-ssa, issue #14
acceptance), prepared and driven as ``benchmarks/optimize.py --tree-ssa`` does (clang-14 -O0,
mem2reg, lowerswitch; compile-only tests get the driver main of ``benchmarks/drivers.py`` and
keep the cases that complete on the original). Every pipeline's output must be identical in the
interpreter, never evaluate more expressions or loads than the original, and pre-mr never
more than pre-m (§12 item 19) and leave a reducible CFG where the input was (Fig. 6.19). Needs
the gcc-12-source tarball (Debian: apt-get install gcc-12-source), which CI does not install:
skipped with a message without it, as the torture tests are."""
from __future__ import annotations

import os

import pytest

from benchmarks.corpus import tree_ssa_programs
from benchmarks.drivers import add_driver
from benchmarks.optimize import DEFAULT_WORKDIR, DRIVER_FUEL, PREPARE_FLAGS
from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules, limit_reached
from pylogic.interp.machine import run_module
from pylogic.ir.llvm.clang import prepare_c
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.verify import verify_module
from tests.support import clang_path
from tests.transforms.pre.test_pre_reducible import reducible

#: PRE tests whose driver cases complete (git show 01ee404:runs/optimize-pre-all.json), where LLVM's gvn and our
#: passes differ in both directions.
SAMPLE = ("ssa-pre-1.c", "ssa-pre-3.c", "ssa-pre-18.c", "ssa-pre-23.c", "loadpre6.c")
PIPELINES = (("pre-m",), ("pre-ms",), ("pre-mr",), ("pre-mr-budget",),
             ("pre-r",))


def _program(name: str) -> str:
    if clang_path() is None:
        pytest.skip("clang-14 is not installed")
    found = {os.path.basename(p): p for p in tree_ssa_programs(DEFAULT_WORKDIR)}
    if not found:
        pytest.skip("gcc.dg/tree-ssa needs the gcc-12-source tarball (/usr/src/gcc-12), "
                    "not installed")
    return found[name]


def _evaluations(module, cases) -> int:
    total = 0
    for args, inputs in cases:
        c = expression_evaluations(module, run_module(module, args=args, inputs=inputs,
                                                      fuel=DRIVER_FUEL))
        total += c["expressions"] + c["loads"]
    return total


@pytest.mark.parametrize("name", SAMPLE)
@pytest.mark.slow
def test_pre_passes_on_gcc_pre_tests(name):
    path = _program(name)
    ll, driver_cases, _ = add_driver(prepare_c(path, PREPARE_FLAGS))
    module, report = import_llvm(ll, path)
    assert report.complete
    cases = driver_cases or [((), ())]
    runs = [run_module(module, args=a, inputs=i, fuel=DRIVER_FUEL) for a, i in cases]
    cases = [c for c, r in zip(cases, runs) if r.error is None and not limit_reached(r)]
    assert cases
    was_reducible = {fn.name for fn in module.defined_functions() if reducible(fn)}
    before = _evaluations(module, cases)
    after = {}
    for pipeline in PIPELINES:
        new = optimize(module, list(pipeline), name, engine="clingo").module
        assert verify_module(new) == [], pipeline
        check = compare_modules(module, new, cases, fuel=DRIVER_FUEL)
        assert check.verdict == "identical", (pipeline, check.verdict, check.first_difference)
        for fn in new.defined_functions():
            if fn.name in was_reducible:
                assert reducible(fn), (pipeline, fn.name)
        after[pipeline[0]] = _evaluations(new, cases)
        assert after[pipeline[0]] <= before, pipeline
    assert after["pre-mr"] <= after["pre-m"]
