"""What the value-flow facts (``facts_gen/value_flow.py``) and PRE(M)'s rewrite
(``transforms/pre/pre_m.py``) derive of one function before they start: its value names, known
bytes, candidate expressions, memory roots and offsets, the spans its loads read and its objects'
sizes. A PRE step extracts the facts of a module and then rewrites that same module's function
objects, so both ask for the same values; ``function_inputs`` computes them once per function
object and module inputs (issue #28 item 1: csmith-2's PRE steps derived them twice).

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n ret y\\n}\\n").functions[0]
>>> got = function_inputs(fn)
>>> sorted(got.exprs), got is function_inputs(fn)
(['add(1,a)'], True)
"""
from __future__ import annotations

from functools import cached_property
from typing import Optional

from pylogic.flow.address_roots import memory_roots
from pylogic.flow.candidates import candidate_expressions
from pylogic.flow.known_bytes import KnownBytes
from pylogic.flow.spans import load_spans, memory_offsets, object_sizes, roots_of_spans
from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import Function


class FunctionInputs:
    """One function's value-flow inputs under its module's ``defined`` functions, ``readonly``
    globals (``readonly_globals``), ``returns`` (``ReturnFits``), ``contents`` (its
    ``function_contents``) and ``global_sizes``; the memory ones computed on first use."""

    def __init__(self, fn: Function, defined: frozenset, readonly: frozenset, returns,
                 contents: Optional[dict], global_sizes: Optional[dict]):
        self.fn, self.defined, self.readonly = fn, defined, readonly
        self.returns, self.contents, self.global_sizes = returns, contents, global_sizes
        self.known = KnownBytes(fn, None, defined, contents)    # its names: value_names(fn)
        self.names = self.known.names
        self.exprs = candidate_expressions(fn, self.names, returns, self.known)

    def same_module(self, defined, readonly, returns, contents, global_sizes) -> bool:
        """Whether these inputs were computed under the same module inputs (the objects
        ``returns`` and ``contents`` themselves: each remembers answers of its own module)."""
        return (self.returns is returns and self.contents is contents
                and self.defined == defined and self.readonly == readonly
                and self.global_sizes == global_sizes)

    @cached_property
    def roots(self) -> dict:
        return memory_roots(self.fn, self.defined, self.readonly)

    @cached_property
    def offsets(self) -> dict:
        return memory_offsets(self.fn)

    @cached_property
    def load_spans(self) -> dict:
        return load_spans(self.fn, self.names, self.exprs, self.roots, self.offsets)

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
    (read them, never change them)."""
    hit = _INPUTS.get(fn)
    if hit is not None and hit.same_module(defined, readonly, returns, contents, global_sizes):
        return hit
    return _INPUTS.put(fn, FunctionInputs(fn, defined, readonly, returns, contents,
                                          global_sizes))


#: function -> its FunctionInputs (the last module inputs asked with)
_INPUTS = IdentityCache(256)
