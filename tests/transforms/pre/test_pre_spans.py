"""Byte ranges within one object (issue #14, memory dependence): a store (or a memcpy/memset of
a constant length) at a constant offset into an alloca or a global changes only the loads of the
same object whose bytes it overlaps (``vf_load_span`` / ``vf_store_span``, ``datalog/pre.dl``
``_pre_disjoint``; LLVM's BasicAA decides constant-offset accesses into one object the same
way), and a memcpy/memset of 0 bytes writes nothing (``writes_nothing``).

Oracles: the Python fixed point (``oracle.py``, kills from ``flow.spans.spares`` with the spans)
equals ``datalog/pre.dl`` on clingo and DuckDB on generated programs that load and store every
size at overlapping and disjoint offsets of a private alloca, an escaped alloca and a global;
every such program optimized by ``pre-m`` and ``pre-mr`` is identical in the interpreter
on every input tried and never evaluates more."""
from __future__ import annotations

import random

import pytest

from facts_gen.extract import extract_module
from pylogic.flow.known_bytes import KnownBytes, readonly_contents, relocated_contents
from pylogic.flow.readonly_globals import readonly_globals
from pylogic.flow.spans import memory_offsets
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.model import GlobalAddr
from pylogic.ir.parser import parse_module
from tests.transforms.pre.generated_programs import block_end, evaluation_counts
from tests.transforms.pre.test_value_flow_analysis import RELATIONS, oracle_rows

HEADER = ("global @g[16]\nglobal @t[16] = {1, 2, 3, 250, 5, 6, 7, 8, 128}\nglobal @s[4]\n"
          "extern func @memset(d, c, n)\nextern func @memcpy(d, s, n)\n"
          "func @poke(q) {\ne:\n store.1 q, 55\n ret\n}\n")
#: addresses: name -> offset into l (private alloca), m (escaped alloca) or @g; p is @g or g8
OFFSETS = {"l": 0, "l1": 1, "l4": 4, "l8": 8, "m": 0, "m4": 4, "m8": 8,
           "@g": 0, "g1": 1, "g4": 4, "g8": 8, "y": 0, "y4": 4}
CASES = [((a, sel, n), ()) for a, sel, n in ((1, 0, 2), (-300, 1, 3), (70000, 1, 0))]


def span_program(seed: int, name: str = "main") -> str:
    """``name(a, sel, n)``: loads of 1, 2, 4 (signed and not) and 8 bytes and stores of 1, 2, 4
    and 8 bytes at offsets 0, 1, 4 and 8 of a 16-byte private alloca, escaped alloca, global
    and an alloca made afresh at the head of every loop (``y``), memsets and memcpys of 0, 4 or
    8 bytes (some through a pointer that is @g or @g+8, some from the read-only @t), loads of
    @t, loops; prints every loaded value."""
    rnd = random.Random(seed)
    blocks = rnd.randint(2, 6)
    lines = [f"func {name}(a, sel, n) {{", "e:", " l = alloca 16", " m = alloca 16",
             " call @poke(m)", " four = mov 4", " l1 = add l, 1", " l4 = add l, four",
             " l8 = add l4, 4", " m4 = add m, 4", " m8 = add m, 8", " g1 = add @g, 1",
             " g4 = add @g, 4", " g8 = sub g4, -4", " p = select sel, @g, g8", " k = mov 0",
             " t4 = add @t, 4",
             " br B0"]
    addrs = tuple(OFFSETS)
    for i in range(blocks):
        lines.append(f"B{i}:")
        if i == 0:
            lines += [" y = alloca 16", " y4 = add y, 4"]
        for j in range(rnd.randint(1, 6)):
            r = rnd.random()
            a = rnd.choice(addrs)
            if r < 0.45:
                size = rnd.choice(("8", "4", "4u", "2", "2u", "1"))
                a = "@s" if rnd.random() < 0.25 else rnd.choice(addrs + ("@t", "t4"))
                size = rnd.choice(("4", "2u", "1")) if a == "@s" else size
                lines += [f" v{i}_{j} = load.{size} {a}", f" print v{i}_{j}"]
            elif r < 0.75:
                a = "@s" if rnd.random() < 0.1 else a     # 4 bytes: 8 through p are not to it
                size = rnd.choice(('4', '2', '1') if a == "@s" else ('8', '8', '4', '1') if
                                  a == "p" else ('8', '4', '2', '1'))
                lines.append(f" store.{size} {a}, {rnd.choice(('a', 'k', '1', '-2', '300'))}")
            elif r < 0.85:
                d = rnd.choice(("l", "l8", "m4", "g4", "p"))
                lines.append(f" call @memset({d}, {rnd.choice(('0', '7'))}, "
                             f"{rnd.choice(('0', '4', '8'))})")
            elif r < 0.92:
                d, s = rnd.sample(("l", "l8", "m", "@g", "g8", "p", "y", "@t", "t4"), 2)
                if d in ("@t", "t4"):
                    d, s = ("l" if s in ("@t", "t4") else s), d        # @t stays read-only
                lines.append(f" call @memcpy({d}, {s}, {rnd.choice(('0', '4', '8'))})")
            elif r < 0.96:
                lines.append(f" call @poke({rnd.choice(('m', 'm4', 'g1', 'p'))})")
            else:
                lines.append(" a = add a, 1")
        lines += block_end(rnd, i, blocks)
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_offsets_follow_constant_additions_from_allocas_and_globals():
    fn = parse_module(HEADER + span_program(0)).functions[-1]
    off = memory_offsets(fn)
    assert {r: off[r] for r in OFFSETS if not r.startswith("@")} == \
        {r: v for r, v in OFFSETS.items() if not r.startswith("@")}
    assert "p" not in off and "k" not in off           # a select, and no address at all


def test_a_store_to_other_bytes_of_the_object_leaves_the_load_forwarded():
    # gcc torture 931004-1 in miniature: three fields stored, then loaded back
    m = parse_module("func main(a) {\ne:\n x = alloca 12\n x4 = add x, 4\n x8 = add x, 8\n"
                     " store.4 x, 10\n store.4 x4, 11\n store.4 x8, a\n"
                     " v = load.4 x\n w = load.4 x4\n print v\n print w\n call @use(x)\n"
                     " ret 0\n}\n"
                     "func @use(q) {\ne:\n ret\n}\n")
    facts = extract_module(m, "t.pir")
    assert ("t.pir::main", "load.4s(x)", "^x", 0, 4) in facts["vf_load_span"]
    assert {r[2:] for r in facts["vf_store_span"]} == {(0, 4), (4, 8), (8, 12)}
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((5,), ())]).verdict == "identical"
    assert evaluation_counts(m, (5,))["loads"] == 2 and evaluation_counts(new, (5,))["loads"] == 0
    # an overlapping store (one byte inside the loaded four) still kills the forwarded value
    o = parse_module("func main(a) {\ne:\n x = alloca 8\n x3 = add x, 3\n store.4 x, 10\n"
                     " store.1 x3, a\n v = load.4 x\n print v\n ret 0\n}\n")
    new = optimize(o, ["pre-m"], "t.pir", engine="clingo").module
    assert evaluation_counts(new, (5,))["loads"] == 1
    assert compare_modules(o, new, [((5,), ()), ((-1,), ())]).verdict == "identical"


def test_a_copy_of_zero_bytes_through_any_pointer_writes_nothing():
    # gcc torture zero-struct-1: empty struct copies between loads of the same global
    m = parse_module("global @f[8]\nglobal @buf[8]\nextern func @memcpy(d, s, n)\n"
                     "func main(a) {\ne:\n store @f, @buf\n q = load @f\n"
                     " call @memcpy(q, @f, 0)\n r = load @f\n print r\n"
                     " call @memcpy(q, @f, 1)\n s = load @f\n print s\n ret 0\n}\n")
    facts = extract_module(m, "t.pir")
    assert len(facts["vf_clobber"]) == 2       # the store and the 1-byte copy
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ())]).verdict == "identical"
    # q and r forwarded from the store; s loaded again after the copy through q
    assert evaluation_counts(m, (0,))["loads"] == 3 and evaluation_counts(new, (0,))["loads"] == 1


def test_known_bytes_determine_loads_of_other_sizes_and_offsets():
    # a fresh alloca reads 0 (IR.md), a constant store its bytes (gcc torture 20001228-1: the
    # low byte of a stored int), a memset its byte, a memcpy from a read-only global its bytes
    m = parse_module("global @k[8] = {1, 2, 3, 4, 255, 255, 255, 255}\n"
                     "extern func @memset(d, c, n)\nextern func @memcpy(d, s, n)\n"
                     "func main(a) {\ne:\n x = alloca 16\n x8 = add x, 8\n v0 = load.4 x8\n"
                     " store.4 x, 258\n v1 = load.1 x\n x1 = add x, 1\n v2 = load.2u x1\n"
                     " call @memset(x8, 255, 8)\n v3 = load.2 x8\n v4 = load.1u x8\n"
                     " call @memcpy(x, @k, 8)\n v5 = load.4u x\n x4 = add x, 4\n"
                     " v6 = load.4 x4\n v7 = load x\n"
                     " print v0\n print v1\n print v2\n print v3\n print v4\n print v5\n"
                     " print v6\n print v7\n ret 0\n}\n")
    fn = m.functions[-1]
    known = KnownBytes(fn, contents=readonly_contents(m))
    by_dest = {i.dest: i for b in fn.blocks for i in b.instrs if hasattr(i, "dest")}
    assert known.generated(by_dest["x"]) == {"load.4s(add(8,x))": 0, "load.1s(x)": 0,
                                             "load.2u(add(1,x))": 0, "load.2s(add(8,x))": 0,
                                             "load.1u(add(8,x))": 0, "load.4u(x)": 0,
                                             "load.4s(add(4,x))": 0, "load.8s(x)": 0}
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ())]).verdict == "identical"
    assert evaluation_counts(m, (0,))["loads"] == 8 and evaluation_counts(new, (0,))["loads"] == 0
    eight = int.from_bytes(bytes((1, 2, 3, 4, 255, 255, 255, 255)), "little", signed=True)
    assert run_module(new, "main", args=[0]).prints == [0, 2, 1, -1, 255, 0x04030201, -1, eight]


def test_a_write_through_another_object_or_offset_does_not_determine_a_load():
    # y's load follows a store to x; x's to another offset; a variable memset's bytes are
    # unknown; a load through a loaded pointer has no known object
    m = parse_module("extern func @memset(d, c, n)\n"
                     "func main(a) {\ne:\n x = alloca 8\n y = alloca 8\n store y, 5\n"
                     " store.4 x, 7\n x4 = add x, 4\n v = load.4 x4\n call @memset(y, 1, a)\n"
                     " w = load.1 y\n store x, y\n q = load x\n z = load.1 q\n"
                     " print v\n print w\n print z\n ret 0\n}\n")
    fn = m.functions[-1]
    known = KnownBytes(fn)
    gens = [g for g in (known.generated(i) for b in fn.blocks for i in b.instrs) if g]
    assert gens == [{"load.4s(add(4,x))": 0, "load.8s(x)": 0}, {"load.1s(y)": 0},
                    {"load.1s(y)": 5}]        # the allocas' zeros, the low byte of 5
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    for n in (0, 3):
        assert compare_modules(m, new, [((n,), ())]).verdict == "identical"
    assert evaluation_counts(new, (3,))["loads"] == 2     # v forwarded (0), q (the stored y); w, z loaded


RELOCATED = ("global @nil[4]\nglobal @c[16] = {0, 0, 0, 0, 0, 0, 0, 0, 64}\n"
             "global @d[16] = {1}\nextern func @memcpy(d, s, n)\n"
             "func @__pathlogic_init() {\nentry:\n store @c, @nil\n r1 = add @d, 8\n"
             " store r1, 9\n ret\n}\n")
MAIN = ("func @main(a) {\nentry:\n call @__pathlogic_init()\n x = alloca 16\n"
        " call @memcpy(x, @c, 16)\n p = load x\n x8 = add x, 8\n t = load x8\n"
        " x4 = add x, 4\n u = load.4 x4\n call @memcpy(x, @d, 16)\n v = load x8\n"
        " w = load.1 x\n print t\n print u\n print v\n print w\n q = load.4 p\n"
        " print q\n ret 0\n}\n")


def test_relocated_constants_are_known_in_main_after_the_init_call():
    # gcc torture 980223: a const struct holding an address, copied and loaded in main
    m = parse_module(RELOCATED + MAIN)
    assert relocated_contents(m) == {
        "@c": (16, bytes(8) + bytes([64]) + bytes(7), {0: GlobalAddr("@nil")}),
        "@d": (16, bytes([1]) + bytes(7) + bytes([9]) + bytes(7), {})}
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ())]).verdict == "identical"
    # p is @nil (a copy), t 64, v 9, w 1; u (half of the address, whose bytes are not known)
    # and q (through p) are loaded
    assert evaluation_counts(m, (0,))["loads"] == 6 and evaluation_counts(new, (0,))["loads"] == 2
    # written outside the init function, or the init called twice: nothing is known
    twice = MAIN.replace(" call @__pathlogic_init()\n x =", " call @__pathlogic_init()\n"
                         " call @__pathlogic_init()\n x =")
    assert relocated_contents(parse_module(RELOCATED + twice)) == {}
    poked = parse_module(RELOCATED + MAIN.replace(" ret 0\n}", " store.1 @d, 3\n ret 0\n}"))
    assert set(relocated_contents(poked)) == {"@c"}


def test_a_write_larger_than_a_global_is_not_to_it():
    # gcc torture pr35472: *p = a copies 64 bytes through a loaded pointer; @p (8 bytes) is
    # not among them, so its load is reused
    m = parse_module("global @p[8]\nglobal @big[64]\nextern func @memcpy(d, s, n)\n"
                     "func main(a) {\ne:\n store @p, @big\n x = alloca 64\n q = load @p\n"
                     " call @memcpy(q, x, 64)\n br next\nnext:\n r = load @p\n"
                     " call @memcpy(r, x, 8)\n"
                     " s = load @p\n print s\n ret 0\n}\n")
    facts = extract_module(m, "t.pir")
    assert [r[2] for r in facts["vf_store_over"]] == ["&@p"]
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ())]).verdict == "identical"
    # q and r forwarded from the store (the 64-byte copy cannot write @p); s after 8 bytes
    assert evaluation_counts(m, (0,))["loads"] == 3 and evaluation_counts(new, (0,))["loads"] == 1


@pytest.fixture(scope="module")
def generated():
    return parse_module(HEADER + "".join(span_program(s, f"f{s}") for s in range(80)))


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
def test_datalog_equals_the_fixed_point_with_spans(generated, engine):
    rows = module_rows(generated, "gen.pir", relations=RELATIONS, engine=engine)
    readonly, contents = readonly_globals(generated), readonly_contents(generated)
    assert readonly == frozenset({"@t"})
    defined = frozenset(fn.name for fn in generated.defined_functions())
    sizes = {g.name: g.size for g in generated.globals}
    for fn in generated.defined_functions():
        if not fn.name.startswith("f"):
            continue
        want = oracle_rows(fn, readonly, contents, defined, sizes)
        got = rows.function(fn.name)
        for rel in RELATIONS:
            assert set(got[rel]) == want[rel], (fn.name, rel)


@pytest.mark.slow
@pytest.mark.parametrize("passes", [["pre-m"], ["pre-mr"]])
def test_programs_with_spans_keep_their_behaviour(passes):
    removed = 0
    for seed in range(40):
        m = parse_module(HEADER + span_program(500 + seed))
        new = optimize(m, passes, "t.pir", engine="clingo").module
        check = compare_modules(m, new, CASES)
        assert check.verdict == "identical", (seed, check.first_difference)
        for args, _ in CASES:
            b, a = evaluation_counts(m, args), evaluation_counts(new, args)
            assert a["loads"] <= b["loads"] and a["expressions"] <= b["expressions"], (seed, args)
            removed += b["loads"] - a["loads"]
    assert removed > 50
