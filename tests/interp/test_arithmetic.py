"""64-bit semantics of IR.md: wrap-around, C division, shifts mod 64, signed/unsigned compares.
Expected values are computed by hand or by an independent C-semantics oracle below."""
import pytest
from hypothesis import given, settings, strategies as st

from conftest import main_body, run_pir

MIN, MAX = -(1 << 63), (1 << 63) - 1


def one(op_line: str) -> int:
    res = run_pir(main_body(f"    {op_line}\n    print r\n    ret 0"))
    assert res.error is None, res.error
    return res.prints[0]


@pytest.mark.parametrize("line,want", [
    (f"r = add {MAX}, 1", MIN),
    (f"r = sub {MIN}, 1", MAX),
    (f"r = mul {MAX}, 2", -2),
    ("r = mul 4294967296, 4294967296", 0),
    (f"r = neg {MIN}", MIN),
    ("r = not 0", -1),
    (f"r = div {MIN}, -1", MIN),
    (f"r = rem {MIN}, -1", 0),
    ("r = div -7, 2", -3),
    ("r = div 7, -2", -3),
    ("r = rem -7, 2", -1),
    ("r = rem 7, -2", 1),
    ("r = rem -7, -2", -1),
    ("r = shl 1, 63", MIN),
    ("r = shl 1, 64", 1),
    ("r = shl 3, 65", 6),
    ("r = shl 1, -1", MIN),
    ("r = shr -1, 60", 15),
    ("r = shr -1, 0", -1),
    ("r = shr -1, 64", -1),
    ("r = sar -16, 2", -4),
    ("r = sar -1, 63", -1),
    (f"r = sar {MIN}, 127", -1),
    ("r = and -1, 255", 255),
    ("r = or 240, 15", 255),
    ("r = xor -1, 1", -2),
    ("r = cmp.lt -1, 0", 1),
    ("r = cmp.ltu -1, 0", 0),
    ("r = cmp.gtu -1, 0", 1),
    ("r = cmp.geu 0, -1", 0),
    ("r = cmp.leu 5, 5", 1),
    ("r = cmp.ne 3, 4", 1),
    ("r = cmp.ge 4, 4", 1),
    ("r = select 0, 1, 2", 2),
    ("r = select -5, 1, 2", 1),
    ("r = mov 0xFF", 255),
    ("r = add never_written, 5", 5),
])
def test_corner_cases(line, want):
    assert one(line) == want


def test_division_by_zero_is_located_runtime_error():
    res = run_pir("func f(x) {\nL:\n    y = div 1, x\n    ret y\n}\n"
                  "func main() {\nentry:\n    print 1\n    z = call f(0)\n    ret z\n}\n")
    assert res.error is not None
    assert res.error.message == "division by zero in f block L"
    assert res.error.loc.line == 3
    assert "test.pir:3" in str(res.error) and "run-time error" in str(res.error)
    assert res.prints == [1] and res.exit_status == 70


def test_remainder_by_zero_is_an_error():
    assert "division by zero" in run_pir(main_body("    r = rem 5, 0\n    ret r")).error.message


def c_div(a, b):
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return ((q + (1 << 63)) % (1 << 64)) - (1 << 63)


def wrap(v):
    return ((v + (1 << 63)) % (1 << 64)) - (1 << 63)


i64 = st.integers(MIN, MAX)


@settings(max_examples=60, deadline=None)
@given(a=i64, b=i64)
def test_against_independent_oracle(a, b):
    src = main_body("\n".join([
        "    a = input", "    b = input",
        "    r = add a, b", "    print r", "    r = sub a, b", "    print r",
        "    r = mul a, b", "    print r", "    r = shl a, b", "    print r",
        "    r = shr a, b", "    print r", "    r = sar a, b", "    print r",
        "    r = cmp.ltu a, b", "    print r", "    r = cmp.le a, b", "    print r",
        "    cbr b, nz, done", "nz:", "    r = div a, b", "    print r",
        "    r = rem a, b", "    print r", "    br done", "done:", "    ret 0"]))
    res = run_pir(src, inputs=(a, b))
    s = b % 64
    want = [wrap(a + b), wrap(a - b), wrap(a * b), wrap(a << s),
            wrap((a % (1 << 64)) >> s), a >> s, int(a % (1 << 64) < b % (1 << 64)), int(a <= b)]
    if b:
        q = c_div(a, b)
        want += [q, wrap(a - wrap(q * b))]
    assert res.prints == want
