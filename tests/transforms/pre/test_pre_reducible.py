"""The reducibility fix of PRE(MR) (PathFinder §6.5, Fig. 6.19; §12 item 16) and PRE(R) as the
code-growth reference (§6.3.1.3-4): on the Fig. 6.1 loop [Inference: CFG rebuilt from the code]
the split alone duplicates exactly the CMP region and leaves a loop with two entries (Fig.
6.2(c)); with the fix the result is reducible (checked with networkx: without the back edges of
its dominator tree the CFG is acyclic), a+b and c+d are computed once, and the growth orders
PRE(M) = 0 <= PRE(MR) <= PRE(R). On generated CFGs every pre-mr / pre-r output is reducible
when its input was, and the interpreter finds every version identical. The growth bound
(``restructure.MAX_GROWTH``): a function whose copies would pass it keeps fewer regions split
(Fig. 6.1 under a tighter bound; varargs.c's ``@mixed``, 46x without it), still reducible and
identical in the interpreter."""
from __future__ import annotations

import os

import networkx as nx
import pytest

from benchmarks.optimize import PREPARE_FLAGS
from pylogic.ir.llvm.clang import prepare_c
from pylogic.ir.llvm.importer import import_llvm
from pylogic.transforms.pre import restructure
from tests.support import clang_path

from pylogic.flow.value_names import value_names
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module
from pylogic.ir.verify import verify_module
from tests.transforms.pre.test_pre_mr import FIG_6_1, INPUTS, evaluations


def reducible(fn) -> bool:
    """networkx oracle: removing every edge whose target dominates its source leaves no cycle."""
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from((b.label, s) for b in fn.blocks for s in b.successors())
    entry = fn.blocks[0].label
    idom = dict(nx.immediate_dominators(g, entry))
    idom[entry] = entry

    def dominates(h, t):
        while t != h:
            if idom.get(t, t) == t:
                return False
            t = idom[t]
        return True
    acyclic = g.copy()
    acyclic.remove_edges_from([(t, h) for t, h in g.edges if t in idom and dominates(h, t)])
    return nx.is_directed_acyclic_graph(acyclic)


def _origin(label: str) -> str:
    return label.split(".", 1)[0]


def test_fig_6_1_split_is_the_cmp_region_and_the_fix_makes_it_reducible():
    module = parse_module(FIG_6_1)
    assert reducible(module.functions[0])
    rows = module_rows(module, "t.pir", relations=["pre_prevented"], engine="clingo")
    cmp = {b for b, _ in rows.function("main")["pre_prevented"]}
    split = optimize(module, ["pre-mr-split"], "t.pir", engine="clingo",
                     options={"pre-mr-split": {"reducible": False}}).module
    copied = {_origin(b.label) for b in split.functions[0].blocks if ".mr" in b.label}
    assert copied == cmp                                  # exactly the CMP region is duplicated
    assert not reducible(split.functions[0])              # Fig. 6.2(c): a loop with two entries
    case = [((1, 2, 3, 4), INPUTS)]
    growth = {}
    for name, pipeline in (("m", ["pre-m"]), ("mr", ["pre-mr"]),
                           ("r", ["pre-r"])):
        run = optimize(module, pipeline, "t.pir", engine="clingo")
        new = run.module
        assert verify_module(new) == []
        assert reducible(new.functions[0]), name
        assert compare_modules(module, new, case).verdict == "identical", name
        totals = run.passes[0].record.totals()
        growth[name] = totals.get("size_after", 18) - totals.get("size_before", 18)
        if name != "m":
            assert totals["irreducible_fixed"] >= 1 and totals["irreducible_left"] == 0
            # a+b and c+d: 6 evaluations on this input, each expression computed once after
            assert evaluations(module, (1, 2, 3, 4), INPUTS) == 6
            assert evaluations(new, (1, 2, 3, 4), INPUTS) == 2
    assert growth["m"] == 0 < growth["mr"] <= growth["r"]


def _within_the_bound(module, new, record, bound, cases):
    """Every function of ``new`` at most ``bound`` x its size in ``module``, reducible when it
    was, the same as ``module`` in the interpreter on ``cases``; the record's totals."""
    before = {fn.name: fn for fn in module.defined_functions()}
    for fn in new.defined_functions():
        size = sum(len(b.instrs) for b in before[fn.name].blocks)
        assert sum(len(b.instrs) for b in fn.blocks) <= bound * size, fn.name
        if reducible(before[fn.name]):
            assert reducible(fn), fn.name
    assert verify_module(new) == []
    check = compare_modules(module, new, cases)
    assert check.verdict == "identical", check.first_difference
    return record.totals()


def test_a_tighter_growth_bound_splits_fewer_regions(monkeypatch):
    module = parse_module(FIG_6_1)               # 18 -> 63 instructions (3.5x) unbounded
    monkeypatch.setattr(restructure, "MAX_GROWTH", 2)
    run = optimize(module, ["pre-mr-split"], "t.pir", engine="clingo")
    totals = _within_the_bound(module, run.module, run.passes[0].record, 2,
                               [((1, 2, 3, 4), INPUTS)])
    assert totals["over_growth"] >= 1 and totals["size_after"] <= 36


@pytest.mark.slow
def test_varargs_mixed_stays_within_the_growth_bound():
    """varargs.c's ``@mixed``: a loop over a switch whose every case reads ``%ap`` (va_arg's
    in-register / in-memory branches): four expressions' CMP regions cover the loop, the split
    gives it 16 copies entered mid-body, and node splitting copies them again round after
    round (292 -> 13,629 instructions unbounded). The bound keeps two of the four."""
    if clang_path() is None:
        pytest.skip("clang-14 is not installed")
    path = os.path.join(os.path.dirname(__file__), "..", "..", "ir", "llvm", "c", "varargs.c")
    module, _ = import_llvm(prepare_c(path, PREPARE_FLAGS), path)
    run = optimize(module, ["pre-mr-split", "pre-m"], "varargs.c", engine="clingo")
    split = run.passes[0]
    totals = _within_the_bound(module, split.module, split.record, restructure.MAX_GROWTH,
                               [((), ())])
    assert totals["over_growth"] >= 1 and totals["irreducible_left"] == 0
    assert compare_modules(module, run.module, [((), ())]).verdict == "identical"


@pytest.mark.slow
def test_generated_outputs_are_reducible_when_their_inputs_were():
    module = random_module(range(2000, 2150))
    args = (1, 2, 3, 4, 5)
    inputs_reducible = {fn.name for fn in module.defined_functions() if reducible(fn)}
    assert len(inputs_reducible) >= 100
    growth = {}
    for pass_name in ("pre-mr", "pre-r"):
        run = optimize(module, [pass_name, "pre-m"], "g.pir", engine="clingo")
        totals = run.passes[0].record.totals()
        assert totals["irreducible_fixed"] >= 1 and totals["irreducible_left"] == 0
        growth[pass_name] = totals["size_after"] - totals["size_before"]
        for fn in run.passes[0].module.defined_functions():
            if fn.name in inputs_reducible:
                assert reducible(fn), (pass_name, fn.name)
        for fn in module.defined_functions():
            check = compare_modules(module, run.module, [(args, ())], entry=fn.name)
            assert check.verdict == "identical", (pass_name, fn.name, check.first_difference)
    assert 0 < growth["pre-mr"] <= growth["pre-r"]


def test_identical_copies_of_a_definition_keep_their_value_name():
    """Restructuring copies blocks, so a register gets several identical definitions; its value
    name must survive (csmith-30's func_29: otherwise two loads through copies of one address
    got different names and pre-mr evaluated 1,508 more loads than pre-m)."""
    text = ("func f(a, c) {\ne:\n cbr c, l, r\nl:\n t = add a, 8\n x = load.4 t\n br j\n"
            "r:\n t = add a, 8\n y = load.4 t\n br j\nj:\n ret 0\n}\n")
    assert value_names(parse_module(text).functions[0])["t"][0] == "add(8,a)"
    differs = text.replace("r:\n t = add a, 8", "r:\n t = add a, 9")
    assert "t" not in value_names(parse_module(differs).functions[0])


def _networkx_multi_entry_loop(fn):
    """reducible.multi_entry_loop as it was written on networkx (before issue #28 item 1)."""
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from((b.label, s) for b in fn.blocks for s in b.successors())
    entry = fn.blocks[0].label
    pending = [set(g.nodes)]
    while pending:
        nodes = pending.pop()
        for scc in nx.strongly_connected_components(g.subgraph(nodes)):
            if len(scc) == 1 and not any(g.has_edge(n, n) for n in scc):
                continue
            entries = {n for n in scc if n == entry or any(p not in scc for p in g.predecessors(n))}
            if len(entries) > 1:
                return scc, entries
            pending.append(scc - entries)
    return None


def test_multi_entry_loop_finds_networkxs_loop_in_its_order():
    """The networkx-free search (``reducible._Graph``) returns the loop networkx's components
    gave, its sets in the same iteration order (the copies' names follow it), and the peel's
    acyclicity agrees with ``nx.is_directed_acyclic_graph``: 600 random CFGs, every block
    reachable, labels of varied hashes, 40 blocks at most (most of them irreducible)."""
    import random

    from pylogic.ir.model import Block, Br, CondBr, Function, Reg, Ret
    from pylogic.transforms.pre.reducible import _Graph, _peel, multi_entry_loop
    rng = random.Random(28)
    irreducible = 0
    for _ in range(600):
        n = rng.randint(2, 40)
        labels = ["b0"] + [f"{rng.choice('xyzpq')}{i}_{rng.randint(0, 999)}" for i in range(1, n)]
        blocks = []
        for i, label in enumerate(labels):
            nxt = labels[i + 1] if i + 1 < n else None
            if nxt is None and rng.random() < 0.5:
                term = Ret(value=None)
            elif nxt is not None and rng.random() < 0.3:
                term = Br(target=nxt)
            else:
                a, b = nxt or rng.choice(labels[1:]), rng.choice(labels[1:])
                term = CondBr(cond=Reg("c"), if_true=a, if_false=b) if rng.random() < 0.5 \
                    else CondBr(cond=Reg("c"), if_true=b, if_false=a)
            blocks.append(Block(label=label, instrs=(term,)))
        fn = Function(name="f", params=("c",), blocks=tuple(blocks))
        want, got = _networkx_multi_entry_loop(fn), multi_entry_loop(fn)
        assert (want is None) == (got is None)
        if want is None:
            continue
        irreducible += 1
        assert [list(s) for s in got] == [list(s) for s in want]
        g, loop, entries = _Graph(fn), *got
        for header in sorted(loop):
            peel, acyclic = _peel(g, loop, entries, header)
            assert acyclic == nx.is_directed_acyclic_graph(nx.DiGraph(
                [(b.label, s) for b in fn.blocks for s in b.successors()]).subgraph(peel))
    assert irreducible > 300
