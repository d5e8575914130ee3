"""Observers of a run: what an interpreter run with ``run_module(..., observer=O)`` reports to O.

Without an observer the decoded code is exactly what it always was (the hooks below are written
into the generated Python only when the machine has one: zero cost when off). With one, the
machine is a fresh ``Machine(module, observer)`` (never the cached one) and every executed, not
nullified instruction reports as follows, ``sid`` being the number ``register`` gave its static
instruction when its function was decoded:

* ``OL(sid, address, size, value)`` after a load;
* ``OS(sid, address, size)`` after a store;
* ``OK(enter, sid)`` before a call (``sid``: the call's): ``enter`` 1 for a defined function (an
  activation begins, to end at its ``ORET``), 0 for a library function;
* ``ORET(sid, value)`` at a ``ret`` (a return: the reuse simulator's second kill event);
* ``OV(sid, value)`` after any other instruction that writes registers: arithmetic, compares,
  selects, moves, ``alloca``, ``input``, a library call's result, a predicate define (its
  destinations packed into one integer, destination i at bit i);
* ``OE(fid, index)`` when a branch is taken (``index``: the branch counter of function number
  ``fid``, ``FunctionCode.edges[index]`` its edge), only for an observer that overrides ``edge``
  (its functions numbered by ``function_id`` at decode time): the exact path profile of
  ``interp/paths.py``.

Library functions write memory through ``Memory.write`` (memcpy, sprintf, ...): ``attach``
wraps it so the observer hears of those writes (``write(address, size)``) too, and wraps
``Memory.release`` (``release(segment id)``) so it can forget freed memory.
"""
from __future__ import annotations


class Observer:
    """The hook protocol with no-op hooks; subclasses override what they need."""

    def __init__(self):
        self.sites: list = []  # sid -> (function name, pc, instruction)
        self.functions: list = []  # fid -> function name (``function_id``)
        self.globals = 0  # segments 1..globals are the module's globals (docs/pir.md)

    def register(self, function: str, pc: int, ins) -> int:
        """A number for one static instruction (called once per instruction at decode time)."""
        self.sites.append((function, pc, ins))
        return len(self.sites) - 1

    def attach(self, machine) -> dict:
        """Names the decoded code of ``machine`` calls (added to its namespace)."""
        self.globals = len(machine.module.globals)
        memory = machine.memory
        write, release = memory.write, memory.release

        def observed_write(addr: int, data: bytes) -> None:
            write(addr, data)
            if data:
                self.write(addr, len(data))

        def observed_release(sid: int, how: str) -> None:
            release(sid, how)
            self.release(sid)

        memory.write, memory.release = observed_write, observed_release
        names = {"OBSERVE": self.register, "OL": self.load, "OS": self.store, "OK": self.call,
                 "ORET": self.ret, "OV": self.value}
        if type(self).edge is not Observer.edge:     # edges cost a call each: only when heard
            names.update(OE=self.edge, OFN=self.function_id)
        return names

    def function_id(self, name: str) -> int:
        """A number for one function (called once per function at decode time, for ``edge``)."""
        self.functions.append(name)
        return len(self.functions) - 1

    def edge(self, fid: int, index: int) -> None:
        pass

    def load(self, sid: int, addr: int, size: int, value: int) -> None:
        pass

    def store(self, sid: int, addr: int, size: int) -> None:
        pass

    def call(self, enter: int, sid: int) -> None:
        pass

    def ret(self, sid: int, value: int) -> None:
        pass

    def value(self, sid: int, value: int) -> None:
        pass

    def write(self, addr: int, size: int) -> None:
        pass

    def release(self, segment: int) -> None:
        pass
