"""``reaching.block_exits`` keeps each block's edges per block object (issue #28 item 1); the
oracle is its former derivation, written out here: per instruction its ``branch_targets``,
those inside the function's block map, the final ``cbr``'s only when ``constant_branch`` does not
decide it (else that one). A block asked under a block map that lacks some of its targets, then
under the full map (and again), must give each map's own answer: the cache holds the edges before
that filter (random programs of tests/flow/test_reaching_graph.py, with constant branches)."""
from __future__ import annotations

import dataclasses

import pytest

from pylogic.flow.reaching import block_exits, constant_branch
from pylogic.ir.model import CondBr, Imm, branch_targets
from pylogic.ir.parser import parse_module
from tests.flow.test_reaching_graph import random_text


def reference(blocks: dict, label: str) -> dict:
    instrs = blocks[label].instrs
    taken = constant_branch(instrs)
    out = {}
    for k, ins in enumerate(instrs):
        ts = [t for t in branch_targets(ins) if t in blocks
              and (k < len(instrs) - 1 or taken is None or t == taken)]
        if ts:
            out[k] = ts
    return out


def _functions(seed: int):
    fn = parse_module(random_text(seed, 8), "t.pir").functions[0]
    yield fn
    # every final cbr's condition a literal: constant_branch decides it
    blocks = []
    for b in fn.blocks:
        last = b.instrs[-1] if b.instrs else None
        if isinstance(last, CondBr) and last.guard is None:
            b = dataclasses.replace(b, instrs=b.instrs[:-1] + (
                dataclasses.replace(last, cond=Imm(len(blocks) % 2)),))
        blocks.append(b)
    yield dataclasses.replace(fn, blocks=tuple(blocks))


@pytest.mark.parametrize("seed", range(20))
def test_against_the_former_derivation(seed):
    n = 0
    for fn in _functions(seed):
        full = fn.block_map()
        for drop in list(full)[1::3]:
            partial = {k: v for k, v in full.items() if k != drop}
            for label in partial:
                assert block_exits(partial, label) == reference(partial, label)
                assert block_exits(full, label) == reference(full, label)
                assert block_exits(partial, label) == reference(partial, label)
                n += 1
    assert n > 0
