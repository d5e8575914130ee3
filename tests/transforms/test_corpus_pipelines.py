"""Every pipeline of the optimization harness keeps the behaviour of a fixed corpus sample
(issue #10's acceptance): the ``.pir`` examples with their cases, the C fixtures of the LLVM
front end and short csmith programs (fixed seeds), each prepared as ``benchmarks/optimize.py``
prepares it (``prepare_c``: clang-14 -O0, mem2reg, lowerswitch) and imported; each pipeline's
output runs in the interpreter against the original. The verdict must be ``identical``: both
runs completed and agreed (``different`` or ``not compared`` fail). Whole corpora (csmith 1-50,
gcc torture) are ``benchmarks/optimize.py``'s job."""
from __future__ import annotations

import glob
import os
import shutil

import pytest

from benchmarks.corpus import csmith_program
from benchmarks.optimize import EXAMPLE_CASES, PREPARE_FLAGS
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.llvm.clang import prepare_c
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.load import load_module
from pylogic.ir.verify import verify_module
from tests.support import clang_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIPELINES = (("sccp",), ("pcp-basic",), ("pcp-full",), ("if-convert",), ("if-convert", "sccp"),
             ("if-convert", "pcp-basic"), ("if-convert", "pcp-full"))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.pir")))
#: The C fixtures that import completely (has_float.c skips a function; syntax_error.c is one).
C_FIXTURES = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "ir", "llvm", "c", "*.c"))
                    if os.path.basename(p) not in ("has_float.c", "syntax_error.c"))
#: csmith seeds whose programs run in well under a second in the interpreter (csmith-1..50 of
#: runs/optimize-cp.json, fewest instructions executed).
CSMITH_SEEDS = (3, 20, 23, 29, 45)
PROGRAMS = ([("example", p) for p in EXAMPLES] + [("c", p) for p in C_FIXTURES]
            + [("csmith", str(s)) for s in CSMITH_SEEDS])


def test_the_sample_has_at_least_twenty_programs():
    assert len(PROGRAMS) >= 20


def _load(kind: str, where: str, tmp_path):
    if kind == "example":
        return load_module(where), EXAMPLE_CASES.get(os.path.basename(where), [((), ())])
    if clang_path() is None:
        pytest.skip("clang-14 is not installed")
    if kind == "csmith":
        if shutil.which("csmith") is None:
            pytest.skip("csmith is not installed")
        where = _csmith(int(where), str(tmp_path))
        assert where is not None
    module, report = import_llvm(_prepared(where), where)
    assert not report.skipped_by_reason(), report.skipped_by_reason()
    return module, [((), ())]


#: clang's output and csmith's program, made once per session: four corpus test files load the
#: same sample (each import still builds its own module, so no pass sees another's objects)
_CLANG: dict[str, str] = {}
_CSMITH: dict[int, str] = {}


def _prepared(path: str) -> str:
    if path not in _CLANG:
        _CLANG[path] = prepare_c(path, PREPARE_FLAGS)
    return _CLANG[path]


def _csmith(seed: int, tmp: str) -> str | None:
    if seed not in _CSMITH:
        path = csmith_program(seed, tmp)
        if path is None:
            return None
        _CSMITH[seed] = path
    return _CSMITH[seed]


@pytest.mark.slow
@pytest.mark.parametrize("kind,where", PROGRAMS,
                         ids=[os.path.basename(w) if k != "csmith" else f"csmith-{w}"
                              for k, w in PROGRAMS])
def test_every_pipeline_keeps_the_behaviour(kind, where, tmp_path):
    module, cases = _load(kind, where, tmp_path)
    for pipeline in PIPELINES:
        result = optimize(module, list(pipeline), "p", engine="clingo")
        assert verify_module(result.module) == [], pipeline
        check = compare_modules(module, result.module, cases)
        assert check.verdict == "identical", (pipeline, check.verdict, check.first_difference)
