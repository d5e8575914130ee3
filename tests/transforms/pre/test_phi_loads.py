"""Loads through a join translated into the predecessors (``pylogic/transforms/pre/phi_loads.py``,
run at the end of pre-m).

Oracle: generated programs with joins whose phi copies pick addresses of allocas, a global, a
pointer argument and offsets into them, with loads, stores of constants and of registers,
memsets and calls in the predecessors and above them, and a load through the phi address at
the join: every program optimized by ``pre-m`` and ``simplify,pre-mr`` is identical in
the interpreter on every input and never evaluates more loads or expressions."""
from __future__ import annotations

import random

import pytest

from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.transforms.naming import FreshNames
from pylogic.transforms.pre.phi_loads import phi_translated_loads


def _counts(module, args) -> dict:
    return expression_evaluations(module, run_module(module, "main", args=list(args)))


def _loads(fn) -> int:
    return sum(1 for b in fn.blocks for i in b.instrs if i.opcode == "load")


SSA_PRE_25 = ("func main(x) {\ne:\n a = alloca 4\n b = alloca 4\n store.4 a, 1\n"
              " store.4 b, 2\n cbr x, t, f\nt:\n p = mov a\n br j\nf:\n p = mov b\n br j\n"
              "j:\n q = mov p\n v = load.4 q\n print v\n ret 0\n}\n")


def test_each_predecessor_gives_the_stored_value():
    m = parse_module(SSA_PRE_25)
    fn, n = phi_translated_loads(m.functions[0], FreshNames({"x"}))
    assert n == 1 and _loads(fn) == 0
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ()), ((1,), ())]).verdict == "identical"
    assert _counts(new, (1,))["loads"] == 0


TEXT_21 = ("func f(a, k, c) {\ne:\n z = alloca 8\n d = load.4 a\n k1 = add k, 1\n"
           " k8 = mul k, 8\n ak = add a, k8\n x = load ak\n j8 = mul k1, 8\n aj = add a, j8\n"
           " y = load aj\n cbr c, t, u\nt:\n p = mov z\n kk = mov k1\n br j\nu:\n p = mov a\n"
           " kk = mov k\n br j\nj:\n e = load.4 p\n m8 = mul kk, 8\n am = add a, m8\n"
           " w = load am\n print d\n print e\n print w\n ret 0\n}\n")


def test_an_earlier_load_a_fresh_alloca_and_a_translated_address():
    # gcc.dg/tree-ssa loadpre1 (an alloca's zero on one edge) and ssa-pre-21 (array[k] with k
    # a phi of k and k + 1, both loaded before)
    fn, n = phi_translated_loads(parse_module(TEXT_21).functions[0], FreshNames(set()))
    assert n == 2 and _loads(fn) == 3                 # e, then w (e's copy is pure): d, x, y
    for c in (0, 1):
        m = parse_module("global @arr[64] = {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,"
                         " 3}\n" + TEXT_21 +
                         f"func main() {{\ne:\n r = call f(@arr, 1, {c})\n ret r\n}}\n")
        new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
        assert compare_modules(m, new, [((), ())]).verdict == "identical"
        assert _counts(m, ())["loads"] == 5 and _counts(new, ())["loads"] == 3


def test_a_store_or_call_in_between_keeps_the_load():
    for between in (" store.1 a, 9\n", " call @poke(a)\n", " store.4 q0, 9\n"):
        m = parse_module("func @poke(q) {\ne:\n store.4 q, 5\n ret\n}\n"
                         "func main(x, q0) {\ne:\n a = alloca 4\n call @poke(a)\n b = alloca 4\n"
                         " store.4 a, 1\n store.4 b, 2\n cbr x, t, f\nt:\n p = mov a\n"
                         + between + " br j\nf:\n p = mov b\n br j\nj:\n v = load.4 p\n"
                         " print v\n ret 0\n}\n")
        fn, n = phi_translated_loads(m.functions[-1], FreshNames(set()))
        # a byte of a changed; a escaped into poke: a call, or a store through an unknown
        # pointer, may change it: t loads a itself (the load moved to that edge, GVN's load
        # PRE), f gives b's 2
        assert _loads(fn) == _loads(m.functions[-1]), between
        t = [i for b in fn.blocks if b.label == "t" for i in b.instrs]
        assert t[-2].opcode == "load" and str(t[-2].addr) == str(parse_module(
            "func f(a) {\ne:\n v = load a\n ret\n}\n").functions[0].blocks[0].instrs[0].addr)
        if "q0" not in between:                   # (q0 = 0 would fault on both sides)
            new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
            assert compare_modules(m, new, [((1, 0), ()), ((0, 0), ())]).verdict == "identical"


def join_program(seed: int) -> str:
    rnd = random.Random(seed)
    lines = ["global @g[16] = {3, 0, 0, 0, 7}", "extern func @memset(d, c, n)",
             "func @poke(q) {", "e:", " store.1 q, 66", " ret", "}",
             "func main(x, y, n) {", "e:", " a = alloca 16", " b = alloca 16", " buf = alloca 16",
             " call @poke(buf)", " a4 = add a, 4", " g4 = add @g, 4", " k = mov 0", " br L0"]
    addrs = ("a", "b", "a4", "@g", "g4", "buf")
    joins = rnd.randint(1, 3)
    for i in range(joins):
        lines.append(f"L{i}:")
        for j in range(rnd.randint(0, 3)):
            lines.append(_statement(rnd, addrs, f"{i}_{j}"))
        lines.append(f" c{i} = cmp.lt {rnd.choice(('x', 'y', 'k'))}, {rnd.randint(0, 2)}")
        lines.append(f" cbr c{i}, T{i}, F{i}")
        size = rnd.choice(("4", "8", "1"))
        for side in ("T", "F"):
            lines.append(f"{side}{i}:")
            a = rnd.choice(addrs)
            if rnd.random() < 0.7:        # the value the join's load reads, often
                lines.append(rnd.choice((f" store.{size} {a}, {rnd.choice(('7', '-3', 'k'))}",
                                         f" u{side}{i} = load.{size} {a}\n print u{side}{i}")))
            for j in range(rnd.randint(0, 2)):
                lines.append(_statement(rnd, addrs, f"{side}{i}_{j}"))
            lines.append(f" ph{i} = mov {a}")
            lines.append(f" br J{i}")
        lines.append(f"J{i}:")
        if rnd.random() < 0.3:
            lines += [f" q{i} = add ph{i}, 4", f" v{i} = load.{rnd.choice(('4', '1', '2u'))} q{i}"]
        else:
            lines.append(f" v{i} = load.{size} ph{i}")
        lines.append(f" print v{i}")
        if rnd.random() < 0.3:
            lines += [" k = add k, 1", f" r{i} = cmp.lt k, n", f" cbr r{i}, L{i}, N{i}", f"N{i}:"]
        lines.append(f" br L{i + 1}" if i + 1 < joins else " ret 0")
    if joins:
        lines.append(f"L{joins}:\n ret 0")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _statement(rnd, addrs, tag) -> str:
    r, a = rnd.random(), rnd.choice(addrs)
    if r < 0.4:
        return f" w{tag} = load.{rnd.choice(('4', '8', '1'))} {a}\n print w{tag}"
    if r < 0.75:
        return f" store.{rnd.choice(('4', '8', '1'))} {a}, {rnd.choice(('x', '5', '-1', 'k'))}"
    if r < 0.85:
        return f" call @memset({a}, {rnd.choice(('0', '9'))}, 4)"
    if r < 0.92:
        return f" call @poke({rnd.choice(('buf', '@g', 'g4'))})"
    return " x = add x, 1"


CASES = [((x, y, n), ()) for x, y, n in ((0, 1, 2), (1, 0, 0), (2, 2, 3))]


@pytest.mark.slow
@pytest.mark.parametrize("passes", [["pre-m"], ["simplify", "pre-mr"]])
def test_generated_joins_keep_their_behaviour(passes):
    joined = 0
    for seed in range(60):
        m = parse_module(join_program(seed))
        result = optimize(m, passes, "t.pir", engine="clingo")
        new = result.module
        check = compare_modules(m, new, CASES)
        assert check.verdict == "identical", (seed, check.first_difference)
        for args, _ in CASES:
            b, a = _counts(m, args), _counts(new, args)
            assert a["loads"] <= b["loads"] and a["expressions"] <= b["expressions"], (seed, args)
        joined += result.passes[-1].record.totals()["phi_loads"]
    assert joined > 10


def test_an_address_register_written_after_the_earlier_load_keeps_the_load():
    m = parse_module("func main(x) {\ne:\n a = alloca 16\n store.4 a, 1\n a4 = add a, 4\n"
                     " store.4 a4, 2\n r = mov a\n cbr x, t, f\nt:\n u = load.4 r\n"
                     " r = add r, 4\n ph = mov r\n br j\nf:\n w = load.4 r\n ph = mov r\n br j\n"
                     "j:\n v = load.4 ph\n print v\n ret 0\n}\n")
    fn, n = phi_translated_loads(m.functions[0], FreshNames(set()))
    assert _loads(fn) == _loads(m.functions[0])      # t loads through r itself (load PRE)
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ()), ((1,), ())]).verdict == "identical"


def test_one_predecessor_without_the_value_loads_it_itself():
    # gcc torture 20070824-1: for (p = &s; *p; p = &(*p)->a) with s = 0 stored first; the loop
    # header's load comes from the store on entry and is loaded on the back edge instead
    m = parse_module("func main(n) {\ne:\n s = alloca 8\n node = alloca 8\n store s, node\n"
                     " p = mov s\n br head\nhead:\n v = load p\n c = cmp.ne v, 0\n"
                     " cbr c, body, done\nbody:\n a = mov v\n p = mov a\n br head\n"
                     "done:\n print v\n ret 0\n}\n")
    fn, n = phi_translated_loads(m.functions[0], FreshNames(set()))
    assert n == 1 and _loads(fn) == 1                 # the load moved to the back edge
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    for a in (0, 1):
        assert compare_modules(m, new, [((a,), ())]).verdict == "identical"
        assert _counts(new, (a,))["loads"] == _counts(m, (a,))["loads"] - 1


def test_no_load_goes_to_a_predecessor_that_may_leave_elsewhere():
    # f reaches j only when y holds; loading at f's end would read address 0 on its way out
    m = parse_module("func main(x, y) {\ne:\n a = alloca 8\n store a, 5\n cbr x, t, f\n"
                     "t:\n ph = mov a\n br j\nf:\n q = select y, a, 0\n ph = mov q\n"
                     " cbr y, j, out\n"
                     "j:\n v = load ph\n print v\n ret 0\nout:\n ret 1\n}\n")
    fn, n = phi_translated_loads(m.functions[0], FreshNames(set()))
    assert n == 0
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    cases = [((x, y), ()) for x in (0, 1) for y in (0, 1)]
    assert compare_modules(m, new, cases).verdict == "identical"


def test_a_load_that_writes_its_own_address_gives_no_value():
    # r = load r reads the old r's cell: it is not the load of the new r
    m = parse_module("func main(x) {\ne:\n a = alloca 8\n b = alloca 8\n store a, b\n"
                     " store b, 7\n r = mov a\n cbr x, t, f\nt:\n r = load r\n ph = mov r\n"
                     " br j\nf:\n ph = mov b\n br j\nj:\n v = load ph\n print v\n ret 0\n}\n")
    fn, _ = phi_translated_loads(m.functions[0], FreshNames(set()))
    new = optimize(m, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(m, new, [((0,), ()), ((1,), ())]).verdict == "identical"
    assert _loads(fn) == _loads(m.functions[0])
