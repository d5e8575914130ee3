"""LLVM IR import: lowering semantics checked against independent oracles (Python arithmetic
with LLVM's semantics, lli), structure (PIR verifier, print/parse round trip), coverage report."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.errors import ImportError_
from pylogic.interp import run_module
from pylogic.ir.llvm.importer import INIT_FUNCTION, import_llvm
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module

HERE = os.path.dirname(__file__)
FEATURES = os.path.join(HERE, "ll", "features.ll")
#: lli-14's output for features.ll (recorded; re-checked against lli when it is installed).
FEATURES_EXPECTED = """10 10 20
12 21 30
1844674407370955161 5 1
3074457345618258602 1 234
16777214 -2 140737488355327
-1 0 0
-4 2147483647 7
-2 98 1
100 -28 -32768
4294967295 255 1
"""


def _import(text: str):
    module, report = import_llvm(text, "<test>")
    assert verify_module(module) == []
    assert parse_module(print_module(module)) == module
    return module, report


def test_features_ll_matches_lli():
    with open(FEATURES) as fh:
        module, report = _import(fh.read())
    assert report.complete, report.summary()
    res = run_module(module, fuel=10**6)
    assert res.error is None
    assert res.stdout == FEATURES_EXPECTED
    lli = shutil.which("lli-14") or shutil.which("lli")
    if lli:
        native = subprocess.run([lli, FEATURES], capture_output=True, text=True, timeout=60)
        assert native.stdout == res.stdout


def test_relocated_globals_use_init_function():
    with open(FEATURES) as fh:
        module, _ = _import(fh.read())
    fmap = module.function_map()
    assert INIT_FUNCTION in fmap
    first = fmap["@main"].blocks[0].instrs[0]
    assert first.opcode == "call" and first.callee == INIT_FUNCTION


POINTER_TABLE = r"""
@a = internal global [4 x i32] [i32 5, i32 6, i32 7, i32 8], align 4
@t = internal global [5 x i32*] [i32* getelementptr ([4 x i32], [4 x i32]* @a, i64 0, i64 1),
  i32* getelementptr ([4 x i32], [4 x i32]* @a, i64 0, i64 1), i32* getelementptr ([4 x i32],
  [4 x i32]* @a, i64 0, i64 3), i32* getelementptr ([4 x i32], [4 x i32]* @a, i64 0, i64 1),
  i32* getelementptr ([4 x i32], [4 x i32]* @a, i64 0, i64 0)], align 16
declare i32 @printf(i8*, ...)
@.fmt = private constant [4 x i8] c"%d\0A\00"
define i32 @main() {
entry:
  %slot = getelementptr [5 x i32*], [5 x i32*]* @t, i64 0, i64 3
  %p = load i32*, i32** %slot
  %v = load i32, i32* %p
  %q = load i32*, i32** getelementptr ([5 x i32*], [5 x i32*]* @t, i64 0, i64 2)
  %w = load i32, i32* %q
  %s = add i32 %v, %w
  %c = call i32 (i8*, ...) @printf(i8* getelementptr ([4 x i8], [4 x i8]* @.fmt, i64 0, i64 0), i32 %s)
  ret i32 0
}
"""


def test_init_function_computes_each_relocated_address_once():
    # a table of pointers into one array repeats addresses (csmith's tables: 798 adds for 416
    # addresses): each address plus offset is an ``add`` once, stored from its register
    module, _ = _import(POINTER_TABLE)
    init = module.function_map()[INIT_FUNCTION]
    adds = [(i.a, i.b) for b in init.blocks for i in b.instrs if i.opcode == "add"]
    stores = [i for b in init.blocks for i in b.instrs if i.opcode == "store"]
    assert len(stores) == 5 and len(adds) == len(set(adds))
    # table slots 1-4 (offsets 8-32) and the array's elements 1 and 3: @a + 4 once for 3 slots
    assert len(adds) == 6
    assert run_module(module, fuel=10**4).stdout == "14\n"         # a[1] + a[3]


# ------------------------------------------------------------ integer arithmetic vs Python oracle

def _llvm_op(op: str, a: int, b: int, bits: int) -> int | None:
    """LLVM semantics of ``op iN a, b`` (a, b given as N-bit patterns); result sign-extended to
    64 bits, or None for poison/UB (division by zero, shift >= N, signed overflow of sdiv)."""
    m = (1 << bits) - 1
    ua, ub = a & m, b & m
    sa = ua - (1 << bits) if ua >> (bits - 1) else ua
    sb = ub - (1 << bits) if ub >> (bits - 1) else ub
    if op in ("udiv", "urem", "sdiv", "srem") and ub == 0:
        return None
    if op in ("shl", "lshr", "ashr") and ub >= bits:
        return None
    if op in ("sdiv", "srem") and sa == -(1 << (bits - 1)) and sb == -1:
        return None
    trunc_div = lambda x, y: abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    r = {"add": lambda: ua + ub, "sub": lambda: ua - ub, "mul": lambda: ua * ub,
         "and": lambda: ua & ub, "or": lambda: ua | ub, "xor": lambda: ua ^ ub,
         "shl": lambda: ua << ub, "lshr": lambda: ua >> ub, "ashr": lambda: sa >> ub,
         "udiv": lambda: ua // ub, "urem": lambda: ua % ub,
         "sdiv": lambda: trunc_div(sa, sb), "srem": lambda: sa - trunc_div(sa, sb) * sb}[op]() & m
    return r - (1 << bits) if r >> (bits - 1) else r


def _icmp(pred: str, a: int, b: int, bits: int) -> int:
    m = (1 << bits) - 1
    ua, ub = a & m, b & m
    sa = ua - (1 << bits) if ua >> (bits - 1) else ua
    sb = ub - (1 << bits) if ub >> (bits - 1) else ub
    return int({"eq": ua == ub, "ne": ua != ub, "ult": ua < ub, "ule": ua <= ub, "ugt": ua > ub,
                "uge": ua >= ub, "slt": sa < sb, "sle": sa <= sb, "sgt": sa > sb,
                "sge": sa >= sb}[pred])


OPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "urem", "sdiv", "srem")
PREDS = ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge")


def _program(cases: list[tuple[str, int, int, int]]) -> str:
    """One function per case (operands arrive as i64 arguments and are truncated, so nothing is
    constant-folded); main prints each result sign-extended to i64."""
    lines = ['@fmt = private constant [5 x i8] c"%ld\\0A\\00"',
             "declare i32 @printf(ptr, ...)"]
    calls = []
    for k, (op, a, b, bits) in enumerate(cases):
        t = f"i{bits}"
        body = (f"  %r = icmp {op} {t} %a, %b\n  %w = zext i1 %r to i64\n" if op in PREDS
                else f"  %r = {op} {t} %a, %b\n  %w = sext {t} %r to i64\n" if bits < 64
                else f"  %r = {op} {t} %a, %b\n  %w = add i64 %r, 0\n")
        lines.append(f"define i64 @f{k}(i64 %x, i64 %y) {{\n"
                     + (f"  %a = trunc i64 %x to {t}\n  %b = trunc i64 %y to {t}\n" if bits < 64
                        else "  %a = add i64 %x, 0\n  %b = add i64 %y, 0\n")
                     + body + "  ret i64 %w\n}")
        calls.append(f"  %v{k} = call i64 @f{k}(i64 {a}, i64 {b})\n"
                     f"  call i32 (ptr, ...) @printf(ptr @fmt, i64 %v{k})")
    lines.append("define i32 @main() {\n" + "\n".join(calls) + "\n  ret i32 0\n}")
    return "\n".join(lines)


_width = st.sampled_from([1, 8, 16, 32, 64])


@st.composite
def _case(draw):
    bits = draw(_width)
    op = draw(st.sampled_from(OPS + PREDS))
    special = [0, 1, 2, -1, (1 << (bits - 1)) - 1, -(1 << (bits - 1)), (1 << bits) - 1]
    val = st.one_of(st.sampled_from(special), st.integers(-(1 << 63), (1 << 63) - 1))
    a, b = draw(val), draw(val)
    if op in ("shl", "lshr", "ashr"):
        b = draw(st.integers(0, bits - 1))
    return op, a, b, bits


@settings(max_examples=25, deadline=None)
@given(st.lists(_case(), min_size=1, max_size=12))
def test_integer_ops_match_llvm_semantics(cases):
    def to_i64(v):
        v &= (1 << 64) - 1
        return v - (1 << 64) if v >> 63 else v
    cases = [(op, to_i64(a), to_i64(b), bits) for op, a, b, bits in cases
             if op in PREDS or _llvm_op(op, a, b, bits) is not None]
    if not cases:
        return
    module, report = _import(_program(cases))
    assert report.complete
    res = run_module(module, fuel=10**6)
    assert res.error is None, res.error
    want = [(_icmp(op, a, b, bits) if op in PREDS else _llvm_op(op, a, b, bits))
            for op, a, b, bits in cases]
    assert [int(x) for x in res.stdout.split()] == want


def test_unsigned_division_by_a_power_of_two_is_one_shift():
    # 64-bit udiv/urem by 2^k: one shr / and (InstCombine's form; issue #28 item 2), exact for
    # dividends with the top bit set too, where a signed div would not be
    values = [0, 1, 31, 32, 33, 1000, -1, -32, -33, (1 << 63) - 1, -(1 << 63)]
    lines = ['@fmt = private constant [5 x i8] c"%ld\\0A\\00"', "declare i32 @printf(ptr, ...)",
             "define i64 @q(i64 %x) {\n  %a = udiv i64 %x, 32\n  ret i64 %a\n}",
             "define i64 @r(i64 %x) {\n  %a = urem i64 %x, 32\n  ret i64 %a\n}",
             "define i64 @o(i64 %x) {\n  %a = udiv i64 %x, 1\n  ret i64 %a\n}",
             "define i64 @n(i64 %x) {\n  %t = trunc i64 %x to i32\n  %a = udiv i32 %t, 8\n"
             "  %w = sext i32 %a to i64\n  ret i64 %w\n}"]
    calls = [f"  %{f}{k} = call i64 @{f}(i64 {v})\n"
             f"  call i32 (ptr, ...) @printf(ptr @fmt, i64 %{f}{k})"
             for k, v in enumerate(values) for f in "qron"]
    lines.append("define i32 @main() {\n" + "\n".join(calls) + "\n  ret i32 0\n}")
    module, report = _import("\n".join(lines))
    ops = {f.name: [i.opcode for b in f.blocks for i in b.instrs] for f in module.functions}
    assert ops["@q"] == ["shr", "ret"] and ops["@r"] == ["and", "ret"]
    assert ops["@o"] == ["shr", "ret"] and "div" not in ops["@n"]
    res = run_module(module, fuel=10**6)
    assert res.error is None, res.error
    want = [w for v in values for w in (_llvm_op("udiv", v, 32, 64), _llvm_op("urem", v, 32, 64),
                                        _llvm_op("udiv", v, 1, 64), _llvm_op("udiv", v, 8, 32))]
    assert [int(x) for x in res.stdout.split()] == want


# ------------------------------------------------------------ phis, switch, unsupported code

def test_phi_swap_is_a_parallel_copy():
    text = """
define i64 @main() {
entry:
  br label %loop
loop:
  %a = phi i64 [ 1, %entry ], [ %b, %loop ]
  %b = phi i64 [ 2, %entry ], [ %a, %loop ]
  %i = phi i64 [ 0, %entry ], [ %j, %loop ]
  %j = add i64 %i, 1
  %c = icmp slt i64 %j, 4
  br i1 %c, label %loop, label %out
out:
  %r = mul i64 %a, 10
  %s = add i64 %r, %b
  ret i64 %s
}"""
    module, _ = _import(text)
    # the back edge is taken 3 times: (1,2) -> (2,1) -> (1,2) -> (2,1)
    assert run_module(module).return_value == 21


def test_switch_without_lowerswitch():
    text = """
define i32 @pick(i32 %x) {
  switch i32 %x, label %d [ i32 -3, label %a
                            i32 9, label %b ]
a:
  ret i32 1
b:
  ret i32 2
d:
  ret i32 3
}
define i32 @main() {
  %p = call i32 @pick(i32 -3)
  %q = call i32 @pick(i32 9)
  %r = call i32 @pick(i32 4)
  %s = mul i32 %p, 100
  %t = mul i32 %q, 10
  %u = add i32 %s, %t
  %v = add i32 %u, %r
  ret i32 %v
}"""
    module, _ = _import(text)
    assert run_module(module).return_value == 123


def test_unsupported_function_is_skipped_with_reason():
    text = """
define double @half(double %x) {
  %r = fdiv double %x, 2.0
  ret double %r
}
define i32 @viaptr(ptr %f) {
  %r = call i32 %f()
  ret i32 %r
}
define i32 @main() {
  ret i32 7
}"""
    module, report = _import(text)
    by = report.skipped_by_reason()
    assert by == {"floating point or vector": ["@half"], "indirect call": ["@viaptr"]}
    fmap = module.function_map()
    assert fmap["@half"].extern and fmap["@viaptr"].extern and not fmap["@main"].extern
    assert report.to_dict()["totals"]["functions_imported"] == 1
    assert run_module(module).return_value == 7


def test_bad_llvm_text_is_a_located_import_error():
    with pytest.raises(ImportError_) as info:
        import_llvm("define i32 @main() {\n  ret i32 %nope\n}\n", "bad.ll")
    assert info.value.loc.file == "bad.ll" and info.value.loc.line == 2


def test_numeric_names_are_sanitised_without_collisions():
    text = """
define i32 @main() {
  %1 = add i32 2, 3
  %"$1" = add i32 %1, 1
  br label %3
3:
  %4 = mul i32 %1, %"$1"
  ret i32 %4
}"""
    module, _ = _import(text)
    assert run_module(module).return_value == 30
