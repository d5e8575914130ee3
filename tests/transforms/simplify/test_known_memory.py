"""Loads of known bytes folded by simplify (``flow.known_memory``: a fresh alloca's
zeros, constant stores, memset, memcpy from a read-only global): the expected folds on small
programs, what must stay a load (an unknown store or call in between, a join of different
bytes, a guarded store, a load past the end), each checked by the interpreter, and hypothesis on
random programs of stores, loads, memsets and branches over one alloca."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.interp.differential import compare_modules
from pylogic.ir.model import Load
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from tests.transforms.simplify.support import simplified



def _text(module, reg):
    return [print_instr(i) for f in module.defined_functions() for b in f.blocks
            for i in b.instrs if reg in i.defs()]


def _loads(module):
    return sum(isinstance(i, Load) for f in module.defined_functions() for b in f.blocks
               for i in b.instrs)


def _identical(before, after, inputs_list=((),)):
    for inputs in inputs_list:
        check = compare_modules(before, after, [((), tuple(inputs))])
        assert check.verdict == "identical", (inputs, check)


FOLDS = """
global @init[4] = {1, 2, 3, 4}
func main() {
e:
    p = alloca 8
    a = load.2 p
    q = add p, 2
    store.2 q, 772
    b = load.4 p
    m = alloca 4
    call @memset(m, 255, 4)
    c = load.2u m
    d = load.2 m
    n = alloca 4
    call @memcpy(n, @init, 4)
    f = load.4 n
    store.4 @g, 9
    h = load.1 q
    print a
    print b
    print c
    print d
    print f
    print h
    ret 0
}
global @g[4]
extern func @memset(%a0, %a1, %a2)
extern func @memcpy(%a0, %a1, %a2)
"""


def test_fresh_zeros_constant_stores_memset_and_memcpy_of_a_constant_fold():
    before, after = simplified(FOLDS)
    assert _loads(after) == 0
    assert _text(after, "b") == ["b = mov 50593792"]      # 0x03040000: bytes 0,0,4,3
    assert _text(after, "c") == ["c = mov 65535"] and _text(after, "d") == ["d = mov -1"]
    assert _text(after, "f") == ["f = mov 67305985"] and _text(after, "h") == ["h = mov 4"]
    _identical(before, after)


KEPT = """
global @w[8] = {1, 2, 3, 4}
func main() {
e:
    p = alloca 8
    x = input
    store.4 p, x
    a = load.4 p
    r = alloca 8
    call @f(r)
    b = load r
    s = alloca 8
    call @memcpy(s, @w, 8)
    c = load s
    t = alloca 4
    k = input
    cbr k, one, two
one:
    store.4 t, 1
    br join
two:
    store.4 t, 2
    br join
join:
    d = load.4 t
    u = alloca 4
    z:ut = pcmp.ne k, 0
    (z) store.4 u, 7
    e = load.4 u
    print a
    print b
    print c
    print d
    print e
    store.4 @w, 5
    ret 0
}
func @f(q) {
e:
    store q, 11
    ret 0
}
extern func @memcpy(%a0, %a1, %a2)
"""


def test_unknown_stores_calls_joins_guarded_stores_and_writable_sources_stay_loads():
    before, after = simplified(KEPT)
    for reg in ("a", "b", "c", "d", "e"):
        assert "load" in _text(after, reg)[0], reg
    _identical(before, after, [(5, 0), (5, 1)])


COPY_FROM_UNKNOWN = """
func main() {
e:
    b = alloca 4
    store.4 b, 7
    src = alloca 4
    x = input
    store.4 src, x
    a = alloca 4
    call @__memcpy_chk(a, src, 2, 4)
    y = load.4 b
    z = load.2 a
    a2 = add a, 2
    w = load.2u a2
    print y
    print z
    print w
    ret 0
}
extern func @__memcpy_chk(%a0, %a1, %a2, %a3)
"""


def test_a_copy_of_unknown_bytes_makes_only_its_destination_unknown():
    # memmove writes its destination's N bytes only (interp.builtins): b stays 7, a's first two
    # bytes are the input's, its last two still the alloca's zeros (flow.known_bytes.Write)
    before, after = simplified(COPY_FROM_UNKNOWN)
    assert _text(after, "y") == ["y = mov 7"] and "load" in _text(after, "z")[0]
    assert _text(after, "w") == ["w = mov 0"]
    _identical(before, after, [(5,), (-70000,)])


PAST_THE_END = """
func main() {
e:
    p = alloca 8
    q = add p, 6
    a = load.4 q
    print a
    ret 0
}
"""


def test_a_load_past_the_end_is_kept_and_faults_the_same():
    before, after = simplified(PAST_THE_END)
    assert "load" in _text(after, "a")[0]
    check = compare_modules(before, after, [((), ())])
    assert check.verdict != "different"


LOOP = """
func main() {
e:
    i = mov 0
    br head
head:
    p = alloca 4
    a = load.4 p
    store.4 p, 7
    b = load.4 p
    print a
    print b
    i = add i, 1
    c = cmp.lt i, 3
    cbr c, head, out
out:
    ret 0
}
"""


def test_an_alloca_in_a_loop_is_a_new_zeroed_object_each_time():
    before, after = simplified(LOOP)
    assert _text(after, "a") == ["a = mov 0"] and _text(after, "b") == ["b = mov 7"]
    _identical(before, after)


# ---------------------------------------------------------------- random programs

def _block(draw, k: int, n: int, lines: list) -> str:
    """Block ``b{k}`` of ``n`` (acyclic: its branch goes to later blocks) with ``lines`` and its
    ending: ``ret 0`` for the last, else a branch on an input."""
    if k == n - 1:
        lines = lines + ["ret 0"]
    else:
        t, f = draw(st.integers(k + 1, n - 1)), draw(st.integers(k + 1, n - 1))
        lines = lines + [f"c{k} = input", f"cbr c{k}, b{t}, b{f}"]
    return f"b{k}:\n" + "\n".join(f"    {x}" for x in lines)


@st.composite
def programs(draw):
    """One 8-byte alloca; blocks of stores (constant or input values, 1/2/4/8 bytes at in-bounds
    offsets, some guarded), memsets, loads printed, and forward branches on inputs."""
    n = draw(st.integers(1, 4))
    blocks = []
    for k in range(n):
        lines = ["p = alloca 8"] if k == 0 else []
        for j in range(draw(st.integers(1, 5))):
            size = draw(st.sampled_from((1, 2, 4, 8)))
            off = draw(st.integers(0, 8 - size))
            kind = draw(st.sampled_from(("store", "input", "load", "memset", "guarded")))
            addr = f"a{k}_{j}"
            lines.append(f"{addr} = add p, {off}")
            if kind == "store":
                lines.append(f"store.{size} {addr}, {draw(st.integers(-300, 300))}")
            elif kind == "input":
                lines += [f"v{k}_{j} = input", f"store.{size} {addr}, v{k}_{j}"]
            elif kind == "memset":
                lines.append(f"call @memset({addr}, {draw(st.integers(0, 255))}, {size})")
            elif kind == "guarded":
                lines += [f"g{k}_{j} = input", f"h{k}_{j}:ut = pcmp.ne g{k}_{j}, 0",
                          f"(h{k}_{j}) store.{size} {addr}, {draw(st.integers(-5, 5))}"]
            else:
                u = "u" if draw(st.booleans()) else ""
                lines += [f"l{k}_{j} = load.{size}{u} {addr}", f"print l{k}_{j}"]
        blocks.append(_block(draw, k, n, lines))
    return ("func main() {\n" + "\n".join(blocks) + "\n}\n"
            "extern func @memset(%a0, %a1, %a2)\n")


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(programs(), st.lists(st.sampled_from((0, 1, 7, -1, 300)), min_size=40, max_size=40))
def test_random_alloca_programs_stay_identical(text, inputs):
    before, after = simplified(text)
    _identical(before, after, [inputs])


def test_a_global_only_copied_from_by_memcpy_stays_read_only():
    from pylogic.flow.readonly_globals import readonly_globals
    module = parse_module("""
global @a[4]
global @b[4] = {1, 2, 3, 4}
func main() {
e:
    call @memcpy(@a, @b, 4)
    ret 0
}
extern func @memcpy(%a0, %a1, %a2)
""", "t.pir")
    assert set(readonly_globals(module)) == {"@b"}


GLOBALS = """
global @b[4]
global @c[4]
func main() {
e:
    store.4 @b, 56374
    a = load.1 @b
    call @memset(@c, 7, 2)
    x = load.2u @c
    y = load.4 @c
    call @g()
    z = load.1 @b
    print a
    print x
    print y
    print z
    ret 0
}
func @g() {
e:
    store.1 @b, 1
    ret 0
}
extern func @memset(%a0, %a1, %a2)
"""


def test_globals_bytes_are_known_after_writes_until_a_call():
    """``a`` reads the low byte of the stored 56374 (pr58726's bit-field); ``y`` reads two bytes
    nothing wrote in this function (unknown); after the call ``z`` is a load again."""
    before, after = simplified(GLOBALS)
    assert _text(after, "a") == ["a = mov 54"] and _text(after, "x") == ["x = mov 1799"]
    assert "load" in _text(after, "y")[0] and "load" in _text(after, "z")[0]
    _identical(before, after)


NOT_TAKEN = """
func main() {
e:
    p = alloca 8
    store p, 42
    c = mov 0
    cbr c, other, join
other:
    call @h(p)
    br join
join:
    a = load p
    print a
    ret 0
}
func @h(q) {
e:
    store q, 1
    ret 0
}
"""


def test_an_edge_a_constant_branch_never_takes_does_not_join():
    before, after = simplified(NOT_TAKEN)
    assert _text(after, "a") == ["a = mov 42"]
    _identical(before, after)
    before, after = simplified(NOT_TAKEN.replace("c = mov 0", "c = input"))
    assert "load" in _text(after, "a")[0]
    _identical(before, after, [(0,), (1,)])


NO_WRITE = """
global @n[4]
func main() {
e:
    store.4 @n, 12
    m = call @malloc(16)
    a = load.4 @n
    k = call @strlen(@n)
    b = load.4 @n
    call @free(m)
    c = load.4 @n
    print a
    print b
    print c
    print k
    ret 0
}
extern func @malloc(%a0)
extern func @strlen(%a0)
extern func @free(%a0)
"""


def test_builtins_that_write_nothing_existing_keep_known_bytes():
    before, after = simplified(NO_WRITE)
    assert _text(after, "a") == ["a = mov 12"] and _text(after, "b") == ["b = mov 12"]
    assert "load" in _text(after, "c")[0]       # free is not in the list: it forgets
    _identical(before, after)


BRANCHING = """
func main(x) {
e:
    p = alloca 4
    store.4 p, 7
    c = cmp.lt x, 10
    cbr c, t, f
t:
    d = cmp.lt x, 10
    a = load.4 p
    print d
    print a
    ret 0
f:
    ret 1
}
"""


@pytest.mark.parametrize("text", [FOLDS, BRANCHING])
def test_a_rounds_values_are_freed_without_the_collector(text):
    """Each round's ``FunctionValues`` (its known loads' address resolver, its branch facts'
    dominance test) holds no reference cycle, so it is freed when the round ends: simplify runs
    with the collector paused (collector.py), and a cycle there was collected only after it
    (csmith-46: 718,266 objects, 0.41 s)."""
    import gc

    from pylogic.flow.function_values import FunctionValues
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    try:
        simplified(text)
        left = [o for o in gc.get_objects() if isinstance(o, FunctionValues)]
    finally:
        if collecting:
            gc.enable()
    assert left == []


# ---------------------------------------------------------------- only the loaded objects

def _known(text: str, every: bool = False) -> dict:
    """``known_loads`` of main in ``text`` (solved ``FunctionValues``); ``every``: following
    every tracked object, not only those some load reads (the answers must be the same)."""
    from unittest import mock

    from pylogic.flow import known_memory
    from pylogic.flow.function_values import FunctionValues
    from tests.flow.test_function_values_solve import idom_of

    module = parse_module(text, "t.pir")
    fn = next(f for f in module.defined_functions() if f.name.lstrip("@") == "main")
    values = FunctionValues(fn, idom_of(fn), defined={"main"},
                            global_sizes={g.name: g.size for g in module.globals})
    values.solve()
    if not every:
        return values.known_loads()
    loaded = known_memory._loaded_objects
    with mock.patch.object(known_memory, "_loaded_objects",
                           lambda fn, resolve, sizes: loaded(fn, resolve, sizes) | set(sizes)):
        return values.known_loads()


def test_a_write_into_an_object_no_load_reads_still_forgets_what_it_must():
    # q is never loaded: a store past its end or a memset of a negative length into it may
    # write anything, so p's bytes are forgotten; a store inside it keeps them
    text = """
func main() {
e:
    p = alloca 8
    q = alloca 8
    store.4 p, 7
    store.4 q, 1
    a = load.4 p
    r = add q, 6
    store.4 r, 2
    b = load.4 p
    store.4 p, 7
    call @memset(q, 0, -1)
    c = load.4 p
    print a
    print b
    print c
    ret 0
}
extern func @memset(%a0, %a1, %a2)
"""
    got = _known(text)
    assert sorted(got.values()) == [7] and got == _known(text, every=True)


@st.composite
def several_objects(draw):
    """Two allocas and a global, only some of them loaded; stores and memsets into each, some
    past the end or of a negative length, calls, and forward branches on inputs."""
    n = draw(st.integers(1, 4))
    objects = ("p", "q", "@g")
    loaded = draw(st.sets(st.sampled_from(objects), max_size=2))
    blocks = []
    for k in range(n):
        lines = ["p = alloca 8", "q = alloca 8"] if k == 0 else []
        for j in range(draw(st.integers(1, 6))):
            obj = draw(st.sampled_from(objects))
            size = draw(st.sampled_from((1, 2, 4, 8)))
            off = draw(st.integers(0, 10 - size))       # some past the end
            addr = f"a{k}_{j}"
            lines.append(f"{addr} = add {obj}, {off}")
            kind = draw(st.sampled_from(("store", "store", "memset", "call", "load")))
            if kind == "store":
                lines.append(f"store.{size} {addr}, {draw(st.integers(-300, 300))}")
            elif kind == "memset":
                lines.append(f"call @memset({addr}, {draw(st.integers(0, 255))}, "
                             f"{draw(st.sampled_from((size, -1)))})")
            elif kind == "call":
                lines.append("call @strlen(p)" if draw(st.booleans()) else "call @f()")
            elif obj in loaded:
                lines += [f"l{k}_{j} = load.{size} {addr}", f"print l{k}_{j}"]
        blocks.append(_block(draw, k, n, lines))
    return ("func main() {\n" + "\n".join(blocks) + "\n}\n"
            "global @g[8]\nextern func @memset(%a0, %a1, %a2)\nextern func @strlen(%a0)\n"
            "extern func @f()\n")


@settings(max_examples=150, deadline=None)
@given(several_objects())
def test_following_only_the_loaded_objects_gives_the_same_loads(text):
    assert _known(text) == _known(text, every=True)
