"""What the value-flow facts (``facts_gen/value_flow.py``) and PRE(M)'s rewrite
(``transforms/pre/pre_m.py``) derive of one function before they start: its value names, known
bytes, candidate expressions, memory roots and offsets, the spans its loads read and its objects'
sizes. A PRE step extracts the facts of a module and then rewrites that same module's function
objects, so both ask for the same values; ``function_inputs`` computes them once per function
object and module inputs (issue #28 item 1: csmith-2's PRE steps derived them twice). The next
step's module keeps the functions the last one did not change: their inputs are kept when that
module's inputs are equal and its ``returns`` gives the answers these asked of the last one
(issue #28 item 1, stop 45: ``pre-m`` after ``pre-mr-split`` derived them again for every
function). The facts ``value_flow_facts`` makes of them are kept with them (``rows``).

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n ret y\\n}\\n").functions[0]
>>> got = function_inputs(fn)
>>> sorted(got.exprs), got is function_inputs(fn)
(['add(1,a)'], True)
"""
from __future__ import annotations

import copy
from functools import cached_property
from typing import Optional

from pylogic.flow.address_roots import memory_roots
from pylogic.flow.candidates import candidates_and_occurrences
from pylogic.flow.definitions import definitions
from pylogic.flow.known_bytes import KnownBytes
from pylogic.flow.spans import load_spans, memory_offsets, object_sizes, roots_of_spans
from pylogic.flow.value_names import store_generated
from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import Function


class _Answers:
    """A module's ``returns`` (``ReturnFits``), asked through: what it answered, by question
    ``(callee, size, signed)``, so inputs derived with it can be checked against another's."""

    __slots__ = ("returns", "answers")

    def __init__(self, returns, answers: Optional[dict] = None):
        self.returns, self.answers = returns, dict(answers or ())

    def __call__(self, callee: str, size: int, signed: bool) -> bool:
        key = (callee, size, signed)
        got = self.answers.get(key)
        if got is None:
            got = self.answers[key] = self.returns(callee, size, signed)
        return got

    def agree(self, returns) -> bool:
        """Whether ``returns`` answers every question asked so far as this one did."""
        return all(returns(*key) == got for key, got in self.answers.items())


class FunctionInputs:
    """One function's value-flow inputs under its module's ``defined`` functions, ``readonly``
    globals (``readonly_globals``), ``returns`` (``ReturnFits``), ``contents`` (its
    ``function_contents``) and ``global_sizes``; the memory ones computed on first use.
    ``asked``: ``returns`` as the derivations ask it (read ``returns`` through it);
    ``defs``: ``definitions(fn)``, one dict for every derivation (``fits_extension`` remembers
    its answers per dict); ``rows``: function id -> the value-flow facts of ``fn``
    (``facts_gen.value_flow``)."""

    def __init__(self, fn: Function, defined: frozenset, readonly: frozenset, returns,
                 contents: Optional[dict], global_sizes: Optional[dict]):
        self.fn, self.defined, self.readonly = fn, defined, readonly
        self.returns, self.contents, self.global_sizes = returns, contents, global_sizes
        self.asked = None if returns is None else _Answers(returns)
        self.rows: dict = {}
        self.known = KnownBytes(fn, None, defined, contents)    # its names: value_names(fn)
        self.names = self.known.names
        self.defs = definitions(fn)
        self._stored = IdentityCache()      # store -> its store_generated

    @cached_property
    def exprs(self) -> dict:
        """``candidate_expressions`` (on first use: PRE(M)'s load translation asks for the other
        inputs of a function it rewrote, which the next step's facts then reuse)."""
        return self._candidates[0]

    @cached_property
    def occurrences(self) -> dict:
        """``candidates.occurrences``: the candidate each instruction computes, per block."""
        return self._candidates[1]

    @cached_property
    def _candidates(self) -> tuple:
        return candidates_and_occurrences(self.fn, self.names, self.asked, self.known, self.defs,
                                          self.stored)

    def stored(self, ins) -> list[str]:
        """``store_generated(ins)`` under these names, definitions and ``asked``, remembered per
        instruction: the candidates, the facts and PRE(M)'s walks ask every store (issue #28
        item 1)."""
        return self._stored.get_or_compute(
            ins, lambda: store_generated(ins, self.names, self.defs, self.asked))

    def same_module(self, defined, readonly, returns, contents, global_sizes) -> bool:
        """Whether these inputs were computed under the same module inputs (the objects
        ``returns`` and ``contents`` themselves: each remembers answers of its own module)."""
        return (self.returns is returns and self.contents is contents
                and self.defined == defined and self.readonly == readonly
                and self.global_sizes == global_sizes)

    def rebased(self, defined, readonly, returns, contents, global_sizes
                ) -> Optional["FunctionInputs"]:
        """These inputs under other module inputs, when they are equal (``returns``: answers
        every question asked of this one's alike; ``contents``: equal dicts), else None. A
        copy: what is derived already is shared, what is derived later asks the new ones."""
        if (self.defined != defined or self.readonly != readonly
                or self.global_sizes != global_sizes or self.contents != contents
                or (returns is None) != (self.returns is None)
                or (returns is not None and not self.asked.agree(returns))):
            return None
        twin = copy.copy(self)          # its __dict__: the properties derived so far
        twin.defined, twin.readonly, twin.global_sizes = defined, readonly, global_sizes
        twin.returns, twin.contents = returns, contents
        twin.asked = None if returns is None else _Answers(returns, self.asked.answers)
        twin.rows = dict(self.rows)
        twin._stored = self._stored.copy()      # asked under answers the new returns agree with
        return twin

    @cached_property
    def roots(self) -> dict:
        return memory_roots(self.fn, self.defined, self.readonly)

    @cached_property
    def offsets(self) -> dict:
        return memory_offsets(self.fn)

    @cached_property
    def load_spans(self) -> dict:
        return load_spans(self.fn, self.names, self.exprs, self.roots, self.offsets, self.defs)

    @cached_property
    def load_roots(self) -> dict:
        return roots_of_spans(self.load_spans)

    @cached_property
    def object_sizes(self) -> dict:
        return object_sizes(self.fn, self.global_sizes or {})


def function_inputs(fn: Function, defined: frozenset = frozenset(),
                    readonly: frozenset = frozenset(), returns=None,
                    contents: Optional[dict] = None,
                    global_sizes: Optional[dict] = None) -> FunctionInputs:
    """``FunctionInputs`` of ``fn``, shared while ``fn`` and the module inputs are the same
    (read them, never change them), and kept (``rebased``) while they are equal."""
    hit = _INPUTS.get(fn)
    if hit is not None:
        if hit.same_module(defined, readonly, returns, contents, global_sizes):
            return hit
        twin = hit.rebased(defined, readonly, returns, contents, global_sizes)
        if twin is not None:
            return _INPUTS.put(fn, twin)
    return _INPUTS.put(fn, FunctionInputs(fn, defined, readonly, returns, contents,
                                          global_sizes))


#: function -> its FunctionInputs (the last module inputs asked with)
_INPUTS = IdentityCache(256)
