"""flow.value_names._stale_reads (issue #28 item 1: round-robin sweeps in reverse postorder over
block transfer functions) against a plain reference: per instruction, Python sets, a FIFO
worklist over every block (reachable or not), on generated functions whose loops go back to any
earlier block, and on functions with unreachable blocks and guarded definitions."""
from __future__ import annotations

from collections import deque

import pytest

from pylogic.flow.memory_writes import clobbers_memory
from pylogic.flow.value_names import MEMORY, _stale_reads, value_names
from pylogic.ir.model import Reg
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module


def reference(fn, names: dict) -> set:
    """Named registers read while possibly stale: stale at the entry, made stale by a write of a
    leaf (memory: by every store and call), fresh after the register's own unguarded write."""
    dependents: dict[str, set] = {}
    for r, (_, leaves) in names.items():
        for leaf in leaves:
            if isinstance(leaf, Reg):
                dependents.setdefault(leaf.name, set()).add(r)
    labels = [b.label for b in fn.blocks]
    stale_in = {label: set() for label in labels}
    stale_in[labels[0]] = set(names)
    bad: set = set()
    work, queued = deque(labels), set(labels)
    by_label = {b.label: b for b in fn.blocks}
    while work:
        label = work.popleft()
        queued.discard(label)
        stale = set(stale_in[label])
        for ins in by_label[label].instrs:
            reads = {a.name for a in ins.uses() if isinstance(a, Reg)} | {ins.guard}
            bad |= reads & stale
            if clobbers_memory(ins):
                stale |= dependents.get(MEMORY.name, set())
            for x in ins.defs():
                stale |= dependents.get(x, set())
                if ins.guard is None:
                    stale.discard(x)
        for s in by_label[label].successors():
            if s in stale_in and not stale <= stale_in[s]:
                stale_in[s] |= stale
                if s not in queued:
                    queued.add(s)
                    work.append(s)
    return bad & set(names)


def _names_and_succ(fn):
    """The (names, successors) of every stale-read check ``value_names(fn)`` makes."""
    import pylogic.flow.value_names as vn
    seen = []
    original = vn._stale_reads

    def spy(fn_, names_, succ_):
        seen.append((dict(names_), succ_))
        return original(fn_, names_, succ_)
    vn._stale_reads = spy
    try:
        value_names(fn)
    finally:
        vn._stale_reads = original
    return seen


@pytest.mark.parametrize("seed", range(1, 41))
def test_stale_reads_match_reference_on_generated_functions(seed):
    blocks = 10 + 7 * seed
    fn = random_module([seed], blocks=blocks, span=8 if seed % 2 else None).functions[0]
    calls = _names_and_succ(fn)
    assert calls, "value_names found nothing to check"
    for names, succ in calls:
        assert _stale_reads(fn, names, succ) == reference(fn, names)


def test_stale_reads_unreachable_block_and_guarded_definition():
    fn = parse_module("""
func f(a, b, p) {
e:
    x = add a, b
    cbr p, l, m
l:
    y = mul x, 2
    br m
m:
    print y
    (p) z = mul x, 3
    print z
    br n
n:
    print y
    ret x
u:
    a = sub a, 1
    br l
}
""").functions[0]
    calls = _names_and_succ(fn)
    assert calls
    found = set()
    for names, succ in calls:
        got = _stale_reads(fn, names, succ)
        assert got == reference(fn, names)
        found |= got
    # y is not written on the path e -> m; x goes stale only in the block u no path reaches,
    # and its write of a leaf flows on to l (every block's exit state is a source)
    assert "y" in found and "x" in found


def test_stale_reads_past_sixty_four_names():
    """The bit masks are Python ints as wide as the named registers: compiled by Cython,
    ``(1 << len(index)) - 1`` wrapped at 64 bits and lost every name past the 64th at the
    entry (stop 63: csmith 9's PRE output changed)."""
    defs = "\n".join(f"    x{k} = add a, {k}" for k in range(70))
    fn = parse_module(f"""
func f(a, p) {{
e:
    cbr p, d, u
d:
{defs}
    br u
u:
    y = add x69, x0
    ret y
}}
""").functions[0]
    names = {f"x{k}": (f"add({k},a)", (Reg("a"),)) for k in range(70)}
    succ = {b.label: b.successors() for b in fn.blocks}
    assert _stale_reads(fn, names, succ) == reference(fn, names) == {"x0", "x69"}
    assert "x69" not in value_names(fn) and "x0" not in value_names(fn)
