"""PRE never moves a computation that may trap (div, rem) above a call, which may not return
(PathFinder §6.5, spurious exceptions): gcc's torture test pr38819, where the loop-invariant
si1 % si2 (si2 = 0) follows a call of exit. Found by the corpus run: after pre-mr's restructuring
(a do-until loop) pre-m hoisted the remainder above the call and the program stopped on a
division by zero."""
from __future__ import annotations

import pytest

from benchmarks.optimize import PREPARE_FLAGS
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.llvm.clang import prepare_c
from pylogic.ir.llvm.importer import import_llvm
from tests.support import clang_path

PR38819 = """extern void exit (int);
extern void abort (void);
volatile int a = 1;
volatile int b = 0;
volatile int x = 2;
volatile signed int r = 8;
void __attribute__((noinline)) foo (void) { exit (0); }
int main (void)
{
  int si1 = a;
  int si2 = b;
  int i;
  for (i = 0; i < 100; ++i) {
      foo ();
      if (x == 8)
        i++;
      r += i + si1 % si2;
  }
  abort ();
}
"""


@pytest.mark.parametrize("pipeline", [("pre-m",), ("pre-mr",), ("pre-r",),
                                      ("pre-mr-budget",), ("pre-ms",)])
def test_a_remainder_is_not_hoisted_above_a_call_that_exits(pipeline, tmp_path):
    if clang_path() is None:
        pytest.skip("clang-14 is not installed")
    path = tmp_path / "pr38819.c"
    path.write_text(PR38819)
    module, _ = import_llvm(prepare_c(str(path), PREPARE_FLAGS), str(path))
    new = optimize(module, list(pipeline), "p.c", engine="clingo").module
    check = compare_modules(module, new, [((), ())])
    assert check.verdict == "identical", (pipeline, check.first_difference)
