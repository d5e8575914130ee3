"""``x = y + c`` and ``x = y - c`` (c a constant in 0 .. 2^31-1) reach clingo unmasked
(``to_clingo._step``), so that clingo binds x from them and looks rows up by it; their rows
are Soufflé's 32-bit wrap at the limits whichever variable clingo binds first (the oracle here
is ``numbers.wrap``), and every other arithmetic term keeps its mask."""
from __future__ import annotations

import pytest

from pylogic.engines import numbers
from pylogic.engines.clingo_engine import run_clingo
from pylogic.engines.program import load_program
from pylogic.engines.to_clingo import program_text

LIMITS = [-2147483648, -2147483647, -1, 0, 1, 5, 2147483646, 2147483647]
CONSTANTS = [0, 1, 2, 2147483647]


def _program(tmp_path, rule: str):
    path = tmp_path / "p.dl"
    path.write_text(".decl y(a: number)\n.input y\n.decl z(a: number)\n.input z\n"
                    ".decl r(a: number, b: number)\n.output r\n" + rule + "\n")
    return load_program(path)


@pytest.mark.parametrize("c", CONSTANTS)
@pytest.mark.parametrize("op", ["+", "-"])
@pytest.mark.parametrize("shape", [
    "r(y, x) :- y(y), x = y {op} {c}.",                 # x bound by the term
    "r(y, x) :- z(x), x = y {op} {c}, y(y).",           # both bound by atoms: a test
    "r(y, x) :- y(y), z(x), y {op} {c} = x.",
])
def test_a_step_wraps_as_souffle_does(tmp_path, shape, op, c):
    checked = _program(tmp_path, shape.format(op=op, c=c))
    assert f"Vx=Vy{op}{c}" in program_text(checked)
    step = (lambda y: numbers.wrap(y + c)) if op == "+" else (lambda y: numbers.wrap(y - c))
    want = sorted((y, step(y)) for y in LIMITS if "z(x)" not in shape or step(y) in LIMITS)
    facts = {"y": [(y,) for y in LIMITS], "z": [(z,) for z in LIMITS]}
    assert run_clingo(checked, facts, ["r"])["r"] == want


@pytest.mark.parametrize("rule, masked", [
    ("r(y, x) :- y(y), x = y + (-1).", "Vx=((Vy&(-1))+(-1))"),
    ("r(y, x) :- y(y), x = y - (-1).", "Vx=((Vy&(-1))-(-1))"),
    ("r(y, x) :- y(y), x = y * 2.", "Vx=((Vy&(-1))*2)"),
    ("r(y, x) :- y(y), x = 5 - y.", "Vx=(5-(Vy&(-1)))"),
    ("r(y, x) :- y(y), z(x), x < y + 1.", "Vx<((Vy&(-1))+1)"),
])
def test_other_terms_keep_their_mask(tmp_path, rule, masked):
    text = program_text(_program(tmp_path, rule))
    assert masked in text.replace(" ", "")
