"""Typed parameters, pathlogic's extension of IR.md (docs/pir.md "Extensions"): ``func F(X:s32,
B:u1)``; a call (or the program's start) whose argument lies outside the parameter's range is a
run-time error. Parser and printer (round trip), verifier, interpreter and native engine (the
same fault), facts (unchanged), and the LLVM importer (i1 -> u1, iN -> sN; none on pointers, i64
or address-taken functions)."""
from __future__ import annotations

import pytest

from facts_gen.extract import extract_module
from pylogic.errors import PathlogicError
from pylogic.interp import run_module
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.model import Function, param_type_range
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module

TYPED = """func f(x:s8, b:u1, p) {
entry:
    r = add x, b
    s = add r, p
    ret s
}

func main(a) {
entry:
    r = call f(a, 1, 1000)
    print r
    ret 0
}
"""


def test_round_trip_and_ranges():
    m = parse_module(TYPED, "t.pir")
    f = m.function_map()["f"]
    assert f.param_types == ("s8", "u1", "")
    assert f.param_ranges() == {"x": (-128, 127), "b": (0, 1)}
    assert m.function_map()["main"].param_types == ()
    assert print_module(m).startswith("func f(x:s8, b:u1, p) {")
    assert parse_module(print_module(m), "t.pir") == m
    assert verify_module(m) == []
    assert param_type_range("s63") == (-(1 << 62), (1 << 62) - 1)
    assert param_type_range("u64") is None and param_type_range("s0") is None


@pytest.mark.parametrize("bad", ["x:i8", "x:s64", "x:", "x:u0"])
def test_a_malformed_type_is_a_located_parse_error(bad):
    with pytest.raises(PathlogicError, match=r"t.pir:1:.*sN or uN"):
        parse_module(TYPED.replace("x:s8", bad), "t.pir")


def test_the_verifier_wants_one_type_per_parameter():
    f = Function(name="g", params=("a", "b"), param_types=("s8",), extern=True)
    m = parse_module(TYPED, "t.pir")
    m = type(m)(functions=m.functions + (f,), globals=m.globals, path=m.path)
    assert any("1 parameter types for 2 parameters" in str(e) for e in verify_module(m))


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_an_argument_outside_the_range_faults_on_both_engines(engine):
    from pylogic.interp.native.select import run_with
    if engine == "native":
        pytest.importorskip("llvmlite")
    m = parse_module(TYPED, "t.pir")
    for a in (-128, 0, 127):
        r = run_with(engine, m, args=(a,))
        assert r.error is None and r.prints == [a + 1001]
    for a in (-129, 128, 1 << 40):
        r = run_with(engine, m, args=(a,))
        assert r.error is not None and "argument 1 of f" in str(r.error) and r.prints == []
    # the program's start is checked too
    r = run_module(m, entry="f", args=(5, 2, 0))
    assert r.error is not None and "argument 2 of f (2) is outside its type u1" in str(r.error)


def test_facts_do_not_change():
    typed = extract_module(parse_module(TYPED, "t.pir"), "t.pir")
    plain = extract_module(parse_module(TYPED.replace("x:s8, b:u1", "x, b"), "t.pir"), "t.pir")
    assert typed == plain


LL = """
define i32 @f(i8 %c, i1 zeroext %b, i32 %n, i64 %w, i8* %p) {
entry:
  %x = sext i8 %c to i32
  %y = add i32 %x, %n
  ret i32 %y
}

define i32 @g(i16 %h) {
entry:
  %x = sext i16 %h to i32
  ret i32 %x
}

@fp = global i32 (i16)* @g

define i32 @main() {
entry:
  %r = call i32 @f(i8 -3, i1 true, i32 7, i64 1, i8* null)
  %s = call i32 @g(i16 2)
  %t = add i32 %r, %s
  ret i32 %t
}
"""


def test_the_importer_types_narrow_integers_of_functions_only_called_directly():
    m, _ = import_llvm(LL, "t.ll")
    fns = m.function_map()
    assert fns["@f"].param_types == ("s8", "u1", "s32", "", "")
    assert fns["@g"].param_types == ()          # its address is taken: indirect calls
    assert fns["@main"].param_types == ()
    assert run_module(m).return_value == 6
