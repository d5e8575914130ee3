"""The dce pass (issue #13 item 3): datalog/dce.dl marks, the pass removes; checked against
a Python marking oracle, the interpreter (every test and example program behaves the same),
and on both engines (the same dead instructions)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.ir.load import load_module
from pylogic.ir.model import BinOp, Cmp, Imm, Mov, PredDefine, Select, UnOp
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from tests.support import ENGINES

ROOT = Path(__file__).resolve().parents[3]
LOOP = """func main() {
entry:
    i = mov 0
    d = mov 5
    c = mov 0
    br loop
loop:
    c = add c, 3
    i = add i, 1
    t = cmp.lt i, 10
    cbr t, loop, done
done:
    u = mul d, 2
    print i
    ret 0
}
"""
GUARDED = """func main(a) {
entry:
    x = mov 7
    y = mov 1
    p:ut, q:uf = pcmp.gt a, 0
    (p) x = mov 9
    (q) y = mov 2
    print x
    ret 0
}
"""


def removed(text: str, engine: str = "clingo") -> set:
    module = parse_module(text)
    new, _ = optimize(module, ["dce"], "t.pir", engine=engine).module, None
    before = {(b.label, print_instr(i)) for f in module.defined_functions() for b in f.blocks
              for i in b.instrs}
    after = {(b.label, print_instr(i)) for f in new.defined_functions() for b in f.blocks
             for i in b.instrs}
    return {i.strip() for _, i in before - after}


def oracle_dead(fn) -> set:
    """Marking in Python: effects are useful; what a useful instruction reads is needed."""
    def pure(ins):
        if isinstance(ins, BinOp) and ins.op in ("div", "rem"):
            return isinstance(ins.b, Imm) and ins.b.value != 0
        return isinstance(ins, (Mov, BinOp, UnOp, Cmp, Select, PredDefine))

    def reads(ins):
        out = {op.name for op in ins.uses() if hasattr(op, "name") and not isinstance(op, Imm)}
        if ins.guard is not None:
            out.add(ins.guard)
        if isinstance(ins, PredDefine):
            out |= {d.name for d in ins.dests if d.dtype not in ("ut", "uf")}
        elif ins.guard is not None:
            out |= set(ins.defs())
        return out
    instrs = [(b.label, k, ins) for b in fn.blocks for k, ins in enumerate(b.instrs)]
    useful = {(b, k) for b, k, ins in instrs if not pure(ins)}
    while True:
        needed = {r for b, k, ins in instrs if (b, k) in useful for r in reads(ins)}
        more = {(b, k) for b, k, ins in instrs if set(ins.defs()) & needed} - useful
        if not more:
            return {f"{b}#{k}" for b, k, _ in instrs if (b, k) not in useful}
        useful |= more


@pytest.mark.parametrize("engine", ENGINES)
def test_dead_code_and_dead_cycles_go(engine):
    gone = removed(LOOP, engine)
    assert gone == {"d = mov 5", "c = mov 0", "c = add c, 3", "u = mul d, 2"}


@pytest.mark.parametrize("engine", ENGINES)
def test_guarded_writes_read_the_old_value(engine):
    gone = removed(GUARDED, engine)
    assert gone == {"y = mov 1", "(q) y = mov 2"}       # x's first value survives p false


def programs():
    paths = sorted((ROOT / "examples").glob("*.pir")) + sorted((ROOT / "tests").rglob("*.pir"))
    return [p for p in paths if p.stat().st_size < 200_000]


@pytest.mark.parametrize("path", programs(), ids=lambda p: p.name)
def test_every_program_behaves_the_same_and_matches_the_oracle(path):
    try:
        module = load_module(path)
    except Exception:  # noqa: BLE001 -- deliberately broken test inputs
        pytest.skip("not a valid program")
    rows = module_rows(module, "t.pir", relations=["dce_dead"], engine="clingo")
    for fn in module.defined_functions():
        got = {r[0] for r in rows.function(fn.name)["dce_dead"]}
        assert got == oracle_dead(fn), fn.name
    new = optimize(module, ["dce"], "t.pir", engine="clingo").module
    check = compare_modules(module, new)
    assert check.verdict != "different", check.first_difference
