"""simplify's ``_delete_dead`` (read counts and a worklist, issue #28 item 1) against the rounds
it replaced: delete every pure definition no instruction reads, again until none is left; same
function text and count on generated functions (loops, guarded reads, dead chains and cycles)."""
from __future__ import annotations

import dataclasses

from pylogic.ir.model import Reg
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_function
from pylogic.ir.synthetic_values import random_module
from pylogic.transforms.simplify.simplify import _delete_dead, _is_pure
from tests.transforms.pre.test_pre_spans import HEADER, span_program


def rounds(fn):
    removed = 0
    while True:
        read = set()
        for b in fn.blocks:
            for ins in b.instrs:
                read.update(a.name for a in ins.uses() if isinstance(a, Reg))
                if ins.guard is not None:
                    read.add(ins.guard)
        blocks, n = [], 0
        for b in fn.blocks:
            keep = tuple(i for i in b.instrs
                         if not (_is_pure(i) and i.defs() and not any(d in read for d in i.defs())))
            n += len(b.instrs) - len(keep)
            blocks.append(dataclasses.replace(b, instrs=keep))
        if not n:
            return fn, removed
        removed += n
        fn = dataclasses.replace(fn, blocks=tuple(blocks))


CHAINS = """func f(a, p) {
e:
 x = add a, 1
 y = mul x, 2
 z = add y, x
 c = cmp.lt a, 3
 (c) u = add a, 7
 w = mov u
 br L
L:
 i = add j, 1
 j = add i, 1
 k = add k, 1
 q = div a, 0
 r = div a, 4
 t = sub r, 1
 ret a
}
"""


def test_deletion_equals_the_rounds():
    functions = list(parse_module(CHAINS).functions)
    functions += list(random_module(range(60), blocks=10).defined_functions())
    functions += list(parse_module(HEADER + "".join(span_program(s, f"f{s}")
                                                    for s in range(20))).defined_functions())
    deleted = 0
    for fn in functions:
        got, n = _delete_dead(fn)
        want, m = rounds(fn)
        assert (print_function(got), n) == (print_function(want), m)
        assert (got is fn) == (m == 0)
        # a fixpoint: simplify_function skips it in a later round that rewrote nothing
        assert _delete_dead(got) == (got, 0) and _delete_dead(got)[0] is got
        deleted += n
    assert deleted > 0
