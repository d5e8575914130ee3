"""The Value Name Graph (facts_gen/vng.py, datalog/vng.dl): pathfinder.md §12 items 1-7, each
checked against an independent oracle -- the reference interpreter on instrumented copies of the
programs (every computation prints a tag and its value) and, for the baseline claims, a
hash-based GVN written here and the project's own lexical PRE analysis / SCCP pass."""
from __future__ import annotations

import random

import pytest

from facts_gen import vng
from pylogic.flow.definitions import definitions
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.machine import run_module
from pylogic.ir.model import BinOp, Load, Mov, Print, Reg, Store
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from tests.support import ENGINES

T = vng.text


def build(text: str, window: int = vng.WINDOW):
    fn = parse_module(text).functions[0]
    return fn, vng.build(fn, window)


def avail(text: str) -> dict:
    """{seed: "must" | "may"} of datalog/vng.dl on clingo (absent: No)."""
    module = parse_module(text)
    rows = module_rows(module, "t.pir", relations=["vng_avail"], engine="clingo")
    return {i: s for i, _, s in rows.function(module.functions[0].name)["vng_avail"]}


def trace(text: str, args=(), memory=()) -> list[tuple[str, int]]:
    """Oracle: ``[(seed id, value), ...]`` in execution order, from the interpreter running a
    copy of the function in which every computation is followed by ``print tag; print dest``;
    ``memory``: (global, offset, value) stores put in front of the entry block."""
    module = parse_module(text)
    fn = module.functions[0]
    tags, blocks = {}, []
    for b in fn.blocks:
        out = []
        for k, ins in enumerate(b.instrs):
            out.append(ins)
            if vng.seed_name(ins) is not None:
                tag = 1_000_000 + len(tags)
                tags[tag] = f"{b.label}#{k}"
                out += [Print(value=_imm(tag)), Print(value=Reg(ins.dest))]
        blocks.append(b.__class__(label=b.label, instrs=tuple(out)))
    head = [f" store {g}+{off}, {v}" for g, off, v in memory]
    src = print_module(module.__class__(functions=(fn.__class__(
        name=fn.name, params=fn.params, blocks=tuple(blocks)),), globals=module.globals))
    if head:       # a first block writing the memory contents, then the function's entry
        lines = src.split("\n")
        at = next(k for k, l in enumerate(lines) if l.startswith("func"))
        pre = ["__init:"] + [f"    t.{k} = add {g}, {off}\n    store t.{k}, {v}"
                             for k, (g, off, v) in enumerate(memory)] + \
            [f"    br {fn.blocks[0].label}"]
        lines[at + 1:at + 1] = pre
        src = "\n".join(lines)
    result = run_module(parse_module(src), entry=fn.name, args=args)
    assert result.error is None, result.error
    p, out, k = result.prints, [], 0
    while k < len(p):                     # the program's own prints are skipped
        if p[k] in tags and k + 1 < len(p):
            out.append((tags[p[k]], p[k + 1]))
            k += 2
        else:
            k += 1
    return out


def _imm(v):
    from pylogic.ir.model import Imm
    return Imm(v)


def reuse_holds(events, user: str, sources: set) -> bool:
    """Oracle for "fully redundant": every execution of ``user`` computes a value that one of
    ``sources`` computed earlier in the run (the programs' data are distinct random values, so a
    coincidence is unlikely; a refuted claim is a counterexample)."""
    seen, ok = set(), True
    for node, value in events:
        if node == user:
            ok &= value in seen
        if node in sources:
            seen.add(value)
    return ok and any(n == user for n, _ in events)


# ------------------------------------------------------------------ item 1: Fig. 3.3

# S1..S5 of Fig. 3.3 with the errata's S5: z := b + x; S3 (a := 2*b - x) needs a temporary in
# PIR (t = 2*b, one more computation, e#2).
FIG_3_3 = """func f(a) {
e:
    b = mul a, -2
    x = sub b, a
    t = mul b, 2
    a = sub t, x
    x = sub b, a
    z = add b, x
    ret z
}
"""
S = {"S1": "e#0", "S2": "e#1", "S3": "e#3", "S4": "e#4", "S5": "e#5"}


def test_fig_3_3_thread_of_s5_and_its_names():
    fn, g = build(FIG_3_3)
    # the names of S5's value at the entry of S5, S4, S3 (its t = 2b half), S2, S1
    names, node, e = [], "e#5", g["seeds"]["e#5"]
    names.append(T(e))
    for n in ("e#4", "e#3", "e#2", "e#1", "e#0"):
        e = g["transfers"].get((n, e), e)
        names.append(T(e))
    # pathfinder.md §3.4: b+x, 2b-a, x (at S3), b-a, -3a
    assert names == ["b+x", "-a+2*b", "2*b-t+x", "x", "-a+b", "-3*a"]


def test_fig_3_3_classes_after_svn_and_redundancy():
    fn, g = build(FIG_3_3)
    c = {s: g["classes"][n] for s, n in S.items()}
    assert c["S2"] == c["S5"] and c["S3"] == c["S4"]            # S5->C2, S4->C3
    assert len({c["S1"], c["S2"], c["S3"]}) == 3                 # S1->C1, S2->C2, S3->C3
    assert c["S2"] != c["S4"]                 # both lexically b-a: must not be merged
    assert avail(FIG_3_3) == {"e#4": "must", "e#5": "must"}      # S4, S5 fully redundant
    # S4 reuses S3 only through SVN: Step 1 alone (no synonym search) finds no generator
    old = vng.MAX_SYNONYM_CALLS
    try:
        vng.MAX_SYNONYM_CALLS = 0
        g0 = vng.build(fn)
        assert g0["classes"]["e#4"] != g0["classes"]["e#3"]
        assert g0["classes"]["e#5"] == g0["classes"]["e#1"]       # S5 <- S2 needs no SVN
    finally:
        vng.MAX_SYNONYM_CALLS = old
    # oracle: values per class on several arguments (equal within, different across)
    for a in (3, -7, 1 << 40):
        v = dict(trace(FIG_3_3, (a,)))
        assert v[S["S2"]] == v[S["S5"]] == -3 * a and v[S["S3"]] == v[S["S4"]] == -a
        assert v[S["S1"]] != v[S["S2"]] != v[S["S4"]]


# ------------------------------------------------------------------ item 2: Fig. 3.14

FIG_3_14 = """func f(n, c) {
entry:
    x0 = mov n
    br head
head:
    k = and c, 1
    cbr k, then, else
then:
    y = mov x0
    br join
else:
    y = mov x0
    br join
join:
    u = add x0, 1
    v = add y, 1
    print v
    x0 = sub x0, 3
    c = sar c, 1
    g = cmp.gt x0, 0
    cbr g, head, done
done:
    ret 0
}
"""


def _gvn_relates_x0_y2() -> bool:
    """A hash-based GVN [AWZ88] on the SSA form of Fig. 3.14: a copy takes its source's
    number, a phi is numbered by (block, argument numbers), so phis of different blocks never
    meet."""
    ssa = [("x0", ("phi", "S1", ("n0", "x3"))), ("y0", ("copy", "x0")), ("y1", ("copy", "x0")),
           ("y2", ("phi", "S7", ("y0", "y1")))]
    number, table = {"n0": 0, "x3": 1}, {}
    for dest, (kind, *rest) in ssa:
        if kind == "copy":
            number[dest] = number[rest[0]]
        else:
            key = (rest[0], tuple(number[a] for a in rest[1]))
            number[dest] = table.setdefault(key, len(number) + len(table) + 10)
    return number["x0"] == number["y2"]


def test_fig_3_14_svn_relates_what_gvn_does_not():
    fn, g = build(FIG_3_14)
    graph, defs = g["graph"], definitions(fn)
    x0, y = vng.atom(("reg", "x0")), vng.atom(("reg", "y"))
    assert vng.synonyms(graph, "join#0", x0, y, defs)            # x0 ≡ y2 at S8
    assert g["classes"]["join#0"] == g["classes"]["join#1"]       # x0+1 and y2+1: one class
    assert avail(FIG_3_14)["join#1"] == "must"
    assert not _gvn_relates_x0_y2()
    for c in (0b1011, 0b0110):
        events = trace(FIG_3_14, (10, c))
        assert reuse_holds(events, "join#1", {"join#0"})


# ------------------------------------------------------------------ item 3: back-substitution

def test_item_3_back_substitution_rules():
    m = parse_module("global @Lp[8]\nfunc f(p3, t, L) {\ne:\n p4 = add p3, 1\n"
                     " p3 = load @Lp\n store L, t\n t = load L\n ret 0\n}\n")
    fn = m.functions[0]
    i = {k: ins for k, ins in enumerate(fn.blocks[0].instrs)}
    defs = definitions(fn)
    p4 = vng.atom(("reg", "p4"))
    assert T(vng.substitute(i[0], p4)) == "p3+1"
    star = vng.substitute(i[1], vng.add(vng.atom(("reg", "p3")), vng.const(1)))
    assert T(star) == "*(@Lp)+1"                                  # p3+1 -> *L_p+1
    load_l = vng.atom(("load", 8, True, vng.atom(("reg", "L"))))
    assert T(vng.substitute(i[2], vng.add(load_l, vng.const(1)), defs)) == "t+1"   # store L, t
    assert T(vng.substitute(i[3], vng.add(vng.atom(("reg", "t")), vng.const(1)))) == "*(L)+1"
    # at start any name -> ω; after w+1 traversals a name still pending -> ω
    _, g = build("func f(a) {\ne:\n x = add a, 1\n ret x\n}\n")
    assert g["transfers"][(vng.START, vng.add(vng.atom(("reg", "a")), vng.const(1)))] is None
    loop = "func f(i, n) {\ne:\n br h\nh:\n x = mul i, 3\n i = add i, 1\n c = cmp.lt i, n\n" \
           " cbr c, h, d\nd:\n ret x\n}\n"
    _, g1 = build(loop, window=1)
    grounded = [(n, T(e)) for (n, e), e2 in g1["transfers"].items()
                if e2 is None and n != vng.START]
    assert grounded and all(n == "h#3" for n, _ in grounded)       # at the back edge's source


# ------------------------------------------------------------------ item 4: Fig. 3.13/3.16

def _pointer(store8: str) -> str:
    """[Inference: Fig. 3.13 rebuilt from the text] node 5 loads *(*L_p + 8); nodes 6-7 compute
    p4 = *L_p + 8 again; node 8 is ``store8``; node 9 loads *p4."""
    return ("global @Lp[8]\nglobal @A[64]\nfunc f(z) {\ne:\n q = load @Lp\n r = add q, 8\n"
            " v5 = load r\n p3 = load @Lp\n p4 = add p3, 8\n" + store8 +
            " v9 = load p4\n print v5\n print v9\n ret 0\n}\n")


def test_fig_3_13_access_classes_and_the_killing_store():
    clean, aliased = _pointer(""), _pointer(" store @Lp, z\n")
    _, g = build(clean)
    assert g["classes"]["e#2"] == g["classes"]["e#5"]              # nodes 5 and 9: one class
    assert avail(clean)["e#5"] == "must"
    _, g2 = build(aliased)
    assert ("e#5", "*(p4)") in {(n, T(e)) for n, e in g2["kills"]}   # node 8 kills *p4
    assert "e#6" not in avail(aliased) or avail(aliased)["e#6"] != "must"   # killed: No
    # oracle: with *L_p = @Lp - 8, p4 == @Lp and the store changes what node 9 reads
    mem = [("@Lp", 0, "@A")]
    assert reuse_holds(trace(clean, (5,), mem), "e#5", {"e#2"})
    bad = aliased.replace("func f(z) {\ne:\n", "func f(z) {\ne:\n w = sub @Lp, 8\n store @Lp, w\n")
    ev = trace(bad, (5,))
    assert not reuse_holds(ev, "e#8", {"e#4"})                     # the kill is real


# ------------------------------------------------------------------ item 5: FIRSTMIN

# [Inference: source reconstructed in pathfinder.md §3.1] min := 0; t := A[0];
# for i := 1..n-1 { if A[i] < A[min] then min := i }
FIRSTMIN = """global @A[80]
func f(n) {
entry:
    min = mov 0
    t = load @A
    i = mov 1
    br head
head:
    c = cmp.lt i, n
    cbr c, body, done
body:
    o = shl i, 3
    ai = add @A, o
    x = load ai
    om = shl min, 3
    am = add @A, om
    y = load am
    lt = cmp.lt x, y
    cbr lt, then, latch
then:
    min = mov i
    br latch
latch:
    i = add i, 1
    br head
done:
    ret min
}
"""


def test_firstmin_load_of_a_min_is_fully_redundant_on_the_vng_only():
    fn, g = build(FIRSTMIN)
    assert avail(FIRSTMIN)["body#5"] == "must"                     # y = A[min]
    assert g["classes"]["body#5"] == g["classes"]["body#2"] == g["classes"]["entry#1"]
    # the lexical analysis (datalog/pre.dl) does not prove it: min is redefined on p2
    module = parse_module(FIRSTMIN)
    rows = module_rows(module, "t.pir", relations=["pre_avail_in"], engine="clingo")
    lexical = {(b, e): s for b, e, s in rows.function("f")["pre_avail_in"]}
    assert not any(b == "body" and e.startswith("load") and s == "must"
                   for (b, e), s in lexical.items())
    rng = random.Random(5)
    for _ in range(4):
        mem = [("@A", 8 * k, v) for k, v in enumerate(rng.sample(range(-10**6, 10**6), 10))]
        events = trace(FIRSTMIN, (10,), mem)
        assert reuse_holds(events, "body#5", {"body#2", "body#5", "entry#1"})


# ------------------------------------------------------------------ item 6: recurrent accesses

# [Inference for the source, pathfinder.md ch. 1] for i = 3..N: A[i] = A[i-1] + A[i-2]
RECURRENT = """global @A[160]
func f(n) {
entry:
    i = mov 3
    br head
head:
    c = cmp.le i, n
    cbr c, body, done
body:
    o = shl i, 3
    p = add @A, o
    q1 = sub p, 8
    a1 = load q1
    q2 = sub p, 16
    a2 = load q2
    s = add a1, a2
    store p, s
    i = add i, 1
    br head
done:
    ret 0
}
"""


@pytest.mark.parametrize("window,expected", [(2, "may"), (1, "may"), (0, None)])
def test_recurrent_loads_are_reused_across_iterations_within_the_window(window, expected):
    """Both loads are redundant along the back edge (A[i-1] is the sum stored one iteration
    earlier: the store rule; A[i-2] the A[i-1] loaded one iteration earlier: the store to A[i]
    is disjoint from it) and not on loop entry, so AVAIL is May: partially redundant, PRE's
    preheader loads r1 = A[2], r2 = A[1] make them fully so (pathfinder.md ch. 1; the
    transformation on a general VNG is not done here). The window counts back edges a thread
    may cross (Fig. 3.12's w + 1 traversals): w = 0 sees no reuse across iterations."""
    got = _avail_with_window(RECURRENT, window)
    assert got.get("body#3") == expected and got.get("body#5") == expected
    mem = [("@A", 8, 1), ("@A", 16, 1)]
    events = trace(RECURRENT, (12,), mem)
    # oracle: A[i-1] is the value stored one iteration earlier (the sum), A[i-2] the A[i-1] read
    # one iteration earlier -- after the first iteration
    sums = [v for n, v in events if n == "body#6"]
    a1 = [v for n, v in events if n == "body#3"]
    a2 = [v for n, v in events if n == "body#5"]
    assert a1[1:] == sums[:-1] and a2[1:] == a1[:-1]


def _avail_with_window(text: str, window: int) -> dict:
    old = vng.WINDOW
    try:
        vng.WINDOW = window
        return avail(text)
    finally:
        vng.WINDOW = old


# ------------------------------------------------------------------ item 7: dilution, Fig. 3.18

DILUTION = """func f(k) {
entry:
    cbr k, left, right
left:
    b = mov 0
    c = mov 1
    br join
right:
    b = mov 1
    c = mov 0
    br join
join:
    s = add b, c
    x = add k, 15
    y = sub x, k
    print s
    print y
    ret 0
}
"""


def test_dilution_vng_constants_where_a_cp_lattice_finds_none():
    fn, g = build(DILUTION)
    defs, graph = definitions(fn), g["graph"]
    bc = vng.add(vng.atom(("reg", "b")), vng.atom(("reg", "c")))
    assert vng.synonyms(graph, "join#0", bc, vng.const(1), defs)   # b+c ≡ 1 on all paths
    assert not vng.synonyms(graph, "join#0", vng.atom(("reg", "b")), vng.const(1), defs)
    # Fig. 3.18: the class of [x - k] holds the constant [15]
    assert g["seeds"]["join#2"] == vng.const(15) or vng.synonyms(
        graph, "join#2", g["seeds"]["join#2"], vng.const(15), defs)
    # a standard CP lattice (our sccp) keeps the add: b and c are ⊥ at the join
    module = parse_module(DILUTION)
    folded = optimize(module, ["sccp"], "t.pir", engine="clingo").module
    join = [b for b in folded.functions[0].blocks if b.label == "join"][0]
    assert any(isinstance(i, BinOp) and i.op == "add" and isinstance(i.a, Reg)
               and {i.a.name, getattr(i.b, "name", None)} == {"b", "c"} for i in join.instrs)
    for k in (0, 1):
        assert run_module(module, entry="f", args=(k,)).prints == [1, 15]


# ------------------------------------------------------------------ ANTIC, thread merge (Ex. 4.2)

EX_4_2 = """func f(k, a, b, c) {
entry:
    cbr k, then, else
then:
    c = mov b
    br join
else:
    br join
join:
    x = add a, b
    y = add a, c
    print x
    print y
    ret 0
}
"""


def antic(text: str) -> dict:
    module = parse_module(text)
    rows = module_rows(module, "t.pir", relations=["vng_antic_in"], engine="clingo")
    return {(i, e): s for i, e, s in rows.function(module.functions[0].name)["vng_antic_in"]}


@pytest.mark.parametrize("drop", [None, "    x = add a, b\n", "    y = add a, c\n"])
def test_ex_4_2_thread_merge_keeps_anticipability_when_either_use_is_removed(drop):
    """pathfinder.md §12 item 9 (ANTIC on the general VNG, needed by item 3): on the then path
    c = b, so a+c is a+b; at S2 the merged name is Must-anticipated, and stays so when S6 or S7
    is deleted. Oracle: on every run through S2 a later computation has the value a+b."""
    text = EX_4_2 if drop is None else EX_4_2.replace(drop, "")
    got = antic(text)
    assert got[("then#0", "a+b")] == "must"
    assert ("then#0", "a+c") not in got                         # c is overwritten there: No
    if drop is None:
        assert got[("entry#0", "a+c")] == "may"                   # used on the else path only
    for a, b, c in ((3, 40, 500), (-7, 11, 0)):
        events = trace(text, (1, a, b, c))
        assert a + b in [v for _, v in events]


@pytest.mark.slow
@pytest.mark.parametrize("engine", [e for e in ENGINES if e.values[0] != "clingo"])
def test_vng_rows_identical_on_every_engine(engine):
    engines = [engine]
    rels = ["vng_avail", "vng_redundant", "vng_antic_in", "vng_reused"]
    for text in (FIG_3_3, FIG_3_14, FIRSTMIN, RECURRENT, DILUTION, EX_4_2, _pointer("")):
        module = parse_module(text)
        want = module_rows(module, "t.pir", relations=rels, engine="clingo")
        for eng in engines:
            got = module_rows(module, "t.pir", relations=rels, engine=eng)
            name = module.functions[0].name
            for r in rels:
                assert sorted(got.function(name)[r]) == sorted(want.function(name)[r]), (eng, r)


def test_name_space_counts_grow_per_traversal_table_3_1():
    """Table 3.1's columns (facts_gen.vng.name_space): |S1| of the seeds, then after each
    traversal; a loop renaming i+1 per iteration adds names with every back edge crossed."""
    fn = parse_module(RECURRENT).functions[0]
    got = vng.name_space(fn, window=3)
    assert len(got["sizes"]) == 5 and got["sizes"] == sorted(got["sizes"])
    assert got["sizes"][0] == len(set(vng.build(fn)["seeds"].values()))
    assert got["sizes"][4] > got["sizes"][3] > got["sizes"][2]      # names keep coming
    straight = vng.name_space(parse_module(FIG_3_3).functions[0], window=3)
    assert straight["sizes"][1:] == [straight["sizes"][1]] * 4       # no loop: one traversal
    assert straight["N"] == 7 and straight["V"] == 5


@pytest.mark.slow
def test_a_long_chain_of_operators_gives_names_not_a_recursion_error(monkeypatch):
    """Back-substitution nests operator names along a def-use chain; past MAX_NAME_DEPTH a name
    is ω, so extraction stays within a bounded stack however long the chain (a generated sccp
    program hit Python's recursion limit here)."""
    import sys
    import facts_gen.vng as vng_module
    from facts_gen.extract import extract_module
    from pylogic.ir.parser import parse_module
    body = "\n".join(f"    x{i + 1} = mul x{i}, b" for i in range(80))
    text = f"func main(x0, b) {{\nentry:\n{body}\n    print x80\n    ret 0\n}}\n"
    module = parse_module(text, "chain.pir")
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(400)
        facts = extract_module(module, "chain.pir", families=("vng",))
        assert facts["vng_node"], "names were built"
        monkeypatch.setattr(vng_module, "MAX_NAME_DEPTH", 10 ** 6)
        with pytest.raises(RecursionError):      # the cap is what keeps it in bounds
            extract_module(module, "chain.pir", families=("vng",))
    finally:
        sys.setrecursionlimit(limit)
