"""Intrinsic functors and operators, one small program each, on clingo against the souffle
binary (skipped without it): the same rows, corner cases included (C division, shifts past
31 bits, ^ overflow, substr past the end, an empty range, a regex std::regex refuses)."""
from __future__ import annotations

import pytest

from pylogic.engines import run_program
from tests.support import needs_souffle

CASES = [
    ('.decl r(x:number)', 'r(x) :- x = 5.'),
    ('.decl r(x:number)', 'r(x) :- x = max(1, 2).'),
    ('.decl r(x:symbol)', 'r(x) :- x = max("a", "b").'),
    ('.decl r(x:number)', 'r(1) :- x = max(1, 2), x > 0.'),
    ('.decl r(x:unsigned)', 'r(x) :- x = max(1, 4294967295).'),
    ('.decl r(x:number)', 'r(x) :- x = 1 bshl 31.'),
    ('.decl r(x:unsigned)', 'r(x) :- x = 1 bshl 31.'),
    ('.decl r(x:number)', 'r(x) :- x = -7 / 2.'),
    ('.decl r(x:number)', 'r(x) :- x = -7 % 3.'),
    ('.decl r(x:unsigned)', 'r(x) :- x = 7 / 2.'),
    ('.decl r(x:number)', 'r(x) :- x = strlen("héllo").'),
    ('.decl r(x:symbol)', 'r(x) :- x = substr("hello", 3, 10).'),
    ('.decl r(x:symbol)', 'r(x) :- x = substr("hello", 6, 1).'),
    ('.decl r(x:number)', 'r(x) :- x = to_number(" 42").'),
    ('.decl r(x:number)', 'r(x) :- x = range(5, 1).'),
    ('.decl r(x:number)', 'r(x) :- x = range(1, 7, -2).'),
    ('.decl r(x:number)', 'r(x) :- x = 2 ^ 31.'),
    ('.decl r(x:number)', 'r(x) :- x = (-2) ^ 3.'),
    ('.decl r(x:number)', 'r(x) :- x = 3 lxor 0, 1 = 1.'),
    ('.decl r(x:symbol)', 'r(x) :- x = to_string(-5).'),
    ('.decl r(x:number)', 'r(1) :- match("a|b", "b").'),
    ('.decl r(x:number)', 'r(1) :- match("(a", "b").'),
    ('.decl r(x:number)', 'r(1) :- !match("(a", "b").'),
    ('.decl r(x:number)', 'r(1) :- contains("", "b").'),
    ('.decl r(x:number)', 'r(x) :- x = 0xff band 0b1010.'),
    ('.decl r(x:unsigned)', 'r(x) :- x = 0u - 5u, x > 4000000000u.'),
    ('.decl r(x:number)', 'r(x) :- x = min(3, -4, 2).'),
    ('.decl r(x:symbol)', 'r(x) :- x = cat("a", cat("b", "c")).'),
    ('.decl r(x:number)', 'r(x) :- x = count : { false }.'),
]


@needs_souffle
@pytest.mark.parametrize("decl, rule", CASES, ids=[r for _, r in CASES])
def test_clingo_gives_souffles_rows(tmp_path, decl, rule):
    prog = tmp_path / "p.dl"
    prog.write_text(f"{decl}\n.output r\n{rule}\n")
    assert run_program(prog, tmp_path, "clingo") == run_program(prog, tmp_path, "souffle")
