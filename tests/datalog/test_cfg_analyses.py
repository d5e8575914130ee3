"""The CFG analyses of datalog/ against the networkx oracle (tests/datalog/cfg_oracle.py), on
hypothesis-generated CFGs (irreducible ones, unreachable blocks, self-loops, several exits and
blocks that never reach an exit) and on every function of examples/; the opt-in dom relation
(dominance_closure.dl) against the same oracle; and analyze on 1,000-block chains without dom."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from facts_gen.extract import empty_facts, extract_module
from pylogic.analysis import catalog
from pylogic.engines import run_program
from pylogic.ir.model import Module
from pylogic.ir.synthetic import function_from_cfg
from tests.datalog.cfg_oracle import cfg_oracle, loops_oracle
from tests.support import ENGINES

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"]
CLOSURE = catalog.datalog_dir() / "dominance_closure.dl"
CHECKED = ("idom", "df", "ipdom", "cdep", "reachable", "unreachable")
LOOPS = ("back_edge", "loop_header", "loop_block", "loop_depth", "irreducible")


@st.composite
def cfgs(draw):
    """(labels, successor lists) of a random CFG of 1-12 blocks."""
    n = draw(st.integers(1, 12))
    labels = [f"b{i}" for i in range(n)]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    succs = {b: [] for b in labels}
    for a, b in pairs:
        if labels[b] not in succs[labels[a]]:
            succs[labels[a]].append(labels[b])
    return labels, succs


def check_against_oracle(functions: list[tuple[list[str], dict]], engine: str) -> None:
    facts = empty_facts()
    fns = [function_from_cfg(f"@g{k}", labels, succs) for k, (labels, succs) in enumerate(functions)]
    extract_module(Module(functions=tuple(fns)), "gen.pir", facts)
    rows = run_program(PROGRAM, None, engine=engine, facts=facts)
    assert "dom" not in rows
    rows.update(run_program(CLOSURE, None, engine=engine, facts=facts))
    for k, (labels, succs) in enumerate(functions):
        f = f"gen.pir::@g{k}"
        edges = [(a, b) for a in labels for b in succs[a]]
        exits = [b for b in labels if not succs[b]]
        expected = cfg_oracle(labels, edges, exits) | loops_oracle(labels, edges)
        for rel in CHECKED + LOOPS + ("dom",):
            got = {tuple(r[1:]) for r in rows[rel] if r[0] == f}
            assert got == expected[rel], (rel, labels, succs)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(cfgs(), min_size=62, max_size=62))
def test_random_cfgs_match_networkx(engine, batch):
    """5 examples x 62 CFGs per engine, in batches: an engine call's fixed cost (DuckDB's
    planning of the dominator walk's recursive query above all) is paid 10 times, where 10 x 30
    paid it 20 (duckdb 6.1-6.6 -> 3.6-4.3 s CPU). Hypothesis's first example is its minimal one
    (every CFG one block, no edge), so 5 x 62 has about 240 other CFGs, as 10 x 30 had (its first
    two examples: 30 and 29 such CFGs; fast42)."""
    check_against_oracle(batch, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_optimize_scale_functions_match_networkx(engine):
    """The functions benchmarks/optimize_scale.py measures (random_program with forward branches
    at most 8 blocks ahead: diamonds, critical edges, counted loops back to any earlier block,
    so irreducible regions), small: their dominator trees take 1 to 6 iterations of
    lib/dominator_tree.dl, whose later ones lift retreating predecessors up the previous table."""
    from pylogic.ir.synthetic_values import random_module
    functions = []
    for seed in range(1, 9):
        fn = random_module([seed], blocks=120, span=8).functions[0]
        succs = {b.label: [] for b in fn.blocks}
        for a, b in fn.edges():
            if b not in succs[a]:
                succs[a].append(b)
        functions.append(([b.label for b in fn.blocks], succs))
    check_against_oracle(functions, engine)


def test_irreducible_and_edge_cases():
    cases = [
        (["a"], {"a": []}),                                  # single block
        (["a"], {"a": ["a"]}),                               # self-loop, no exit
        (["a", "b", "c"], {"a": ["b", "c"], "b": ["c"], "c": ["b"]}),  # classic irreducible
        (["a", "b", "c", "d"], {"a": ["b", "c"], "b": ["c", "d"], "c": ["b", "d"], "d": []}),
        (["a", "b", "c"], {"a": ["a", "b"], "b": [], "c": ["b"]}),      # unreachable c
        (["a", "b", "c", "d"], {"a": ["b"], "b": ["c", "d"], "c": ["b", "d"], "d": ["a"]}),  # loop to entry
        (["e", "h", "x", "y", "r1", "r2"], {"e": ["h"], "h": ["x", "y"], "x": ["h", "r1"],
                                             "y": ["h", "r2"], "r1": [], "r2": []}),  # loop, two exits
    ]
    check_against_oracle(cases, "clingo")



@pytest.mark.parametrize("engine", ENGINES)
def test_a_switch_merge_of_many_predecessors(engine):
    """A switch lowered to a chain of cbr: its exit has k predecessors (the fold's predecessor
    chain), every case block two successors (a pair node of the reverse graph), also with a loop
    back over the chain (retreating pairs, a second iteration): dominator_tree.dl's pair rules
    and the chain against networkx."""
    k = 40
    labels = ["entry"] + [f"c{i}" for i in range(k)] + ["last", "out"]
    succs = {"entry": ["c0"], "last": ["out"], "out": []}
    for i in range(k):
        succs[f"c{i}"] = ["out", f"c{i + 1}" if i + 1 < k else "last"]
    looped = {**succs, "out": ["c7", "end"], "end": []}
    check_against_oracle([(labels, succs), (labels + ["end"], looped)], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_frontier_reaches_the_entry(engine):
    """df's walk tests n's idom, a rule of its own where n is the entry (it has none): edges back
    into the entry put it in the frontier of every block on the walk up to it, itself included
    (df(a, a), df(b, a), df(c, a), df(d, a) below; dominance_frontier.dl, mem50b)."""
    labels = ["a", "b", "c", "d", "x"]
    succs = {"a": ["b"], "b": ["c", "d"], "c": ["a"], "d": ["a", "x"], "x": []}
    facts = empty_facts()
    extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)), "e.pir", facts)
    rows = run_program(PROGRAM, None, engine=engine, facts=facts)
    assert {tuple(r[1:]) for r in rows["df"]} == {("a", "a"), ("b", "a"), ("c", "a"), ("d", "a")}
    check_against_oracle([(labels, succs)], engine)

@pytest.mark.parametrize("engine", ENGINES)
def test_loop_depth_climbs_out_of_nested_loops(engine):
    """loops.dl walks loop_depth down the dominator tree, a block's innermost loop from its
    idom's, climbing outwards where that loop does not hold it (mem52): x, one predecessor in the
    loop of h3, leaves two loops at once; w, a merge node whose idom h2 heads a loop that does
    not hold it, one; k, a header whose idom m is in the loops of h3 and h2, neither holding k,
    finds its parent h1; out and the merge node r are in no loop; in @g1 the entry heads a loop
    and b, after it, is in none."""
    labels = ["e", "h1", "h2", "h3", "m", "x", "w", "k", "k2", "out", "p", "q", "r"]
    succs = {"e": ["h1"], "h1": ["h2", "out"], "h2": ["h3", "w"], "h3": ["m"],
             "m": ["h3", "h2", "x", "w", "k"], "x": ["h1"], "w": ["h1"], "k": ["k2"],
             "k2": ["k", "h1"], "out": ["p", "q"], "p": ["r"], "q": ["r"], "r": []}
    entry_loop = (["e", "a", "b"], {"e": ["a"], "a": ["e", "b"], "b": []})
    facts = empty_facts()
    extract_module(Module(functions=(function_from_cfg("@g0", labels, succs),
                                     function_from_cfg("@g1", *entry_loop))), "gen.pir", facts)
    depth = {(r[0].rsplit("@", 1)[1], r[1]): r[2]
             for r in run_program(PROGRAM, None, engine=engine, facts=facts)["loop_depth"]}
    assert depth == {("g0", "e"): 0, ("g0", "h1"): 1, ("g0", "h2"): 2, ("g0", "h3"): 3,
                     ("g0", "m"): 3, ("g0", "x"): 1, ("g0", "w"): 1, ("g0", "k"): 2,
                     ("g0", "k2"): 2, ("g0", "out"): 0, ("g0", "p"): 0, ("g0", "q"): 0,
                     ("g0", "r"): 0, ("g1", "e"): 1, ("g1", "a"): 1, ("g1", "b"): 0}
    check_against_oracle([(labels, succs), entry_loop], engine)


def _merge_reads(program) -> set[str]:
    return {b.rel for r in program.rules if r.head.rel == "_dt_merge"
            for b in r.body if hasattr(b, "rel")}


@pytest.mark.parametrize("engine", ENGINES)
def test_merge_nodes_read_reachable_where_it_is_computed(engine):
    """lib/dominator_tree.dl tests the CFG's reached blocks by reachable where reachability.dl
    came first (cfg_analyses.dl; analyze's function analyses, compose puts reachability first),
    by RPO numbers elsewhere (dominance.dl alone): the same idom, here with unreached blocks
    jumping into reached merge nodes."""
    assert "reachable" in _merge_reads(catalog.compose(catalog.in_scope("function")))
    assert "reachable" in _merge_reads(catalog.get("pre_statistics").program())
    assert "reachable" not in _merge_reads(catalog.get("dominance").program())
    labels = ["e", "a", "b", "m", "u1", "u2", "l"]
    succs = {"e": ["a", "b"], "a": ["m"], "b": ["m", "l"], "m": ["l"], "l": ["m"],
             "u1": ["m", "u2"], "u2": ["l", "a"]}
    facts = empty_facts()
    extract_module(Module(functions=(function_from_cfg("@f", labels, succs),)), "u.pir", facts)
    expected = cfg_oracle(labels, [(a, b) for a in labels for b in succs[a]], [])["idom"]
    for program in (PROGRAM, catalog.get("dominance").path):
        rows = run_program(program, None, engine=engine, facts=facts)
        assert {tuple(r[1:]) for r in rows["idom"]} == expected, program


def test_examples_match_networkx():
    from pylogic.ir.load import load_directory
    loaded = load_directory(ROOT / "examples")
    assert loaded.programs, "examples/ has no programs"
    facts = empty_facts()
    for p in loaded.programs:
        extract_module(p.module, p.relpath, facts)
    rows = run_program(PROGRAM, None, engine="clingo", facts=facts)
    rows.update(run_program(CLOSURE, None, engine="clingo", facts=facts))
    for p in loaded.programs:
        for fn in p.module.defined_functions():
            f = f"{p.relpath}::{fn.name}"
            labels = [b.label for b in fn.blocks]
            edges = fn.edges()
            exits = [r[1] for r in facts["exit"] if r[0] == f]
            expected = cfg_oracle(labels, edges, exits) | loops_oracle(labels, edges)
            for rel in CHECKED + LOOPS + ("dom",):
                assert {tuple(r[1:]) for r in rows[rel] if r[0] == f} == expected[rel], (f, rel)


def chain(n: int, loop: bool) -> tuple[list[str], dict]:
    """A chain of n blocks; with ``loop``, the last but one jumps back to b1 (one loop of n - 2 blocks)."""
    labels = [f"b{i}" for i in range(n)]
    succs = {b: [labels[i + 1]] if i + 1 < n else [] for i, b in enumerate(labels)}
    if loop:
        succs[labels[-2]].append(labels[1])
    return labels, succs


#: blocks of the chains: dom would hold about CHAIN**2 / 2 rows
CHAIN = 1000


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("loop", [False, True], ids=["chain", "loop"])
def test_analyze_does_not_materialise_dom(engine, loop):
    """What analyze runs on every function computes no dominance closure (no relation of the
    composed program is dom; its rows would be 0.5 M here) and its results equal networkx's."""
    from pylogic.analysis.run import analyze_modules
    assert "dom" not in catalog.compose(catalog.in_scope("function")).relations
    assert "dom" not in catalog.compose(catalog.in_scope("predicated")).relations
    labels, succs = chain(CHAIN, loop)
    fn = function_from_cfg("@f", labels, succs)
    run = analyze_modules([(Module(functions=(fn,)), "chain.pir")], engine=engine)
    rows = run.rows.of("chain.pir::@f")
    assert "dom" not in rows
    edges = [(a, b) for a in labels for b in succs[a]]
    expected = cfg_oracle(labels, edges, [labels[-1]]) | loops_oracle(labels, edges)
    for rel in CHECKED + LOOPS:
        assert {tuple(r) for r in rows[rel]} == expected[rel], rel
    assert len(rows["loop_block"]) == (CHAIN - 2 if loop else 0)


def test_dom_is_opt_in():
    """dom is computed when asked for (catalog scope "demand"), by dominance_closure.dl."""
    from pylogic.analysis.run import module_rows
    assert catalog.get("dominance_closure").scope == "demand"
    assert [a.name for a in catalog.producing(["dom"])] == ["dominance_closure"]
    labels, succs = chain(4, loop=True)
    rows = module_rows(Module(functions=(function_from_cfg("@f", labels, succs),)), "x.pir",
                       relations=["dom"], engine="clingo").function("@f")
    edges = [(a, b) for a in labels for b in succs[a]]
    assert set(rows["dom"]) == cfg_oracle(labels, edges, [labels[-1]])["dom"]
