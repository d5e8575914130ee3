"""The importer's token-free readers (pylogic/ir/llvm/fastpath.py: instruction lines;
values.write_int_initializer: integer-only global initialisers) against the token path they
short-cut: the same PIR, the same import report, the same bytes, on the C and LLVM test inputs
and on random instruction lines and initialisers."""
import glob
import os
import re

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.errors import PathlogicError
from pylogic.ir.llvm import fastpath
from pylogic.ir.llvm.clang import find_clang, find_opt, prepare_c
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.llvm.types import (ArrayT, Cursor, DataLayout, IntT, StructT, parse_type,
                                   tokenize, type_text)
from pylogic.ir.llvm.values import parse_value, write_initializer, write_int_initializer
from pylogic.ir.printer import print_module

HERE = os.path.dirname(__file__)


def both_ways(text: str):
    """The printed module and report of ``text`` imported with the readers and without them."""
    out = []
    for enabled in (True, False):
        fastpath.ENABLED = enabled
        try:
            module, report = import_llvm(text, "<test>")
            out.append((print_module(module), report.functions, report.globals_skipped))
        except PathlogicError as exc:     # llvmlite's: it numbers struct types per process
            out.append(("error", re.sub(r"(%struct\.\w+)\.\d+", r"\1", str(exc))))
        finally:
            fastpath.ENABLED = True
    return out


def test_ll_inputs_import_the_same_both_ways():
    for path in glob.glob(os.path.join(HERE, "ll", "*.ll")):
        with open(path) as fh:
            fast, reference = both_ways(fh.read())
        assert fast == reference, path


@pytest.mark.skipif(find_clang() is None or find_opt() is None, reason="clang-14/opt-14 absent")
@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(HERE, "c", "*.c"))))
def test_c_inputs_import_the_same_both_ways(path):
    try:
        text = prepare_c(path)
    except PathlogicError:
        return                                   # syntax_error.c
    fast, reference = both_ways(text)
    assert fast == reference


# ------------------------------------------------------------ random lines

#: Constant GEPs of a global (csmith's operands), one the fast path leaves to the token path.
CONSTANT_GEPS = ["getelementptr inbounds ([8 x i32], ptr @g, i64 0, i64 3)",
                 "getelementptr (i8, ptr @h, i32 -2)", "getelementptr (i8, ptr @h, i64 %a)"]
TYPES = ["i1", "i8", "i16", "i32", "i64", "i24", "i128", "ptr", "%struct.S"]
#: Values of each type (the function's parameters, constants) and a few of any type.
TYPED = {"i1": ["%z", "true", "false", "0", "1"], "i8": ["%c", "0", "-1", "127", "-128"],
         "i16": ["%s", "7", "-129"], "i32": ["%b", "0", "1", "-1", "2147483647"],
         "i64": ["%a", "4294967297", "-9"], "i24": ["%w", "5"], "i128": ["3", "-5"],
         "ptr": ["%p", "@g", "@h", "@f", "null", CONSTANT_GEPS[0], CONSTANT_GEPS[1]],
         "%struct.S": ["zeroinitializer"]}
ANY = ["undef", "poison", "0x10", "1.5", "%\"q r\"", "%a", "@g"]
PARAMS = "ptr %p, i64 %a, i32 %b, i8 %c, i16 %s, i1 %z, i24 %w"
GEP_SOURCES = ["i8", "i32", "ptr", "[4 x i32]", "[2 x [3 x i16]]", "%struct.S", "{ i8, i32 }"]


def val(draw, ty):
    return draw(st.sampled_from(ANY if draw(st.integers(0, 9)) == 0 else TYPED[ty]))


@st.composite
def lines(draw):
    """One instruction in a fast form, or a near miss (flags, metadata, other spellings)."""
    ty = draw(st.sampled_from(TYPES))
    a, b = val(draw, ty), val(draw, ty)
    p = val(draw, "ptr")
    kind = draw(st.sampled_from(["load", "store", "gep", "cast", "icmp", "binary", "br", "call",
                                 "memory"]))
    if kind == "load":
        vol = draw(st.sampled_from(["", "volatile "]))
        return f"%d = load {vol}{ty}, ptr {p}, align {draw(st.sampled_from([1, 4, 8]))}"
    if kind == "store":
        return f"store {ty} {a}, ptr {p}, align 4"
    if kind == "gep":
        src = draw(st.sampled_from(GEP_SOURCES))
        idx = draw(st.lists(st.sampled_from(["i64 0", "i64 1", "i32 1", "i64 %a", "i32 %b",
                                             "i64 -1", "i1 %z", "i8 %c"]), max_size=3))
        flag = draw(st.sampled_from(["", "inbounds ", "inbounds ", "nuw "]))
        return f"%d = getelementptr {flag}{src}, ptr {p}" + "".join(f", {i}" for i in idx)
    if kind == "cast":
        op = draw(st.sampled_from(["trunc", "zext", "sext", "ptrtoint", "inttoptr", "bitcast"]))
        return f"%d = {op} {ty} {a} to {draw(st.sampled_from(TYPES))}"
    if kind == "icmp":
        pred = draw(st.sampled_from(["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]))
        return f"%d = icmp {pred} {ty} {a}, {b}"
    if kind == "binary":
        op = draw(st.sampled_from(["add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
                                   "sdiv", "srem", "udiv", "urem"]))
        flags = draw(st.sampled_from(["", " nsw", " nuw nsw", " exact", " disjoint"]))
        return f"%d = {op}{flags} {ty} {a}, {b}"
    if kind == "br":
        if draw(st.booleans()):
            return draw(st.sampled_from(["br label %next", "br label %next, !llvm.loop !0"]))
        return f"br i1 {val(draw, 'i1')}, label %next, label %other"
    if kind == "memory":
        name, value = draw(st.sampled_from([("memcpy.p0.p0.i64", "ptr align 4 " + p),
                                            ("memmove.p0.p0.i32", "ptr " + p),
                                            ("memset.p0.i64", f"i8 {val(draw, 'i8')}")]))
        size = draw(st.sampled_from(["i64 8", "i32 4", "i64 %a"]))
        return (f"call void @llvm.{name}(ptr align 8 {val(draw, 'ptr')}, {value}, {size}, "
                f"i1 {draw(st.sampled_from(['false', 'true']))})")
    callee, params = draw(st.sampled_from([("@f", ["i32", "i64"]), ("@v", ["i8", "ptr", "i32"]),
                                           ("@u", ["ptr", "i16"]), ("@n", [])]))
    words = st.sampled_from(["", " noundef", " noundef signext", " zeroext"])
    args = ", ".join(f"{t}{draw(words)} {val(draw, t)}" for t in params)
    ret = {"@f": "i32", "@v": "void", "@u": "signext i8", "@n": "ptr"}[callee]
    variadic = " (...)" if callee == "@v" and draw(st.booleans()) else ""
    return ("%d = " if ret != "void" else "") + f"call {ret}{variadic} {callee}({args})"


def _function(body: list[str]) -> str:
    return ("%struct.S = type { i8, i32 }\n@g = global [8 x i32] zeroinitializer\n"
            "@h = global i64 0\ndeclare void @v(...)\ndeclare signext i8 @u(ptr, i16)\n"
            "declare ptr @n()\n"
            "define i32 @f(i32 %x, i64 %y) {\n  ret i32 0\n}\n"
            f"define void @t({PARAMS}) {{\nentry:\n  "
            + "\n  ".join(body) + "\n  br label %next\nother:\n  br label %next\n"
            "next:\n  ret void\n}\n")


@settings(max_examples=300, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=4))
@pytest.mark.slow
def test_random_lines_lower_the_same_both_ways(body):
    # the module as llvmlite prints it, since that is what the importer reads (it may reject it)
    fast, reference = both_ways(_function([line.replace("%d =", f"%d{k} =")
                                           for k, line in enumerate(body)]))
    assert fast == reference


@pytest.mark.parametrize("text", ["%a", "@g", "0", "-17", "123456789012", "true", "false", "null",
                                  "undef", "poison", *CONSTANT_GEPS[:2]])
@pytest.mark.parametrize("ty", ["i1", "i8", "i64", "ptr"])
def test_value_terms_are_parse_values(text, ty):
    t = parse_type(Cursor(tokenize(ty)))
    assert fastpath.value(text) == parse_value(Cursor(tokenize(text)), t)


def test_type_of_is_parse_type_of_the_whole_text():
    assert fastpath.type_of("[2 x [3 x i16]]") == parse_type(Cursor(tokenize("[2 x [3 x i16]]")))
    assert fastpath.type_of("i32 %x") is None          # more than a type
    assert fastpath.type_of("[2 x") is None            # not a type


# ------------------------------------------------------------ integer initialisers

LAYOUT = DataLayout({"%struct.S": StructT((IntT(8), IntT(32))),
                     "%struct.P": StructT((IntT(8), IntT(16)), packed=True)})
int_types = st.recursive(
    st.sampled_from([IntT(8), IntT(16), IntT(32), IntT(64), IntT(1), IntT(24)]),
    lambda inner: st.one_of(st.builds(ArrayT, st.integers(1, 3), inner),
                            st.builds(StructT, st.lists(inner, min_size=1, max_size=3).map(tuple),
                                      st.booleans())), max_leaves=8)


def printed(ty, draw) -> str:
    """A constant of ``ty`` as LLVM prints it, integers drawn."""
    rt = LAYOUT.resolve(ty)
    if isinstance(rt, IntT):                    # undef/poison too (csmith's padding bytes)
        return draw(st.one_of(st.integers(-2 ** (rt.bits - 1), 2 ** (rt.bits - 1) - 1).map(str),
                              st.sampled_from(["undef", "poison"])))
    elems = rt.fields if isinstance(rt, StructT) else [rt.elem] * rt.count
    body = ", ".join(f"{type_text(e)} {printed(e, draw)}" for e in elems)
    if isinstance(rt, ArrayT):
        return f"[{body}]"
    return f"<{{ {body} }}>" if rt.packed else f"{{ {body} }}"


@settings(max_examples=300, deadline=None)
@given(st.data())
@pytest.mark.slow
def test_int_initializer_writes_what_write_initializer_writes(data):
    ty = data.draw(st.one_of(int_types, st.sampled_from([ArrayT(2, parse_type(Cursor(tokenize("%struct.S")))),
                                                        parse_type(Cursor(tokenize("%struct.P")))])))
    text = printed(ty, data.draw)
    if data.draw(st.integers(0, 4)) == 0:       # a near miss: the token path must take it
        text = data.draw(st.sampled_from([text.replace("i8 ", "i16 ", 1), text + ", i8 1",
                                          text.replace("]", ", i8 0]", 1), "zeroinitializer",
                                          text.replace("1", "0x1", 1)]))
    size = LAYOUT.size(ty)
    fast = bytearray(size)
    if not write_int_initializer(ty, text, LAYOUT, fast):
        assert fast == bytearray(size)          # nothing written
        return
    ref, relocs = bytearray(size), []
    write_initializer(Cursor(tokenize(text)), ty, LAYOUT, ref, 0, relocs, {})
    assert (bytes(fast), []) == (bytes(ref), relocs)


def test_int_initializer_reads_csmith_shapes():
    ty = parse_type(Cursor(tokenize("[2 x [2 x i16]]")))
    buf = bytearray(8)
    assert write_int_initializer(ty, "[[2 x i16] [i16 1, i16 -2], [2 x i16] [i16 3, i16 4]]",
                                 LAYOUT, buf)
    assert bytes(buf) == bytes([1, 0, 254, 255, 3, 0, 4, 0])
    assert LAYOUT.int_form(ty)[3] == ("<4H", 0xFFFF)     # written by one pack
    assert LAYOUT.int_form(parse_type(Cursor(tokenize("[2 x %struct.S]"))))[3] is None
    s = parse_type(Cursor(tokenize("[1 x %struct.S]")))
    assert write_int_initializer(s, "[%struct.S { i8 -1, i32 258 }]", LAYOUT, bytearray(8))
    assert not write_int_initializer(s, "[%struct.S { i8 -1, i32 258 }] ", LAYOUT, bytearray(8))
    assert not write_int_initializer(ty, "zeroinitializer", LAYOUT, bytearray(8))
    buf = bytearray(b"\xff" * 8)                  # undef: nothing written, as write_initializer
    assert write_int_initializer(s, "[%struct.S { i8 undef, i32 258 }]", LAYOUT, buf)
    assert bytes(buf) == b"\xff" * 4 + bytes([2, 1, 0, 0])


def test_common_forms_are_read_without_tokens(monkeypatch):
    from pylogic.ir.llvm import lower
    body = ["%d0 = load i32, ptr %p, align 4", "store i32 %d0, ptr @g, align 4",
            "%d1 = getelementptr inbounds [4 x i32], ptr @g, i64 0, i64 %a",
            "%d2 = sext i32 %d0 to i64", "%d3 = icmp slt i32 %d0, 5",
            "%d4 = add nsw i32 %d0, 1", "%d5 = call i32 @f(i32 noundef %d4, i64 noundef %a)",
            "br i1 %d3, label %next, label %other"]
    seen = []
    real = lower.tokenize
    monkeypatch.setattr(lower, "tokenize", lambda text: seen.append(text) or real(text))
    module, report = import_llvm(_function(body), "<test>")
    assert report.complete and not set(body) & set(seen)
    fastpath.ENABLED = False
    try:
        assert import_llvm(_function(body), "<test>")[0] == module
    finally:
        fastpath.ENABLED = True
    assert set(body) <= set(seen)                        # the token path read them


def test_pointer_globals_import_the_same_both_ways():
    # csmith's pointer globals (importer._lower_int_global): relocations in the same order
    text = """
@a = global [4 x i32] zeroinitializer
@b = global i64 7
@p = internal global ptr @a, align 8
@q = internal global ptr getelementptr (i8, ptr @b, i64 4), align 8
@r = internal global ptr null, align 8
@s = private global [3 x ptr] [ptr getelementptr inbounds ([4 x i32], ptr @a, i64 0, i64 2), ptr null, ptr @p], align 16
@t = private unnamed_addr constant [2 x ptr] [ptr @f, ptr @q], align 16
@u = global [2 x ptr] zeroinitializer
define i32 @f() {
  %x = load ptr, ptr @p, align 8
  %y = load i32, ptr %x, align 4
  ret i32 %y
}
"""
    fast, reference = both_ways(text)
    assert fast == reference and "@__pathlogic_init" in fast[0]


@st.composite
def phi_lines(draw):
    """A phi at the head of ``next`` (predecessors ``entry`` and ``other``), in a fast form or
    a near miss (wide or aggregate types, a label named twice, a value the token path reads)."""
    ty = draw(st.sampled_from(TYPES))
    preds = draw(st.sampled_from([["entry", "other"], ["other", "entry"],
                                  ["entry", "other", "other"]]))
    incoming = ", ".join(f"[ {val(draw, ty)}, %{p} ]" for p in preds)
    return f"%ph = phi {ty} {incoming}"


def _with_phi(line: str) -> str:
    return _function(["%d0 = add i32 %b, 1"]).replace(
        "next:\n", f"next:\n  {line}\n  %use = icmp eq i64 0, 0\n")


@settings(max_examples=200, deadline=None)
@given(phi_lines())
@pytest.mark.slow
def test_random_phis_lower_the_same_both_ways(line):
    fast, reference = both_ways(_with_phi(line))
    assert fast == reference


def test_phis_are_read_without_tokens(monkeypatch):
    from pylogic.ir.llvm import lower
    line = "%ph = phi i32 [ %b, %entry ], [ 7, %other ]"
    assert fastpath.phi(line) == ("%ph", IntT(32), {"entry": ("local", "%b"),
                                                    "other": ("int", 7)})
    assert fastpath.phi("%ph = phi i128 [ 1, %entry ], [ 7, %other ]") is None
    seen = []
    real = lower.tokenize
    monkeypatch.setattr(lower, "tokenize", lambda text: seen.append(text) or real(text))
    module, report = import_llvm(_with_phi(line), "<test>")
    assert report.complete and line not in seen
    fast, reference = both_ways(_with_phi(line))
    assert fast == reference and "7" in fast[0]
