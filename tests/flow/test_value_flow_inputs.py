"""What issue #28 item 1 (stop 38) computes once and shares, against the same values computed
afresh: ``flow.value_flow_inputs`` (a function's names, known bytes, candidates, roots, spans,
object sizes: one object for the facts and PRE(M)'s rewrite), ``expression_of`` remembered per
names dict, ``Block.successors`` kept per block, and PRE(M)'s kills asked only among the
available expressions (``_KillIndex.within``) against one ``spares`` query per load. Programs:
``test_pre_spans``' generated loads, stores, memsets and memcpys of allocas and globals."""
from __future__ import annotations

import dataclasses

import pytest

from pylogic.flow.address_roots import memory_roots
from pylogic.flow.candidates import candidate_expressions
from pylogic.flow.fits_extension import ReturnFits, return_fits
from pylogic.flow.known_bytes import KnownBytes, function_contents
from pylogic.flow.memory_writes import clobbers_memory
from pylogic.flow.readonly_globals import readonly_globals
from pylogic.flow.spans import load_spans, memory_offsets, object_sizes, roots_of_spans, spares
from facts_gen.value_flow import VALUE_FLOW_RELATIONS, _value_flow_rows, value_flow_facts
from pylogic.flow.value_flow_inputs import FunctionInputs, function_inputs
from pylogic.flow.value_names import _expression_of, _value_names, expression_of, reads_memory
from facts_gen.naming import instr_id
from pylogic.ir.model import Reg, Store, branch_targets
from pylogic.ir.parser import parse_module
from pylogic.transforms.pre.pre_m import _KillIndex
from tests.transforms.pre.test_pre_call_results import program
from tests.transforms.pre.test_pre_spans import HEADER, span_program


@pytest.fixture(scope="module")
def module():
    return parse_module(HEADER + "".join(span_program(s, f"f{s}") for s in range(25)))


def module_inputs(module):
    return (frozenset(fn.name for fn in module.defined_functions()), readonly_globals(module),
            return_fits(module), function_contents(module),
            {g.name: g.size for g in module.globals})


def test_shared_inputs_equal_the_values_computed_afresh(module):
    defined, readonly, returns, contents, sizes = module_inputs(module)
    fresh_returns = ReturnFits(module)
    for fn in module.defined_functions():
        got = function_inputs(fn, defined, readonly, returns, contents(fn.name), sizes)
        names = _value_names(fn)                            # not the shared dict
        known = KnownBytes(fn, names, defined, contents(fn.name))
        exprs = candidate_expressions(fn, names, fresh_returns, known)
        roots, offsets = memory_roots(fn, defined, readonly), memory_offsets(fn)
        spans = load_spans(fn, names, exprs, roots, offsets)
        assert got.names == names and got.exprs == exprs
        assert (got.roots, got.offsets, got.load_spans) == (roots, offsets, spans)
        assert got.load_roots == roots_of_spans(spans)
        assert got.object_sizes == object_sizes(fn, sizes)
        assert function_inputs(fn, defined, readonly, returns, contents(fn.name), sizes) is got


def test_other_module_inputs_are_not_answered_from_the_cache(module):
    defined, readonly, returns, contents, sizes = module_inputs(module)
    fn = module.defined_functions()[-1]
    first = function_inputs(fn, defined, readonly, returns, contents(fn.name), sizes)
    other = function_inputs(fn, defined, readonly, ReturnFits(module), contents(fn.name), sizes)
    assert other is not first
    assert function_inputs(fn, defined, frozenset(), other.returns, contents(fn.name),
                           sizes) is not other
    assert return_fits(module) is returns and function_contents(module) is contents


def test_inputs_are_kept_for_another_module_only_while_its_answers_hold():
    """The next PRE step's module keeps the functions the last one left alone: their inputs and
    value-flow facts are kept when its module inputs are equal and its ``ReturnFits`` answers
    the questions asked alike (stop 45), else derived again: main stores @narrow's result and
    loads it back, forwarded only while every ``ret`` of @narrow fits 2 bytes."""
    fits = parse_module(program("@narrow"))
    main = fits.function_map()["main"]

    def with_main(text):              # the same main object, another @narrow
        other = parse_module(text)
        return dataclasses.replace(other, functions=tuple(
            main if fn.name == "main" else fn for fn in other.functions))
    equal = with_main(program("@narrow"))
    wide = with_main(program("@narrow").replace("ret 65535", "ret 70000"))
    got = {}
    for label, m in (("fits", fits), ("equal", equal), ("wide", wide)):
        defined, readonly, returns, contents, sizes = module_inputs(m)
        inputs = function_inputs(main, defined, readonly, returns, contents("main"), sizes)
        out = {name: [] for name in VALUE_FLOW_RELATIONS}
        value_flow_facts("t::main", main, out, defined, readonly, returns, contents("main"), sizes)
        fresh = _value_flow_rows("t::main", main, FunctionInputs(
            main, defined, readonly, returns, contents("main"), sizes))
        assert {k: v for k, v in out.items() if v} == fresh, label
        got[label] = inputs, fresh
    assert got["equal"][0] is not got["fits"][0] and got["equal"][0].exprs is got["fits"][0].exprs
    assert got["wide"][0].exprs is not got["fits"][0].exprs
    assert got["equal"][1] == got["fits"][1] != got["wide"][1]
    store = {instr_id(b.label, k) for b in main.blocks for k, ins in enumerate(b.instrs)
             if isinstance(ins, Store)}
    stored = lambda rows: {r[2] for r in rows.get("vf_store_gen", ()) if r[1] in store}
    assert stored(got["fits"][1]) == {"load.2u(rv)"} and not stored(got["wide"][1])


def test_remembered_expressions_equal_the_computed_ones(module):
    for fn in module.defined_functions():
        names = _value_names(fn)
        twin = dict(names)                                  # equal, another object
        for b in fn.blocks:
            for ins in b.instrs:
                want = _expression_of(ins, names)
                assert expression_of(ins, names) == want == expression_of(ins, names)
                assert expression_of(ins, twin) == want
                assert expression_of(ins) == _expression_of(ins, None)


def test_successors_are_kept_per_block_and_follow_a_replaced_block(module):
    for fn in module.defined_functions():
        for b in fn.blocks:
            want = tuple(dict.fromkeys(t for ins in b.instrs for t in branch_targets(ins)))
            assert b.successors() == want and b.successors() is b.successors()
            cut = dataclasses.replace(b, instrs=b.instrs[:-1])
            assert cut.successors() == tuple(dict.fromkeys(
                t for ins in cut.instrs for t in branch_targets(ins)))


def test_kills_among_the_available_equal_one_query_per_load(module):
    defined, readonly, returns, contents, sizes = module_inputs(module)
    for fn in module.defined_functions():
        got = function_inputs(fn, defined, readonly, returns, contents(fn.name), sizes)
        exprs = got.exprs
        if not exprs:
            continue

        def spare(ins):
            return lambda e: spares(ins, got.load_roots.get(e), got.roots, defined,
                                    got.load_spans.get(e), got.offsets, got.object_sizes)
        kills = _KillIndex(exprs, spare)
        every = sorted(exprs)
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                among = set(every[k % 3::2])                # a varying part of the candidates
                want = {e for e in among
                        if any(isinstance(a, Reg) and a.name in ins.defs() for a in exprs[e][1])
                        or (clobbers_memory(ins) and reads_memory(*exprs[e])
                            and not spare(ins)(e))}
                assert kills.within(ins, among) == want
                assert kills.among(exprs).within(ins, among) == want


def test_cyclic_blocks_equal_networkx_components(module):
    import networkx as nx
    from pylogic.flow.candidates import cyclic_blocks
    from pylogic.ir.synthetic_values import random_module
    functions = list(module.defined_functions()) + \
        list(random_module(range(40), blocks=12).defined_functions())
    for fn in functions:
        g = nx.DiGraph()
        g.add_nodes_from(b.label for b in fn.blocks)
        g.add_edges_from(fn.edges())
        want = {v for c in nx.strongly_connected_components(g) if len(c) > 1 for v in c}
        want |= {a for a, b in g.edges() if a == b}
        assert cyclic_blocks(fn) == want
