"""If-conversion (pylogic.transforms.ifconvert.if_convert): every result is checked by the reference
interpreter (same observable behaviour as the original on every input tried), by the verifier,
by a print/parse round trip, and on the paper example by the PAS predicate analysis.
References: predicated_cp.md §3.2, §4.2 Table 1; pas.md §2.1."""
from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pylogic.cli import main as cli_main
from pylogic.errors import PathlogicError
from pylogic.interp import run_module
from pylogic.ir.load import load_module
from pylogic.ir.model import Br, Call, CondBr, PredDefine, Reg, Ret
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.synthetic import random_cfg, structured_cfg
from pylogic.ir.llvm.clang import compile_c_to_ll
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.verify import verify_module
from tests.support import needs_clang
from pylogic.analysis.run import module_rows
from pylogic.predicates import PAS_RELATIONS, PredicateAnalysis
from pylogic.analysis.passes import run_pass


def pas_rows(module, fn):
    """The rows PAS reads for ``fn`` of ``module``."""
    return module_rows(module, "t.pir", relations=PAS_RELATIONS, engine="clingo").function(fn.name)


def if_convert(module, **options):
    """The registered pass, with the rows it needs computed on the embedded engine."""
    return run_pass("if-convert", module, engine="clingo", **options)

ROOT = Path(__file__).resolve().parents[3]
BRANCHY = ROOT / "examples" / "pcp_branchy.pir"
FEASIBLE = [(1, 0), (0, 1), (0, 0)]  # the three feasible paths of predicated_cp.md §4.2


def same_behaviour(before, after, inputs_list, args=(), fuel=200_000):
    """Assert equal observable behaviour on every input list; return the two run lists."""
    runs = []
    for inputs in inputs_list:
        a = run_module(before, args=args, inputs=inputs, fuel=fuel)
        b = run_module(after, args=args, inputs=inputs, fuel=fuel)
        assert a.observable() == b.observable(), (inputs, a.stdout, b.stdout, a.error, b.error)
        assert b.counts["branches_taken"] <= a.counts["branches_taken"]
        runs.append((a, b))
    return runs


def check_wellformed(module):
    assert verify_module(module) == []
    assert parse_module(print_module(module), "rt.pir") == module


def pir(text):
    """Parse a test program and make sure it is valid to begin with."""
    m = parse_module(text, "t.pir")
    assert verify_module(m) == []
    return m


# ---------------------------------------------------------------- the paper's running example

def test_branchy_example_becomes_table1_hyperblock():
    m = load_module(BRANCHY)
    new, rec = if_convert(m)
    check_wellformed(new)
    (fn,) = new.functions
    assert [b.label for b in fn.blocks] == ["A"] and fn.blocks[0].hyperblock
    (region,) = rec.regions
    assert region.blocks == ("A", "B", "C", "D", "E", "F", "G", "H", "J")
    # Table 1: three cmp.unc defines; F and J (joins) unguarded; no branch but the ret.
    defines = [i for i in fn.blocks[0].instrs if isinstance(i, PredDefine)]
    assert len(defines) == 3 and all({d.dtype for d in i.dests} == {"ut", "uf"} for i in defines)
    assert region.predicates["F"] is None and region.predicates["J"] is None
    assert region.predicates["A"] is None
    assert region.compares_folded == 2  # a>0 and b>0 become pcmp.gt (odd(z) is an `and`)
    assert [type(i) for i in fn.blocks[0].instrs if i.is_terminator] == [Ret]
    assert rec.totals()["instructions_predicated"] == 13
    rng = random.Random(5)
    inputs = FEASIBLE + [(rng.randint(-9, 9), rng.randint(-9, 9)) for _ in range(20)]
    runs = same_behaviour(m, new, inputs)
    for a, b in runs:
        assert b.return_value == 17 and b.counts["branches_taken"] == 0
        assert a.counts["branches_taken"] in (4, 5)


def test_branchy_predicates_checked_by_pas():
    new, rec = if_convert(load_module(BRANCHY))
    fn = new.functions[0]
    pred = rec.regions[0].predicates
    pa = PredicateAnalysis(fn, pas_rows(new, fn), check="sat")
    b, c, d, e, g, h = (pred[x] for x in "BCDEGH")
    assert pa.disjoint(b, c) and pa.exhaustive(b, c)      # then / else of a > 0
    assert pa.disjoint(d, e) and pa.implies(d, c) and pa.implies(e, c)
    assert pa.disjoint(b, d) and pa.disjoint(b, e)
    assert pa.covers([b, d, e])                           # the join F runs on every path
    assert pa.disjoint(g, h) and pa.covers([g, h])        # odd(z) / even(z); J always runs
    assert not pa.always_true(b) and not pa.always_false(e)
    # the guards of the instructions that came from F and J are constant true
    instrs = fn.blocks[0].instrs
    k = next(i for i, ins in enumerate(instrs) if getattr(ins, "dest", None) == "oz")
    assert pa.always_true(pa.guard("A", k))
    assert all(pa.always_true(pa.guard("A", i)) for i in range(len(instrs) - 9, len(instrs)))


def test_branchy_matches_hand_if_converted_example_behaviour():
    ours, _ = if_convert(load_module(BRANCHY))
    theirs = load_module(ROOT / "examples" / "pcp_ifconverted.pir")
    same_behaviour(theirs, ours, FEASIBLE + [(5, 5), (-1, -1)])
    assert len(ours.functions[0].blocks[0].instrs) == len(theirs.functions[0].blocks[0].instrs)


def test_input_module_is_not_modified():
    m = load_module(BRANCHY)
    text = print_module(m)
    new, _ = if_convert(m)
    assert print_module(m) == text and new is not m and new != m


# ---------------------------------------------------------------- predicate forms

OR_JOIN = """
func main() {
H:
    a = input
    b = input
    x = input
    c = cmp.gt a, 0
    cbr c, A, B
A:
    print 1
    d = cmp.gt b, 0
    cbr d, J, K
B:
    print 2
    e = cmp.gt x, 0
    cbr e, J, K
J:
    print 3
    br K
K:
    print 4
    ret 0
}
"""


def test_join_on_some_paths_gets_or_type_predicate():
    m = pir(OR_JOIN)
    new, rec = if_convert(m)
    check_wellformed(new)
    fn = new.functions[0]
    assert len(fn.blocks) == 1
    pj = rec.regions[0].predicates["J"]
    assert rec.regions[0].predicates["K"] is None
    types = {d.dtype for i in fn.blocks[0].instrs if isinstance(i, PredDefine)
             for d in i.dests if d.name == pj}
    assert types == {"uf", "ot"}  # cleared at the head, or-ed in at A and at B
    pa = PredicateAnalysis(fn, pas_rows(new, fn), check="sat")
    ca, cb, cx = (pa.condition(r, "gt", 0) for r in "abx")
    assert pa.value(pj) == (ca & cb) | (~ca & cx)
    same_behaviour(m, new, [(a, b, x) for a in (-1, 1) for b in (-1, 1) for x in (-1, 1)])


def test_already_guarded_code_gets_conjunction_and_ut_becomes_ct():
    m = pir("""
func main() {
H:
    q:ut = pcmp.eq 0, 0
    a = input
    b = input
    cbr a, T, E
T:
    q:ut = pcmp.gt b, 0
    (q) print 10
    (q) r:ot = pcmp.gt b, 5
    print 11
    br J
E:
    print 12
    br J
J:
    (q) print 13
    (r) print 14
    ret 0
}
""")
    new, rec = if_convert(m)
    check_wellformed(new)
    hb = new.functions[0].blocks[0]
    text = print_module(new)
    assert "q:ct = pcmp.gt b, 0" in text  # ut under the block predicate -> ct
    conj = [i for i in hb.instrs if isinstance(i, PredDefine) and i.a == Reg("q")]
    assert len(conj) == 1 and conj[0].guard == rec.regions[0].predicates["T"]
    same_behaviour(m, new, [(a, b) for a in (0, 1) for b in (-1, 1, 9)])


def test_guarded_unconditional_define_blocks_merging():
    m = pir("""
func main() {
H:
    a = input
    p:ut = pcmp.gt a, 3
    cbr a, T, J
T:
    (p) s:ut = pcmp.gt a, 5
    br J
J:
    (s) print 1
    ret 0
}
""")
    new, rec = if_convert(m)
    assert rec.regions == [] and new == m
    assert {(r.item, r.reason) for r in rec.rejected} == {
        ("T", "predicate define not predicable"), ("J", "not single-entry")}


def test_side_exits_returns_and_loop_back_edge_to_head():
    m = pir("""
func main(n) {
entry:
    i = mov 0
    br L
L:
    i = add i, 1
    c = cmp.gt i, n
    cbr c, Out, Body
Body:
    r = rem i, 3
    cbr r, Odd, Even
Odd:
    print i
    k = cmp.eq i, 7
    cbr k, Early, L
Early:
    ret 77
Even:
    print 0
    br L
Out:
    print -1
    ret i
}
""")
    new, rec = if_convert(m)
    check_wellformed(new)
    (region,) = [r for r in rec.regions if r.head == "L"]
    assert set(region.blocks) == {"L", "Body", "Odd", "Even", "Early", "Out"}
    targets = [s for _, s, _ in region.side_exits]
    assert targets.count("L") == 2 and "ret" in targets
    hb = new.function_map()["main"].block_map()["L"]
    assert any(isinstance(i, Br) and i.target == "L" and i.guard for i in hb.instrs)
    assert any(isinstance(i, Ret) and i.guard for i in hb.instrs)  # guarded ret side exit
    for n in range(0, 12):
        same_behaviour(m, new, [()], args=(n,))


def test_fresh_names_do_not_collide():
    m = pir("""
func main() {
A:
    %hp.B = input
    cbr %hp.B, B, C
B:
    print 1
    br D
C:
    %hp.C = mov 5
    print %hp.C
    br D
D:
    print %hp.B
    ret 0
}
""")
    new, rec = if_convert(m)
    check_wellformed(new)
    preds = set(rec.regions[0].predicates.values()) - {None}
    assert preds and not preds & {"%hp.B", "%hp.C"}
    same_behaviour(m, new, [(0,), (3,)])


def test_if_converting_twice_and_hyperblock_inputs():
    m = load_module(ROOT / "examples" / "pas_fig3b.pir")
    new, rec = if_convert(m)
    assert rec.regions == [] and new == m  # already one block
    once, _ = if_convert(load_module(BRANCHY), max_blocks=4)
    twice, rec2 = if_convert(once)
    check_wellformed(twice)
    same_behaviour(load_module(BRANCHY), twice, FEASIBLE)


# ---------------------------------------------------------------- options

CALLS_AND_MEMORY = """
global buf[16]
func inc(v) {
entry:
    r = add v, 1
    ret r
}
func main() {
A:
    a = input
    cbr a, B, C
B:
    x = call inc(a)
    print x
    br D
C:
    store buf, a
    y = load buf
    print y
    br D
D:
    ret 0
}
"""


def test_calls_rejected_unless_allowed():
    m = pir(CALLS_AND_MEMORY)
    new, rec = if_convert(m)
    assert {(r.item, r.reason) for r in rec.rejected} == {("B", "contains call"),
                                                         ("D", "not single-entry")}
    assert rec.regions[0].blocks == ("A", "C")
    same_behaviour(m, new, [(0,), (4,)])
    new2, rec2 = if_convert(m, allow_calls=True)
    assert rec2.regions[0].blocks == ("A", "B", "C", "D") and rec2.rejected == []
    assert any(isinstance(i, Call) and i.guard for i in new2.function_map()["main"].blocks[0].instrs)
    same_behaviour(m, new2, [(0,), (4,)])


def test_memory_rejected_when_excluded():
    m = pir(CALLS_AND_MEMORY)
    _, rec = if_convert(m, allow_calls=True, allow_memory=False)
    assert ("C", "contains memory access") in {(r.item, r.reason) for r in rec.rejected}
    assert rec.regions[0].blocks == ("A", "B")


def test_size_limits_bound_regions():
    m = load_module(BRANCHY)
    for k in range(1, 10):
        new, rec = if_convert(m, max_blocks=k)
        assert all(len(r.blocks) <= k for r in rec.regions)
        check_wellformed(new)
        same_behaviour(m, new, FEASIBLE)
        if k < 9:
            assert any(r.reason == "too many blocks" for r in rec.rejected)
    for limit in (5, 12, 20, 30):
        new, rec = if_convert(m, max_instrs=limit)
        assert all(r.instrs_before <= limit for r in rec.regions)
        same_behaviour(m, new, FEASIBLE)
    _, rec = if_convert(m, max_instrs=12)
    assert any(r.reason == "too many instructions" for r in rec.rejected)


def test_functions_option_and_bad_options():
    m = load_module(ROOT / "examples" / "loop_call.pir")
    new, rec = if_convert(m, functions=["main"])
    assert new.function_map()["fib"] == m.function_map()["fib"]
    assert all(r.function == "main" for r in rec.regions + rec.rejected)
    with pytest.raises(PathlogicError, match="no function 'nope'"):
        if_convert(m, functions=["nope"])
    with pytest.raises(PathlogicError):
        if_convert(m, max_blocks=0)


# ---------------------------------------------------------------- generated programs

REGS = ("r0", "r1", "r2", "r3")


def _operand(rng):
    return rng.choice(REGS) if rng.random() < 0.7 else str(rng.randint(-3, 3))


def _body(rng, block_id, features):
    lines = []
    if rng.random() < 0.7:
        lines.append(f"print {block_id}")   # the path is visible in the output
    for _ in range(rng.randint(0, 4)):
        k = rng.random()
        dest = rng.choice(REGS)
        if k < 0.35:
            op = rng.choice(("add", "sub", "mul", "xor", "and", "or", "shl"))
            lines.append(f"{dest} = {op} {rng.choice(REGS)}, {_operand(rng)}")
        elif k < 0.45:
            lines.append(f"{dest} = input")
        elif k < 0.6:
            lines.append(f"print {rng.choice(REGS)}")
        elif k < 0.66:
            lines.append(f"{dest} = div {rng.choice(REGS)}, {rng.choice(REGS)}")  # may fault
        elif k < 0.72:
            lines.append(f"{dest} = cmp.{rng.choice(('lt', 'ge', 'eq'))} {rng.choice(REGS)}, "
                         f"{_operand(rng)}")
        elif k < 0.8 and "memory" in features:
            lines += [f"%ad = and {rng.choice(REGS)}, 8", "%ad = add %ad, mem"]
            lines.append(f"store %ad, {rng.choice(REGS)}" if rng.random() < 0.5 else
                         f"{dest} = load %ad")
        elif k < 0.86 and "calls" in features:
            lines.append(f"{dest} = call twice({rng.choice(REGS)})")
        elif k < 0.9 and "predicates" in features:  # existing predicated code
            p = rng.choice(("%q0", "%q1"))
            dtype = rng.choice(("ut", "uf", "ct", "ot", "af", "conjt"))
            lines.append(f"{p}:{dtype} = pcmp.{rng.choice(('lt', 'gt'))} {rng.choice(REGS)}, "
                         f"{rng.randint(-2, 2)}")
        elif k < 0.95 and "predicates" in features:
            guarded = f"print {block_id + 50}" if rng.random() < 0.5 else f"{dest} = add {dest}, 1"
            lines.append(f"({rng.choice(('%q0', '%q1'))}) {guarded}")
    return lines


def generated_program(seed: int, shape: str) -> str:
    """A terminating PIR program with the CFG shape ``structured`` (if/else, loops), ``random``
    (arbitrary, irreducible, >2 successors become guarded side exits) or ``dag`` (acyclic)."""
    rng = random.Random(seed)
    n = rng.randint(2, 14)
    if shape == "structured":
        labels, succs = structured_cfg(rng, n)
    elif shape == "random":
        labels, succs = random_cfg(rng, n)
    else:
        labels = [f"b{i}" for i in range(n)]
        succs = {b: sorted({labels[rng.randint(i + 1, n - 1)] for _ in range(rng.randint(1, 2))})
                 if i < n - 1 and rng.random() > 0.1 else [] for i, b in enumerate(labels)}
    features = {f for f in ("memory", "calls", "predicates") if rng.random() < 0.35}
    # loop headers (targets of DFS retreating edges) burn fuel and leave when it runs out
    headers, state = set(), {}

    def dfs(u):
        state[u] = 1
        for v in succs[u]:
            if state.get(v) == 1:
                headers.add(v)
            elif v not in state:
                dfs(v)
        state[u] = 2
    dfs(labels[0])
    out = ["global mem[16]", "func twice(v) {", "e:", "    w = add v, v", "    ret w", "}",
           "func main() {", "start:", f"    %fuel = mov {rng.randint(3, 25)}"]
    out += [f"    {r} = input" for r in REGS[:2]]
    out.append("    %q0:uf, %q1:ut = pcmp.eq 0, 0")  # q0 = 0, q1 = 1
    out.append(f"    br {labels[0]}")
    for bid, label in enumerate(labels):
        body = _body(rng, bid + 100, features)
        if label in headers:
            body = ["%fuel = sub %fuel, 1", "%out:ct = pcmp.le %fuel, 0",
                    f"(%out) ret {bid}"] + body
        targets = list(dict.fromkeys(succs[label]))
        if not targets:
            body.append(f"ret {rng.choice(REGS)}")
        elif len(targets) == 1:
            body.append(f"br {targets[0]}")
        else:
            for k, t in enumerate(targets[:-2]):  # extra successors: guarded side exits
                body += [f"%sx{k}:ut = pcmp.eq {rng.choice(REGS)}, {rng.randint(-2, 2)}",
                         f"(%sx{k}) br {t}"]
            body += [f"%c = cmp.{rng.choice(('lt', 'gt', 'ne', 'ge'))} {rng.choice(REGS)}, "
                     f"{rng.randint(-2, 2)}", f"cbr %c, {targets[-2]}, {targets[-1]}"]
        out.append(f"{label}:")
        out += ["    " + s for s in body]
    out.append("}")
    return "\n".join(out) + "\n"


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), shape=st.sampled_from(["dag", "structured", "random"]),
       max_blocks=st.sampled_from([2, 3, 6, 16]), allow_calls=st.booleans())
def test_generated_programs_keep_their_behaviour(seed, shape, max_blocks, allow_calls):
    text = generated_program(seed, shape)
    m = parse_module(text, "gen.pir")
    assert verify_module(m) == [], text
    new, rec = if_convert(m, max_blocks=max_blocks, allow_calls=allow_calls)
    errors = verify_module(new)
    assert errors == [], (text, print_module(new), errors)
    assert parse_module(print_module(new), "rt.pir") == new
    fn, old_fn = new.function_map()["main"], m.function_map()["main"]
    merged = {b for r in rec.regions for b in r.blocks[1:]}
    assert [b.label for b in fn.blocks] == [b.label for b in old_fn.blocks if b.label not in merged]
    for r in rec.regions:
        assert 2 <= len(r.blocks) <= max_blocks
        assert fn.block_map()[r.head].hyperblock
        last = fn.block_map()[r.head].instrs[-1]
        assert last.guard is None and isinstance(last, (Br, CondBr, Ret))
    rng = random.Random(seed ^ 0x5EED)
    inputs = [tuple(rng.randint(-3, 3) for _ in range(40)) for _ in range(4)]
    same_behaviour(m, new, inputs)


@pytest.mark.slow
def test_generated_programs_do_get_converted():
    """Guard against a vacuous property: most generated programs have regions to convert (60
    programs, each an engine call)."""
    converted = total = 0
    for seed in range(20):
        for shape in ("dag", "structured", "random"):
            _, rec = if_convert(parse_module(generated_program(seed, shape), "g.pir"))
            total += 1
            converted += bool(rec.regions)
    assert converted > total * 0.6


# ---------------------------------------------------------------- CLI

def test_cli_writes_runnable_program_and_validates(tmp_path, capsys):
    out = tmp_path / "x.pir"
    rc = cli_main(["if-convert", str(BRANCHY), "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and "1 region(s) converted" in text and "13 instructions predicated" in text
    converted = load_module(out)
    same_behaviour(load_module(BRANCHY), converted, FEASIBLE)
    rc = cli_main(["run", str(out), "--input", "0,0"])
    assert rc == 17 and capsys.readouterr().out.split() == "4 1 7 5 4 11 6 17".split()
    rc = cli_main(["if-convert", str(BRANCHY), "--out", str(out), "--validate",
                   "--inputs", "1,0", "--inputs", "0,1", "--inputs", "0,0"])
    text = capsys.readouterr().out
    assert rc == 0 and text.count("identical") == 3 and "branches 5 -> 0" in text


def test_cli_validate_reports_difference(tmp_path, capsys, monkeypatch):
    import dataclasses
    from pylogic.transforms import registry
    real = registry.PASSES["if-convert"]

    def broken(module, rows, **kw):  # a transform bug: drop the last print of the hyperblock
        new, rec = real.run(module, rows, **kw)
        fn = new.functions[0]
        hb = fn.blocks[0]
        k = max(i for i, ins in enumerate(hb.instrs) if ins.opcode == "print")
        hb = dataclasses.replace(hb, instrs=hb.instrs[:k] + hb.instrs[k + 1:])
        fn = dataclasses.replace(fn, blocks=(hb,) + fn.blocks[1:])
        return dataclasses.replace(new, functions=(fn,)), rec

    monkeypatch.setitem(registry.PASSES, "if-convert", dataclasses.replace(real, run=broken))
    rc = cli_main(["if-convert", str(BRANCHY), "--out", str(tmp_path / "y.pir"), "--validate",
                   "--inputs", "1,0"])
    assert rc == 1 and "DIFFERENT" in capsys.readouterr().out


def test_cli_options_json_and_errors(tmp_path, capsys):
    import json
    rc = cli_main(["if-convert", str(BRANCHY), "--max-blocks", "3", "--json", "--validate",
                   "--inputs", "0,0"])
    captured = capsys.readouterr()
    data = json.loads(captured.err)
    assert rc == 0 and data["options"]["max_blocks"] == 3
    assert all(len(r["blocks"]) <= 3 for r in data["applied"])
    assert data["validation"][0]["identical"] and "func main" in captured.out
    rc = cli_main(["if-convert", str(tmp_path / "missing.pir")])
    assert rc == 1 and "Traceback" not in capsys.readouterr().err
    rc = cli_main(["if-convert", str(BRANCHY), "--function", "nope"])
    assert rc == 1 and "no function 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_console_script_runs(tmp_path):
    exe = shutil.which("pathlogic")
    cmd = [exe] if exe else [sys.executable, "-m", "pylogic.cli"]
    proc = subprocess.run(cmd + ["if-convert", str(BRANCHY), "--out", str(tmp_path / "z.pir"),
                                 "--validate", "--inputs", "1,0"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "identical" in proc.stdout, proc.stderr


# ---------------------------------------------------------------- imported C

C_PROGRAM = r"""
int printf(const char *, ...);
int classify(int a, int b) {
    int r;
    if (a > 0) r = a * 2;
    else if (b > 3) r = b - 1;
    else r = 7;
    if (r & 1) r = r + 10;
    return r;
}
int main(void) {
    int s = 0;
    for (int i = -4; i < 6; i++)
        s += classify(i, 5 - i);
    printf("%d\n", s);
    return s & 0x7f;
}
"""


@needs_clang
def test_if_converts_imported_c_program(tmp_path):
    src = tmp_path / "classify.c"
    src.write_text(C_PROGRAM)
    module, _report = import_llvm(compile_c_to_ll(str(src)), str(src))
    new, rec = if_convert(module)
    check_wellformed(new)
    assert any(r.function in ("classify", "@classify") for r in rec.regions)
    a, b = same_behaviour(module, new, [()])[0]
    assert a.stdout.strip() and b.counts["branches_taken"] < a.counts["branches_taken"]


def test_join_dependent_on_both_directions_of_one_branch():
    """b5 is reached on both edges of b1's cbr but not through b1's side exit: its or-type
    predicate is set once when b1 ends, not by an ot and an of writing it in one define (found
    by hypothesis in the sccp tests; the verifier rejected the define)."""
    m = parse_module(generated_program(2321852, "random"), "g.pir")
    new, rec = if_convert(m)
    check_wellformed(new)
    rng = random.Random(7)
    same_behaviour(m, new, [tuple(rng.randint(-3, 3) for _ in range(40)) for _ in range(8)])
