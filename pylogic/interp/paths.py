"""Exact path profiles: the block path of every call, as the interpreter ran it.

Edge profiles lose which branch followed which (PathFinder ch. 5: the estimators bound that
error); this is the whole-program path the estimators are checked against (Table 5.1's "whole
program path", here simply recorded). ``PathObserver`` hears every taken edge, call and return
(``interp/observe.py``: hooks decoded only for a run that has an observer, so ordinary runs cost
nothing more).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from pylogic.interp.defaults import DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT
from pylogic.interp.observe import Observer
from pylogic.interp.result import RunResult
from pylogic.ir.model import Module


class PathObserver(Observer):
    """Collects ``{function: [block path of each call]}`` (``paths``)."""

    def __init__(self, entry: str):
        super().__init__()
        self.entry = entry
        self.frames: list = []      # [function name, taken edge indices]
        self.done = defaultdict(list)

    def attach(self, machine) -> dict:
        from pylogic.interp.decode import resolve_function
        self.machine = machine
        functions = machine.module.function_map()

        def resolve(name: str) -> str:   # a missing entry: the run itself reports it
            fn = resolve_function(functions, name)
            return name if fn is None else fn.name
        self.resolve = resolve
        self.frames = [[self.resolve(self.entry), []]]
        return super().attach(machine)

    def call(self, enter: int, sid: int) -> None:
        if enter:
            self.frames.append([self.resolve(self.sites[sid][2].callee), []])

    def edge(self, fid: int, index: int) -> None:
        self.frames[-1][1].append(index)

    def ret(self, sid: int, value: int) -> None:
        self.done[self.frames[-1][0]].append(self.frames.pop()[1])

    def paths(self) -> dict:
        """Each call's blocks from its function's entry block, side-exit targets included; calls
        still open when the run stopped end where it stopped."""
        functions = self.machine.functions
        while self.frames:                       # the run stopped inside these calls
            name, taken = self.frames.pop()
            fn = functions.get(name)
            if fn is not None and fn.blocks:     # not an entry the module does not define
                self.done[name].append(taken)
        out = {}
        for name, calls in self.done.items():
            code = self.machine.code[name]
            first = code.function.blocks[0].label
            out[name] = [(first,) + tuple(code.edges[k][1] for k in taken) for taken in calls]
        return out


def run_with_paths(module: Module, entry: str = "main", args: Iterable[int] = (),
                   inputs: Iterable[int] = (), fuel: int = DEFAULT_FUEL,
                   memory_limit: int = DEFAULT_MEMORY_LIMIT,
                   max_depth: int = DEFAULT_MAX_DEPTH) -> tuple[RunResult, dict]:
    """``(result, {function: [block path of each call, in the order the calls returned]})``."""
    from pylogic.interp.machine import run_module
    observer = PathObserver(entry)
    result = run_module(module, entry, args, inputs, fuel, memory_limit, True, max_depth,
                        observer=observer)
    return result, observer.paths()
