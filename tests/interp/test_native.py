"""The native engine (``pylogic.interp.native``) against the reference interpreter: the same
output, return value, exit status, error, counts, kinds, edge/block profiles and peak memory on
every test program and on seeded random PIR with guards, predicate defines of every deposit
type, side exits, memory, calls, faults and fuel exhaustion."""
from __future__ import annotations

import importlib
import random
from pathlib import Path

import pytest

llvmlite = pytest.importorskip("llvmlite")

from pylogic.interp import run_module  # noqa: E402
from pylogic.interp.native import run_module_native  # noqa: E402
from pylogic.ir.load import load_module, load_text  # noqa: E402
from pylogic.ir.model import DEPOSIT_TYPES  # noqa: E402
from pylogic.ir.parser import parse_module  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def always_precise(monkeypatch):
    """Fuel exhaustion always takes the precise native variant here (the engine would replay
    small fuels in the interpreter, which is cheaper than compiling the variant)."""
    from pylogic.interp.native import engine
    monkeypatch.setattr(engine, "INTERP_RATE", 1e-3)


def observable(r) -> dict:
    return {"stdout": r.stdout_bytes, "return": r.return_value, "status": r.exit_status,
            "error": None if r.error is None else str(r.error), "counts": r.counts,
            "edges": r.edge_profile, "blocks": r.block_profile, "kinds": r.kinds,
            "peak": r.peak_memory}


def both(module, **kw):
    a = run_module(module, **kw)
    b = run_module_native(module, **kw)
    assert observable(b) == observable(a)
    assert list(b.edge_profile) == list(a.edge_profile)  # same order too
    return a, b


# ---------------------------------------------------------------- the test programs

PIR_FILES = sorted(p for d in ("tests", "examples") for p in (ROOT / d).rglob("*.pir"))


def _cases(module):
    funcs = [f for f in module.functions if not f.extern and f.blocks]
    names = {f.name for f in funcs}
    entries = [n for n in ("main", "@main") if n in names] or [f.name for f in funcs]
    for name in entries:
        for args in ((), (0, 1, 2), (5, -3, 7), (-8, 100, 0)):
            yield name, args, (3, 1, 4, 1, 5)


@pytest.mark.slow
@pytest.mark.parametrize("path", PIR_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pir_files(path):
    module = load_module(path, verify=False)
    for entry, args, inputs in _cases(module):
        both(module, entry=entry, args=args, inputs=inputs)


def _embedded_programs():
    """PIR programs held as module-level strings by the interpreter's tests."""
    found = []
    for path in sorted((ROOT / "tests" / "interp").glob("test_*.py")):
        if path.name == "test_native.py":
            continue
        mod = importlib.import_module(f"tests.interp.{path.stem}")
        for name, value in sorted(vars(mod).items()):
            if isinstance(value, str) and "func " in value and "{" in value:
                try:
                    found.append((f"{path.stem}.{name}", parse_module(value, f"{name}.pir")))
                except Exception:
                    continue
    return found


EMBEDDED = _embedded_programs()


@pytest.mark.slow
@pytest.mark.parametrize("name,module", EMBEDDED, ids=[n for n, _ in EMBEDDED])
def test_embedded_programs(name, module):
    for entry, args, inputs in _cases(module):
        both(module, entry=entry, args=args, inputs=inputs)


def test_examples_run_natively():
    module = load_module(ROOT / "examples" / "loop_call.pir")
    _, b = both(module)
    assert b.engine == "native"


# ---------------------------------------------------------------- targeted semantics

def test_arithmetic_edges():
    src = """
func main(a) {
entry:
    m = shl 1, 63
    q = div m, -1
    print q
    r = rem m, -1
    print r
    s = shl 1, 65
    print s
    t = sar m, 127
    print t
    u = shr m, 63
    print u
    w = add m, m
    print w
    x = mul 4611686018427387904, 4
    print x
    c = cmp.ltu -1, 1
    print c
    d = div -7, 2
    print d
    e = rem -7, 2
    print e
    ret u
}
"""
    _, b = both(load_text(src))
    assert b.engine == "native"


def test_every_deposit_type():
    lines = []
    for k, t in enumerate(DEPOSIT_TYPES):
        for g in (0, 1):
            for old in (0, 1):
                lines += [f"    q = mov {old}", f"    gg = mov {g}",
                          "    x:ut = pcmp.ne gg, 0",
                          f"    q2 = mov {old}", f"    {'p' + str(k)}:uf = pcmp.eq 0, 0",
                          f"    (x) d{k}:ut, e{k}:uf = pcmp.lt a, 3",
                          f"    (x) q:{t}, q2:{t} = pcmp.lt a, 3", "    print q", "    print q2"]
                lines.insert(-2, f"    r{k}:ut = pcmp.eq gg, 0")
                lines.insert(-2, f"    (r{k}) q2:{t} = pcmp.gt a, 3")
    src = "func main(a) {\nentry:\n" + "\n".join(lines) + "\n    ret 0\n}\n"
    module = load_text(src, verify=False)
    for a in (0, 3, 5):
        _, b = both(module, args=(a,))
        assert b.engine == "native"


@pytest.mark.parametrize("src,fault", [
    ("func main() {\nentry:\n    x = div 1, 0\n    ret x\n}\n", "division by zero"),
    ("global g[8]\nfunc main() {\nentry:\n    a = add g, 8\n    x = load a\n    ret x\n}\n",
     "out of bounds"),
    ("func main() {\nentry:\n    x = input\n    x = input\n    ret x\n}\n", "input exhausted"),
    ("func f() {\nentry:\n    a = alloca 8\n    ret a\n}\n"
     "func main() {\nentry:\n    p = call f()\n    x = load p\n    ret x\n}\n", "dead memory"),
    ("func main() {\nentry:\n    x = call nosuch(1)\n    ret x\n}\n", "unknown external"),
    ("func main() {\nentry:\n    br entry\n}\n", "fuel exhausted"),
    ("func f(n) {\nentry:\n    x = call f(n)\n    ret x\n}\n"
     "func main() {\nentry:\n    x = call f(1)\n    ret x\n}\n", "call depth"),
    ("func main() {\nentry:\n    x = call exit(3)\n    ret 0\n}\n", None),
])
def test_abnormal_ends_are_the_interpreters(src, fault):
    module = load_text(src, verify=False)
    a, b = both(module, inputs=(1,), fuel=100_000, max_depth=200)
    if fault == "fuel exhausted":  # stopped exactly by the precise variant
        assert b.engine == "native (exact fuel)"
    else:
        assert b.engine.startswith("interp (replay")
    if fault:
        assert fault in str(a.error)


def test_deep_recursion_and_memory_builtins():
    src = """
global buf[64]
func f(n) {
entry:
    z = cmp.eq n, 0
    cbr z, base, rec
base:
    ret 0
rec:
    m = sub n, 1
    a = alloca 16
    store a, n
    r = call f(m)
    v = load a
    r = add r, v
    ret r
}
func main(n) {
entry:
    x = call f(n)
    print x
    s = call memset(buf, 7, 64)
    t = add buf, 8
    u = call memcpy(t, buf, 16)
    w = load.2u t
    print w
    h = call malloc(24)
    k = call strlen(h)
    print k
    call free(h)
    ret x
}
"""
    module = load_text(src, verify=False)
    _, b = both(module, args=(3000,))
    assert b.engine == "native"


def test_fuel_exhaustion_is_exact_natively():
    module = load_module(ROOT / "examples" / "loop_call.pir")
    for fuel in (1, 2, 17, 100, 500, 1061):
        a, b = both(module, fuel=fuel)
        assert "fuel exhausted" in str(a.error)
        assert b.engine == "native (exact fuel)"


def test_small_fuel_replays_when_cheaper(monkeypatch):
    from pylogic.interp.native import engine
    monkeypatch.setattr(engine, "INTERP_RATE", 4e6)
    module = load_text("func main() {\nentry:\n    br entry\n}\n")
    a, b = both(module, fuel=1000)
    assert b.engine.startswith("interp (replay: fuel")


def test_fuel_exactly_enough():
    src = ("func main() {\nentry:\n    x = mov 1\n    (p0) br next\n    ret 0\n"
           "next:\n    ret x\n}\n")
    module = load_text(src)
    for fuel in (2, 3, 4):
        both(module, fuel=fuel)


# ---------------------------------------------------------------- seeded random PIR

_RELS = ("eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu")
_OPS = ("add", "sub", "mul", "and", "or", "xor", "shl", "shr", "sar", "div", "rem")
_REGS = [f"r{i}" for i in range(6)]
_PREDS = ["p1", "p2", "p3", "p4"]


def _operand(rng):
    if rng.random() < 0.3:
        return str(rng.choice([0, 1, -1, 2, 7, 63, 64, -(1 << 63), (1 << 63) - 1,
                               rng.randrange(-1000, 1000)]))
    return rng.choice(_REGS)


def _instr(rng, allow_fault: bool) -> list:
    guard = f"({rng.choice(_PREDS)}) " if rng.random() < 0.4 else ""
    k = rng.random()
    d = rng.choice(_REGS)
    if k < 0.35:
        op = rng.choice(_OPS)
        b = _operand(rng)
        if op in ("div", "rem") and not allow_fault:
            return [f"    t = or {b}, 1", f"    {guard}{d} = {op} {_operand(rng)}, t"]
        return [f"    {guard}{d} = {op} {_operand(rng)}, {b}"]
    if k < 0.45:
        return [f"    {guard}{d} = cmp.{rng.choice(_RELS)} {_operand(rng)}, {_operand(rng)}"]
    if k < 0.5:
        return [f"    {guard}{d} = select {_operand(rng)}, {_operand(rng)}, {_operand(rng)}"]
    if k < 0.55:
        return [f"    {guard}{d} = {rng.choice(('neg', 'not'))} {_operand(rng)}"]
    if k < 0.7:
        t1, t2 = rng.sample(DEPOSIT_TYPES, 2)
        p1, p2 = rng.sample(_PREDS, 2)
        two = f", {p2}:{t2}" if rng.random() < 0.6 else ""
        return [f"    {guard}{p1}:{t1}{two} = pcmp.{rng.choice(_RELS)} {_operand(rng)}, "
                f"{_operand(rng)}"]
    if k < 0.8:
        size = rng.choice(("", ".1", ".2", ".4", ".1u", ".2u", ".4u"))
        mask = 15 if allow_fault and rng.random() < 0.1 else 7
        out = [f"    o = and {rng.choice(_REGS)}, {mask}", "    o = shl o, 3",
               "    a = add g, o"]
        if rng.random() < 0.5:
            out.append(f"    {guard}{d} = load{size} a")
        else:
            out.append(f"    {guard}store{size.rstrip('u')} a, {_operand(rng)}")
        return out
    if k < 0.87:
        return [f"    {guard}{d} = call f1({_operand(rng)}, {_operand(rng)})"]
    if k < 0.95:
        return [f"    {guard}print {_operand(rng)}"]
    if k < 0.97 and allow_fault:
        return [f"    {guard}{d} = input"]
    return [f"    {guard}{d} = mov {_operand(rng)}"]


def random_program(seed: int) -> str:
    rng = random.Random(seed)
    allow_fault = rng.random() < 0.3
    f1 = ["func f1(r0, r1) {", "entry:"]
    for _ in range(rng.randrange(1, 6)):
        f1 += [
            x for x in _instr(rng, allow_fault=False) if "call" not in x and "input" not in x]
    f1 += ["    p1:ut = pcmp.lt r0, r1", "    (p1) ret r0", f"    ret {rng.choice(_REGS)}", "}"]
    main = ["func main(r0, r1) {", "entry:", "    i = mov 0", "    n = and r0, 15",
            "    b = alloca 32", "    br loop", "loop: !hyperblock",
            "    c = cmp.ge i, n", "    (c) br done"]
    for _ in range(rng.randrange(3, 12)):
        main += _instr(rng, allow_fault)
        if rng.random() < 0.08:
            main.append(f"    ({rng.choice(_PREDS)}) br side")
        if rng.random() < 0.04:
            main.append(f"    ({rng.choice(_PREDS)}) ret {rng.choice(_REGS)}")
    main += ["    store b, i", "    i = add i, 1", "    x = load b",
             f"    cbr {rng.choice(_REGS)}, loop, mid", "mid:",
             *_instr(rng, allow_fault), "    br loop", "side:",
             *_instr(rng, allow_fault), "    br loop", "done:"]
    main += [f"    print {r}" for r in _REGS] + [f"    ret {rng.choice(_REGS)}", "}"]
    return "global g[64]\n" + "\n".join(f1) + "\n" + "\n".join(main) + "\n"


@pytest.mark.parametrize("seed", range(150))
@pytest.mark.slow
def test_random_pir(seed):
    module = load_text(random_program(seed), f"random{seed}.pir", verify=False)
    rng = random.Random(seed)
    for _ in range(3):
        args = (rng.randrange(-20, 40), rng.randrange(-5, 5))
        both(module, args=args, inputs=(1, 2, 3), fuel=rng.choice((500, 5000, 100_000)))


# ---------------------------------------------------------------- engine selection

def test_interpreter_slices_change_nothing():
    """``run_module(pause=...)`` cuts the run into slices of fuel; the result is the same (also
    when the fuel runs out inside a slice), and a pause returning 0 abandons the run."""
    module = load_module(ROOT / "examples" / "loop_call.pir")
    seen = []

    def pause(executed):
        seen.append(executed)
        return 7
    for fuel in (10**6, 500, 501, 37):
        ref = run_module(module, fuel=fuel)
        seen.clear()
        sliced = run_module(module, fuel=fuel, pause=pause, first_slice=13)
        assert observable(sliced) == observable(ref)
        assert seen == sorted(seen) and all(n <= fuel for n in seen)
    assert len(seen) > 2
    assert run_module(module, fuel=10**6, pause=lambda n: 0, first_slice=13) is None
    assert observable(run_module(module, fuel=37)) == observable(ref)  # the machine is reusable


def test_auto_cost_model(monkeypatch):
    """auto interprets while compiling is predicted to cost more than it saves, and otherwise
    switches to the precise native variant; every engine gives the interpreter's result."""
    from pylogic.interp.native import engine, select
    monkeypatch.setattr(select, "AUTO_SLICE", 1000)
    monkeypatch.setattr(select, "_measured", [])
    for fuel in (10**6, 4321):  # completes; runs out of fuel
        module = load_module(ROOT / "examples" / "loop_call.pir")
        ref = select.run_with("interp", module, fuel=fuel)
        monkeypatch.setattr(select, "COMPILE_SECONDS_PER_INSTRUCTION", 1e3)  # never pays off
        assert select.run_with("auto", module, fuel=fuel).engine == "interp"
        monkeypatch.setattr(select, "COMPILE_SECONDS_PER_INSTRUCTION", 1e-12)  # always pays
        fast = select.run_with("auto", module, fuel=fuel)
        assert fast.engine == ("native (exact fuel)" if fast.error else
                               "native (precise variant)")  # the precise variant alone
        assert engine.MACHINES.get(module, False) is None
        assert select._measured and select._measured[-1][1] == select.module_size(module)
        assert observable(fast) == observable(ref)
        monkeypatch.setattr(select, "COMPILE_SECONDS_PER_INSTRUCTION", 1e3)
        monkeypatch.setattr(select, "_measured", [])
        again = select.run_with("auto", module, fuel=fuel)  # compiled already: native at once
        assert again.engine.startswith("native") and observable(again) == observable(ref)
        assert engine.MACHINES.get(module, False) is None  # still the precise variant alone
        for name in select.ENGINES:
            assert observable(select.run_with(name, module, fuel=fuel)) == observable(ref)
    small = load_module(ROOT / "examples" / "loop_call.pir")
    assert select.run_with("auto", small, fuel=1000).engine == "interp"  # one slice: no choice


@pytest.mark.slow
@pytest.mark.parametrize("path", PIR_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_precise_variant_alone(path):
    """The precise variant, compiled alone (what auto runs), gives the interpreter's result on
    runs that end normally too."""
    module = load_module(path, verify=False)
    for name, args, inputs in list(_cases(module))[:2]:
        a = run_module(module, entry=name, args=args, inputs=inputs, fuel=100_000)
        b = run_module_native(module, entry=name, args=args, inputs=inputs, fuel=100_000,
                              variants=(True,))
        assert observable(b) == observable(a)


def test_run_command_engines(tmp_path, capsys):
    from pylogic.cli import main
    outs = []
    for engine in ("interp", "native", "auto"):
        status = main(["run", str(ROOT / "examples" / "loop_call.pir"), "--engine", engine])
        outs.append((status, capsys.readouterr()))
    assert outs[0] == outs[1] == outs[2]


def test_native_stack_objects_seen_by_builtins():
    src = """
global fmt = "%s|%d\\n"
global hello = "hello"
func g(p) {
entry:
    n = call strlen(p)
    ret n
}
func f(k) {
entry:
    b = alloca 16
    c = call strcpy(b, hello)
    b1 = add b, 1
    store.1 b1, 69
    n = call g(b)
    r = call printf(fmt, b, n)
    z = cmp.eq k, 1
    cbr z, bad, ok
bad:
    call free(b)
    ret 0
ok:
    ret n
}
func main(k) {
entry:
    x = call f(0)
    s = call llvm.stacksave()
    a = alloca 8
    store a, x
    call llvm.stackrestore(s)
    y = call f(k)
    print y
    ret x
}
"""
    module = load_text(src, verify=False)
    _, b = both(module, args=(0,))
    assert b.engine == "native"
    _, b = both(module, args=(1,))  # free of a stack object: the interpreter's fault
    assert b.engine.startswith("interp (replay")


def test_load_8u_with_the_top_bit_set_is_a_64_bit_value():
    """IR.md: every value is 64-bit two's complement, so ``load.8u`` of 0xFF00..00 reads the same
    value as ``load.8`` (the interpreter returned 2**64 - 2**56, which no PIR value is, and
    simplify's fold of the load to that constant then printed another number)."""
    src = """
global g[8] = {0, 0, 0, 0, 0, 0, 0, 255}
func main() {
entry:
    a = load.8u g
    b = load.8 g
    c = cmp.eq a, b
    print a
    print c
    ret 0
}
"""
    a, _ = both(load_text(src))
    assert a.prints == [-(1 << 56), 1]
