"""The fused decoded form (a function per PIR function, registers as locals, wraps left out where
``interp/ranges.py`` proves them unneeded, jump targets inlined) against the reference form
(``Machine(reference=True)``: one instruction at a time, every wrap written out, the decoded code
as it was before): the same output, return value, status, error and its location, counts
(instructions, nullified, executed, branches, calls), kinds (loads, stores, computations, ...),
edge and block profiles, peak memory, on random programs, at any fuel and in any slices, and on
corpus programs (gcc torture, csmith) when they are at hand."""
from __future__ import annotations

import os
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pylogic.interp.machine import Machine
from pylogic.interp.ranges import register_ranges
from pylogic.ir.model import MAX64, MIN64
from pylogic.ir.parser import parse_module

EDGES = [0, 1, -1, 2, 3, 7, 31, 32, 33, 63, 64, 255, 1023, (1 << 31) - 1, -(1 << 31), 1 << 32,
         (1 << 32) - 1, MAX64, MIN64, MAX64 - 1, MIN64 + 1, 1 << 62, -(1 << 62)]
REGS = [f"x{k}" for k in range(6)]
BINARY = ["add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "sar"]
RELS = ["eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu"]

reg = st.sampled_from(REGS)
const = st.one_of(st.sampled_from(EDGES), st.integers(MIN64, MAX64), st.integers(-300, 300))
operand = st.one_of(reg, const.map(str))


@st.composite
def instruction(draw) -> list[str]:
    kind = draw(st.integers(0, 11))
    d, a, b = draw(reg), draw(reg), draw(operand)
    if kind <= 2:
        return [f"{d} = {draw(st.sampled_from(BINARY))} {a}, {b}"]
    if kind == 3:  # a sign extension of the low 32 bits, as clang's code has them
        n = draw(st.sampled_from([32, 48, 56]))
        return [f"t = shl {a}, {n}", f"{d} = sar t, {n}"]
    if kind == 4:
        return [f"{d} = {draw(st.sampled_from(['neg', 'not']))} {a}"]
    if kind == 5:
        return [f"{d} = cmp.{draw(st.sampled_from(RELS))} {a}, {b}"]
    if kind == 6:  # predicated: both deposit types
        rel = draw(st.sampled_from(RELS))
        return [f"p:ut, q:uf = pcmp.{rel} {a}, {b}", f"(p) {d} = add {d}, {b}",
                f"(q) {d} = mul {a}, 3"]
    if kind == 7:  # memory inside the global (sizes and signedness)
        n = draw(st.sampled_from([1, 2, 4, 8]))
        u = draw(st.sampled_from(["", "u"])) if n < 8 else ""
        return [f"o = and {a}, 56", "m = add g, o", f"store.{n} m, {b}",
                f"{d} = load.{n}{u} m"]
    if kind == 8:  # an access that may leave the object (a fault with its location)
        return [f"m = add g, {draw(st.sampled_from([0, 60, 64, -1]))}", f"{d} = load.4 m"]
    if kind == 9:
        return [f"{d} = call helper({a}, {b})"]
    if kind == 10:
        return [f"print {a}"]
    return [f"{d} = select {a}, {b}, {draw(reg)}"]


@st.composite
def program(draw) -> str:
    body = [line for ins in draw(st.lists(instruction(), min_size=1, max_size=14))
            for line in ins]
    if draw(st.booleans()):  # a side exit in the middle of the loop
        at = draw(st.integers(0, len(body)))
        body[at:at] = [f"e = cmp.eq {draw(reg)}, {draw(const)}", "(e) br done"]
    trips = draw(st.integers(0, 6))
    op = draw(st.sampled_from(BINARY))
    # parameters are unbounded: most registers start bounded, so that ranges.py has work
    inits = [f"    {r} = " + draw(st.sampled_from(
        [f"mov {draw(const)}", f"and n{k % 2}, {draw(const)}", f"sar n{k % 2}, 40",
         f"mov n{k % 2}"])) for k, r in enumerate(REGS)]
    return "\n".join([
        "global g[64]", "",
        "func helper(a, b) {", "entry:", f"    t = {op} a, b", "    u = shl t, 1",
        "    ret u", "}", "",
        "func main(n0, n1) {", "entry:", "    i = mov 0", *inits, "    br loop",
        "loop: !hyperblock", *("    " + line for line in body),
        "    i = add i, 1", f"    c = cmp.lt i, {trips}", "    cbr c, loop, done",
        "done:", *(f"    print {r}" for r in REGS), "    ret x0", "}", ""])


#: the tiers (``decode.FunctionDecoder.warm``): as configured, fused at once, and promoted
#: after a few instructions (in the middle of a run, from a segment's start)
TIERS = [None, (0, 0), (5, 0), (0, 1)]


def tiered(module, tier, **kw):
    """``Machine(module).run(**kw)`` with the promotion thresholds ``tier`` (None: as they are)."""
    from unittest import mock
    from pylogic.interp import decode
    if tier is None:
        return Machine(module).run(**kw)
    with mock.patch.object(decode, "PROMOTE_MIN", tier[0]), \
            mock.patch.object(decode, "PROMOTE_PER", tier[1]):
        return Machine(module).run(**kw)


def both(module, **kw):
    reference = Machine(module, reference=True).run(**kw)
    for tier in TIERS:
        fused = tiered(module, tier, **kw)
        assert fused.everything() == reference.everything(), tier
    return fused


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(program(), st.integers(MIN64, MAX64), st.sampled_from(EDGES), st.integers(1, 400))
@pytest.mark.slow
def test_random_programs_agree_at_any_fuel(text, x0, x1, fuel):
    module = parse_module(text, "t.pir")
    both(module, args=(x0, x1))
    both(module, args=(x0, x1), fuel=fuel)  # cut anywhere: exact to the instruction


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(program(), st.integers(MIN64, MAX64), st.integers(1, 400))
@pytest.mark.slow
def test_live_registers_only_on_entry(text, x0, fuel):
    """Functions with many registers load only the live ones at their entry and return points
    (``decode.LOAD_ALL``: here every function)."""
    from unittest import mock
    from pylogic.interp import decode
    module = parse_module(text, "t.pir")
    with mock.patch.object(decode, "LOAD_ALL", 0):
        both(module, args=(x0, 9))
        both(module, args=(x0, 9), fuel=fuel)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(program(), st.integers(MIN64, MAX64), st.integers(1, 50))
@pytest.mark.slow
def test_slices_change_nothing(text, x0, slice_):
    """``pause`` (the engine selection's slices) leaves the fused run's result as it was."""
    module = parse_module(text, "t.pir")
    whole = Machine(module, reference=True).run(args=(x0, 5))
    for tier in TIERS:
        paused = tiered(module, tier, args=(x0, 5), pause=lambda executed: slice_,
                        first_slice=slice_)
        assert paused.everything() == whole.everything(), tier


@settings(max_examples=300, deadline=None)
@given(program())
@pytest.mark.slow
def test_ranges_hold_at_run_time(text):
    """Every value a register takes is inside the range ``register_ranges`` gave it (checked
    by an observer of every computed value of the reference run)."""
    from pylogic.interp.observe import Observer
    module = parse_module(text, "t.pir")
    machine = Machine(module, reference=True)
    ranges = {f.name: register_ranges(f, machine.global_addrs) for f in module.functions}

    class Values(Observer):
        def value(self, sid, value):
            function, _pc, ins = self.sites[sid]
            dests = [d for d in ins.defs() if d not in ("p0", "true")]
            for k, d in enumerate(dests):
                v = value >> k & 1 if len(dests) > 1 else value
                r = ranges[function].get(d)
                assert r is None or r[0] <= v <= r[1], (function, d, v, r, str(ins))

        def load(self, sid, addr, size, value):
            self.value(sid, value)

    Machine(module, Values(), reference=True).run(args=(3, -7))


def test_wraps_left_out_only_where_proved():
    """A loop counter sign-extended from 32 bits needs no wrap on ``i + 1`` nor ``i * 4``; a
    product of unbounded parameters does."""
    module = parse_module("""
global a[4096]
func main(n, m) {
entry:
    i = mov 0
    br head
head:
    k = add i, 1
    w = shl k, 32
    i = sar w, 32
    o = mul i, 4
    q = mul n, m
    c = cmp.lt i, 1000
    cbr c, head, out
out:
    print o
    ret q
}
""", "t.pir")
    decoder = Machine(module).code["main"].decoder
    lines = decoder.source.splitlines()

    def wrapped(name: str) -> bool:
        return any(line.strip().startswith("if not ") and f"<= r{decoder.slots[name]} <=" in line
                   for line in lines)

    assert wrapped("q") and wrapped("w")  # unbounded; k << 32 may reach 2**63
    assert not wrapped("k") and not wrapped("o")
    both(module, args=(MAX64, 3))


TORTURE = pathlib.Path("/tmp/pathlogic-corpus/torture")


@pytest.mark.skipif(not TORTURE.is_dir(), reason="no torture corpus (benchmarks.corpus)")
@pytest.mark.parametrize("k", range(0, 1500, 75))
@pytest.mark.slow
def test_torture_programs_agree(k):
    from pylogic.errors import PathlogicError
    from pylogic.ir.load import load_program
    files = sorted(p for p in TORTURE.iterdir() if p.suffix == ".c")
    if k >= len(files):
        pytest.skip("fewer torture programs")
    try:
        module, _ = load_program(str(files[k]))
    except (PathlogicError, OSError) as exc:
        pytest.skip(f"not imported: {exc}")
    if os.environ.get("PATHLOGIC_FUSED_DUMP"):
        print(files[k])
    for fuel in (10 ** 6, 997):
        both(module, fuel=fuel)


CHAIN = """
global g[16]
func main(n, z) {
entry:
    i = mov 0
    br head
head:
    c = cmp.lt i, n
    cbr c, a, out
a:
    x = add i, 1
    q = div x, z
    br b
b:
    store.8 g, q
    y = load.8 g
    br c2
c2:
    (c) print q
    i = add i, 1
    br head
out:
    ret i
}
"""


@pytest.mark.parametrize("fuel", [*range(1, 40), 10 ** 6])
@pytest.mark.parametrize("z", [1, 0])
def test_chains_charged_at_once_stay_exact(fuel, z):
    """Segments joined by unconditional jumps (a -> b -> c2) are charged at their head: a run
    cut by fuel anywhere, or faulting inside a chain (z = 0: division by zero in a, its head),
    counts exactly what the reference counts."""
    module = parse_module(CHAIN, "t.pir")
    source = Machine(module).code["main"].decoder.source
    assert "budget -= 9" in source  # a (3) + b (3) + c2 (3) charged at once
    both(module, args=(4, z), fuel=fuel)


def test_only_functions_that_run_long_are_fused():
    """Tiers (``decode.FunctionDecoder.warm``): a function entered once for a few instructions
    stays segment by segment; one that loops past the threshold is promoted in the middle of
    its run (its counts and output stay the reference's)."""
    from unittest import mock
    from pylogic.interp import decode
    module = parse_module(CHAIN.replace("func main(n, z)", "func loop(n, z)") + """
func main(n) {
entry:
    r = call loop(n, 1)
    print r
    ret 0
}
""", "t.pir")
    with mock.patch.object(decode, "PROMOTE_MIN", 100), mock.patch.object(decode, "PROMOTE_PER", 0):
        machine = Machine(module)
        result = machine.run(args=(50,))
    assert machine.code["loop"].decoder.fused is not None
    assert machine.code["loop"].run is machine.code["loop"].decoder.fused
    assert machine.code["main"].decoder.fused is None
    assert result.everything() == Machine(module, reference=True).run(args=(50,)).everything()
