"""The known-bits domain of ``simplify`` (pylogic/flow/known_bits.py) checked against the
reference interpreter: for sets of operand values, every value the interpreter computes for
``op(a, b)`` (a, b from the sets) must lie in ``transfer(op, bits(A), bits(B))``, and a compare
``compare`` decides must come out that way for every pair.

The concrete results come from one PIR program run in the interpreter over all pairs of a value
universe (every i8 value sign- and zero-extended, i1, and some 64-bit edge values), so the oracle
is the interpreter's own operators; the sets are the i8/i1 ranges and structured and random
subsets of the universe; hypothesis adds random 64-bit sets."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.interp.machine import run_module
from pylogic.ir.model import BINARY_OPS, RELATIONS
from pylogic.ir.parser import parse_module
from pylogic.flow import known_bits as kb
from tests.transforms.simplify.pairs_program import pairs_program

EDGES = (1 << 63) - 1, -(1 << 63), 1 << 32, -(1 << 32), 255 << 56, 0x100, 0xFFFF, -0x8000, 1 << 31
UNIVERSE = sorted(set(range(-128, 128)) | set(range(128, 256, 5)) | set(EDGES))
OPS = BINARY_OPS + RELATIONS


def _program(ops) -> str:
    """main reads n, then n pairs (a, b) and prints op(a, b) for every op (div/rem: 0 when b
    is 0, a run-time error otherwise)."""
    body = []
    for k, op in enumerate(ops):
        ins = f"r{k} = cmp.{op} a, b" if op in RELATIONS else f"r{k} = {op} a, b"
        if op in ("div", "rem"):
            body += [f"r{k} = mov 0", f"cbr b, do{k}, skip{k}", f"do{k}:", f"    {ins}",
                     f"    br skip{k}", f"skip{k}:"]
        else:
            body.append(ins)
        body.append(f"print r{k}")
    lines = "\n".join(("    " + x) if not x.endswith(":") else x for x in body)
    return pairs_program(lines)


@pytest.fixture(scope="module")
def table():
    """{(op, a, b): the interpreter's result} over UNIVERSE x UNIVERSE."""
    pairs = [(a, b) for a in UNIVERSE for b in UNIVERSE]
    inputs = [len(pairs)] + [v for p in pairs for v in p]
    result = run_module(parse_module(_program(OPS)), inputs=inputs, fuel=10 ** 9,
                        capture_profile=False)
    assert result.error is None, result.error
    out = iter(result.prints)
    return {(op, a, b): next(out) for a, b in pairs for op in OPS}


def bits_of(values) -> kb.Bits:
    out = None
    for v in values:
        out = kb.const(v) if out is None else kb.join(out, kb.const(v))
    return out


def families():
    """Named sets of operand values from UNIVERSE."""
    rng = random.Random(14)
    fam = {"i8": list(range(-128, 128)), "u8": [v for v in range(256) if v < 128 or v in UNIVERSE], "i1": [0, 1],
           "nibble": list(range(16)), "neg-i8": list(range(-128, 0)),
           "even": list(range(-128, 128, 2)), "x1xx": [v for v in range(128) if v & 4],
           "top-bytes": [255 << 56, 0, 1 << 63 - 1 and -(1 << 63)],
           "edges": list(EDGES), "shift-counts": [0, 1, 7, 8, 31, 32, 63, 64 - 64]}
    for c in (0, 1, -1, 8, 56, 255, -128, 1 << 32):
        if c in UNIVERSE:
            fam[f"={c}"] = [c]
    for k in range(12):
        fam[f"random{k}"] = rng.sample(UNIVERSE, rng.choice((2, 3, 5, 9)))
    return fam


FAMILIES = families()


@pytest.mark.slow
def test_transfer_contains_every_interpreted_result(table):
    checked = 0
    for na, A in FAMILIES.items():
        ka = bits_of(A)
        for nb, B in FAMILIES.items():
            if len(A) * len(B) > 2048 and (na, nb) != ("i8", "i8"):
                continue
            kbits = bits_of(B)
            for op in OPS:
                got = kb.transfer(op, ka, kbits)
                for a in A:
                    for b in B:
                        if op in ("div", "rem") and b == 0:
                            continue        # a run-time error: no value
                        r = table[op, a, b]
                        assert got.contains(r), (op, na, nb, a, b, r, got)
                        checked += 1
    assert checked > 1_000_000


@pytest.mark.slow
def test_compare_decides_only_what_holds_for_every_pair(table):
    decided = 0
    for na, A in FAMILIES.items():
        for nb, B in FAMILIES.items():
            for rel in RELATIONS:
                d = kb.compare(rel, bits_of(A), bits_of(B))
                if d is None:
                    continue
                decided += 1
                assert all(table[rel, a, b] == d for a in A for b in B), (rel, na, nb, d)
    assert decided > 200


def test_the_decisions_the_importer_needs():
    byte = bits_of(range(256))              # zext i8 to i64: and x, 255
    assert kb.compare("ltu", byte, kb.const(256)) == 1
    assert kb.compare("lt", byte, kb.const(0)) == 0
    assert kb.compare("eq", byte, kb.const(300)) == 0
    assert kb.compare("eq", kb.transfer("or", kb.UNKNOWN, kb.const(1)), kb.const(0)) == 0
    assert kb.compare("ltu", byte, kb.const(255)) is None
    shifted = kb.transfer("shr", kb.UNKNOWN, kb.const(8))       # lshr i64 x, 8 ...
    assert kb.transfer("shr", kb.transfer("and", kb.UNKNOWN, kb.const(0xFFFFFFFF)),
                       kb.const(8)).sign >= 33                  # ... of a zext i32: in i32 range
    assert shifted.zero == 0xFF << 56


def test_loads_and_constants():
    assert kb.load(1, True).sign == 57 and kb.load(1, False).zero == kb.M & ~0xFF
    assert kb.const(-1).constant == -1 and kb.const(5).sign == 61
    assert kb.UNKNOWN.constant is None


WORDS = st.one_of(st.integers(-(1 << 63), (1 << 63) - 1), st.integers(-300, 300),
                  st.integers(0, 63), st.sampled_from(EDGES))


@settings(max_examples=150, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=5), st.lists(WORDS, min_size=1, max_size=5),
       st.sampled_from(BINARY_OPS))
@pytest.mark.slow
def test_transfer_on_64_bit_sets(A, B, op):
    """Random 64-bit sets; the concrete values from an interpreted run of the same program."""
    pairs = [(a, b) for a in A for b in B if not (op in ("div", "rem") and b == 0)]
    if not pairs:
        return
    result = run_module(parse_module(_program((op,))), capture_profile=False,
                        inputs=[len(pairs)] + [v for p in pairs for v in p])
    assert result.error is None
    got = kb.transfer(op, bits_of(A), bits_of(B))
    for (a, b), r in zip(pairs, result.prints):
        assert got.contains(r), (op, a, b, r, got)
