"""Intrinsic expansions, first-class aggregates and the hidden-parameter calling convention of the
LLVM importer (pylogic/ir/llvm/lower.py, intrinsics.py), checked against Python oracles with
LLVM LangRef semantics; the C-level behaviour is checked against native runs by the fixtures in
tests/ir/llvm/c (varargs.c, aggregates.c, intrinsics.c, libc_strings.c)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.interp import run_module
from pylogic.interp.builtins import Builtins
from pylogic.interp.memory import Memory
from pylogic.ir.llvm.conventions import FAKE_FILES
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.ops import Fault
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module
from tests.support import needs_clang


def _import(text: str):
    module, report = import_llvm(text, "<test>")
    assert verify_module(module) == []
    assert parse_module(print_module(module)) == module
    return module, report


def _u(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


def _s(v: int, bits: int) -> int:
    v = _u(v, bits)
    return v - (1 << bits) if v >> (bits - 1) else v


def _oracle(name: str, a: int, b: int, bits: int) -> tuple[int, int]:
    """(result as signed iN, overflow bit) per LLVM LangRef."""
    ua, ub = _u(a, bits), _u(b, bits)
    if name == "ctpop":
        return bin(ua).count("1"), 0
    if name == "cttz":
        return (bits if ua == 0 else (ua & -ua).bit_length() - 1), 0
    if name == "ctlz":
        return bits - ua.bit_length(), 0
    if name == "bswap":
        return _s(int.from_bytes(ua.to_bytes(bits // 8, "little"), "big"), bits), 0
    kind, op = name[0], name[1:4]
    x, y = (_s(a, bits), _s(b, bits)) if kind == "s" else (ua, ub)
    exact = {"add": x + y, "sub": x - y, "mul": x * y}[op]
    res = _s(exact, bits)
    ovf = int(exact != res) if kind == "s" else int(not 0 <= exact < (1 << bits))
    return res, ovf


_OVERFLOW = ("sadd", "uadd", "ssub", "usub", "smul", "umul")


def _program(cases) -> str:
    lines = ['@fmt = private constant [9 x i8] c"%ld %ld\\0A\\00"', "declare i32 @printf(ptr, ...)"]
    calls = []
    for k, (name, a, b, bits) in enumerate(cases):
        t = f"i{bits}"
        head = (f"  %a = trunc i64 %x to {t}\n  %b = trunc i64 %y to {t}\n" if bits < 64
                else "  %a = add i64 %x, 0\n  %b = add i64 %y, 0\n")
        if name in _OVERFLOW:
            body = (f"  %p = call {{{t}, i1}} @llvm.{name}.with.overflow.{t}({t} %a, {t} %b)\n"
                    f"  %r = extractvalue {{{t}, i1}} %p, 0\n  %o = extractvalue {{{t}, i1}} %p, 1\n"
                    "  %ov = zext i1 %o to i64\n")
            lines.append(f"declare {{{t}, i1}} @llvm.{name}.with.overflow.{t}({t}, {t})")
        else:
            extra = ", i1 false" if name in ("cttz", "ctlz") else ""
            body = f"  %r = call {t} @llvm.{name}.{t}({t} %a{extra})\n  %ov = add i64 0, 0\n"
            lines.append(f"declare {t} @llvm.{name}.{t}({t}{', i1' if extra else ''})")
        ext = f"  %w = sext {t} %r to i64\n" if bits < 64 else "  %w = add i64 %r, 0\n"
        lines.append(f"define void @f{k}(i64 %x, i64 %y) {{\n{head}{body}{ext}"
                     f"  call i32 (ptr, ...) @printf(ptr @fmt, i64 %w, i64 %ov)\n  ret void\n}}")
        calls.append(f"  call void @f{k}(i64 {a}, i64 {b})")
    lines.append("define i32 @main() {\n" + "\n".join(calls) + "\n  ret i32 0\n}")
    return "\n".join(dict.fromkeys(lines))  # one declaration per intrinsic


@st.composite
def _case(draw):
    name = draw(st.sampled_from(("ctpop", "cttz", "ctlz", "bswap") + _OVERFLOW))
    widths = [16, 32, 64] if name == "bswap" else [8, 16, 32, 48, 64]
    bits = draw(st.sampled_from(widths))
    special = [0, 1, -1, (1 << (bits - 1)) - 1, -(1 << (bits - 1)), 1 << (bits // 2), 3 << (bits // 2)]
    val = st.one_of(st.sampled_from(special), st.integers(-(1 << 63), (1 << 63) - 1))
    a, b = draw(val), draw(val)
    return name, _s(a, 64), _s(b, 64), bits


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.lists(_case(), min_size=1, max_size=10))
def test_intrinsics_match_langref(cases):
    module, report = _import(_program(cases))
    assert report.complete, report.summary()
    res = run_module(module, fuel=10**6)
    assert res.error is None, res.error
    got = [tuple(int(x) for x in line.split()) for line in res.stdout.splitlines()]
    assert got == [_oracle(n, a, b, bits) for n, a, b, bits in cases]


def test_overflow_corner_cases():
    cases = [("smul", -1, -(1 << 63), 64), ("smul", -(1 << 63), -1, 64), ("smul", -1, -1, 64),
             ("umul", 1 << 32, 1 << 32, 64), ("umul", (1 << 32) - 1, (1 << 32) - 1, 64),
             ("smul", -(1 << 47), -1, 48), ("umul", 0, -1, 48), ("smul", 0, -(1 << 63), 64),
             ("ssub", 0, -(1 << 63), 64), ("usub", 0, 1, 64), ("uadd", -1, 1, 64)]
    module, _ = _import(_program(cases))
    got = [tuple(int(x) for x in line.split()) for line in run_module(module).stdout.splitlines()]
    assert got == [_oracle(n, a, b, bits) for n, a, b, bits in cases]


# ------------------------------------------------------------ aggregates and the convention

AGGREGATES = """
%pair = type { i64, i32 }
@fmt = private constant [13 x i8] c"%ld %ld %ld\\0A\\00"
declare i32 @printf(ptr, ...)

define %pair @mk(i64 %a, i32 %b) {
  %p0 = insertvalue %pair undef, i64 %a, 0
  %p1 = insertvalue %pair %p0, i32 %b, 1
  ret %pair %p1
}

define { %pair, [2 x i8] } @nest(i1 %c) {
entry:
  br i1 %c, label %yes, label %no
yes:
  %y = call %pair @mk(i64 7, i32 -8)
  br label %join
no:
  br label %join
join:
  %v = phi %pair [ %y, %yes ], [ { i64 1, i32 2 }, %no ]
  %w = insertvalue { %pair, [2 x i8] } zeroinitializer, %pair %v, 0
  %z = insertvalue { %pair, [2 x i8] } %w, i8 -3, 1, 1
  ret { %pair, [2 x i8] } %z
}

define i32 @main() {
  %slot = alloca %pair
  %a = call { %pair, [2 x i8] } @nest(i1 true)
  %b = call { %pair, [2 x i8] } @nest(i1 false)
  %ap = extractvalue { %pair, [2 x i8] } %a, 0
  store %pair %ap, ptr %slot
  %back = load %pair, ptr %slot
  %s = select i1 true, %pair %back, %pair zeroinitializer
  %x = extractvalue %pair %s, 0
  %y = extractvalue { %pair, [2 x i8] } %a, 0, 1
  %z = extractvalue { %pair, [2 x i8] } %a, 1, 1
  %y64 = sext i32 %y to i64
  %z64 = sext i8 %z to i64
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %x, i64 %y64, i64 %z64)
  %bx = extractvalue { %pair, [2 x i8] } %b, 0, 0
  %by = extractvalue { %pair, [2 x i8] } %b, 0, 1
  %by64 = sext i32 %by to i64
  %bz = extractvalue { %pair, [2 x i8] } %b, 1, 0
  %bz64 = sext i8 %bz to i64
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %bx, i64 %by64, i64 %bz64)
  ret i32 0
}
"""


def test_aggregates_live_in_leaf_registers():
    module, report = _import(AGGREGATES)
    assert report.complete, report.summary()
    res = run_module(module)
    assert res.error is None, res.error
    assert res.stdout == "7 -8 -3\n1 2 0\n"
    fns = module.function_map()
    assert fns["@mk"].params[-1].startswith("%sret.out")  # hidden pointer, last
    mk_ops = [i.opcode for b in fns["@mk"].blocks for i in b.instrs]
    assert "alloca" not in mk_ops and mk_ops.count("store") == 2  # leaves, stored only at ret


VARARGS_SKIPPED = """
declare i32 @printf(ptr, ...)
define i32 @takes_float(i32 %n, ...) {
  %f = fadd double 1.0, 2.0
  ret i32 %n
}
define { i64, i64 } @pair_float(double %d) {
  ret { i64, i64 } zeroinitializer
}
define i32 @main() {
  %r = call i32 (i32, ...) @takes_float(i32 1, i32 2, i32 3)
  %p = call { i64, i64 } @pair_float(double 1.0)
  ret i32 %r
}
"""


def test_skipped_functions_keep_the_hidden_parameters():
    module, report = import_llvm(VARARGS_SKIPPED, "<test>")
    assert set(report.skipped_by_reason()) == {"floating point or vector"}
    fns = module.function_map()
    assert fns["@takes_float"].extern and fns["@takes_float"].params[-1] == "..."
    assert len(fns["@takes_float"].params) == 3  # n, %va.area, ...
    assert len(fns["@pair_float"].params) == 2  # d, %sret.out


VARARGS_LL = """
%struct.__va_list_tag = type { i32, i32, ptr, ptr }
@fmt = private constant [5 x i8] c"%ld\\0A\\00"
declare i32 @printf(ptr, ...)
declare void @llvm.va_start(ptr)
declare void @llvm.va_end(ptr)

define i64 @second(i32 %n, ...) {
  %ap = alloca [1 x %struct.__va_list_tag]
  call void @llvm.va_start(ptr %ap)
  %gp = load i32, ptr %ap
  %area.p = getelementptr inbounds %struct.__va_list_tag, ptr %ap, i32 0, i32 2
  %area = load ptr, ptr %area.p
  %slot1 = getelementptr i8, ptr %area, i64 8
  %v = load i64, ptr %slot1
  %gp64 = zext i32 %gp to i64
  %r = add i64 %v, %gp64
  call void @llvm.va_end(ptr %ap)
  ret i64 %r
}

define i32 @main() {
  %r = call i64 (i32, ...) @second(i32 2, i32 -1, i64 1000)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %r)
  ret i32 0
}
"""


def test_va_start_builds_the_overflow_only_va_list():
    module, report = _import(VARARGS_LL)
    assert report.complete
    fns = module.function_map()
    assert fns["@second"].params[-1].startswith("%va.area")
    call = next(i for b in fns["@main"].blocks for i in b.instrs
                if i.opcode == "call" and i.callee == "@second")
    assert len(call.args) == 2  # n, then the slot array
    assert run_module(module).stdout == "1048\n"  # slot 1 (1000) + gp_offset 48


# ------------------------------------------------------------ builtins

def _builtins():
    mem, out = Memory(), []
    return Builtins(mem, out), mem, out


def test_streams_stdout_stderr_and_unknown():
    b, mem, out = _builtins()
    s = mem.alloc(8, "test")
    mem.write(s, b"hi %d\0")
    assert b.lookup("fprintf")(FAKE_FILES["stdout"], s, 5) == 4
    assert b.lookup("@fprintf")(FAKE_FILES["stderr"], s, 6) == 4
    assert b"".join(out) == b"hi 5"
    with pytest.raises(Fault):
        b.lookup("fputs")(s, 0x1234)


def test_strtol_family_edge_cases():
    b, mem, _ = _builtins()
    s, end = mem.alloc(32, "s"), mem.alloc(8, "end")

    def strto(fn, text, base):
        mem.write(s, text + b"\0")
        v = b.lookup(fn)(s, end, base)
        return v, int.from_bytes(mem.read(end, 8), "little") - s
    assert strto("strtol", b" +0x1G", 0) == (1, 5)
    assert strto("strtol", b"0x", 16) == (0, 1)  # "0" converted, "x" left
    assert strto("strtol", b"-", 10) == (0, 0)  # no digits: endptr = nptr
    assert strto("strtol", b"-9223372036854775809", 10) == (-(1 << 63), 20)  # clamped
    assert strto("strtoul", b"-1", 10) == (-1, 2)  # ULONG_MAX as a 64-bit register
    assert strto("strtol", b"0777", 0) == (511, 4)
    assert strto("strtol", b"zz", 36) == (35 * 36 + 35, 2)


# ------------------------------------------------------------ indirect calls, aliases, VLAs

INDIRECT = """
@fmt = private constant [5 x i8] c"%ld\\0A\\00"
@table = global [2 x ptr] [ptr @inc, ptr @dec]
declare i32 @printf(ptr, ...)
define i64 @inc(i64 %x) {
  %r = add i64 %x, 1
  ret i64 %r
}
define i64 @dec(i64 %x) {
  %r = sub i64 %x, 1
  ret i64 %r
}
define i64 @pair(i64 %x, i64 %y) {
  ret i64 %x
}
define i64 @unused(i64 %x) {
  ret i64 0
}
define i32 @main() {
  %p0 = load ptr, ptr @table
  %q = getelementptr [2 x ptr], ptr @table, i64 0, i64 1
  %p1 = load ptr, ptr %q
  %a = call i64 %p0(i64 10)
  %b = call i64 %p1(i64 %a)
  %c = call i64 %p1(i64 %b)
  %bad = call i64 inttoptr (i64 12345 to ptr)(i64 1)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %c)
  ret i32 0
}
"""


def test_indirect_call_dispatches_over_address_taken_functions():
    module, report = _import(INDIRECT.replace("  %bad = call i64 inttoptr (i64 12345 to ptr)(i64 1)\n", ""))
    assert report.complete, report.summary()
    res = run_module(module)
    assert res.error is None and res.stdout == "9\n"  # dec(dec(inc(10)))
    callees = {i.callee for b in module.function_map()["@main"].blocks for i in b.instrs
               if i.opcode == "call"}
    assert {"@inc", "@dec"} <= callees
    assert not {"@pair", "@unused"} & callees  # wrong arity / never address-taken


def test_indirect_call_through_a_bad_pointer_aborts():
    module, report = _import(INDIRECT)
    assert report.complete
    res = run_module(module)
    assert res.exit_status == 134 and res.stdout == ""  # abort() before the print


ALIASES = """
@a = global i32 5
@b = alias i32, ptr @a
define i32 @f() {
  ret i32 7
}
@g = alias i32 (), ptr @f
define i32 @main() {
  store i32 9, ptr @b
  %x = load i32, ptr @a
  %y = call i32 @g()
  %z = add i32 %x, %y
  ret i32 %z
}
"""


def test_aliases_name_the_aliasee():
    module, report = _import(ALIASES)
    assert report.complete
    assert run_module(module).return_value == 16


@needs_clang
def test_vla_memory_is_freed_by_stackrestore():
    import os
    from pylogic.ir.load import load_program
    module, _ = load_program(os.path.join(os.path.dirname(__file__), "c", "vla_scope.c"))
    res = run_module(module, memory_limit=100_000)  # 400 live iterations would need > 400 KB
    assert res.error is None, res.error
    assert res.peak_memory < 10_000
