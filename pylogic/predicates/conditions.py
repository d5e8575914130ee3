"""Condition layer of PAS: relations, interval splitting, finite-domain encoding, basic atoms.

A *condition* is ``x REL K`` for an SSA value ``x`` and a 64-bit constant ``K``. Conditions on the
same value form a *family*; the signed 64-bit number line is cut at the boundaries of every
condition's true set, and each condition becomes the union of the segments it holds on.
Unsigned relations are mapped to (at most two) intervals of the signed domain, so they join the
family exactly.

Everything here is engine-neutral (plain Python data); ``pas.py`` turns it into BDD nodes and
``sat_check.py`` into CNF. References: pas.md §2.5, §3.3; PAS Figure 4.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil, log2

from pylogic.ir.model import MASK64, MAX64, MIN64
from pylogic.ir.ops import UNSIGNED_RELS, eval_rel, intervals


def split_segments(conditions) -> list[tuple[int, int]]:
    """Cut the signed 64-bit line at every boundary of the given ``(rel, k)`` conditions.

    Returns the segments ``[lo, hi]`` in increasing order; together they partition the domain and
    every condition is constant on each segment. References: pas.md §3.3 (cut rules).
    """
    cuts = set()
    for rel, k in conditions:
        for lo, hi in intervals(rel, k):
            if lo > MIN64:
                cuts.add(lo)
            if hi < MAX64:
                cuts.add(hi + 1)
    bounds = [MIN64] + sorted(cuts) + [MAX64 + 1]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(len(bounds) - 1)]


def domain_bits(count: int) -> int:
    """Number of finite-domain variables for ``count`` segments: ceil(log2 count), 0 for 1."""
    return 0 if count <= 1 else ceil(log2(count))


def finite_domain_cubes(count: int) -> list[list[tuple[int, bool]]]:
    """Cubes of the PAS finite-domain encoding of ``count`` elements.

    Variables are numbered ``0 .. n-1`` (``n = domain_bits(count)``); variable ``n-1`` is the
    "merge" variable. Each cube is a list of ``(var_index, polarity)``. The ``2**n - count`` first
    cubes omit the merge variable; the cubes are mutually exclusive and exhaustive.
    For count=5 this is exactly PAS Figure 4: I0=v1'v0', I1=v1'v0, I2=v1v0', I3=v2'v1v0, I4=v2v1v0.

    References: pas.md §3.3 ``finite_domain``; PAS §4.3.
    """
    n = domain_bits(count)
    if n == 0:
        return [[]]
    merged = (1 << n) - count
    out = []
    for code in range(1 << (n - 1)):
        low = [(j, bool(code >> j & 1)) for j in range(n - 2, -1, -1)]
        if code < merged:
            out.append(low)
        else:
            out.append([(n - 1, False)] + low)
            out.append([(n - 1, True)] + low)
    return out


@dataclass
class Family:
    """All conditions on one SSA value: its segments and the truth of each condition per segment."""
    key: object
    conditions: list = field(default_factory=list)  # (rel, k) in order of first appearance
    segments: list = field(default_factory=list)

    def finish(self) -> None:
        """Split the number line once every condition is known (pas.md §3.1 step 2)."""
        self.segments = split_segments(self.conditions)

    def truth(self, rel: str, k: int) -> list[bool]:
        """Truth of ``x REL k`` on each segment (tested on the segment's lower bound)."""
        return [eval_rel(rel, lo, k) for lo, _ in self.segments]

    def representatives(self) -> list[int]:
        """One concrete value per segment (its lower bound)."""
        return [lo for lo, _ in self.segments]


def basic_atom(rel: str, k: int):
    """Canonical atom of ``x REL k`` for basic (family-free) analysis, with opposite recognition.

    Returns ``True``/``False`` for constant conditions, else ``((canon_rel, k'), negated)`` so that
    a condition and its complement share one variable: ``ne K`` = not ``eq K``, ``ge K`` = not
    ``lt K``, ``le K`` = ``lt K+1``, ``gt K`` = not ``lt K+1`` (likewise unsigned).
    References: pas.md §2.5 "simple recognition of opposites".
    """
    unsigned = rel in UNSIGNED_RELS
    base = rel[:-1] if unsigned else rel
    lo_k, hi_k = (0, MASK64) if unsigned else (MIN64, MAX64)
    kk = k & MASK64 if unsigned else k
    lt = "ltu" if unsigned else "lt"
    if base in ("eq", "ne"):
        return (("eq", k), base == "ne")
    if base in ("le", "gt"):  # x <= K  ==  x < K+1
        if kk == hi_k:
            return base == "le"
        kk += 1
        base = "lt" if base == "le" else "ge"
    if kk == lo_k:  # x < MIN is false
        return base == "ge"
    if unsigned:
        kk = kk - (1 << 64) if kk > MAX64 else kk  # keep constants signed for printing
    return ((lt, kk), base == "ge")


class ConditionLayer:
    """Leaves of one or more define networks, interpreted identically by every engine.

    ``mode="family"``: conditions on one SSA value share a ``Family`` (function parameters are
    keyed by name, so analyses of several functions in one manager share them);
    ``mode="basic"``: every condition is an atom shared only with its opposite.
    ``leaf(i, nid)`` returns ``("const", b)``, ``("free", key)`` (ω), ``("interval", fkey,
    truth_per_segment)`` or ``("atom", key, negated)``. References: pas.md §2.5, §3.3.
    """

    def __init__(self, nets, mode: str = "family"):
        if mode not in ("family", "basic"):
            raise ValueError(f"mode must be 'family' or 'basic', not {mode!r}")
        self.nets = nets
        self.mode = mode
        self.families: dict = {}
        for i, net in enumerate(nets):
            for vid, conds in net.family_conditions().items():
                fam = self.families.setdefault(self.fkey(i, vid), Family(self.fkey(i, vid)))
                fam.conditions += [c for c in conds if c not in fam.conditions]
        for fam in self.families.values():
            fam.finish()
        self._cuts = {k: {lo for lo, _ in f.segments} for k, f in self.families.items()}

    def fkey(self, i: int, vid: int):
        """Family key of value ``vid`` of network ``i``."""
        net = self.nets[i]
        info = net.infos[net.values[vid][1]]
        return ("param", info.name) if info.kind in ("param", "global") else (i, vid)

    def loop_of(self, i: int, vid: int):
        """Loop header whose iterations create value ``vid`` (None if loop-invariant)."""
        net = self.nets[i]
        return net.infos[net.values[vid][1]].loop

    def leaf(self, i: int, nid: int):
        n = self.nets[i].nodes[nid]
        kind = n[0]
        if kind == "const":
            return ("const", n[1])
        if kind == "var":
            return ("free", ("w", i, nid))
        if kind == "rcond":
            a, b = self.fkey(i, n[2]), self.fkey(i, n[3])
            if n[1] == "eq":
                a, b = sorted((a, b), key=repr)
            return ("atom", ("r", n[1], a, b), False)
        if kind != "cond":
            raise ValueError(f"node {nid} is not a leaf")
        fkey, rel, k = self.fkey(i, n[1]), n[2], n[3]
        if self.mode == "basic":
            atom = basic_atom(rel, k)
            if isinstance(atom, bool):
                return ("const", int(atom))
            return ("atom", ("c", fkey, atom[0]), atom[1])
        fam = self.families.get(fkey)
        cuts = self._cuts.get(fkey, set())
        for lo, hi in intervals(rel, k):
            if (lo > MIN64 and lo not in cuts) or (hi < MAX64 and hi + 1 not in cuts):
                raise LookupError(f"condition {rel} {k} was not part of the analysed family")
        if fam is None:  # a value never compared: only trivial conditions reach here
            fam = self.families[fkey] = Family(fkey, [(rel, k)])
            fam.finish()
        return ("interval", fkey, tuple(fam.truth(rel, k)))

    def leaf_loop(self, i: int, nid: int) -> list:
        """Loop contexts of a leaf (for across-iteration queries, pas.md §2.9)."""
        n = self.nets[i].nodes[nid]
        if n[0] == "var":
            return [self.nets[i].var_loop.get(nid)]
        if n[0] == "cond":
            return [self.loop_of(i, n[1])]
        if n[0] == "rcond":
            return [self.loop_of(i, n[2]), self.loop_of(i, n[3])]
        return []

    def varies_in(self, i: int, nid: int, body) -> bool:
        """Does leaf ``nid`` take a new value in each iteration of the loop with block set
        ``body`` (some loop context of it is a header inside ``body``)? Such leaves get a
        fresh copy for the other iteration of an across-iteration query (pas.md §2.9)."""
        return any(x is not None and x in body for x in self.leaf_loop(i, nid))
