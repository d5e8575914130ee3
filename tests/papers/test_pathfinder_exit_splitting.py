"""PathFinder ch. 7 exit splitting (spec pathfinder.md §12 items 21, 24, 27) with ``icbe``: the
GNU stdio model (5 -> 1 conditionals per iteration), merge sort's ``if compare(...)`` and the
cost of a split return. The programs are PIR models [Inference: rebuilt from the text; the
drawings are lost]. Every result is run against its original on the interpreter (same output and
exit status) and the executed conditional branches are counted by ``pylogic.interp.conditionals``
from the run's block profile, never predicted."""
from __future__ import annotations

from pylogic.analysis.optimize import optimize, static_size
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.model import Call, Ret
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from pylogic.transforms.cbe.exit_splitting import ExitSplit
from pylogic.analysis.run import module_rows
from pylogic.transforms.cbe.icbe import NEEDS as ICBE_NEEDS, Dropped, EntrySplit, icbe

# Merge sort's merge loop (Fig. 1.1, item 24): `if (compare(A[i], B[j]))` is fully correlated
# with compare's own `if` (return 1 => TRUE, return 0 => FALSE). A second call of compare at
# `done` does not test its result: it keeps the original compare (the standard return address).
MERGE = """; Merge sort's merge loop (PathFinder Fig. 1.1, spec item 24): `if (compare(A[i], B[j]))`
; is fully correlated with compare's own `if` (return 1 => TRUE, return 0 => FALSE).
global A[64]
global B[64]
global C[128]

func compare(x, y) {
entry:
    t = cmp.le x, y
    cbr t, yes, no
yes:
    ret 1
no:
    ret 0
}

func fill(base, n, step) {
entry:
    k = mov 0
    v = input
    br head
head:
    more = cmp.lt k, n
    cbr more, body, out
body:
    off = mul k, 8
    a = add base, off
    store a, v
    v = add v, step
    k = add k, 1
    br head
out:
    ret 0
}

func main(n, m) {
entry:
    z = call fill(A, n, 3)
    z = call fill(B, m, 2)
    i = mov 0
    j = mov 0
    k = mov 0
    br loop
loop:
    ia = cmp.lt i, n
    cbr ia, check_b, done
check_b:
    jb = cmp.lt j, m
    cbr jb, pick, done
pick:
    oi = mul i, 8
    ai = add A, oi
    x = load ai
    oj = mul j, 8
    bj = add B, oj
    y = load bj
    c = call compare(x, y)
    t = cmp.ne c, 0
    cbr t, take_a, take_b
take_a:
    ok = mul k, 8
    ck = add C, ok
    store ck, x
    i = add i, 1
    k = add k, 1
    br loop
take_b:
    ok = mul k, 8
    ck = add C, ok
    store ck, y
    j = add j, 1
    k = add k, 1
    br loop
done:
    print k
    print i
    print j
    r = call compare(k, 0)
    print r
    ret 0
}
"""

# GNU stdio (Fig. 7.1/7.6, item 21): main calls fopen, then loops `c = fgetc(fp)` until EOF (P0);
# fgetc tests fp == NULL (P1), fp->magic != IOMAGIC (P2, the handle's value here), a write-only
# handle (P3), then whether its buffer has a byte (the fifth conditional, which stays) and
# returns it (an unsigned char: never EOF), or returns fillbuf's EOF or first byte. A second
# call, fgetc(0), keeps P1 undecided in fgetc itself, so P1 needs entry splitting.
STDIO = """; GNU stdio model (PathFinder Fig. 7.1/7.6, spec item 21) [Inference: rebuilt from the text].
; A FILE is its handle: fopen returns 0 (NULL) or IOMAGIC (fp->magic == IOMAGIC is modelled by
; the handle's value). The "file" is the global data; fillbuf maps its next 16 bytes as the buffer.
global data[64] = {72, 101, 108, 108, 111, 44, 32, 119, 111, 114, 108, 100, 33, 10, 80, 97, 116, 104, 70, 105, 110, 100, 101, 114, 32, 99, 104, 97, 112, 116, 101, 114, 32, 55, 58, 32, 73, 67, 66, 69, 10, 0, 255, 128, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
global pos[8]
global end[8]
global left[8]

func fopen(size) {
entry:
    bad = cmp.lt size, 0
    cbr bad, fail, open
fail:
    ret 0
open:
    store left, size
    store pos, data
    store end, data
    ret 4660
}

func fillbuf(fp) {
entry:
    n = load left
    empty = cmp.le n, 0
    cbr empty, eof, refill
eof:
    ret -1
refill:
    big = cmp.gt n, 16
    k = select big, 16, n
    rest = sub n, k
    store left, rest
    p = load end
    e = add p, k
    store end, e
    p1 = add p, 1
    store pos, p1
    c = load.1u p
    ret c
}

func fgetc(fp) {
entry:
    null = cmp.eq fp, 0
    cbr null, a, magic
magic:
    bad = cmp.ne fp, 4660
    cbr bad, a, mode
mode:
    wr = cmp.lt fp, 0
    cbr wr, a, buffered
buffered:
    p = load pos
    e = load end
    have = cmp.lt p, e
    cbr have, c, b
c:
    ch = load.1u p
    p1 = add p, 1
    store pos, p1
    ret ch
b:
    r = call fillbuf(fp)
    ret r
a:
    ret -1
}

func main(size) {
entry:
    probe = call fgetc(0)
    print probe
    fp = call fopen(size)
    z = cmp.eq fp, 0
    cbr z, nofile, loop
nofile:
    print -2
    ret 1
loop:
    ch = call fgetc(fp)
    eof = cmp.eq ch, -1
    cbr eof, done, body
body:
    print ch
    br loop
done:
    ret 0
}
"""


def conditionals(module, args, inputs=()):
    result = run_module(module, args=args, inputs=inputs)
    assert result.error is None
    return conditional_branches(module, result), result


def test_item24_merge_sort_compare_is_removed_by_exit_splitting():
    module = parse_module(MERGE, "merge.pir")
    result = optimize(module, ["icbe"], "merge.pir")
    out = result.module
    assert verify_module(out) == []
    record = result.passes[0].record
    splits = [a for a in record.applied if isinstance(a, ExitSplit)]
    assert [(s.function, s.block, s.callee, s.exits) for s in splits] == \
        [("main", "pick", "compare", ("TRUE", "FALSE"))]
    cases = [((n, m), (seed, 1)) for n, m in ((8, 8), (3, 7), (0, 4)) for seed in (1, 20)]
    assert compare_modules(module, out, cases).verdict == "identical"
    for args, inputs in cases:
        before, r0 = conditionals(module, args, inputs)
        after, r1 = conditionals(out, args, inputs)
        picks = r0.block_profile.get(("main", "pick"), 0)
        # the loop's compare test, every time; and (pair queries, issue #15 part C) the loop's
        # i < n and j < m after the pick that left i (j) unchanged
        assert after <= before - picks
        assert r1.block_profile.get(("compare.exits", "entry"), 0) == picks
    threaded = {(a.branch, a.path) for a in record.applied if not isinstance(a, ExitSplit)}
    assert threaded == {("loop#1", ("loop",)), ("check_b#1", ("loop", "check_b"))}


def test_item27_a_split_return_costs_one_load_and_exit_0_costs_nothing():
    module = parse_module(MERGE, "merge.pir")
    out = optimize(module, ["icbe"], "merge.pir").module
    fmap = out.function_map()
    clone = fmap["compare.exits"]
    assert [(b.label, b.instrs[-1].exit) for b in clone.blocks if isinstance(b.instrs[-1], Ret)] \
        == [("yes", 0), ("no", 1)]
    # the call that does not test the result keeps the original compare and its plain returns
    assert [b.instrs[-1].exit for b in fmap["compare"].blocks
            if isinstance(b.instrs[-1], Ret)] == [0, 0]
    calls = [ins for b in fmap["main"].blocks for ins in b.instrs if isinstance(ins, Call)]
    assert [(c.callee, c.continuations) for c in calls if "compare" in c.callee] == \
        [("compare.exits", ("pick.x0", "pick.x1")), ("compare", ())]
    for args, inputs in (((8, 8), (1, 1)), ((5, 8), (20, 1))):
        r0 = run_module(module, args=args, inputs=inputs)
        r1 = run_module(out, args=args, inputs=inputs)
        false_returns = r1.block_profile.get(("compare.exits", "no"), 0)
        assert false_returns > 0
        assert r1.kinds["loads"] - r0.kinds["loads"] == false_returns
        # cbr -> br in the continuations: one load per split return is the only change
        assert r1.counts["instructions"] - r0.counts["instructions"] == false_returns
        assert r1.kinds["branches"] == r0.kinds["branches"]


def stdio_rate(module, out, n1=32, n2=48):
    """Executed conditionals per byte: (conditionals at n2 bytes - at n1) / (n2 - n1); both
    sizes run (n2 - n1) / 16 more refills, one fillbuf test each."""
    before = [conditionals(module, (n,))[0] for n in (n1, n2)]
    after = [conditionals(out, (n,))[0] for n in (n1, n2)]
    refills = (n2 - n1) // 16
    return ((before[1] - before[0] - refills) / (n2 - n1),
            (after[1] - after[0] - refills) / (n2 - n1))


def test_item21_gnu_stdio_five_conditionals_per_iteration_become_one():
    module = parse_module(STDIO, "stdio.pir")
    options = {"icbe": {"growth": 2.0}}       # the model is tiny: 60 instructions
    rows = module_rows(module, "stdio.pir", relations=ICBE_NEEDS)
    out1, record = icbe(module, rows, **options["icbe"])          # one round
    entry = {(a.branch, a.outcome) for a in record.applied if isinstance(a, EntrySplit)}
    assert ("entry#1", "FALSE") in entry                 # P1 at the loop's call (fgetc's entry)
    splits = {(a.block, a.callee) for a in record.applied if isinstance(a, ExitSplit)}
    assert splits == {("entry", "fopen"), ("loop", "fgetc.icbe")}     # fopen's and fgetc's exits
    fillbuf = out1.function_map()["fillbuf.exits"]        # fgetc's `return fillbuf(fp)`, split
    assert sorted(b.instrs[-1].exit for b in fillbuf.blocks if isinstance(b.instrs[-1], Ret)) == [0, 1]
    # no call is left to the originals (nor to the entry-split clone the exit split replaced)
    assert {a.function for a in record.applied if isinstance(a, Dropped)} == \
        {"fopen", "fgetc", "fgetc.icbe"}
    # a second round on the restructured program: after fopen's valid exit, fp == IOMAGIC (P2);
    # the pass iterates itself until a round removes nothing
    both = optimize(module, ["icbe"], "stdio.pir", options=options)
    out2 = both.module
    again = both.passes[0].record
    assert again.rounds >= 3 and not again.changed and again.round_log[-1]["removed"] == 0
    assert static_size(out2) - static_size(module) <= 2.0 * static_size(module)
    assert verify_module(out2) == []
    cases = [((n,), ()) for n in (-1, 0, 1, 15, 16, 17, 32, 41, 48)]
    assert compare_modules(module, out1, cases).verdict == "identical"
    assert compare_modules(module, out2, cases).verdict == "identical"
    assert stdio_rate(module, out1) == (5.0, 2.0)       # P2 is left after one round
    assert stdio_rate(module, out2) == (5.0, 1.0)       # PathFinder §7.1.2: five to one
