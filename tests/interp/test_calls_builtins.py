"""Calls, recursion, input, fuel, side exits and the C library builtins."""
import pytest

from conftest import main_body, run_pir

FIB = """
func @fib(n) {
entry:
    small = cmp.lt n, 2
    cbr small, base, rec
base:
    ret n
rec:
    a = sub n, 1
    fa = call @fib(a)
    b = sub n, 2
    fb = call @fib(b)
    r = add fa, fb
    ret r
}
func @main(n) {
entry:
    r = call @fib(n)
    print r
    ret r
}
"""


def test_recursion_and_entry_name_with_at():
    res = run_pir(FIB, args=(15,))
    assert res.prints == [610] and res.return_value == 610 and res.exit_status == 610 & 0xFF
    # fib(15) makes 2*fib(16)-1 = 1973 calls (+0 for main)
    assert res.counts["calls"] == 1973
    assert res.block_profile[("@fib", "entry")] == 1973
    assert res.block_profile[("@fib", "base")] == 987  # leaves = fib(16)


def test_entry_function_by_other_name_and_missing_args_are_zero():
    assert run_pir(FIB, entry="@fib", args=(10,)).return_value == 55
    assert run_pir(FIB, entry="main").prints == [0]


def test_unknown_entry_is_an_error_not_an_exception():
    res = run_pir(FIB, entry="nope")
    assert res.error is not None and "nope" in res.error.message


def test_call_depth_limit_is_a_clear_error():
    src = "func f(n) {\nentry:\n    m = add n, 1\n    r = call f(m)\n    ret r\n}\n" \
          "func main() {\nentry:\n    r = call f(0)\n    ret r\n}\n"
    res = run_pir(src, max_depth=500)
    assert res.error is not None and "call depth limit of 500" in res.error.message
    res = run_pir(src, fuel=10 ** 7)  # default depth limit, no Python RecursionError
    assert "call depth" in res.error.message


@pytest.mark.slow
def test_deep_recursion_within_limit_works():
    src = """
func down(n) {
entry:
    z = cmp.eq n, 0
    cbr z, done, more
done:
    ret 0
more:
    m = sub n, 1
    r = call down(m)
    r = add r, 1
    ret r
}
func main(n) {
entry:
    r = call down(n)
    print r
    ret 0
}
"""
    assert run_pir(src, args=(5000,)).prints == [5000]


def test_input_order_and_exhaustion():
    body = "    a = input\n    b = input\n    print b\n    print a\n    c = input\n    ret 0"
    res = run_pir(main_body(body), inputs=(-4, 9))
    assert res.prints == [9, -4]
    assert "input exhausted" in res.error.message and res.exit_status == 70


def test_fuel_is_exact():
    body = "    print 1\n    print 2\n    ret 0"
    assert run_pir(main_body(body), fuel=3).error is None
    res = run_pir(main_body(body), fuel=2)
    assert "fuel exhausted" in res.error.message and res.prints == [1, 2]
    assert res.counts["instructions"] == 2


def test_fuel_stops_an_infinite_loop():
    res = run_pir(main_body("    br entry"), fuel=1000)
    assert "fuel exhausted" in res.error.message
    assert res.counts["instructions"] == 1000
    assert res.edge_profile == {("main", "entry", "entry"): 1000}


def test_side_exits():
    body = """
    p:ut = pcmp.gt x, 0
    q:uf = pcmp.gt x, 0
    (p) br pos
    print 0
    (q) br neg
    print 1
    ret 1
pos:
    print 2
    ret 2
neg:
    print 3
    ret 3"""
    pos = run_pir(main_body(body, "x"), args=(5,))
    assert pos.prints == [2] and pos.return_value == 2
    assert pos.edge_profile == {("main", "entry", "pos"): 1}
    assert pos.counts["instructions"] == 5  # p, q, br taken, print 2, ret
    neg = run_pir(main_body(body, "x"), args=(-5,))
    assert neg.prints == [0, 3]
    assert neg.counts["nullified"] == 1 and neg.counts["instructions"] == 7


def test_guarded_ret_and_cbr():
    body = """
    p:ut = pcmp.eq x, 1
    (p) ret 10
    q:ut = pcmp.eq x, 2
    (q) cbr 1, two, other
    ret 30
two:
    ret 20
other:
    ret 99"""
    assert [run_pir(main_body(body, "x"), args=(v,)).return_value for v in (1, 2, 3)] == \
        [10, 20, 30]


def test_negative_return_value_and_exit_status():
    res = run_pir(main_body("    ret -1"))
    assert res.return_value == -1 and res.exit_status == 255


def test_unknown_extern_is_a_runtime_error():
    src = "extern func mystery(x)\nfunc main() {\nentry:\n    print 1\n" \
          "    r = call mystery(3)\n    ret 0\n}\n"
    res = run_pir(src)
    assert res.prints == [1]
    assert "unknown external function mystery" in res.error.message


def prog(body, strings=()):
    glob = "".join(f'global s{i} = "{s}"\n' for i, s in enumerate(strings))
    return glob + main_body(body)


def test_printf_formats():
    fmt = r"%d|%i|%u|%x|%X|%c|%s|%ld|%lu|%lld|%llu|%li|%lx|%llx|%%|%5d|%-3d|%08x|%.2s|%3c\n"
    body = ("    call @printf(s0, -5, 7, -1, 255, 255, 65, s1, -9, -1, 12, -1, 3, -1, 16, 42, 7, "
            "3054, s1, 66)\n    ret 0")
    res = run_pir(prog(body, [fmt, "str"]))
    assert res.error is None, res.error
    assert res.stdout == ("-5|7|4294967295|ff|FF|A|str|-9|18446744073709551615|12|"
                          "18446744073709551615|3|ffffffffffffffff|10|%|   42|7  |00000bee|st|"
                          "  B\n")


def test_printf_return_value_and_interleaving_with_print():
    body = "    print 1\n    n = call printf(s0, 12)\n    print n\n    ret 0"
    res = run_pir(prog(body, ["v=%d\\n"]))
    assert res.stdout == "1\nv=12\n5\n" and res.prints == [1, 5]


def test_putchar_puts():
    body = "    call putchar(72)\n    call putchar(0x169)\n    k = call puts(s0)\n    print k\n" \
           "    ret 0"
    res = run_pir(prog(body, ["ok"]))
    assert res.stdout == "Hiok\n3\n"  # puts returns len + 1


def test_string_and_memory_builtins():
    body = """
    n = call strlen(s0)
    print n
    c = call strcmp(s0, s1)
    c = cmp.lt c, 0
    print c
    e = call strcmp(s0, s0)
    print e
    m = call strncmp(s0, s1, 2)
    print m
    buf = call malloc(16)
    call memset(buf, 120, 15)
    x = load.1u buf
    print x
    r = call memcpy(buf, s0, 5)
    d = sub r, buf
    print d
    call puts(buf)
    call strcpy(buf, s1)
    call puts(buf)
    k = call memcmp(buf, s1, 4)
    print k
    call free(buf)
    ret 0"""
    res = run_pir(prog(body, ["abcd", "abzz"]))
    assert res.error is None, res.error
    assert res.stdout == "4\n1\n0\n0\n120\n0\nabcd\n" + "abzz\n0\n"


def test_calloc_realloc_memmove():
    body = """
    p = call calloc(4, 2)
    store.4 p, 0x01020304
    q = call realloc(p, 16)
    v = load.4 q
    print v
    w = load.8 q
    print w
    r = add q, 1
    call memmove(r, q, 4)
    v = load.4 r
    print v
    x = load.4 p
    ret 0"""
    res = run_pir(main_body(body))
    assert res.prints == [0x01020304, 0x01020304, 0x01020304]
    assert "dead memory" in res.error.message  # p was freed by realloc


def test_double_free_and_bad_free():
    assert "already freed" in run_pir(main_body(
        "    p = call malloc(4)\n    call free(p)\n    call free(p)\n    ret 0")).error.message
    assert "not returned by malloc" in run_pir(main_body(
        "    p = alloca 4\n    call free(p)\n    ret 0")).error.message


def test_exit_and_abort():
    res = run_pir(main_body("    print 1\n    call exit(3)\n    print 2\n    ret 0"))
    assert res.error is None and res.prints == [1] and res.return_value == 3 \
        and res.exit_status == 3
    res = run_pir(main_body("    call @abort()\n    ret 0"))
    assert res.exit_status == 134 and res.error is None


def test_exit_from_nested_call():
    src = "func f() {\nentry:\n    call exit(260)\n    ret 0\n}\n" \
          "func main() {\nentry:\n    call f()\n    print 9\n    ret 0\n}\n"
    res = run_pir(src)
    assert res.prints == [] and res.exit_status == 4 and res.return_value == 260


FUEL_PROGRAMS = {
    "loop_call": ("loop_call.pir", {"args": (6,)}),
    "pcp": ("pcp_ifconverted.pir", {"inputs": (0, 3)}),
    "strings": ("strings_printf.pir", {}),
}


@pytest.mark.parametrize("name", sorted(FUEL_PROGRAMS))
def test_fuel_boundary_is_exact_in_segmented_and_stepping_modes(name):
    """With fuel = the exact count the run succeeds (its tail runs one instruction at a time)
    and gives the same result; with one less it stops after exactly `fuel` instructions."""
    import pathlib
    from pylogic.interp import run_module
    from pylogic.ir.parser import parse_file
    fname, kw = FUEL_PROGRAMS[name]
    module = parse_file(pathlib.Path(__file__).resolve().parents[2] / "examples" / fname)
    full = run_module(module, **kw)
    n = full.counts["instructions"]
    for fuel in (n, n + 1):
        exact = run_module(module, fuel=fuel, **kw)
        assert exact.error is None
        assert (exact.stdout, exact.counts, exact.edge_profile) == \
            (full.stdout, full.counts, full.edge_profile)
    for fuel in (n - 1, n // 2, 7):
        short = run_module(module, fuel=fuel, **kw)
        assert "fuel exhausted" in short.error.message
        assert short.counts["instructions"] == fuel
        assert full.stdout.startswith(short.stdout)


def test_side_exit_refund_keeps_counts_exact():
    body = """
    i = mov 0
    br loop
loop:
    i = add i, 1
    done:ut = pcmp.ge i, 5
    (done) br out
    print i
    print i
    print i
    br loop
out:
    ret i"""
    res = run_pir(main_body(body))
    # entry 2; four full iterations of 7; the last iteration exits after 3; out 1
    assert res.counts["instructions"] == 2 + 4 * 7 + 3 + 1
    assert res.counts["nullified"] == 4 and res.return_value == 5
    for fuel in range(1, 40):
        r = run_pir(main_body(body), fuel=fuel)
        assert (r.error is None) == (fuel >= 34)
        if r.error is not None:
            assert r.counts["instructions"] == fuel


def test_fault_count_inside_a_segment():
    res = run_pir(main_body("    print 1\n    print 2\n    x = div 1, 0\n    print 3\n    ret 0"))
    assert res.counts["instructions"] == 3 and res.prints == [1, 2]
    assert res.error.loc.line == 5
