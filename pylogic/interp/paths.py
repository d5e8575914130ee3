"""Exact path profiles: the block path of every call, as the interpreter ran it.

Edge profiles lose which branch followed which (PathFinder ch. 5: the estimators bound that
error); this is the whole-program path the estimators are checked against (Table 5.1's "whole
program path", here simply recorded). A run with paths decodes the module apart (``Machine(...,
paths=True)``: each taken edge appends its counter index, each call and return a marker) and
costs nothing to ordinary runs.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from pylogic.interp.defaults import DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT
from pylogic.interp.result import RunResult
from pylogic.ir.model import Module


def run_with_paths(module: Module, entry: str = "main", args: Iterable[int] = (),
                   inputs: Iterable[int] = (), fuel: int = DEFAULT_FUEL,
                   memory_limit: int = DEFAULT_MEMORY_LIMIT,
                   max_depth: int = DEFAULT_MAX_DEPTH) -> tuple[RunResult, dict]:
    """``(result, {function: [block path of each call, in call order]})``; a path starts at the
    function's entry block and lists every block entered, side-exit targets included; the calls
    still open when the run stopped end where it stopped."""
    from pylogic.interp.machine import Machine
    machine = Machine(module, paths=True)
    result = machine.run(entry, args, inputs, fuel, memory_limit, True, max_depth)
    return result, block_paths(machine)


def block_paths(machine) -> dict:
    """The trace of ``machine``'s last run as ``{function: [path, ...]}`` (see above)."""
    out = defaultdict(list)
    stack: list = []        # (function name, its edges, path so far)
    entries = {f.name: f.blocks[0].label for f in machine.module.functions if f.blocks}
    for event in machine.path_trace:
        if event is None:
            name, _, path = stack.pop()
            out[name].append(tuple(path))
        elif isinstance(event, str):
            stack.append((event, machine.code[event].edges, [entries[event]]))
        else:
            stack[-1][2].append(stack[-1][1][event][1])
    while stack:
        name, _, path = stack.pop()
        out[name].append(tuple(path))
    return dict(out)
