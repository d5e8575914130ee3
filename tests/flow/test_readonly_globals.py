"""``flow.readonly_globals``: the one read-only-globals criterion (issue #27). Each strength the
two former criteria had separately (addresses followed through every derived register, compares,
``_chk`` copies; guarded loads, copies recognised by ``builtin_name``), programs where a global
must NOT be read-only, and a brute-force check against the interpreter: a global reported
read-only still holds its initial bytes when a random program stops."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.flow.known_bytes import readonly_contents
from pylogic.flow.readonly_globals import readonly_globals
from pylogic.interp.machine import Machine
from pylogic.ir.parser import parse_module

HEAD = "global t[8] = {1, 2, 3, 4, 5, 6, 7, 8}\nglobal u[8]\n"


def ro(body: str, extra: str = "") -> frozenset:
    """The read-only globals of a module whose main is ``body`` (one block)."""
    return readonly_globals(parse_module(f"{HEAD}func main() {{\ne:\n{body}\n    ret 0\n}}\n"
                                         f"{extra}", "t.pir"))


# ---------------------------------------------------------------- strengths, now in one place

@pytest.mark.parametrize("body", [
    # a table indexed by a run-time value, copied, moved back by sub (old readonly_globals only)
    "    i = input\n    j = and i, 3\n    p = add t, j\n    q = mov p\n    r = sub q, 1\n"
    "    x = load.1 r\n    store.1 u, x",
    # an address compared (old readonly_globals only)
    "    i = input\n    p = add t, i\n    c = cmp.eq p, t\n    store.1 u, c",
    # the source of a _chk copy (old readonly_globals only)
    "    call @__memcpy_chk(u, t, 4, 8)",
    # a guarded load (old loaded_only_globals only)
    "    i = input\n    pt:ut = pcmp.eq i, 0\n    (pt) x = load.1 t\n    store.1 u, x",
    # a copy by the LLVM intrinsic, found by builtin_name (old loaded_only_globals only)
    "    call @llvm.memcpy.p0.p0.i64(u, t, 4, 0)",
    # both at once: a guarded load through a register derived by a run-time offset, compared in
    # a predicate define (neither former criterion)
    "    i = input\n    j = and i, 7\n    p = add j, t\n    pt:ut = pcmp.ne p, t\n"
    "    (pt) x = load.1 p\n    (pt) store.1 u, x",
])
def test_the_merged_criterion_finds_t_read_only(body):
    assert ro(body) == {"t"}


def test_a_const_global_is_read_only_whatever_its_uses():
    m = parse_module("const global k[4] = {9}\nfunc main() {\ne:\n    call @f(k)\n    ret k\n}\n",
                     "t.pir")
    assert readonly_globals(m) == {"k"} and readonly_contents(m) == {"k": (4, b"\t", {})}


# ---------------------------------------------------------------- soundness: not read-only

@pytest.mark.parametrize("body, extra", [
    ("    i = input\n    p = add t, i\n    q = add p, 2\n    store.1 q, 0", ""),  # derived store
    ("    i = input\n    pt:ut = pcmp.eq i, 0\n    (pt) store.1 t, 0", ""),     # guarded store
    ("    call @f(t)", "func @f(a) {\ne:\n    x = load a\n    ret x\n}\n"),  # a non-copy call
    ("    call @strlen(t)", ""),                                          # another builtin
    ("    call @memcpy(t, u, 4)", ""),                                     # a copy's destination
    ("    call @memset(t, 0, 4)", ""),
    ("    call @memcpy(u, t, 4)", "func @memcpy(a, b, n) {\ne:\n    store.1 b, 0\n    ret 0\n}\n"),
    ("    store.8 u, t", ""),                                              # the address stored
    ("    p = add t, 1\n    store.8 u, p", ""),
    ("    x = call @g()", "func @g() {\ne:\n    ret t\n}\n"),                # returned
    ("    i = input\n    s = select i, t, u\n    x = load.1 s", ""),          # selected
    ("    print t", ""),
    ("    i = input\n    pt:ut = pcmp.eq i, 0\n    (pt) p = add t, 1\n    x = load.1 p", ""),
    ("    p = mov t\n    p = mov u\n    x = load.1 p", ""),                  # two definitions
    ("    p = sub 8, t\n    x = load.1 p", ""),                            # not an offset of t
    ("    p = add t, 0\n    (p) store.1 u, 1", ""),                         # used as a guard
])
def test_a_global_that_may_be_written_is_not_read_only(body, extra):
    assert "t" not in ro(body, extra)


# ---------------------------------------------------------------- brute force on the interpreter

GLOBALS = ("g0", "g1", "g2")


def random_program(seed: int) -> str:
    """A random straight-line main over three 8-byte globals: derived pointers (copies, offsets,
    register reuse), loads, stores, copies, compares, guards, helpers that write or return what
    they are given, addresses stored in memory and loaded back."""
    rnd = random.Random(seed)
    lines, ptrs, vals = [], ["g0"], ["0"]
    helpers = ("func @w(a) {\ne:\n    store.1 a, 99\n    ret 0\n}\n"
               "func @id(a) {\ne:\n    ret a\n}\n")

    def ptr():
        return rnd.choice(ptrs + list(GLOBALS))

    def guard():
        return "(pg) " if rnd.random() < 0.3 else ""
    lines.append("    i = input\n    pg:ut = pcmp.eq i, 0")
    for n in range(rnd.randint(3, 14)):
        k = rnd.randrange(13)
        p = f"p{rnd.randrange(4)}"        # reused: some registers get several definitions
        v = f"v{n}"
        if k == 0:
            lines.append(f"    {guard()}{p} = add {ptr()}, {rnd.randrange(4)}")
        elif k == 1:
            lines.append(f"    {p} = mov {ptr()}")
        elif k == 2:
            lines.append(f"    j{n} = and i, 3\n    {p} = add {ptr()}, j{n}")
        elif k == 3:
            lines.append(f"    {guard()}{v} = load.1 {ptr()}")
            vals.append(v)
            continue
        elif k == 4:
            lines.append(f"    {guard()}store.1 {ptr()}, {rnd.choice(vals)}")
            continue
        elif k == 5:
            lines.append(f"    {guard()}call @memcpy({ptr()}, {ptr()}, {rnd.randint(0, 2)})")
            continue
        elif k == 6:
            lines.append(f"    {v} = cmp.eq {ptr()}, {ptr()}")
            vals.append(v)
            continue
        elif k == 7:
            lines.append(f"    {guard()}store.8 {rnd.choice(GLOBALS)}, {ptr()}")
            continue
        elif k == 8:
            lines.append(f"    {p} = load.8 {rnd.choice(GLOBALS)}")
        elif k == 9:
            lines.append(f"    {guard()}call @w({ptr()})")
            continue
        elif k == 10:
            lines.append(f"    {p} = call @id({ptr()})")
        elif k == 11:
            lines.append(f"    {p} = select i, {ptr()}, {ptr()}")
        else:
            lines.append(f"    {guard()}call @memset({ptr()}, 7, {rnd.randint(0, 2)})")
            continue
        ptrs.append(p)
    inits = "".join(f"global {g}[8] = {{{', '.join(str(rnd.randrange(256)) for _ in range(8))}}}\n"
                    for g in GLOBALS)
    return inits + "func main() {\ne:\n" + "\n".join(lines) + "\n    ret 0\n}\n" + helpers


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from((0, 1, 2)))
@pytest.mark.slow
def test_a_read_only_global_keeps_its_initial_bytes(seed, inp):
    module = parse_module(random_program(seed), "t.pir")
    contents = readonly_contents(module)
    machine = Machine(module)
    machine.run("main", inputs=[inp], fuel=10_000)     # a fault stops it: what ran still counts
    for k, g in enumerate(module.globals):      # global k is segment k+1 (interp.machine)
        if g.name in contents:
            size, init, _ = contents[g.name]
            assert bytes(machine.memory.segments[k + 1][:size]) == init.ljust(size, b"\0"), g.name
