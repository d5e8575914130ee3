"""Stores as generators of the loaded value (PathFinder §3.4.1.1: across ``store L, t`` the name
``*L`` becomes ``t``; ch. 8: loads are expressions, stores generate them, stores and calls kill):
``vf_store_gen`` facts, store-to-load forwarding in ``pre-m``, every result checked by the
interpreter (same output and status) and by counting load evaluations."""
from __future__ import annotations

import random

import pytest

from facts_gen.extract import extract_module
from pylogic.flow.definitions import definitions
from pylogic.flow.value_names import store_generated, value_names
from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module

# pr36691 (gcc torture) in miniature: a byte global counted down in a loop; every load of it is
# made redundant by the store before it (LLVM's GVN forwards these; lexical PRE cannot).
LOOP = """global @g[8]
func main(a, n) {
entry:
    store.1 @g, 9
    br head
head:
    x = load.1 @g
    c = cmp.ge x, 4
    cbr c, body, done
body:
    y = load.1 @g
    z = sub y, 5
    s = shl z, 56
    w = sar s, 56
    store.1 @g, w
    br head
done:
    v = load.1 @g
    print v
    store.4 @g, a
    u = load.4 @g
    print u
    ret 0
}
"""


def gens(text: str) -> dict:
    fn = parse_module(text).functions[0]
    names, defs = value_names(fn), definitions(fn)
    return {f"{b.label}#{k}": store_generated(ins, names, defs)
            for b in fn.blocks for k, ins in enumerate(b.instrs) if ins.opcode == "store"}


def test_a_store_generates_the_load_whose_extension_gives_its_value_back():
    out = gens(LOOP)
    assert out["entry#0"] == ["load.1s(@g)", "load.1u(@g)"]        # 9 fits both
    assert out["body#4"] == ["load.1s(@g)"]                        # sar by 56: signed byte
    assert out["done#2"] == []                                     # a parameter: any value
    wide = gens("func f(a) {\ne:\n store a, a\n store.4 a, 4294967295\n store.2 a, -1\n ret 0\n}\n")
    assert wide == {"e#0": ["load.8s(a)", "load.8u(a)"], "e#1": ["load.4u(a)"],
                    "e#2": ["load.2s(a)"]}


def test_guarded_stores_generate_nothing_and_facts_name_the_generator():
    assert gens("func f(a, p) {\ne:\n (p) store.1 a, 1\n x = load.1 a\n ret x\n}\n") == {"e#0": []}
    facts = extract_module(parse_module(LOOP), "t.pir")
    assert sorted(r[1:] for r in facts["vf_store_gen"]) == [
        ("body#4", "load.1s(@g)"), ("entry#0", "load.1s(@g)")]


def test_pre_m_forwards_stores_to_loads_in_a_loop():
    module = parse_module(LOOP)
    new = optimize(module, ["pre-m"], "t.pir", engine="clingo").module
    assert verify_module(new) == []
    for args in ((7, 0), (-300, 0), (1 << 40, 0)):
        assert compare_modules(module, new, [(args, ())]).verdict == "identical"
    before = expression_evaluations(module, run_module(module, args=(7, 0)))
    after = expression_evaluations(new, run_module(new, args=(7, 0)))
    # g = 9, 4, -1: 3 loads in the loop test, 2 in the body, 1 after the loop, all forwarded;
    # the parameter's store.4 may not fit 4 bytes, so its load stays
    assert before["loads"] == 7 and after["loads"] == 1


def _random_program(rng: random.Random) -> str:
    """Stores of assorted values and sizes to two globals, loads of every size and
    extension, calls and a branch: forwarding must read back exactly what memory holds."""
    vals = ["a", "b", "9", "-1", "255", "4294967295", "-129", "m", "k", "s", "q", "c", "o",
            "x", "n"]
    lines = [" m = and a, 255", " k = sar b, 48", " s = shr a, 33", " q = load.2u @h",
             " c = cmp.lt a, b", " o = or m, k", " x = xor s, q", " n = and k, -262144"]
    body = []
    for _ in range(rng.randint(4, 9)):
        g = rng.choice(["@g", "@h", "@g"])
        r = rng.random()
        if r < 0.4:
            body.append(f" store.{rng.choice([1, 2, 4, 8])} {g}, {rng.choice(vals)}")
        elif r < 0.9:
            n = len(body)
            size = rng.choice(["1", "1u", "2", "2u", "4", "4u", "8"])
            body.append(f" ld{n} = load.{size} {g}\n print ld{n}")
        else:
            body.append(" call @clobber()")
    half = len(body) // 2
    return ("global @g[8]\nglobal @h[8]\nfunc @clobber() {\ne:\n store.2 @g, 77\n ret\n}\n"
            "func main(a, b) {\ne:\n" + "\n".join(lines + body[:half]) +
            "\n cbr c, l, r\nl:\n" + "\n".join(body[half:]) + "\n br j\nr:\n br j\nj:\n" +
            "\n".join(body[half:]).replace("ld", "jd") +
            "\n ret 0\n}\n")


@pytest.mark.slow
def test_forwarding_is_exact_on_random_store_load_programs():
    """Oracle: the interpreter, on 60 random programs with every pairing of store and load
    size/extension and values in and out of range, on several argument pairs."""
    rng = random.Random(1414)
    forwarded = 0
    for _ in range(60):
        module = parse_module(_random_program(rng))
        new = optimize(module, ["pre-m"], "t.pir", engine="clingo").module
        assert verify_module(new) == []
        for args in ((3, 5), (-70000, 1 << 62), (300, -2), (1 << 40, 65535)):
            check = compare_modules(module, new, [(args, ())])
            assert check.verdict == "identical", (check.first_difference,)
        before = expression_evaluations(module, run_module(module, args=(3, 5)))["loads"]
        after = expression_evaluations(new, run_module(new, args=(3, 5)))["loads"]
        assert after <= before
        forwarded += before - after
    assert forwarded >= 30          # the generator does exercise forwarding


def test_expressions_on_loaded_values_are_one_name_until_memory_changes():
    """Names through loads (the separable VNG with one level of indirection): and(x, 255) and
    and(z, 255) with x, z loads of the same address are one expression -- until a store or a
    call, which kills it (the second pair is recomputed)."""
    text = ("global @g[8]\nfunc main(a) {\ne:\n store @g, a\n br l\nl:\n x = load @g\n"
            " y = and x, 255\n print y\n z = load @g\n w = and z, 255\n print w\n"
            " store.1 @g, 7\n u = load @g\n v = and u, 255\n print v\n ret 0\n}\n")
    module = parse_module(text)
    new = optimize(module, ["pre-m"], "t.pir", engine="clingo").module
    for args in ((1234,), (-1,), (1 << 50,)):
        assert compare_modules(module, new, [(args, ())]).verdict == "identical"
    before = expression_evaluations(module, run_module(module, args=(1234,)))
    after = expression_evaluations(new, run_module(new, args=(1234,)))
    # loads: 3 -> 1 (x forwarded from the store.8 of a, z the same value, u after the byte
    # store stays); ands: 3 -> 2 (w reuses y; v's operand changed)
    assert (before["loads"], before["expressions"]) == (3, 3)
    assert (after["loads"], after["expressions"]) == (1, 2)


def _alias_program(rng: random.Random) -> str:
    """A private alloca (@l: never escapes), an escaping one (e: @poke writes through it), a
    global; loads and stores through each, calls in between."""
    addrs = ["l", "l8", "e", "e8", "@g"]
    body = []
    for n in range(rng.randint(6, 12)):
        r = rng.random()
        a = rng.choice(addrs)
        if r < 0.35:
            body.append(f" store {a}, {rng.choice(['a', 'b', '7', 'x0'])}")
        elif r < 0.8:
            body.append(f" x{n} = load {a}\n print x{n}")
        elif r < 0.87:
            body.append(" call @poke(e)")
        elif r < 0.94:
            body.append(rng.choice([" call @memcpy(l8, e, 8)", " call @memset(l, 1, 16)",
                                    " call @memcpy(@g, l, 8)"]))
        else:
            body.append(" call @clobber()")
    return ("global @g[8]\nextern func @memcpy(d, s, n)\nextern func @memset(d, c, n)\n"
            "func @clobber() {\ne:\n store @g, 99\n ret\n}\n"
            "func @poke(p) {\ne:\n q = add p, 8\n store q, 55\n store p, 44\n ret\n}\n"
            "func main(a, b) {\ne:\n l = alloca 16\n l8 = add l, 8\n e = alloca 16\n"
            " e8 = add e, 8\n x0 = mov 0\n" + "\n".join(body) + "\n ret 0\n}\n")


@pytest.mark.slow
def test_private_allocas_survive_calls_and_other_stores():
    """Alias facts (vf_load_root, vf_store_root): a call cannot change an alloca whose address
    never escapes, nor can a store through another address; an alloca passed to a call can be;
    memcpy/memset write their destination only and keep no pointer.
    Oracle: the interpreter on 80 random programs (treating e as private fails them)."""
    fixed = _alias_program(random.Random(0)).split("func main")[0] + (
        "func main(a, b) {\ne:\n l = alloca 16\n e = alloca 16\n store l, a\n store e, b\n"
        " x = load l\n y = load e\n call @poke(e)\n call @clobber()\n store @g, 3\n"
        " u = load l\n v = load e\n print x\n print y\n print u\n print v\n ret 0\n}\n")
    module = parse_module(fixed)
    new = optimize(module, ["pre-m"], "t.pir", engine="clingo").module
    assert compare_modules(module, new, [((5, 6), ())]).verdict == "identical"
    main = lambda m: [f for f in m.functions if f.name == "main"][0]
    loads = lambda m: [i for b in main(m).blocks for i in b.instrs if i.opcode == "load"]
    assert len(loads(module)) == 4 and len(loads(new)) == 1          # only v = load e stays
    rng = random.Random(77)
    spared = 0
    for _ in range(80):
        module = parse_module(_alias_program(rng))
        new = optimize(module, ["pre-m"], "t.pir", engine="clingo").module
        for args in ((3, 5), (-1, 1 << 40)):
            check = compare_modules(module, new, [(args, ())])
            assert check.verdict == "identical", (check.first_difference,)
        spared += len(loads(module)) - len(loads(new))
    assert spared >= 40
