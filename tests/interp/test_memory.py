"""Byte-addressed little-endian memory, globals, alloca, and out-of-bounds detection (IR.md)."""
import pytest

from conftest import main_body, run_pir


def prints(body, **kw):
    res = run_pir(body if body.lstrip().startswith(("func", "global", "extern"))
                  else main_body(body), **kw)
    assert res.error is None, res.error
    return res.prints


def test_store_sizes_and_sign_zero_extension():
    body = """
    p = alloca 16
    store p, -2
    a = load p
    b = load.1 p
    c = load.1u p
    d = load.2u p
    e = load.4 p
    f = load.4u p
    store.2 p, 0x1234
    g = load.8 p
    print a
    print b
    print c
    print d
    print e
    print f
    print g
    ret 0"""
    assert prints(body) == [-2, -2, 254, 65534, -2, 4294967294,
                            (0xFFFFFFFFFFFF1234 - (1 << 64))]


def test_little_endian_byte_order():
    body = """
    p = alloca 8
    store.4 p, 0x04030201
    q = add p, 1
    b1 = load.1u q
    q3 = add p, 3
    b3 = load.1u q3
    h = load.2u q
    print b1
    print b3
    print h
    ret 0"""
    assert prints(body) == [2, 4, 0x0302]


def test_store_keeps_only_low_bytes():
    body = """
    p = alloca 8
    store.1 p, 0x1FF
    a = load p
    print a
    ret 0"""
    assert prints(body) == [255]


def test_globals_bytes_strings_and_addresses():
    src = """
global tab[8] = {1, 2, 255}
global s = "AB"
global z[8]
func main() {
entry:
    a = load.2u tab
    b = load.1 tab
    p = add tab, 2
    c = load.1 p
    d = load.1u s
    q = add s, 2
    e = load.1u q
    f = load.4 z
    store z, 77
    g = load z
    h = cmp.ne tab, s
    print a
    print b
    print c
    print d
    print e
    print f
    print g
    print h
    ret 0
}
"""
    assert prints(src) == [0x0201, 1, -1, 65, 0, 0, 77, 1]


def test_alloca_is_fresh_and_zeroed_each_time():
    src = """
func f(v) {
entry:
    p = alloca 8
    x = load p
    store p, v
    ret x
}
func main() {
entry:
    a = call f(5)
    b = call f(6)
    print a
    print b
    ret 0
}
"""
    assert prints(src) == [0, 0]


@pytest.mark.parametrize("access,fragment", [
    ("x = load.8 q", "out of bounds"),
    ("store.4 q, 1", "out of bounds"),
    ("x = load.1 0", "null pointer"),
    ("x = load 12345", "not inside any object"),
])
def test_out_of_bounds_access_is_located_error(access, fragment):
    body = f"    p = alloca 8\n    q = add p, 6\n    {access}\n    ret 0"
    res = run_pir(main_body(body))
    assert res.error is not None
    assert fragment in res.error.message
    assert res.error.message.endswith("in main block entry")
    assert res.error.loc.line == 5


def test_negative_offset_from_an_object_is_detected():
    src = "global g[8]\nglobal h[8]\nfunc main() {\nentry:\n    q = sub h, 1\n" \
          "    x = load.1 q\n    ret 0\n}\n"
    res = run_pir(src)
    assert res.error is not None and "load" in res.error.message


def test_stack_memory_is_dead_after_return():
    src = """
func leak() {
entry:
    p = alloca 8
    ret p
}
func main() {
entry:
    p = call leak()
    x = load p
    ret 0
}
"""
    res = run_pir(src)
    assert res.error is not None and "dead memory" in res.error.message


@pytest.mark.slow
def test_memory_limit():
    res = run_pir(main_body("    p = alloca 1000\n    q = alloca 1000\n    ret 0"),
                  memory_limit=1500)
    assert res.error is not None and "memory limit" in res.error.message


def test_alloca_in_a_loop_accumulates_until_return():
    body = """
    i = mov 0
    br loop
loop:
    p = alloca 100
    i = add i, 1
    c = cmp.lt i, 50
    cbr c, loop, done
done:
    ret 0"""
    assert run_pir(main_body(body), memory_limit=4000).error is not None
    assert run_pir(main_body(body), memory_limit=6000).error is None


@pytest.mark.parametrize("size", [1, 2, 4, 8])
def test_loads_and_stores_of_every_size_and_value(size):
    """Stores of every size write the value's low bytes little-endian, loads read them back
    sign- or zero-extended (the decoder uses ``struct`` for 2, 4 and 8 bytes): checked against
    the byte-level definition on edge values, through both a register and an immediate."""
    values = [0, 1, -1, 127, 128, -128, 255, 256, 0x7FFF, 0x8000, -0x8000, 0xFFFF, 0x7FFFFFFF,
              0x80000000, -0x80000000, 0xFFFFFFFF, (1 << 63) - 1, -(1 << 63), 
              0x923456789ABCDEF0 - (1 << 64), 0x123456789ABCDEF0]
    lines = ["global buf[16]", "func main() {", "entry:"]
    for k, v in enumerate(values):
        lines += [f"    x{k} = mov {v}", f"    store.{size} buf, x{k}",
                  f"    s{k} = load.{size} buf", f"    u{k} = load.{size}u buf",
                  f"    print s{k}", f"    print u{k}",
                  f"    store.{size} buf, {v}", f"    t{k} = load.{size} buf", f"    print t{k}",
                  f"    b{k} = load.1u buf", f"    print b{k}"]
    lines += ["    ret 0", "}"]
    res = run_pir("\n".join(lines) + "\n")
    assert res.error is None, res.error
    expected = []
    for v in values:
        low = (v & ((1 << 8 * size) - 1)).to_bytes(size, "little")
        s = int.from_bytes(low, "little", signed=True)
        u = int.from_bytes(low, "little", signed=size == 8)  # 64-bit values are signed
        expected += [s, u, s, low[0]]
    assert res.prints == expected
