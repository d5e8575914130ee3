"""Value-flow facts (PathFinder ch. 3-4, pathfinder.md §10.1): the lexical expressions and loads of
a function -- the separable Value Name Graph of §3.5, one name per lexical expression -- with
their operands, the instructions that compute them (generators = users, §4.1) and the
instructions that may change their value (kills), as relations. The analyses they come from are
``pylogic.flow``'s: value names (``flow.value_names``: ``op(a,b)`` with operands as text,
commutative operands sorted), candidate expressions (``flow.candidates``: computed twice, or once
on a cycle), memory roots, offsets and spans (``flow.address_roots``, ``flow.spans``) and known
bytes (``flow.known_bytes``).

Generators and users: every unguarded instruction computing the expression (§4.1: for arithmetic
"users alone suffice"; loads are users, Ex. 4.1). A guarded computation is neither (it may be
nullified) but its write is still a kill. Kills: an instruction writing an operand register
(guarded or not), in ``vf_kill``; for loads also every store and call (may-alias, no
disambiguation; Ex. 4.1 "stores that could not be disambiguated"): ``vf_clobber`` lists those
instructions once and ``vf_load`` the load expressions, instead of one ``vf_kill`` row per pair.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> m = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n ret y\\n}\\n")
>>> out = {name: [] for name in VALUE_FLOW_RELATIONS}
>>> value_flow_facts("t::f", m.functions[0], out)
>>> out["vf_expr"], out["vf_occurs"]
([('t::f', 'add(1,a)', 'add')], [('t::f', 'e#0', 'add(1,a)'), ('t::f', 'e#1', 'add(1,a)')])

References: pathfinder.md §3.5 (separable VNG), §4.1 (generators, users, kills), §6.3.1.4
(lexical PRE: ``a op b`` with a, b not redefined), §10.1 (relations Python extracts).
"""
from __future__ import annotations

from typing import Optional

from facts_gen.naming import instr_id
from pylogic.flow.address_roots import ANY, is_global_root, written_root
from pylogic.flow.block_access import block_access
from pylogic.flow.memory_writes import clobbers_memory, writes_nothing, written_size
from pylogic.flow.spans import written_span
from pylogic.flow.value_flow_inputs import function_inputs
from pylogic.flow.value_names import MEMORY, operand_text, reads_memory
from pylogic.ir.model import Alloca, Call, Function, Imm, Reg, Store

#: Relations this module writes (declared in datalog/schema.dl, "Value flow" section).
VALUE_FLOW_RELATIONS = ("vf_expr", "vf_classed", "vf_expr_operand", "vf_operand_expr",
                        "vf_occurs", "vf_kill", "vf_load", "vf_clobber", "vf_store_gen",
                        "vf_instr", "vf_load_root", "vf_store_root", "vf_global_root",
                        "vf_load_span", "vf_store_span", "vf_store_over")
#: The candidate expressions from which pre.dl computes a function's candidates' relations once
#: per class of alike expressions (``vf_classed``; its ``_pre_unit``): in a function of fewer
#: (csmith's median programs: at most 100) each expression is its own class, as marks, keys and
#: their check cost more than the classes save there (pre-mr-split's and pre-m's calls replayed
#: function by function: 0.58-1.05x the time with classes below 180 candidates, 1.2-4x above
#: 290; issue #28 item 1). A fact, not a count in pre.dl, so that a call with no such function
#: grounds none of the classes' rules (the engines drop rules over an empty input relation:
#: csmith 24, 29, 4, 43's PRE steps, grounding -9%; docs/measurements.md, pre52).
CLASSED_EXPRESSIONS = 200


def value_flow_facts(f: str, fn: Function, out: dict[str, list[tuple]],
                     defined: frozenset = frozenset(), readonly: frozenset = frozenset(),
                     returns=None, contents: Optional[dict] = None,
                     global_sizes: Optional[dict] = None) -> None:
    """Append the value-flow relations (``VALUE_FLOW_RELATIONS``) of one defined function to
    ``out`` (``defined``: the module's functions; ``readonly``: its ``readonly_globals``;
    ``returns``: its ``ReturnFits``; ``contents``: its ``function_contents`` for ``fn``;
    ``global_sizes``: {global: size})."""
    inputs = function_inputs(fn, defined, readonly, returns, contents, global_sizes)
    rows = inputs.rows.get(f)
    if rows is None:                # kept with the inputs: equal inputs, equal facts
        rows = inputs.rows[f] = _value_flow_rows(f, fn, inputs)
    for name, got in rows.items():
        out[name].extend(got)


def _value_flow_rows(f: str, fn: Function, inputs) -> dict[str, list[tuple]]:
    """The value-flow relations of ``fn`` (id ``f``) from its ``FunctionInputs``."""
    out: dict[str, list[tuple]] = {name: [] for name in VALUE_FLOW_RELATIONS}
    names, exprs = inputs.names, inputs.exprs
    if not exprs:
        return {}
    by_reg: dict[str, list[str]] = {}
    loads: list[str] = []
    wide: list = []                 # (instruction, bytes) of writes through ANY
    if len(exprs) >= CLASSED_EXPRESSIONS:
        out["vf_classed"].append((f,))
    for name, (op, args) in sorted(exprs.items()):
        out["vf_expr"].append((f, name, op))
        for pos, a in enumerate(a for a in args if a != MEMORY):
            kind = "reg" if isinstance(a, Reg) else "const" if isinstance(a, Imm) else "global"
            out["vf_expr_operand"].append((f, name, pos, kind, operand_text(a)))
            if kind == "reg":
                by_reg.setdefault(a.name, []).append(name)
        if reads_memory(op, args):
            loads.append(name)
            out["vf_load"].append((f, name))
    globs: set = set()              # the global roots of loads and stores
    if loads:
        spans = inputs.load_spans
        for name, rs in sorted(inputs.load_roots.items()):
            out["vf_load_root"].extend((f, name, r) for r in sorted(rs))
            globs |= {r for r in rs if is_global_root(r)}
        for name, by_root in sorted(spans.items()):
            out["vf_load_span"].extend((f, name, r, lo, hi) for r, s in sorted(by_root.items())
                                       if s is not None for lo, hi in sorted(s))
    built_on: set = set()           # (e, n): an occurrence of e reads a register named n
    occurrences = inputs.occurrences
    for b in fn.blocks:
        for idx, (ins, e, ds) in enumerate(zip(b.instrs, occurrences[b.label],
                                               block_access(b).defs)):     # ds: ins.defs()
            killed = {x for r in ds for x in by_reg.get(r, ())} \
                if ds and not by_reg.keys().isdisjoint(ds) else ()
            memory = loads and isinstance(ins, _MEMORY_ROWS)
            # a call kills divisions (pre.dl)
            if e is None and not killed and not memory and not isinstance(ins, Call):
                continue            # no row names it
            i = instr_id(b.label, idx)
            named = isinstance(ins, Call)
            if e is not None:
                out["vf_occurs"].append((f, i, e))
                built_on |= {(e, names[a.name][0]) for a in ins.uses()
                             if isinstance(a, Reg) and a.name in names
                             and names[a.name][0] in exprs}
                named = True
            if killed:
                out["vf_kill"].extend((f, i, x) for x in sorted(killed))
                named = True
            if memory and _memory_rows(f, i, ins, inputs, globs, wide, out):
                named = True
            if named:               # the instr row of an instruction the rows above name
                out["vf_instr"].append((f, i, b.label, idx, ins.opcode))
    out["vf_operand_expr"].extend((f, e, n) for e, n in sorted(built_on))
    if loads:
        out["vf_global_root"].extend((f, r) for r in sorted(globs))
        sizes = inputs.object_sizes
        out["vf_store_over"].extend((f, i, r) for i, n in wide for r in sorted(globs)
                                    if r in sizes and n > sizes[r])
    return {name: got for name, got in out.items() if got}


#: the instructions ``_memory_rows`` may give rows of: a clobber (``clobbers_memory``: a store or
#: a call) or a write of known bytes (``KnownBytes.generated``: an alloca, a store or a call)
_MEMORY_ROWS = (Alloca, Store, Call)


def _memory_rows(f: str, i: str, ins, inputs, globs: set, wide: list,
                 out: dict[str, list[tuple]]) -> bool:
    """The rows of instruction ``ins`` (id ``i``) of a function with load expressions: as a
    clobber (``vf_clobber``, its root, span and the global roots it writes, into ``globs``;
    a write through ANY of a known size into ``wide``) and as a generator (``vf_store_gen``).
    Whether it has any."""
    known, exprs = inputs.known, inputs.exprs
    defined, roots, offsets = inputs.defined, inputs.roots, inputs.offsets
    gen: list = []          # the load names a store makes its value (store_generated)
    if isinstance(ins, Store) and ins.guard is None:
        gen = inputs.stored(ins)
    size = len(out["vf_store_gen"])
    clobbers = clobbers_memory(ins) and not writes_nothing(ins, defined)
    if clobbers:
        out["vf_clobber"].append((f, i))
        written = written_root(ins, roots, defined)
        if written is not None:
            out["vf_store_root"].append((f, i, written))
            span = written_span(ins, roots, offsets, defined)
            if span is not None:
                out["vf_store_span"].append((f, i) + span)
            n = written_size(ins, defined)
            if written == ANY and n:
                wide.append((i, n))
            if is_global_root(written):
                globs.add(written)
            out["vf_store_gen"].extend((f, i, e) for e in gen if e in exprs)
    out["vf_store_gen"].extend((f, i, e) for e in sorted(known.generated(ins))
                               if e in exprs and e not in gen)
    return clobbers or len(out["vf_store_gen"]) > size
