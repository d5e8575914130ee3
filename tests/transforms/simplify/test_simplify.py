"""The simplify pass (issue #14 part C): every rule checked by the interpreter on every i8 (and
i1) operand value, hypothesis for 64-bit ones, the expected simplified form of small programs,
what it must never touch (faulting divisions, loads, registers read before they are written), and
`optimize --passes simplify --validate` identical on a corpus sample."""
from __future__ import annotations

import functools
import shutil

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.model import Load, Mov
from pylogic.ir.printer import print_instr
from tests.transforms.simplify.pairs_program import pairs_program
from tests.transforms.simplify.support import simplify_result

# Operands of the shapes the importer produces: x8 a zero-extended byte (zext i8), s8 a
# sign-extended one (sext i8 / load.1), b a 0/1 (i1), x and y full 64-bit values. Each line is one
# rule (the comment names it); main reads n, then n pairs (x, y) and prints every result.
RULES = """
    x8 = and x, 255
    y8 = and y, 255
    t = shl x, 56
    s8 = sar t, 56
    b = cmp.ne y, 0
    v = cmp.lt x, 0
    sv = neg v
    r1 = add x, 0             ; add-identity
    r2 = sub x, 0             ; sub-identity
    r3 = sub x, x             ; sub-same
    r4 = mul x, 1             ; mul-identity
    r5 = mul x, 0             ; constant (known bits)
    r6 = and x, x             ; and-same
    r7 = or x, x              ; or-same
    r8 = xor x, x             ; xor-same
    r9 = and x, 0             ; constant
    r10 = or x, 0             ; or-identity
    r11 = and x, -1           ; and-identity
    r12 = or x, -1            ; constant
    r13 = xor x, 0            ; xor-identity
    r14 = shl x, 0            ; shl-identity
    r15 = shr x, 64           ; shr-identity (count mod 64)
    r16 = sar x, 0            ; sar-identity
    r17 = div x, 1            ; div-identity
    r18 = cmp.eq x, x         ; eq-same
    r19 = cmp.ltu x, x        ; ltu-same
    r20 = cmp.ge y, y         ; ge-same
    r21 = select 1, x, y      ; select-constant-condition
    r22 = select b, x, x      ; select-equal-arms
    r23 = and x8, 255         ; and-known-bits
    r24 = and x8, 511         ; and-known-bits
    r25 = or x8, -256         ; (not an identity: kept)
    r26 = cmp.ltu x8, 256     ; constant (range)
    r27 = cmp.lt x8, 0        ; constant (range)
    r28 = cmp.eq x8, 300      ; constant (known bits)
    r29 = cmp.gt s8, 127      ; constant (range)
    r30 = cmp.lt s8, -128     ; constant (range)
    r31 = shl sv, 56          ; (kept)
    r32 = sar r31, 56         ; sar-shl: sv (0 or -1) has 64 sign bits
    r33 = shl x8, 56          ; (kept)
    r34 = shr r33, 56         ; shr-shl: x8's top 56 bits are zero
    r35 = sar r33, 56         ; (not x8: kept)
    r36 = shr x8, 8           ; constant
    r37 = and b, 1            ; and-known-bits
    r38 = or x8, y8           ; (kept)
    r39 = and r38, 255        ; and-known-bits
    r40 = not s8              ; (kept)
    r41 = not r40             ; not-not
    r42 = shr x, 8            ; (kept)
    r43 = and r42, 72057594037927935 ; and-known-bits (top 8 bits zero)
    r44 = cmp.geu b, 2        ; constant (range)
    r45 = div x8, y8          ; (may divide by 0: kept unless y8 is known non-zero)
    r46 = sub x8, x8          ; sub-same
    r47 = mul x8, y8          ; (kept)
    r48 = cmp.ltu r47, 65536  ; constant (known bits of a product of bytes)
    r49 = shl s8, 56          ; shl-sar: t = shl x, 56 has its low 56 bits zero
    r50 = rem x, -7           ; (kept)
    r51 = rem r50, 7          ; rem-rem
    r52 = rem x8, 256         ; rem-range
    r53 = cmp.ne b, 0         ; cmp-bool
    r54 = cmp.eq 1, b         ; cmp-bool
    r55 = cmp.ne x8, 0        ; (not 0/1: kept)
    r56 = add x, y            ; (kept)
    r57 = sub r56, y          ; sub-add
    r58 = sub r56, x          ; sub-add
    r59 = sub x, y            ; (kept)
    r60 = add r59, y          ; add-sub
    r61 = sub x, r59          ; sub-sub
    r62 = and x, 65535        ; (kept)
    r63 = shl r62, 48         ; shl-and: shl x, 48
    r64 = shl r62, 40         ; (the mask clears bits that survive: kept)
    r65 = and r62, 4080       ; and-and: and x, 4080
    r66 = or x, 3             ; (kept)
    r67 = or r66, 12          ; or-or: or x, 15
    r68 = xor r66, 5          ; (x | 3) ^ 5: kept
    r69 = add x, 7            ; (kept)
    r70 = sub r69, 9          ; add-constants: add x, -2
"""
N_RULES = 70
EXPECTED_RULES = {"add-identity", "sub-identity", "sub-same", "mul-identity", "constant",
                  "and-same", "or-same", "xor-same", "or-identity", "and-identity",
                  "xor-identity", "shl-identity", "shr-identity", "sar-identity", "div-identity",
                  "eq-same", "ltu-same", "ge-same", "select-constant-condition",
                  "select-equal-arms", "and-known-bits", "sar-shl", "shr-shl", "not-not",
                  "shl-sar", "rem-rem", "rem-range", "cmp-bool", "sub-add", "add-sub",
                  "sub-sub", "shl-and", "and-and", "or-or", "add-constants"}
KEPT = ("r25", "r31", "r33", "r35", "r38", "r40", "r42", "r50", "r55", "r56", "r59", "r62",
        "r63", "r64", "r65", "r66", "r67", "r68", "r69", "r70", "r45", "r47")


def rules_program(with_division: bool = True) -> str:
    body = RULES if with_division else RULES.replace("r45 = div x8, y8", "r45 = mov 0")
    prints = "\n".join(f"    print r{k}" for k in range(1, N_RULES + 1))
    return pairs_program(body + "\n" + prints, "x", "y")


def simplified(text: str):
    module, result = simplify_result(text)
    return module, result.module, result.passes[0].record


def _defs(module) -> dict:
    return {i.defs()[0]: i for f in module.defined_functions() for b in f.blocks
            for i in b.instrs if i.defs()}


def _run(module, pairs):
    return run_module(module, inputs=[len(pairs)] + [v for p in pairs for v in p],
                      fuel=10 ** 9, capture_profile=False)


@pytest.mark.slow
def test_every_rule_fires_and_agrees_with_the_interpreter_on_every_i8_pair():
    before, after, record = simplified(rules_program(with_division=False))
    rules = record.totals()["rules"]
    assert EXPECTED_RULES <= set(rules), EXPECTED_RULES - set(rules)
    defs = _defs(after)
    combined = {"r63": "r63 = shl x, 48", "r65": "r65 = and x, 4080", "r67": "r67 = or x, 15",
                "r70": "r70 = add x, -2", "r64": "r64 = shl r62, 40", "r68": "r68 = xor r66, 5"}
    assert {r: print_instr(defs[r]) for r in combined} == combined
    for r in KEPT[:-2]:
        assert not isinstance(defs[r], Mov), print_instr(defs[r])
    folded = [r for r in (f"r{k}" for k in range(1, N_RULES + 1)) if r not in KEPT]
    assert all(isinstance(defs[r], Mov) for r in folded), \
        [print_instr(defs[r]) for r in folded if not isinstance(defs[r], Mov)]
    # every i8 value (sign-extended) for x and y: 65,536 pairs, each result printed
    pairs = [(x, y) for x in range(-128, 128) for y in range(-128, 128)]
    a, b = _run(before, pairs), _run(after, pairs)
    assert a.error is None and b.error is None
    assert a.prints == b.prints and len(a.prints) == N_RULES * len(pairs)


def test_the_i1_operands_too():
    before, after, _ = simplified(rules_program(with_division=False))
    pairs = [(x, y) for x in (0, 1, -1, 255, 256) for y in (0, 1)]
    assert _run(before, pairs).prints == _run(after, pairs).prints


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-(1 << 63), (1 << 63) - 1),
                          st.integers(-(1 << 63), (1 << 63) - 1)), min_size=1, max_size=8))
def test_every_rule_on_64_bit_operands(pairs):
    before, after, _ = rules_simplified()
    assert _run(before, pairs).prints == _run(after, pairs).prints


@functools.cache
def rules_simplified():
    """The rules program simplified once, when a test first asks (not at collection: every
    pytest-xdist worker collects every module)."""
    return simplified(rules_program(with_division=False))


def test_a_division_that_may_fault_is_kept_and_faults_the_same():
    before, after, _ = simplified(rules_program(with_division=True))
    assert "div" in print_instr(_defs(after)["r45"])
    a, b = _run(before, [(5, 0)]), _run(after, [(5, 0)])
    assert a.error is not None and b.error is not None and a.prints == b.prints


CRC_BYTE = """
global ctx[4] = {255, 255, 255, 255}
func crc(b) {
entry:
    v = load.4 ctx
    t = and v, 4294967295
    u = shr t, 8
    w = shl u, 32
    s = sar w, 32
    y = and s, 16777215
    z = and b, 255
    q = xor y, z
    store.4 ctx, q
    ret q
}
func main() {
entry:
    r = call crc(7)
    print r
    ret 0
}
"""


def test_crc32_byte_as_csmith_imports_it():
    before, after, record = simplified(CRC_BYTE)
    fn = after.function_map()["crc"]
    text = [print_instr(i) for i in fn.blocks[0].instrs]
    assert "s = mov u" in text and "y = mov s" in text
    assert not any(t.startswith("w =") for t in text)       # the shl is dead: deleted
    assert any(t.startswith("v = load.4") for t in text)    # loads are never touched
    assert compare_modules(before, after, [((), ())]).verdict == "identical"


LOOP_PHI = """
func main(n) {
entry:
    i = mov 0
    br head
head:
    c = cmp.lt i, n
    cbr c, body, done
body:
    k = and i, 255
    m = and k, 255
    j = add m, 1
    i = and j, 127
    print m
    br head
done:
    z = cmp.ltu i, 128
    print z
    ret 0
}
"""


def test_known_bits_follow_copies_around_a_loop():
    """i is written twice (a phi): 0 and (j & 127); both are below 128, so ``m = and k, 255`` and
    ``z = cmp.ltu i, 128`` simplify; ``k = and i, 255`` too (i < 128)."""
    before, after, _ = simplified(LOOP_PHI)
    d = _defs(after)
    assert print_instr(d["z"]) == "z = mov 1" and print_instr(d["m"]) == "m = mov k"
    assert print_instr(d["k"]) == "k = mov i"
    for n in (0, 3, 100):
        assert compare_modules(before, after, [((n,), ())]).verdict == "identical"


READ_BEFORE_WRITTEN = """
func main(n) {
entry:
    br head
head:
    a = cmp.eq x, 5
    print a
    x = mov 5
    c = cmp.lt n, 3
    n = add n, 1
    cbr c, head, done
done:
    ret 0
}
"""


def test_a_register_read_before_its_only_write_is_not_treated_as_ssa():
    """x is written once, but read first (0) then 5: ``cmp.eq x, 5`` is not ``1``."""
    before, after, _ = simplified(READ_BEFORE_WRITTEN)
    assert "cmp.eq" in print_instr(_defs(after)["a"])
    assert compare_modules(before, after, [((0,), ())]).verdict == "identical"


# csmith's array initialisers (``arrayinit.element``): a chain of address increments, each read
CHAIN = "\n".join(["func main(x) {", "entry:", "    a0 = mov x"]
                   + [f"    a{k} = {'sub' if k == 3 else 'add'} a{k - 1}, {-8 if k == 3 else 8}"
                      for k in range(1, 11)]
                   + [f"    print a{k}" for k in range(11)] + ["    ret 0", "}"])


def test_a_chain_of_constants_combines_to_its_root_in_one_round():
    """Each ``a_k = add a_{k-1}, 8`` combines through its operand's definition as this round
    already rewrote it (``add a0, 8(k-1)``), so every link reaches a0 in the first round and
    the second finds nothing (one round per halving of the chain before; issue #28 item 1)."""
    before, after, record = simplified(CHAIN)
    d = _defs(after)
    assert [print_instr(d[f"a{k}"]) for k in (2, 3, 10)] == [
        "a2 = add a0, 16", "a3 = add a0, 24", "a10 = add a0, 80"]
    assert record.applied[0].rules == {"add-constants": 9} and record.applied[0].rounds == 2
    for x in (0, -5, 2 ** 63 - 9):
        assert compare_modules(before, after, [((x,), ())]).verdict == "identical"


GUARDED = """
func main(a) {
entry:
    x = mov 3
    p:ut = pcmp.gt a, 0
    (p) x = mov 255
    y = and x, 255
    z = cmp.eq x, 3
    print y
    print z
    ret 0
}
"""


def test_guarded_writes_join_with_the_old_value():
    before, after, _ = simplified(GUARDED)
    d = _defs(after)
    assert print_instr(d["y"]) == "y = mov x"
    assert "cmp" in print_instr(d["z"])
    for a in (-1, 1):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"


# ---------------------------------------------------------------- corpus sample

@pytest.mark.slow
@pytest.mark.parametrize("seed", (3, 20))
def test_csmith_programs_stay_identical_and_evaluate_less(seed, tmp_path):
    from benchmarks.corpus import csmith_program
    from benchmarks.optimize import PREPARE_FLAGS
    from pylogic.analysis.evaluations import expression_evaluations
    from pylogic.ir.llvm.clang import prepare_c
    from pylogic.ir.llvm.importer import import_llvm
    from tests.support import clang_path
    if clang_path() is None or shutil.which("csmith") is None:
        pytest.skip("clang-14 or csmith is not installed")
    where = csmith_program(seed, str(tmp_path))
    module, _ = import_llvm(prepare_c(where, PREPARE_FLAGS), where)
    new = optimize(module, ["simplify"], "p", engine="clingo").module
    assert compare_modules(module, new, [((), ())]).verdict == "identical"
    before = expression_evaluations(module, run_module(module))
    after = expression_evaluations(new, run_module(new))
    assert after["expressions"] < before["expressions"] and after["loads"] <= before["loads"]


CONSTANT_GLOBALS = """
global ws[8] = {102, 0, 0, 0, 111}
global out[8]
global esc[4] = {1}
global big[2] = {200, 1}
func main() {
entry:
    a = load.4 ws
    p = add ws, 4
    b = load.4u p
    q = add ws, 6
    c = load.4 q
    h = load.2 big
    hu = load.1u big
    store out, 5
    d = load out
    e = load.1 esc
    call keep(esc)
    print a
    print b
    print c
    print d
    print e
    print h
    print hu
    ret 0
}
func keep(x) {
entry:
    store.1 x, 9
    ret
}
"""


def test_loads_of_read_only_globals_fold_and_no_other_load_does():
    """ws is only read: its in-bounds loads fold (sign- and zero-extended as the load says);
    ``load.4`` at offset 6 of an 8-byte global would fault: kept; ``out`` is stored to (the load
    right after reads the stored bytes) and ``esc`` escapes into a call that writes it: kept."""
    before, after, record = simplified(CONSTANT_GLOBALS)
    d = _defs(after)
    assert print_instr(d["a"]) == "a = mov 102" and print_instr(d["b"]) == "b = mov 111"
    assert print_instr(d["h"]) == "h = mov 456" and print_instr(d["hu"]) == "hu = mov 200"
    for r in ("c", "e"):
        assert isinstance(d[r], Load), print_instr(d[r])
    # out's bytes are known after the store (flow.known_memory), not read-only
    assert print_instr(d["d"]) == "d = mov 5"
    assert record.totals()["rules"]["load-constant-global"] == 4
    a, b = run_module(before), run_module(after)
    assert a.error is not None and b.error is not None        # the load of c faults on both
    assert str(a.error).split(":")[-1] == str(b.error).split(":")[-1]


BITFIELD_OF_CONSTANT = """
global g[8] = {114, 3}
func main() {
entry:
    x = load.4 g
    t = shl x, 12
    u = shl t, 32
    v = sar u, 44
    w = and v, 255
    c = cmp.lt w, 100
    print c
    ret 0
}
"""


def test_what_a_read_only_load_feeds_folds_in_the_same_round():
    """The known bits of a load of a read-only global are the bytes it reads (``FunctionValues
    .readonly_load``), so the bit-field extraction csmith writes on one folds in the round that
    folds the load: one round rewrites, one confirms (before: a third, per chain; issue #28
    item 1). The interpreter prints the same."""
    before, after, record = simplified(BITFIELD_OF_CONSTANT)
    assert print_instr(_defs(after)["c"]) == "c = mov 0"
    assert record.totals()["rules"] == {"load-constant-global": 1, "constant": 5}
    assert [f.rounds for f in record.applied] == [2]
    assert run_module(before).stdout == run_module(after).stdout == "0\n"


#: gcc torture programs where instsimplify let gvn evaluate less than pre-mr
#: (/tmp/lead/pre_gvn_causes.json "simplification"), short ones.
TORTURE_SAMPLE = ("widechar-2.c", "20000227-1.c", "960302-1.c", "shiftopt-1.c", "strlen-5.c",
                  "pr71083.c", "20020423-1.c", "20031215-1.c")


@pytest.mark.slow
def test_optimize_validate_on_a_torture_sample(tmp_path, capsys):
    """``pathlogic optimize DIR --passes simplify --validate``: every program identical."""
    import json
    import os
    from benchmarks.optimize import TORTURE
    from pylogic.cli import main
    from tests.support import clang_path
    if clang_path() is None or not os.path.isdir(TORTURE):
        pytest.skip("clang-14 or the gcc torture tests are not installed")
    for name in TORTURE_SAMPLE:
        shutil.copy(os.path.join(TORTURE, name), tmp_path / name)
    assert main(["optimize", str(tmp_path), "--passes", "simplify", "--validate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["programs"]) == len(TORTURE_SAMPLE)
    for p in doc["programs"]:
        assert p["check"]["verdict"] == "identical", (p["program"], p["check"])
    rewritten = sum(p["passes"][0]["totals"]["rewritten"] for p in doc["programs"])
    assert rewritten >= 40, rewritten


SIDE_EXIT = """
func main(a) {
entry: !hyperblock
    p:ut = pcmp.gt a, 0
    (p) br out
    x = mov 7
    br out
out:
    y = cmp.eq x, 7
    print y
    ret 0
}
"""


def test_a_definition_after_a_side_exit_does_not_reach_the_exit_target():
    """x is written once, in a block dominating ``out``, but after the side exit to ``out``:
    on that path ``out`` reads 0, so ``cmp.eq x, 7`` is not 1."""
    before, after, _ = simplified(SIDE_EXIT)
    assert "cmp.eq" in print_instr(_defs(after)["y"])
    for a in (-1, 1):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"


PHI_SAME = """
func main(a) {
entry:
    c = cmp.gt a, 0
    cbr c, l, r
l:
    x = mov 5
    br j
r:
    x = mov 5
    br j
j:
    y = cmp.eq x, 5
    print y
    ret 0
}
"""


def test_a_phi_of_one_constant_is_that_constant_only_when_written_on_every_path():
    """x is written on both paths to j (definite assignment): ``cmp.eq x, 5`` is 1; when the path
    through r does not write it, x may read 0 there and nothing folds."""
    before, after, _ = simplified(PHI_SAME)
    assert print_instr(_defs(after)["y"]) == "y = mov 1"
    one_path = PHI_SAME.replace("r:\n    x = mov 5\n", "r:\n")
    before, after, _ = simplified(one_path)
    assert "cmp.eq" in print_instr(_defs(after)["y"])
    for a in (-1, 1):
        assert compare_modules(before, after, [((a,), ())]).verdict == "identical"


def test_folded_load_8u_of_a_read_only_global_keeps_its_value():
    """A read-only global's 8 bytes with the top bit set fold to the signed 64-bit constant the
    interpreter's ``load.8u`` reads (IR.md: values are 64-bit two's complement)."""
    from pylogic.interp import run_module
    from pylogic.ir.load import load_text
    from pylogic.analysis.optimize import optimize
    module = load_text("""
global g[8] = {0, 0, 0, 0, 0, 0, 0, 255}
func main() {
entry:
    a = load.8u g
    print a
    ret 0
}
""")
    after = optimize(module, ["simplify"]).module
    assert run_module(after).prints == run_module(module).prints == [-(1 << 56)]
    assert not any(i.__class__.__name__ == "Load" for f in after.defined_functions()
                   for b in f.blocks for i in b.instrs)
