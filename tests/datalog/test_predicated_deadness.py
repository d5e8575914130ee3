"""datalog/predicated_deadness.dl (issue #13 slice 1; predicated_pde.md §2.5-§2.7): predicate-aware
def-use chains and full / partial deadness per definition, checked against a Python oracle that
walks every path of the instruction-level flow graph (side exits included). On branchy code the
oracle and Datalog must agree exactly; on if-converted code the oracle compares executing
predicates inside a hyperblock with the PAS BDD (exact), Datalog with the PPG (sound, weaker), so
Datalog's chains must contain the oracle's and its deletions and partial deaths be the oracle's
or fewer. Results are identical on every available engine."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.ir.model import TRUE_PREDICATES, Br, CondBr, PredDefine, Reg, Ret
from pylogic.ir.parser import parse_module
from pylogic.predicates.network import PAS_RELATIONS
from pylogic.predicates.pas import PredicateAnalysis
from tests.datalog.random_programs import random_program
from tests.support import ENGINES, souffle_available

RELATIONS = ("pd_du", "pd_dead", "pd_partially_dead", "pd_candidate")
KEEP_OLD = {"ot", "of", "at", "af", "ct", "cf", "disjt", "disjf", "conjt", "conjf"}


def guard_of(ins):
    return None if ins.guard in (None, *TRUE_PREDICATES) else ins.guard


def reads(ins, r: str) -> tuple[bool, bool]:
    """(operand read that a false guard suppresses, read whatever the guard)."""
    operand = any(isinstance(op, Reg) and op.name == r for op in ins.uses())
    always = ins.guard == r
    if isinstance(ins, PredDefine):
        always = always or operand or any(d.name == r and d.dtype in KEEP_OLD for d in ins.dests)
        operand = False
    return operand, always


def oracle(fn, pas=None) -> tuple[set, set, set]:
    """(du chains, dead defs, defs whose value dies unread on some path) by path search.
    ``pas``: a PredicateAnalysis to compare guards inside one block execution (exactly)."""
    blocks = {b.label: b.instrs for b in fn.blocks}
    du, dead, dies = set(), set(), set()
    for b in fn.blocks:
        for x, d in enumerate(b.instrs):
            if isinstance(d, PredDefine) or not d.defs():
                continue
            did = f"{b.label}#{x}"
            used = False
            for r in d.defs():
                seen = set()
                work = [(b.label, x + 1, True, True)]
                while work:
                    state = work.pop()
                    if state in seen:
                        continue
                    seen.add(state)
                    label, k, local, unread = state
                    ins = blocks[label][k]
                    both = local and pas is not None and guard_of(d) and guard_of(ins)
                    operand, always = reads(ins, r)
                    if operand and both and pas.disjoint(pas.guard(b.label, x), pas.guard(label, k)):
                        operand = False
                    if operand or always:
                        du.add((did, r, f"{label}#{k}"))
                        unread = False
                    if r in ins.defs():
                        kill = isinstance(ins, PredDefine) or guard_of(ins) is None or (
                            both and pas.implies(pas.guard(b.label, x), pas.guard(label, k)))
                        if kill:
                            if unread:
                                dies.add(did)
                            continue
                    if isinstance(ins, Ret):
                        if unread:
                            dies.add(did)
                        continue
                    if isinstance(ins, Br):
                        work.append((ins.target, 0, False, unread))
                        if guard_of(ins) is None:
                            continue
                    elif isinstance(ins, CondBr):
                        work.append((ins.if_true, 0, False, unread))
                        work.append((ins.if_false, 0, False, unread))
                        continue
                    work.append((label, k + 1, local, unread))
                used = used or any(c[0] == did and c[1] == r for c in du)
            if not used:
                dead.add(did)
    return du, dead, dies


def datalog(module, engine="clingo"):
    rows = module_rows(module, "t.pir", relations=RELATIONS, engine=engine)
    out = {}
    for fn in module.defined_functions():
        fr = rows.function(fn.name)
        out[fn.name] = ({tuple(r) for r in fr["pd_du"]}, {r[0] for r in fr["pd_dead"]},
                        {r[0] for r in fr["pd_partially_dead"]})
    return out


HYPER = """func main(a) {
entry: !hyperblock
    p:ut, q:uf = pcmp.gt a, 0
    x = add a, 1
    (q) y = mov 3
    (p) x = sub a, 1
    (q) print x
    (p) z = mov 2
    (p) z = mov 5
    (p) print z
    print x
    ret 0
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_hyperblock_hand_checked(engine):
    du, dead, partial = datalog(parse_module(HYPER), engine)["main"]
    assert "entry#2" in dead                                 # (q) y: never read
    assert "entry#5" in dead                                 # (p) z = 2 killed by (p) z = 5
    assert ("entry#3", "x", "entry#4") not in du             # (p) x vs (q) print: disjoint
    assert ("entry#1", "x", "entry#4") in du
    assert "entry#1" not in dead and "entry#1" not in partial   # unguarded: no path split
    assert ("entry#3", "x", "entry#8") in du and "entry#3" not in dead


@pytest.mark.parametrize("seed", range(40))
def test_branchy_random_programs_equal_the_oracle(seed):
    module = parse_module(random_program(seed))
    fn = module.defined_functions()[0]
    du, dead, partial = datalog(module)["main"]
    o_du, o_dead, o_dies = oracle(fn)
    assert du == o_du
    assert dead == o_dead
    assert partial == o_dies - o_dead


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.slow
def test_if_converted_random_programs_are_sound_against_the_bdd(seed):
    module = optimize(parse_module(random_program(seed)), ["if-convert"], "t.pir",
                      engine="clingo").module
    fn = module.defined_functions()[0]
    rows = module_rows(module, "t.pir", relations=PAS_RELATIONS, engine="clingo")
    pas = PredicateAnalysis(fn, rows.function(fn.name))
    du, dead, partial = datalog(module)["main"]
    o_du, o_dead, o_dies = oracle(fn, pas)
    assert o_du <= du
    assert dead <= o_dead
    assert partial <= o_dies
    # without predicate pruning the oracle is exactly the Datalog program on branchy code
    assert any(b.hyperblock for b in fn.blocks) or du == o_du


def test_engines_agree_on_random_programs():
    if not souffle_available():
        pytest.skip("souffle binary not on PATH: only clingo to compare")
    for seed in range(5):
        module = optimize(parse_module(random_program(seed)), ["if-convert"], "t.pir").module
        assert datalog(module, "clingo") == datalog(module, "souffle")


@pytest.mark.slow
def test_the_if_converted_sample_is_predicated():
    """The soundness test above is not vacuous: most samples hold guarded definitions."""
    guarded = 0
    for seed in range(25):
        module = optimize(parse_module(random_program(seed)), ["if-convert"], "t.pir",
                          engine="clingo").module
        guarded += any(guard_of(i) and i.defs() for f in module.defined_functions()
                       for b in f.blocks for i in b.instrs)
    assert guarded >= 15


SIDE_EXIT = """func main(a) {
entry: !hyperblock
    x = add a, 1
    p:ut, q:uf = pcmp.gt a, 0
    (p) br out
    x = mov 2
    br out
out:
    print x
    ret 0
}
"""


@pytest.mark.slow
def test_a_value_leaving_by_a_side_exit_before_its_overwrite_is_live():
    """liveness.dl: a register read at a side exit's target is live at the block's entry when
    the block overwrites it only after the side exit (found by the PPDE property test T26)."""
    module = parse_module(SIDE_EXIT)
    rows = module_rows(module, "t.pir", relations=("live_in",) + RELATIONS, engine="clingo")
    fr = rows.function("main")
    assert ("out", "x") in set(fr["live_in"])
    assert ("entry#0", "x", "out#0") in {tuple(r) for r in fr["pd_du"]}
    assert "entry#0" in {r[0] for r in fr["pd_partially_dead"]}


def _faint_by_chains(fn, du: set, candidates: set) -> set:
    """Candidates whose values reach no needed instruction, by the def-use chains alone: the
    needed ones grow from every non-candidate backwards over ``du`` (KRS's faint code)."""
    ids = {f"{b.label}#{k}" for b in fn.blocks for k in range(len(b.instrs))}
    needed = ids - candidates
    readers = {}
    for d, _, u in du:
        readers.setdefault(d, set()).add(u)
    grew = True
    while grew:
        grew = False
        for d, us in readers.items():
            if d not in needed and us & needed:
                needed.add(d)
                grew = True
    return {d for b in fn.blocks for k, i in enumerate(b.instrs)
            if (d := f"{b.label}#{k}") in candidates and i.defs()
            and not isinstance(i, PredDefine) and d not in needed}


GUARDED_WRITE_LOOP = """func main(a, n) {
entry:
    x = add a, 1
    k = mov 0
    br head
head: !hyperblock
    p:ut, q:uf = pcmp.lt k, n
    (p) x = mov 7
    k = add k, 1
    (p) br head
    br done
done:
    ret 0
}
"""


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.slow
def test_deadness_and_faintness_are_those_of_the_def_use_chains(seed):
    """pd_dead, pd_partially_dead's "used" and pd_faint ask per block and register whether a
    value is read (_pd_live, _pd_needed_live), not per definition (issue #28): the same as
    reading pd_du, on branchy and if-converted random programs and a loop whose only
    liveness.dl read of x is a guarded write (a read of the old value there, none here)."""
    texts = [random_program(seed)] + ([GUARDED_WRITE_LOOP] if seed == 0 else [])
    for text in texts:
        module = parse_module(text)
        for version in (module, optimize(module, ["if-convert"], "t.pir", engine="clingo").module):
            rows = module_rows(version, "t.pir", relations=("live_in",) + RELATIONS + ("pd_faint",),
                               engine="clingo")
            fn = version.defined_functions()[0]
            fr = rows.function(fn.name)
            du = {tuple(r) for r in fr["pd_du"]}
            used = {d for d, _, _ in du}
            defs = {f"{b.label}#{k}" for b in fn.blocks for k, i in enumerate(b.instrs)
                    if i.defs() and not isinstance(i, PredDefine)}
            assert {r[0] for r in fr["pd_dead"]} == defs - used
            assert {r[0] for r in fr["pd_partially_dead"]} <= used
            candidates = {r[0] for r in fr["pd_candidate"]}
            assert {r[0] for r in fr["pd_faint"]} == _faint_by_chains(fn, du, candidates)
    fn = parse_module(GUARDED_WRITE_LOOP).defined_functions()[0]
    fr = module_rows(parse_module(GUARDED_WRITE_LOOP), "t.pir", relations=("live_in", "pd_dead"),
                     engine="clingo").function("main")
    assert ("head", "x") in set(fr["live_in"]) and "entry#0" in {r[0] for r in fr["pd_dead"]}
