"""A persistent map register -> lattice value over a function's fixed set of registers: the dense
per-block state of the constant propagations (Wegman–Zadeck CC in ``transforms/pcp/sccp.py``,
Algorithm 1's ``inf`` in ``transforms/pcp/global_cp.py``) without their quadratic cost.

A state is a trie of fixed shape over the registers' indices (``WIDTH`` children per node, the
leaves hold the values; Bagwell, "Ideal Hash Trees", 2001, on a dense index). Copying is O(1)
(the copy shares the trie), a write copies the nodes of one root-to-leaf path (O(log n)), and the
meet of two states that share most of their trie (both derived from one state by a few writes,
as the states at a join are) visits only the nodes that differ (Okasaki's path copying, the
identity of shared nodes as the equality test). Per block, the analyses then cost O(instructions
and changed registers · log n) instead of O(registers).

Example
-------
>>> from pylogic.flow.lattice import BOT
>>> regs = Registers(["a", "b", "c"])
>>> s = regs.build({"a": 0, "b": 0, "c": 1}); t = s.copy(); t["a"] = 5
>>> s["a"], t["a"], s.meet(t)["a"] is BOT, s.meet(s) is s
(0, 5, True, True)
"""
from __future__ import annotations

from typing import Iterator, Mapping

from pylogic.flow.lattice import meet

__all__ = ["Registers", "StateMap"]

#: bits of the index per trie level (16 children per node)
BITS = 4
WIDTH = 1 << BITS
MASK = WIDTH - 1


class Registers:
    """The registers of one function, in iteration order, and each one's path in the trie."""

    def __init__(self, names):
        self.names = tuple(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        depth = 1
        while WIDTH ** depth < len(self.names):
            depth += 1
        self.depth = depth
        self.paths = {n: tuple((i >> (BITS * (depth - 1 - level))) & MASK
                               for level in range(depth)) for n, i in self.index.items()}

    def __contains__(self, name) -> bool:
        return name in self.index

    def __len__(self) -> int:
        return len(self.names)

    def build(self, values: Mapping) -> "StateMap":
        """The state holding ``values[r]`` for every register ``r``."""
        level = [values[n] for n in self.names] or [None]
        for _ in range(self.depth):
            level = [level[i:i + WIDTH] for i in range(0, len(level), WIDTH)]
        return StateMap(self, level[0])


def _meet_node(a: list, b: list, height: int):
    """``a ⊓ b`` node by node: ``a`` itself where nothing of it changes, else ``b`` itself where
    the meet is ``b`` (so that states met at joins keep sharing their nodes)."""
    if a == b:                              # equal values (a C-level scan): nothing changes
        return a
    out = []
    same_a = same_b = True
    for x, y in zip(a, b):
        if x is y:
            out.append(x)
            continue
        r = meet(x, y) if height == 1 else _meet_node(x, y, height - 1)
        if r is not x:
            same_a = False
        if r is not y and (height > 1 or r != y):
            same_b = False
        out.append(r)
    return a if same_a else b if same_b else out


class StateMap:
    """A mutable handle on a persistent state: ``s[r]``, ``s[r] = v`` (copies one path),
    ``s.copy()`` (shares everything), ``s.meet(t)`` (``s`` itself when ``s ⊓ t = s``). Reads as
    a mapping over every register of its ``Registers``, in their order."""

    __slots__ = ("registers", "root")

    def __init__(self, registers: Registers, root: list):
        self.registers = registers
        self.root = root

    def __getitem__(self, name):
        node = self.root
        for i in self.registers.paths[name]:
            node = node[i]
        return node

    def get(self, name, default=None):
        path = self.registers.paths.get(name)
        if path is None:
            return default
        node = self.root
        for i in path:
            node = node[i]
        return node

    def __setitem__(self, name, value) -> None:
        path = self.registers.paths[name]
        root = node = list(self.root)
        for i in path[:-1]:
            child = list(node[i])
            node[i] = child
            node = child
        node[path[-1]] = value
        self.root = root

    def copy(self) -> "StateMap":
        return StateMap(self.registers, self.root)

    def meet(self, other: "StateMap") -> "StateMap":
        """``self ⊓ other`` (the flat meet, register by register); ``self`` when unchanged."""
        if other.root is self.root:
            return self
        root = _meet_node(self.root, other.root, self.registers.depth)
        return self if root is self.root else StateMap(self.registers, root)

    # ---- read as a mapping
    def __contains__(self, name) -> bool:
        return name in self.registers.index

    def __len__(self) -> int:
        return len(self.registers.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.registers.names)

    def keys(self):
        return self.registers.names

    def items(self):
        return ((n, self[n]) for n in self.registers.names)

    def values(self):
        return (self[n] for n in self.registers.names)

    def __eq__(self, other) -> bool:
        if isinstance(other, StateMap) and other.root is self.root:
            return True
        if not isinstance(other, (StateMap, Mapping)):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    __hash__ = None

    def __repr__(self) -> str:
        return f"StateMap({dict(self.items())!r})"
