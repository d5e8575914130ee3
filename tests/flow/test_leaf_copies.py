"""flow.value_names.leaf_copies (PRE(M)'s copies of its temporaries, issue #28 item 1) against
its definition: the copies ``x = mov t`` (``t`` kept) that ``value_names(fn, keep)`` names by the
leaf ``t``, on generated functions (loops, guards, parameters, registers written twice) and on
functions where other registers' names go stale or run in a cycle."""
from __future__ import annotations

import random

import pytest

from pylogic.flow.value_names import _value_names, leaf_copies
from pylogic.ir.model import Mov, Reg
from pylogic.ir.parser import parse_module
from tests.ir.strategies import random_module


def definition(fn, keep: frozenset) -> dict:
    """``{x: t}`` read off the whole function's value names with ``keep`` as leaves."""
    names = _value_names(fn, keep)
    out = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if isinstance(ins, Mov) and isinstance(ins.src, Reg) and ins.src.name in keep \
                    and ins.dest in names:
                text, leaves = names[ins.dest]
                assert leaves == (ins.src,) and text == ins.src.name
                out[ins.dest] = leaves[0]
    return out


def copy_heavy(rng: random.Random):
    """A function like PRE(M)'s rewrite makes: temporaries ``t*`` written by expressions,
    copies ``x* = mov t*`` (some written twice or guarded), reads of both, branches forward and
    back."""
    n = rng.randint(2, 7)
    lines = ["func f(a, b, q) {"]
    for k in range(n):
        lines.append(f"b{k}:")
        for _ in range(rng.randint(1, 6)):
            t, x = f"t{rng.randint(0, 2)}", f"x{rng.randint(0, 4)}"
            guard = "(q) " if rng.random() < 0.1 else ""
            kind = rng.random()
            if kind < 0.3:
                lines.append(f"  {guard}{t} = add {rng.choice('abq')}, {rng.randint(0, 9)}")
            elif kind < 0.6:
                lines.append(f"  {guard}{x} = mov {t}")
            elif kind < 0.8:
                lines.append(f"  {guard}a = add {x}, {rng.choice(['a', 'b', t])}")
            else:
                lines.append(f"  {guard}b = mov {rng.choice(['a', t, x])}")
        targets = [f"b{j}" for j in range(n) if j != k] or ["b0"]
        if k == n - 1 or rng.random() < 0.2:
            lines.append(f"  ret {rng.choice(['a', 'b'])}")
        else:
            lines.append(f"  cbr q, b{k + 1}, {rng.choice(targets)}")
    lines.append("}")
    return parse_module("\n".join(lines) + "\n").functions[0]


@pytest.mark.parametrize("seed", range(40))
def test_leaf_copies_match_the_value_names_on_generated_functions(seed):
    rng = random.Random(seed)
    module = random_module(rng, max_functions=3, max_blocks=6, max_instrs=8)
    for fn in module.defined_functions():
        sources = sorted({ins.src.name for b in fn.blocks for ins in b.instrs
                          if isinstance(ins, Mov) and isinstance(ins.src, Reg)})
        for keep in (frozenset(sources), frozenset(rng.sample(sources, len(sources) // 2))):
            assert leaf_copies(fn, keep) == definition(fn, keep)


def test_leaf_copies_match_the_value_names_on_copies_of_temporaries():
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        fn = copy_heavy(rng)
        for keep in (frozenset({"t0", "t1", "t2"}), frozenset({"t0"})):
            got = leaf_copies(fn, keep)
            assert got == definition(fn, keep)
            found += bool(got)
    assert found > 100         # the generator makes copies that go (and ones that stay)


def test_leaf_copies_keep_a_copy_whose_reads_see_the_temporary_unchanged():
    fn = parse_module("""
func f(a, b) {
e:
  t = add a, b
  x = mov t
  c = cmp.lt x, 4
  cbr c, l, r
l:
  t = mul a, 2
  y = mov t
  z = add y, 1
  r1 = add z, x
  ret r1
r:
  w = sub x, 1
  u = add w, w
  w = add u, 1
  ret w
}
""").functions[0]
    keep = frozenset({"t"})
    # x is read after t is written again in l: stale there; y is read before any rewrite
    assert leaf_copies(fn, keep) == {"y": Reg("t")} == definition(fn, keep)


def test_leaf_copies_do_not_depend_on_the_other_registers_names():
    # u and v name each other through a loop (dropped by _value_names' later rounds), w is
    # read stale on the back edge: x's name is t in every round
    fn = parse_module("""
func f(a) {
e:
  t = add a, 1
  x = mov t
  br h
h:
  u = add v, 1
  v = add u, 2
  w = add x, u
  c = cmp.lt w, 9
  cbr c, h, d
d:
  r = add x, w
  ret r
}
""").functions[0]
    keep = frozenset({"t"})
    assert leaf_copies(fn, keep) == {"x": Reg("t")} == definition(fn, keep)
