"""datalog/pre_statistics.dl and ``pathlogic analyze --pre`` (issue #14 item 4, PathFinder Table
6.1): every computation's class (optimizable local / must / may, prevented by a CMP region, loop
invariant, invariant not hoistable by motion) against an independent oracle on 300 generated
CFGs: the Python fixed point of tests/transforms/pre/oracle.py for AVAIL / ANTIC and so for the
CMP region, networkx for reuse threads (reachability through transparent blocks) and for natural
loops (dominators); on the Fig. 6.1 loop; and from the CLI."""
from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx
import pytest

from pylogic.flow.candidates import candidate_expressions
from pylogic.flow.value_names import expression_of, value_names
from pylogic.analysis.pre_stats import OUTPUTS, function_statistics
from pylogic.analysis.run import module_rows
from pylogic.ir.model import Call, Reg, Store
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module
from tests.support import ENGINES
from tests.transforms.pre import oracle
from tests.transforms.pre.test_pre_mr import FIG_6_1

SEEDS = range(300)


def _kills(ins, op, args) -> bool:
    regs = {a.name for a in args if isinstance(a, Reg)}
    return bool(set(ins.defs()) & regs) or (op.startswith("load") and isinstance(ins, (Store, Call))) \
        or (op in ("div", "rem") and isinstance(ins, Call))


def natural_loops(fn) -> dict:
    """{header: set of blocks}: back edges t -> h with h dominating t (networkx dominators)."""
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from((b.label, s) for b in fn.blocks for s in b.successors())
    entry = fn.blocks[0].label
    idom = dict(nx.immediate_dominators(g, entry))
    idom[entry] = entry            # (networkx >= 3.5 leaves the start node out)

    def dominates(h, t):
        while True:
            if t == h:
                return True
            if idom[t] == t:
                return False
            t = idom[t]
    loops: dict = {}
    for t, h in g.edges:
        if t in idom and dominates(h, t):
            body = loops.setdefault(h, {h})
            stack = [t]
            while stack:
                x = stack.pop()
                if x not in body and x in idom:
                    body.add(x)
                    stack.extend(g.predecessors(x))
    return loops


def oracle_statistics(fn) -> dict:
    """The four output relations of pre_statistics.dl, computed independently."""
    exprs = candidate_expressions(fn)
    antloc, comp, kills = oracle.local_properties(fn, exprs)
    av_in, _ = oracle.availability(fn, exprs, comp, kills - comp)
    an_in, _ = oracle.anticipability(fn, exprs, antloc, kills - antloc)
    prevented = {(b, e) for (b, e), v in av_in.items() if v == "may" and an_in[(b, e)] == "may"}
    succ, pred, _ = oracle.graph(fn)
    names = value_names(fn)
    users: dict = {}
    for b in fn.blocks:
        seen, killed = set(), set()
        for ins in b.instrs:
            found = expression_of(ins, names) if ins.guard is None else None
            if found and found[0] in exprs:
                e = found[0]
                if e in seen:
                    users.setdefault(("local", b.label, e), []).append(ins)
                elif e not in killed:
                    users.setdefault(("user", b.label, e), []).append(ins)
                    if av_in[(b.label, e)] in ("must", "may"):
                        users.setdefault(("redundant", b.label, e, av_in[(b.label, e)]),
                                         []).append(ins)
                seen.add(e)
            for e, (op, args) in exprs.items():
                if _kills(ins, op, args):
                    seen.discard(e)
                    killed.add(e)
    loops = natural_loops(fn)
    out = {"redundant": set(), "cmp_prevented": set(), "loop_invariant": set(),
           "invariant_prevented": set()}
    for key, found in users.items():
        if key[0] == "local":
            out["redundant"] |= {(id(i), key[2], "local") for i in found}
        elif key[0] == "redundant":
            out["redundant"] |= {(id(i), key[2], key[3]) for i in found}
    for (kind, b, e, *_), found in users.items():
        if kind != "user":
            continue
        (ins,) = found
        # a reuse thread through e's CMP: from a Prevented block over transparent blocks to b
        transparent = nx.DiGraph()
        transparent.add_edges_from((x, y) for x in succ for y in succ[x]
                                   if (x, e) not in kills and (x, e) not in comp)
        reached = set()
        for c, e2 in prevented:
            if e2 == e:
                reached |= {c} | (nx.descendants(transparent, c) if c in transparent else set())
        # the thread leaves p: p is transparent (CMP blocks are)
        if any(p in reached and (p, e) not in kills and (p, e) not in comp for p in pred[b]):
            out["cmp_prevented"].add((id(ins), e))
        for h, body in loops.items():
            if b in body and not any((x, e) in kills for x in body):
                out["loop_invariant"].add((id(ins), e, h))
                inside = nx.DiGraph()
                inside.add_edges_from((x, y) for x in body for y in succ[x]
                                      if y in body and (x, e) not in comp)
                start = {c for c in body if (c, e) in prevented}
                reach = set(start)
                for c in start:
                    if c in inside:
                        reach |= nx.descendants(inside, c)
                if any(p in reach and p in body and (p, e) not in comp for p in pred[b]):
                    out["invariant_prevented"].add((id(ins), e))
    return out


def _instr_ids(fn) -> dict:
    """{python id of an instruction: its fact id} (``block#index``)."""
    return {id(ins): f"{b.label}#{k}" for b in fn.blocks for k, ins in enumerate(b.instrs)}


@pytest.fixture(scope="module")
def generated():
    return random_module(SEEDS)


@pytest.fixture(scope="module")
def clingo_rows(generated):
    return module_rows(generated, "gen.pir", relations=list(OUTPUTS), engine="clingo")


@pytest.mark.slow
def test_statistics_equal_the_oracle_on_300_cfgs(generated, clingo_rows):
    counts = dict.fromkeys(("may", "must", "local", "prevented", "invariant", "inv_prevented"), 0)
    for fn in generated.defined_functions():
        ids = _instr_ids(fn)
        want = oracle_statistics(fn)
        got = clingo_rows.function(fn.name)
        assert set(got["pre_stat_redundant"]) == {(ids[i], e, k) for i, e, k in
                                                  want["redundant"]}, fn.name
        assert set(got["pre_stat_cmp_prevented"]) == {(ids[i], e) for i, e in
                                                      want["cmp_prevented"]}, fn.name
        assert set(got["pre_stat_loop_invariant"]) == {(ids[i], e, h) for i, e, h in
                                                       want["loop_invariant"]}, fn.name
        assert set(got["pre_stat_invariant_prevented"]) == {
            (ids[i], e) for i, e in want["invariant_prevented"]}, fn.name
        for _, _, k in got["pre_stat_redundant"]:
            counts[k] += 1
        counts["prevented"] += len(got["pre_stat_cmp_prevented"])
        counts["invariant"] += len(got["pre_stat_loop_invariant"])
        counts["inv_prevented"] += len(got["pre_stat_invariant_prevented"])
        # a prevented computation is a strictly partial redundancy (its block's AVAIL_in = May)
        kinds = {i: k for i, _, k in got["pre_stat_redundant"]}
        assert all(kinds.get(i) == "may" for i, _ in got["pre_stat_cmp_prevented"])
    assert all(n >= 20 for n in counts.values()), counts     # every class is exercised


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_rows_equal_on_every_engine(engine, generated, clingo_rows):
    """The same rows on clingo and Soufflé (skipped, saying so, without the souffle binary)."""
    other = module_rows(generated, "gen.pir", relations=list(OUTPUTS), engine=engine)
    for rel in OUTPUTS:
        assert sorted(set(other[rel])) == sorted(set(clingo_rows[rel])), rel


def test_fig_6_1_both_expressions_are_invariant_and_not_hoistable_by_motion():
    """§6.0 / §12 item 16: a+b and c+d are loop invariant; code motion cannot hoist either (a+b
    would execute on [En,O,P,Ex]; c+d's reuse crosses its CMP region as well)."""
    module = parse_module(FIG_6_1)
    rows = module_rows(module, "t.pir", relations=list(OUTPUTS), engine="clingo")
    fn = module.functions[0]
    stats = function_statistics(fn, "t.pir::main", rows.function("main"))
    assert stats == {"function": "t.pir::main", "computations": 3, "loads": 0, "redundant": 3,
                     "strictly_partial": 3, "prevented": 3, "loop_invariant": 3,
                     "invariant_prevented": 3}


@pytest.mark.slow
def test_a_do_until_invariant_is_hoistable(tmp_path):
    """§12 item 17: in a do-until loop a+b is loop invariant and motion hoists it (no CMP); a
    second computation after the loop is fully redundant. From the CLI: ``analyze --pre``."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "d.pir").write_text(
        "func main(a, b, n) {\ne:\n br l\nl:\n x = add a, b\n print x\n n = sub n, 1\n"
        " cbr n, l, d\nd:\n y = add a, b\n ret y\n}\n")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pylogic.cli", "analyze", str(tmp_path / "in"),
                           "--out", str(out), "--pre", "--no-cache", "--engine", "clingo", "--html"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "invariant prevented" in done.stdout and "thesis (SPEC95 avg)" in done.stdout
    pre = json.loads((out / "summary.json").read_text())["pre"]
    # add(a,b) at l (may: its own value around the loop) and at d (must); sub(n,1) is killed
    # by its own write, so it reuses nothing
    assert pre["totals"] == {"computations": 3, "loads": 0, "redundant": 2, "strictly_partial": 1,
                             "prevented": 0, "loop_invariant": 1, "invariant_prevented": 0}
    assert pre["percent"]["invariant_prevented_of_loop_invariant"] == 0.0
    assert pre["thesis"]["prevented_of_redundant"] == 30.5
    page = (out / "html" / "index.html").read_text()
    assert "PRE statistics (PathFinder Table 6.1)" in page and "invariant prevented" in page
