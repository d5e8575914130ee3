"""benchmarks/drivers.py: a main for compile-only C tests (gcc.dg/tree-ssa) that calls each
function on arguments the analyses cannot see, stubs the functions the test only declares, and
makes what the call wrote observable."""
from __future__ import annotations

import pytest

from benchmarks import drivers
from benchmarks.drivers import ARGUMENT_VECTORS, add_driver
from pylogic.interp.conditionals import conditional_blocks
from pylogic.interp.native import run_with
from pylogic.ir.llvm.clang import prepare_c, run_opt
from pylogic.ir.llvm.importer import import_llvm
from tests.support import needs_clang

SOURCE = r"""
extern int ext(int);
int *gp;
struct s { int a, b; };
int f(int a, int *p) { *p = a + 1; if (gp) *gp = 3; return ext(a) > 0 ? a * 2 : a; }
double h(double x) { return x * 2; }
int byvalue(struct s v) { return v.a; }
"""


@needs_clang
def test_driver_runs_every_testable_function(tmp_path):
    c = tmp_path / "compile_only.c"
    c.write_text(SOURCE)
    ll = prepare_c(str(c), ("-w",))
    # not h (double); the two-int struct is passed as one i64 on x86-64, so byvalue is testable
    assert [f.name for f in drivers.testable_functions(ll)] == ["f", "byvalue"]
    driven, cases, funcs = add_driver(ll)
    assert len(cases) == 2 * len(ARGUMENT_VECTORS) and cases[0][0][0] == 0
    run_opt(driven, "verify", str(c))                          # LLVM accepts the driver
    module, report = import_llvm(driven, str(c))
    runs = [run_with("interp", module, entry="main", args=a, inputs=i, fuel=100_000)
            for a, i in cases]
    assert all(r.error is None for r in runs), [r.error for r in runs]
    # a = 0: f returns 0, *p = 1 (its buffer's first word), *gp = 3 (gp was null: pointed at a
    # buffer before the call): 0 ^ 1 ^ 3
    assert runs[0].return_value == 2
    # a = 1: *p = 2, *gp = 3, f returns 2 or 1 depending on the stub's unpredictable value
    assert runs[1].return_value ^ 2 ^ 3 in (1, 2)


@needs_clang
def test_a_program_with_main_gets_no_driver(tmp_path):
    c = tmp_path / "has_main.c"
    c.write_text("int main(void) { return 0; }\n")
    ll = prepare_c(str(c), ("-w",))
    assert add_driver(ll) == (ll, [], [])


@needs_clang
def test_driven_functions_are_analysed_as_called_from_outside(tmp_path):
    """The driver passes main's parameters, not constants: correlation cannot decide a branch
    of the driven function from its caller (a constant argument would make it decidable)."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.conditionals import conditional_branches
    c = tmp_path / "branchy.c"
    c.write_text("int g(int x) { if (x > 5) return 1; return 2; }\n")
    driven, cases, _ = add_driver(prepare_c(str(c), ("-w",)))
    module, _ = import_llvm(driven, str(c))
    out = optimize(module, ["icbe"], "branchy.c").module
    for a, i in cases:
        before = run_with("interp", module, entry="main", args=a, inputs=i, fuel=10_000)
        after = run_with("interp", out, entry="main", args=a, inputs=i, fuel=10_000)
        assert before.observable() == after.observable()
        assert conditional_branches(out, after) == conditional_branches(module, before)


@needs_clang
def test_harness_validates_a_compile_only_program(tmp_path):
    """The optimize harness runs a program without main through its driver: the cases that
    completed on the original are kept, and every version is compared on them."""
    from benchmarks import optimize as harness
    c = tmp_path / "pre_like.c"
    c.write_text("int foo(int a, int b, int p) { int x = 0; if (p) x = a + b; return x + (a + b); }\n")
    rec = harness.evaluate("pre_like.c", "tree-ssa", str(c), [["pre-m"]], ["gvn"])
    assert rec["status"] == "ok", rec
    assert rec["driver"] == {"functions": ["foo"], "cases": 3, "completed": 3,
                             "fuel": harness.DRIVER_FUEL}
    verdicts = {v["pipeline"]: v["verdict"] for v in rec["versions"]}
    assert verdicts == {"original": "reference", "ours:pre-m": "identical", "opt:gvn": "identical"}


def test_tree_ssa_selection_by_name_and_by_dumped_pass(tmp_path):
    from benchmarks.optimize import tree_ssa_sample
    folder = tmp_path / "tree-ssa"
    folder.mkdir()
    (folder / ".extracted").write_text("")
    (folder / "ssa-pre-1.c").write_text('/* { dg-options "-O2 -fdump-tree-pre-stats" } */\n')
    (folder / "loadpre1.c").write_text('/* { dg-options "-O2 -fdump-tree-pre-details" } */\n')
    (folder / "ssa-thread-1.c").write_text('/* { dg-options "-O2 -fdump-tree-thread1-details" } */\n')
    (folder / "fp.c").write_text('/* { dg-options "-fdump-tree-pre" } */\ndouble d;\n')
    names = lambda q: sorted(p.rsplit("/", 1)[1] for p in tree_ssa_sample(q, str(tmp_path)))
    assert names("ssa-pre-*") == ["ssa-pre-1.c"]
    assert names("dump:pre") == ["loadpre1.c", "ssa-pre-1.c"]          # fp.c: floating point
    assert names("dump:thread*,ssa-pre-*") == ["ssa-pre-1.c", "ssa-thread-1.c"]


@needs_clang
def test_the_dispatch_executes_as_many_conditionals_after_lowerswitch(tmp_path):
    """The driver's dispatch is a compare chain, the same in every version: LLVM's pipelines
    (normalised by lowerswitch) and the imported original execute the same conditionals in main
    (with a switch, lowerswitch's binary search ran fewer than the importer's chain: 54 vs 63 on
    gcc.dg/tree-ssa ssa-thread-14.c's six functions, counted as LLVM's win)."""
    c = tmp_path / "six.c"
    c.write_text("".join(f"int f{k}(int a) {{ return a + {k}; }}\n" for k in range(6)))
    driven, cases, _ = add_driver(prepare_c(str(c), ("-w",)))
    assert "switch" not in driven.split("define i64 @main")[1]
    original, _ = import_llvm(driven, str(c))
    lowered, _ = import_llvm(run_opt(driven, "jump-threading,lowerswitch", str(c)), str(c))

    def in_main(module):
        wanted = {b for f, b in conditional_blocks(module) if f == "@main"}
        return sum(n for a, i in cases for (f, b), n in
                   run_with("interp", module, entry="main", args=a, inputs=i,
                            fuel=100_000).block_profile.items() if f == "@main" and b in wanted)
    assert in_main(original) == in_main(lowered) == sum(k + 1 for k in range(6)) * 3   # 63
