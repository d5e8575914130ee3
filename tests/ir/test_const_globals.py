"""Constant globals, pathlogic's extension of IR.md (docs/pir.md "Extensions"): ``const global
NAME...``; a write into its bytes (``store``, and the library functions writing memory) is a
run-time error, on the interpreter and the native engine. Parser and printer (round trip), the
LLVM importer (``constant`` globals without relocations), facts (read-only memory roots) and
``simplify`` (loads at constant offsets fold even when the address escapes)."""
from __future__ import annotations

import pytest

from pylogic.flow.known_bytes import readonly_contents
from pylogic.flow.readonly_globals import readonly_globals as fact_readonly
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module

PROGRAM = """const global s = "ab"
const global t[4] = {1, 2}
global u[8]

func main(a) {
entry:
    x = load.1 s
    print x
    c = cmp.eq a, 1
    cbr c, store, next
store:
    store.1 s, 7
    br next
next:
    d = cmp.eq a, 2
    cbr d, library, next2
library:
    call @memset(t, 0, 1)
    br next2
next2:
    e = cmp.eq a, 3
    cbr e, copy, out
copy:
    call @strcpy(s, u)
    br out
out:
    call @memset(u, 1, 8)
    call @memcpy(u, t, 2)
    y = load u
    print y
    ret 0
}

extern func @memset(d, c, n)
extern func @memcpy(d, q, n)
extern func @strcpy(d, q)
"""


def test_round_trip():
    m = parse_module(PROGRAM, "t.pir")
    assert [g.const for g in m.globals] == [True, True, False]
    text = print_module(m)
    assert text.startswith('const global s = "ab"\nconst global t[4] = {1, 2}\nglobal u[8]\n')
    assert parse_module(text, "t.pir") == m and verify_module(m) == []


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_a_write_into_a_const_global_faults_on_both_engines(engine):
    from pylogic.interp.native.select import run_with
    if engine == "native":
        pytest.importorskip("llvmlite")
    m = parse_module(PROGRAM, "t.pir")
    r = run_with(engine, m, args=(0,))
    assert r.error is None and r.prints == [97, 0x0101010101010201]
    for a, what in ((1, "store of 1 byte"), (2, "write of 1 byte"), (3, "write of 1 byte")):
        r = run_with(engine, m, args=(a,))
        assert r.error is not None and what in str(r.error) and "is constant" in str(r.error)
        assert r.prints == [97]
    # the same module without 'const' runs to its end
    plain = parse_module(PROGRAM.replace("const global", "global"), "t.pir")
    assert run_with(engine, plain, args=(1,)).error is None


LL = """
%struct.p = type { i32, i32, [3 x i8] }
@ao = dso_local constant %struct.p { i32 2, i32 2, [3 x i8] c"OK\\00" }, align 4
@a = dso_local constant ptr @ao, align 8
@w = dso_local global i32 1, align 4
@.str = private unnamed_addr constant [2 x i8] c"a\\00", align 1

define i32 @main() {
entry:
  %x = load i32, ptr getelementptr (%struct.p, ptr @ao, i32 0, i32 1)
  %p = load ptr, ptr @a
  %c = load i8, ptr @.str
  %y = zext i8 %c to i32
  %z = add i32 %x, %y
  ret i32 %z
}
"""


def test_the_importer_marks_llvm_constants_whose_bytes_it_knows():
    m, _ = import_llvm(LL, "t.ll")
    const = {g.name: g.const for g in m.globals}
    assert const == {"@ao": True, "@a": False, "@w": False, "@.str": True}   # @a: relocated
    from pylogic.interp import run_module
    assert run_module(m).return_value == 99


ESCAPES = """const global k[8] = {5, 0, 0, 0, 7}
global sink[8]

func main(a) {
entry:
    store sink, k
    p = add k, 4
    x = load.4 p
    y = load.4 k
    z = add x, y
    c = cmp.eq a, 1
    cbr c, w, out
w:
    store.4 p, 9
    br out
out:
    print z
    ret 0
}
"""


def test_loads_from_a_const_global_fold_though_its_address_escapes():
    m = parse_module(ESCAPES, "t.pir")
    assert set(readonly_contents(m)) == {"k"} and fact_readonly(m) == {"k"}
    plain = parse_module(ESCAPES.replace("const global", "global"), "t.pir")
    assert readonly_contents(plain) == {} and fact_readonly(plain) == frozenset()
    after = optimize(m, ["simplify"], "t.pir", engine="clingo").module
    z = next(i for b in after.functions[0].blocks for i in b.instrs if i.defs() == ("z",))
    from pylogic.ir.printer import print_instr
    assert print_instr(z) == "z = mov 12"
    assert compare_modules(m, after, [((0,), ())]).verdict == "identical"
    assert compare_modules(m, after, [((1,), ())]).verdict == "not compared"   # both fault
