"""Global initialisers: the one-pass writer (values.write_initializer) against the reference
(parse_value, then layout_initializer) on random nested types and constants: the same bytes and
relocations, or Irregular where the reference would have to decide."""
import pytest
from hypothesis import given, settings, strategies as st

from pylogic.ir.llvm.types import (ArrayT, Cursor, DataLayout, IntT, NamedT, PTR, StructT,
                                   Unsupported, parse_type, tokenize)
from pylogic.ir.llvm.values import (Irregular, layout_initializer, parse_value,
                                    write_initializer)

LAYOUT = DataLayout({"%struct.S": StructT((IntT(8), IntT(32))), "%struct.O": None})


def type_text(ty) -> str:
    if isinstance(ty, IntT):
        return f"i{ty.bits}"
    if ty is PTR:
        return "ptr"
    if isinstance(ty, ArrayT):
        return f"[{ty.count} x {type_text(ty.elem)}]"
    if isinstance(ty, StructT):
        body = "{ " + ", ".join(map(type_text, ty.fields)) + " }" if ty.fields else "{}"
        return f"<{body}>" if ty.packed else body
    return ty.name if isinstance(ty, NamedT) else ty  # a named type's text


scalars = st.sampled_from([IntT(1), IntT(8), IntT(16), IntT(32), IntT(64), IntT(24), PTR])
types = st.recursive(scalars | st.just("%struct.S"), lambda inner: st.one_of(
    st.builds(ArrayT, st.integers(0, 3), inner),
    st.builds(StructT, st.lists(inner, max_size=3).map(tuple), st.booleans())), max_leaves=8)


@st.composite
def constants(draw, ty):
    """Constant text of type ``ty`` (sometimes ill-typed: both sides must then agree)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["zeroinitializer", "undef", "poison", "null", "1.5",
                                     "@g", "getelementptr (i8, ptr @g, i64 3)", "-7"]))
    ty = LAYOUT.resolve(NamedT(ty) if isinstance(ty, str) else ty)
    if isinstance(ty, IntT):
        return draw(st.sampled_from(["true", "false", "0x10", str(draw(st.integers(-2**64, 2**64)))]))
    if ty is PTR:
        return draw(st.sampled_from(["null", "@g", "getelementptr (i8, ptr @g, i64 5)",
                                     "inttoptr (i64 8 to ptr)"]))
    if isinstance(ty, ArrayT) and ty.elem == IntT(8) and draw(st.booleans()):
        body = draw(st.text(st.sampled_from("ab\\0"), max_size=ty.count))
        return 'c"' + body.replace("\\", "\\5C").replace("0", "\\00") + '"'
    elems = ty.fields if isinstance(ty, StructT) else [ty.elem] * ty.count
    if draw(st.integers(0, 19)) == 0:
        elems = list(elems) + [IntT(8)]  # one element too many
    parts = []
    for e in elems:
        et = draw(st.sampled_from([e, e, e, IntT(16)]))  # sometimes another type than declared
        parts.append(f"{type_text(et)} {draw(constants(et))}")
    open_, close = ("[", "]") if isinstance(ty, ArrayT) else ("{", "}")
    body = open_ + ", ".join(parts) + close if parts else open_ + close
    return f"<{body}>" if isinstance(ty, StructT) and ty.packed else body


def reference(ty, text):
    buf, relocs = bytearray(LAYOUT.size(ty)), []
    try:
        layout_initializer(ty, parse_value(Cursor(tokenize(text)), ty), LAYOUT, buf, 0, relocs)
    except Unsupported as exc:
        return exc.reason
    return bytes(buf), relocs


@settings(max_examples=400, deadline=None)
@given(st.data())
@pytest.mark.slow
def test_write_initializer_matches_reference(data):
    ty = parse_type(Cursor(tokenize(type_text(data.draw(types)))))
    text = data.draw(constants(ty))
    buf, relocs = bytearray(LAYOUT.size(ty)), []
    try:
        write_initializer(Cursor(tokenize(text)), ty, LAYOUT, buf, 0, relocs, {})
    except (Irregular, Unsupported):
        return  # the importer runs the reference
    assert reference(ty, text) == (bytes(buf), relocs)


def test_arrays_of_structs_are_written_without_fallback():
    ty = parse_type(Cursor(tokenize("[2 x { i8, i32 }]")))
    text = "[{ i8, i32 } { i8 -1, i32 258 }, { i8, i32 } { i8 2, i32 -2 }]"
    buf, relocs = bytearray(16), []
    write_initializer(Cursor(tokenize(text)), ty, LAYOUT, buf, 0, relocs, {})
    assert bytes(buf) == bytes([255, 0, 0, 0, 2, 1, 0, 0, 2, 0, 0, 0, 254, 255, 255, 255])
    assert (bytes(buf), relocs) == reference(ty, text)


def test_element_of_another_type_than_declared_is_irregular():
    ty = parse_type(Cursor(tokenize("[2 x i32]")))
    try:
        write_initializer(Cursor(tokenize("[i32 1, i16 2]")), ty, LAYOUT, bytearray(8), 0, [], {})
    except Irregular:
        return
    raise AssertionError("an i16 element of an [2 x i32] array was written as declared")
