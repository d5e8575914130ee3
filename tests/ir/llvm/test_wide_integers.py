"""Integers wider than 64 bits imported exactly (issue #11 item 7; ``pylogic/ir/llvm/wide.py``):
random LLVM functions over i65 .. i176 run in the interpreter and are checked against Python's
arbitrary-precision model of LLVM semantics, bit for bit in every word."""
from __future__ import annotations

import random

import pytest

from pylogic.interp import run_module
from pylogic.ir.llvm.importer import import_llvm
from tests.support import needs_clang

WIDTHS = (65, 80, 100, 112, 128, 176)
M64 = (1 << 64) - 1


def _s(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


class Program:
    """A random straight-line function @f(i64 x4) -> i64 and its value in Python."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.vals: list[tuple[str, int, int]] = []   # (name, bits, unsigned value)
        self.n = 0
        self.args = [self.rng.getrandbits(64) for _ in range(4)]

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def add(self, line: str, bits: int, value: int) -> tuple[str, int, int]:
        name = self.fresh()
        self.lines.append(f"  {name} = {line}")
        v = (name, bits, value & ((1 << bits) - 1))
        self.vals.append(v)
        return v

    def at(self, bits: int):
        """A value of width ``bits`` (converting one when none exists)."""
        same = [v for v in self.vals if v[1] == bits]
        if same and self.rng.random() < 0.8:
            return self.rng.choice(same)
        name, b, val = self.rng.choice(self.vals)
        if b == bits:
            return (name, b, val)
        if b < bits:
            if self.rng.random() < 0.5:
                return self.add(f"zext i{b} {name} to i{bits}", bits, val)
            return self.add(f"sext i{b} {name} to i{bits}", bits, _s(val, b))
        return self.add(f"trunc i{b} {name} to i{bits}", bits, val)

    def build(self, steps: int) -> str:
        r = self.rng
        for k in range(4):
            bits = r.choice(WIDTHS)
            op = r.choice(("zext", "sext"))
            x = self.args[k]
            self.add(f"{op} i64 %p{k} to i{bits}", bits, x if op == "zext" else _s(x, 64))
        for _ in range(steps):
            bits = r.choice(WIDTHS)
            mask = (1 << bits) - 1
            kind = r.choice(("arith", "arith", "logic", "shift", "vshift", "cmp", "const", "mem"))
            a = self.at(bits)
            if kind == "const":
                c = r.getrandbits(bits)
                op = r.choice(("add", "mul", "xor", "sub"))
                val = {"add": a[2] + c, "mul": a[2] * c, "xor": a[2] ^ c, "sub": a[2] - c}[op]
                self.add(f"{op} i{bits} {a[0]}, {_s(c, bits)}", bits, val)
                continue
            if kind == "mem":
                p = self.fresh()
                self.lines.append(f"  {p} = alloca i{bits}, align 16")
                self.lines.append(f"  store i{bits} {a[0]}, ptr {p}")
                self.add(f"load i{bits}, ptr {p}", bits, a[2])
                continue
            if kind == "shift":
                s = r.randrange(bits)
                op = r.choice(("shl", "lshr", "ashr"))
                val = {"shl": a[2] << s, "lshr": a[2] >> s, "ashr": _s(a[2], bits) >> s}[op]
                self.add(f"{op} i{bits} {a[0]}, {s}", bits, val)
                continue
            b = self.at(bits)
            if kind == "vshift":
                m = (1 << (bits.bit_length() - 1)) - 1           # amount < bits
                amt = self.add(f"and i{bits} {b[0]}, {m}", bits, b[2] & m)
                s = amt[2]
                op = r.choice(("shl", "lshr", "ashr"))
                val = {"shl": a[2] << s, "lshr": a[2] >> s, "ashr": _s(a[2], bits) >> s}[op]
                self.add(f"{op} i{bits} {a[0]}, {amt[0]}", bits, val)
            elif kind == "cmp":
                pred = r.choice(("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge"))
                x, y = a[2], b[2]
                if pred[0] == "s":
                    x, y = _s(x, bits), _s(y, bits)
                rel = pred[1:] if pred[0] in "us" else pred
                c = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y,
                     "ge": x >= y}[rel]
                cname = self.fresh()
                self.lines.append(f"  {cname} = icmp {pred} i{bits} {a[0]}, {b[0]}")
                self.add(f"select i1 {cname}, i{bits} {a[0]}, i{bits} {b[0]}", bits,
                         a[2] if c else b[2])
            else:
                op = r.choice(("add", "sub", "mul") if kind == "arith" else ("and", "or", "xor"))
                val = {"add": a[2] + b[2], "sub": a[2] - b[2], "mul": a[2] * b[2],
                       "and": a[2] & b[2], "or": a[2] | b[2], "xor": a[2] ^ b[2]}[op]
                self.add(f"{op} i{bits} {a[0]}, {b[0]}", bits, val & mask)
        # Fold every word of every value into the i64 result.
        acc, acc_name = 0, "0"
        for name, bits, val in list(self.vals):
            for w in range(0, bits, 64):
                sh = self.fresh()
                self.lines.append(f"  {sh} = lshr i{bits} {name}, {w}")
                t = self.fresh()
                self.lines.append(f"  {t} = trunc i{bits} {sh} to i64")
                m = self.fresh()
                self.lines.append(f"  {m} = mul i64 {acc_name}, 31")
                x = self.fresh()
                self.lines.append(f"  {x} = xor i64 {m}, {t}")
                acc = ((acc * 31) ^ ((val >> w) & M64)) & M64
                acc_name = x
        self.expected = _s(acc, 64)
        body = "\n".join(self.lines)
        return f"define i64 @f(i64 %p0, i64 %p1, i64 %p2, i64 %p3) {{\n{body}\n  ret i64 {acc_name}\n}}\n"


@pytest.mark.parametrize("seed", range(120))
@pytest.mark.slow
def test_random_wide_arithmetic_matches_python(seed):
    prog = Program(seed)
    text = prog.build(steps=14)
    module, report = import_llvm(text, f"wide{seed}.ll")
    assert report.complete, report.summary()
    got = run_module(module, entry="f", args=[_s(a, 64) for a in prog.args]).return_value
    assert got == prog.expected, text


def test_wide_division_and_wide_calls_are_skipped_with_a_reason():
    text = ("define i128 @g(i128 %x) {\n  ret i128 %x\n}\n"
            "define i64 @h(i64 %x) {\n  %a = zext i64 %x to i128\n  %b = udiv i128 %a, 3\n"
            "  %c = trunc i128 %b to i64\n  ret i64 %c\n}\n")
    _, report = import_llvm(text, "w.ll")
    reasons = {f["name"]: f["reason"] for f in report.skipped}
    assert reasons == {"@g": "integer wider than 64 bits (i128 parameter)",
                       "@h": "integer wider than 64 bits (i128 udiv)"}


@needs_clang
def test_bitfield_struct_wider_than_64_bits_validates(tmp_path):
    """The csmith shape: a bitfield group whose storage unit is i80/i112 (clang -O0)."""
    from pylogic.cli import main
    c = tmp_path / "bf.c"
    c.write_text("""#include <stdio.h>
struct S { signed a : 23; unsigned b : 31; signed c : 19; unsigned d : 7; signed e : 30; };
struct S g = {-5, 123456789, -77777, 100, 400000000};
int main(void) {
    struct S l = g;
    for (int i = 0; i < 5; i++) { l.a += i * 1000; l.c -= l.a >> 3; l.e ^= l.b; l.d += l.c; }
    g.b = l.e; g.d = l.a;
    printf("%d %u %d %u %d\\n", l.a, l.b, l.c, l.d, l.e);
    printf("%d %u %d %u %d\\n", g.a, g.b, g.c, g.d, g.e);
    return 0;
}
""")
    assert main(["validate", str(c)]) == 0
