"""Differential checking (pylogic.interp.differential): before vs after a transformation, native
vs PIR, and the counts by kind of instruction the interpreter reports (``RunResult.kinds``)."""
from __future__ import annotations

import dataclasses
import pathlib
from collections import Counter

import pytest

from pylogic.interp import run_module
from pylogic.interp.builtins import ProgramExit
from pylogic.interp.decode import resolve_function
from pylogic.interp.differential import (DIFFERENT, IDENTICAL, NOT_COMPARED, compare_modules,
                                         compare_runs, native_vs_pir, run_native)
from pylogic.interp.machine import DEFAULT_MEMORY_LIMIT, KINDS, Machine
from pylogic.ir.llvm.clang import find_clang
from pylogic.ir.model import Imm
from pylogic.ir.ops import Fault
from pylogic.ir.parser import parse_file, parse_module
from pylogic.ir.verify import verify_module

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
FEASIBLE = [((), (1, 0)), ((), (0, 1)), ((), (0, 0))]  # predicated_cp.md §4.2, the three paths

needs_clang = pytest.mark.skipif(find_clang() is None, reason="clang-14 not installed")


@pytest.fixture(scope="module")
def pcp():
    return [parse_file(EXAMPLES / f"pcp_{form}.pir") for form in ("branchy", "ifconverted")]


SUM = parse_module("""
func main(n) {
entry:
    s = mov 0
    i = mov 0
    br head
head:
    c = cmp.lt i, n
    cbr c, body, done
body:
    x = input
    s = add s, x
    i = add i, 1
    br head
done:
    print s
    ret s
}
""", "sum.pir")

LOOP = parse_module("""
func main() {
entry:
    br entry
}
""", "loop.pir")


def change_constant(module, old: int, new: int):
    """A deliberately broken transformation: every immediate ``old`` becomes ``new``."""
    def fix(ins):
        changes = {f.name: Imm(new) for f in dataclasses.fields(ins)
                   if getattr(ins, f.name) == Imm(old)}
        return dataclasses.replace(ins, **changes) if changes else ins
    functions = tuple(dataclasses.replace(fn, blocks=tuple(
        dataclasses.replace(b, instrs=tuple(fix(i) for i in b.instrs)) for b in fn.blocks))
        for fn in module.functions)
    return dataclasses.replace(module, functions=functions)


# ---------------------------------------------------------------- before vs after

def test_identical_programs_are_identical(pcp):
    branchy, converted = pcp
    check = compare_modules(branchy, converted, FEASIBLE)
    assert check.verdict == IDENTICAL and check.exit_code == 0
    assert [c.verdict for c in check.comparisons] == [IDENTICAL] * 3
    for c in check.comparisons:
        assert c.detail == "" and c.identical
        before, after = c.kinds("before"), c.kinds("after")
        assert before["branches"] > 0 and after["branches"] == 0
        assert before["predicate_defines"] == 0 and after["predicate_defines"] == 3
        assert sum(after.values()) == c.counts("after")["instructions"] == 32
    assert compare_modules(SUM, SUM, [((3,), (1, 2, 3))]).verdict == IDENTICAL


def test_changed_constant_is_different_with_first_difference():
    broken = change_constant(SUM, 1, 2)  # i = add i, 2: the loop reads every other input
    check = compare_modules(SUM, broken, [((0,), ()), ((2,), (5, 7)), ((4,), (1, 2, 3, 4))])
    assert [c.verdict for c in check.comparisons] == [IDENTICAL, DIFFERENT, DIFFERENT]
    assert check.verdict == DIFFERENT and check.exit_code == 1
    first = check.first_different
    assert first.inputs == (5, 7) and first.detail == "line 1: before '12' vs after '5'"
    assert check.first_difference == "args (2,) inputs (5, 7): line 1: before '12' vs after '5'"
    data = first.to_json()
    assert data["verdict"] == DIFFERENT and data["identical"] is False
    assert data["before"]["kinds"]["branches"] == 6 and data["after"]["kinds"]["branches"] == 4


def test_differences_in_return_value_and_error():
    quiet = parse_module("func main(a) {\nentry:\n    x = div 10, a\n    ret x\n}\n", "q.pir")
    verdict, detail = compare_runs(run_module(quiet, args=(2,)), run_module(quiet, args=(5,)))
    assert verdict == DIFFERENT and detail == "return value: before 5 vs after 2"
    verdict, detail = compare_runs(run_module(quiet, args=(2,)), run_module(quiet, args=(0,)))
    assert verdict == DIFFERENT and detail.startswith("run-time error: before None vs after")
    # the same run-time error on both sides: agreement up to the error only, never identical
    verdict, detail = compare_runs(run_module(quiet, args=(0,)), run_module(quiet, args=(0,)))
    assert verdict == NOT_COMPARED
    assert detail == ("both runs stopped on the same run-time error: division by zero in main "
                      "block entry (at q.pir:3:5)")
    # different errors are different
    other = parse_module("func main(a) {\nentry:\n    x = rem 10, a\n    ret x\n}\n", "r.pir")
    verdict, detail = compare_runs(run_module(quiet, args=(0,)), run_module(other, args=(0,)))
    assert verdict == DIFFERENT and "'division by zero' vs after 'division by zero (remainder)'" \
        in detail


def test_same_error_after_different_output_is_different():
    talk = parse_module("func main(a) {\nentry:\n    print a\n    x = div 10, 0\n    ret x\n}\n",
                        "t.pir")
    check = compare_modules(talk, change_constant(talk, 10, 11), [((1,), ()), ((2,), ())])
    assert [c.verdict for c in check.comparisons] == [NOT_COMPARED] * 2
    verdict, detail = compare_runs(run_module(talk, args=(1,)), run_module(talk, args=(2,)))
    assert verdict == DIFFERENT and detail == "line 1: before '1' vs after '2'"


def test_input_exhausted_on_both_sides_is_not_compared_with_a_hint():
    check = compare_modules(SUM, SUM, [((3,), (1, 2))])     # reads 3 values, 2 given
    [c] = check.comparisons
    assert check.verdict == NOT_COMPARED and check.exit_code == 2 and not c.identical
    assert c.detail.startswith("both runs stopped on the same run-time error: input exhausted")
    assert c.detail.endswith("-- give more input values")
    assert check.reason == f"args (3,) inputs (1, 2): {c.detail}"
    # exhausted on one side only: the transformed program reads more input, a real difference
    once = parse_module("func main() {\nentry:\n    x = input\n    ret x\n}\n", "once.pir")
    twice = parse_module("func main() {\nentry:\n    x = input\n    y = input\n    ret x\n}\n",
                         "twice.pir")
    check = compare_modules(once, twice, [((), (5,))])
    assert check.verdict == DIFFERENT
    assert check.first_difference == ("args () inputs (5,): run-time error: before None vs after "
                                      "'input exhausted: the program read more values than were "
                                      "given'")


def test_an_unknown_external_on_both_sides_is_not_compared():
    ext = parse_module("extern func scanf(a)\nfunc main() {\nentry:\n    print 1\n"
                       "    x = call scanf(0)\n    ret x\n}\n", "ext.pir")
    [c] = compare_modules(ext, ext).comparisons
    assert c.verdict == NOT_COMPARED and "unknown external function scanf" in c.detail


def test_exit_statuses_are_shared_and_distinct():
    from pylogic.interp.differential import EXIT_STATUS, exit_status
    assert EXIT_STATUS == {IDENTICAL: 0, DIFFERENT: 1, NOT_COMPARED: 2}
    assert [exit_status(v) for v in (IDENTICAL, DIFFERENT, NOT_COMPARED, "other")] == [0, 1, 2, 2]


def test_fuel_exhausted_is_not_compared_never_identical():
    check = compare_modules(LOOP, LOOP, [((), ())], fuel=1000)
    [c] = check.comparisons
    assert c.verdict == NOT_COMPARED and check.verdict == NOT_COMPARED and check.exit_code == 2
    assert c.detail.startswith("before: fuel exhausted")
    # one side finishes, the other runs out: still not compared
    check = compare_modules(SUM, SUM, [((3,), (1, 2, 3)), ((10 ** 6,), (1,) * 10 ** 6)], fuel=500)
    assert [c.verdict for c in check.comparisons] == [IDENTICAL, NOT_COMPARED]
    assert check.verdict == NOT_COMPARED
    # a difference elsewhere decides the verdict
    check = compare_modules(SUM, change_constant(SUM, 1, 2),
                            [((10 ** 6,), ()), ((2,), (5, 7))], fuel=500)
    assert check.verdict == DIFFERENT and check.first_different.inputs == (5, 7)


def test_other_limits_and_missing_entry_are_not_compared():
    deep = parse_module("func f(n) {\nentry:\n    x = call f(n)\n    ret x\n}\n"
                        "func main() {\nentry:\n    y = call f(1)\n    ret y\n}\n", "deep.pir")
    [c] = compare_modules(deep, deep, max_depth=50).comparisons
    assert c.verdict == NOT_COMPARED and "call depth limit" in c.detail
    [c] = compare_modules(SUM, SUM, entry="nowhere").comparisons
    assert c.verdict == NOT_COMPARED and "no function nowhere" in c.detail
    # the entry function on one side only: the transformed program cannot be run as before
    renamed = parse_module("func other() {\nentry:\n    ret 0\n}\n", "renamed.pir")
    [c] = compare_modules(SUM, renamed, [((0,), ())]).comparisons
    assert c.verdict == DIFFERENT and c.detail == "after: no function main to run"
    assert compare_modules(SUM, SUM, []).verdict == NOT_COMPARED  # nothing was run


# ---------------------------------------------------------------- counts by kind

def _kind(ins) -> str:
    op = None if ins is None else ins.opcode
    return {"br": "branches", "cbr": "branches", "load": "loads", "store": "stores",
            "pcmp": "predicate_defines", "call": "calls", "ret": "returns", "alloca": "other",
            "input": "other", "print": "other", "mov": "moves", None: "other"}.get(op, "computations")


def traced_kinds(module, args=(), inputs=(), fuel=10 ** 6, max_depth=10 ** 4) -> dict:
    """The oracle: one instruction at a time (``FunctionCode.steps``), each counted by kind."""
    m = Machine(module)
    m.reset(inputs, DEFAULT_MEMORY_LIMIT)
    m.layout_globals()
    fc = m.code[resolve_function(m.functions, "main").name]
    R = [0] * fc.nregs
    for slot, v in zip(fc.param_slots, args):
        R[slot] = v
    pc, frames, seen = 0, [], Counter()
    while fuel > 0:
        seen[_kind(fc.instrs[pc])] += 1
        fuel -= 1
        try:
            pc = fc.steps[pc](R)
        except (Fault, ProgramExit):
            break
        if pc == -1:
            if not frames:
                break
            value = m.box[0]
            fc, R, pc, dest = frames.pop()
            if dest >= 0:
                R[dest] = value
        elif pc <= -2:
            site = -2 - pc
            callee, dest = fc.sites[site]
            if len(frames) >= max_depth:
                break
            frames.append((fc, R, site + 1, dest))
            fc, pc, R = callee, 0, [0] * callee.nregs
            for slot, v in zip(callee.param_slots, m.box[0]):
                R[slot] = v
    return {k: seen.get(k, 0) for k in KINDS}


SIDE_EXITS = parse_module("""
global arr[64]

func f(x) {
entry: !hyperblock
    p:ut = pcmp.lt x, 3
    (p) ret 7
    print x
    q:ut, r:uf = pcmp.lt x, 5
    (q) br out
    (r) y = call f(2)
    a = and x, 7
    off = shl a, 3
    addr = add arr, off
    v = load addr
    v = add v, y
    store addr, v
    u:ut = pcmp.eq a, 1
    (u) br back
    br out
back:
    z = div 100, x
    ret z
out:
    w = sub x, 1
    z = call f(w)
    ret z
}

func main(n) {
entry:
    a = call f(n)
    print a
    b = call f(9)
    c = div 1, n
    ret c
}
""", "side.pir")


@pytest.mark.parametrize("module, args, inputs", [
    (SIDE_EXITS, (4,), ()), (SIDE_EXITS, (9,), ()), (SIDE_EXITS, (8,), ()),
    (SIDE_EXITS, (0,), ()),
    (SUM, (5,), (1, 2, 3, 4, 5)), (SUM, (5,), (1, 2)),
])
@pytest.mark.slow
def test_kinds_match_one_step_at_a_time(module, args, inputs):
    assert verify_module(module) == []
    full = run_module(module, args=args, inputs=inputs)
    n = full.counts["instructions"]
    for fuel in sorted({1, 2, 3, 5, 8, 13, n // 2, n - 1, n, 10 ** 6} - {0}):
        res = run_module(module, args=args, inputs=inputs, fuel=fuel)
        assert res.kinds == traced_kinds(module, args, inputs, fuel), fuel
        assert sum(res.kinds.values()) == res.counts["instructions"]
    deep = run_module(SIDE_EXITS, args=(8,), max_depth=3)
    assert "call depth limit" in str(deep.error)
    assert deep.kinds == traced_kinds(SIDE_EXITS, (8,), max_depth=3)


def test_kinds_need_the_profile(pcp):
    assert run_module(pcp[0], inputs=(1, 0), capture_profile=False).kinds == {}
    assert set(run_module(pcp[0], inputs=(1, 0)).to_json()["kinds"]) == set(KINDS)


# ---------------------------------------------------------------- native vs PIR

C_PROGRAM = r"""
#include <stdio.h>
static int square(int x) { return x * x; }
int main(void) {
    int s = 0;
    for (int i = 0; i < 10; i++) s += square(i);
    printf("sum %d\n", s);
    printf("caf\xe9\n");  /* a byte that is not UTF-8: compared as bytes */
    return s & 7;
}
"""


@pytest.fixture
def c_program(tmp_path):
    path = tmp_path / "small.c"
    path.write_text(C_PROGRAM, encoding="latin-1")
    return str(path)


@needs_clang
def test_native_vs_pir_identical(c_program):
    v = native_vs_pir(c_program, timeout=30)
    assert v.status == "identical" and v.verdict == IDENTICAL and v.exit_code == 0, v.detail
    assert v.native_stdout.startswith("sum 285\n") and v.native_exit == 285 & 7
    assert v.pir_instructions_executed > 0 and v.to_dict()["verdict"] == IDENTICAL


@needs_clang
def test_native_vs_pir_difference_and_not_compared(c_program):
    def wrong(path, args=(), timeout=10.0, exe_dir=None):
        out, status = run_native(path, args, timeout, exe_dir)
        return out.replace("285", "286"), status
    v = native_vs_pir(c_program, timeout=30, native=wrong)
    assert v.status == "different" and v.verdict == DIFFERENT and v.exit_code == 1
    assert v.detail == "line 1: native 'sum 286' vs pir 'sum 285'"

    def slow(path, args=(), timeout=10.0, exe_dir=None):
        raise TimeoutError("native run exceeded 1 s")
    v = native_vs_pir(c_program, native=slow)
    assert v.status == "timeout" and v.verdict == NOT_COMPARED and v.exit_code == 2
    v = native_vs_pir(c_program, fuel=50, timeout=30)
    assert v.status == "fuel" and v.verdict == NOT_COMPARED and v.exit_code == 2


@needs_clang
def test_self_checking_program_that_fails_natively_is_not_compared(c_program):
    v = native_vs_pir(c_program, timeout=30, self_checking=True)  # exits 5: its check "failed"
    assert v.status == "native-fails" and v.verdict == NOT_COMPARED and v.pir_stdout == ""
