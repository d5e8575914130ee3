"""Estimators of dynamic value reuse from an edge profile (PathFinder ch. 5, pathfinder.md §5.4).

An edge profile cannot tell how often a value computed at a generator reaches a user along a
path with no kill in between (branch correlation is lost), so each estimator gives a lower and
an upper bound of that amount, for one expression, from the CFG's edge frequencies and the
expression's availability / anticipability states (``datalog/pre.dl``: ``pre_avail_in``,
``pre_avail_out``, ``pre_antic_in``, ``pre_comp``, ``pre_antloc``, ``pre_kills``):

* ``pre_estimate``: the PRE estimator of Fig. 5.4, consumer by consumer by reachability;
* ``definite``: reuse outside the CMP region (Fig. 5.7: edges from a Must-available block into a
  block that is Must-anticipated and May-available or a user), the same for every CMP estimator;
* ``cmp_one``, ``cmp_connected``, ``cmp_reach``, ``cmp_flow``: CMP¹, CMP^c, CMP^r and CMP^f,
  definite reuse plus the uncertain reuse crossing the CMP region (nodes May-available and
  May-anticipated; entries Must- or No-available, exits Must- or No-anticipated, Lemma 5.3):
  one region, its connected sub-regions, the bipartite entry-exit network's max-flow, and the
  edge-level network (capacities = frequencies) max-flow.

General VNGs (§5.5): where a value has several names (synonyms), a thread splits and its flow is
*duplicated*, so a CMP region's exits may carry more than its entries: Δ = f_X − f_N. Each CMP
estimator takes Δ into account as §5.5 gives it: CMP¹ adds Δ to the produced and to the stolen
flow; CMP^c does so per connected sub-region (its own Δ_i); CMP^r adds a node δ fed with capacity
Δ and connected to every consumer exit; CMP^f connects δ to the flow-duplicating nodes inside the
region (``ValueFlow.duplicating``; max-dup-flow, Def 5.5, approximated by standard max-flow, as
the thesis does). The PRE estimator is unchanged (§5.5: its overbooking is legal there). On a
separable VNG the flow is conserved, Δ = 0, and the bounds are the §5.4 ones.

Blocks are the VNG's nodes here (one expression, a separable VNG): a block computing the
expression before any kill is a user at its entry (``pre_antloc``), one computing it after its
last kill a generator at its exit (``pre_comp``), one that may change it a kill (``pre_kills``).
The function's entry is reached by a virtual edge ``(ENTRY, entry)`` whose frequency is the
number of calls, so a user in the entry block is a consumer like any other.

Relative error of bounds ``(L, U)``: ``(U - L) / L`` (§5.2). The spec's running example
(§12 item 11; its CFG is a reconstruction) gives PRE 80/170, CMP¹ and CMP^c 80/130, CMP^r
100/130, CMP^f 100/115 (tests/flow/test_estimators.py).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Optional

#: The virtual predecessor of the entry block (its edge's frequency: the function's calls).
ENTRY = "__entry__"

MUST, MAY, NO = "must", "may", "no"


@dataclass(frozen=True)
class Bounds:
    """Lower and upper bound of the dynamic reuse (computations a complete PRE removes)."""
    lower: int
    upper: int

    @property
    def error(self) -> Optional[float]:
        """``(U - L) / L`` (§5.2); None when L is 0 (0.0 when U is 0 too)."""
        if self.lower == 0:
            return 0.0 if self.upper == 0 else None
        return (self.upper - self.lower) / self.lower

    def __add__(self, other: "Bounds") -> "Bounds":
        return Bounds(self.lower + other.lower, self.upper + other.upper)

    def contains(self, value: int) -> bool:
        return self.lower <= value <= self.upper


@dataclass
class ValueFlow:
    """One expression's value flow over one function's CFG, with an edge profile.

    ``freq``: ``{(a, b): times taken}`` for every CFG edge (the virtual ``(ENTRY, entry)`` edge
    included); ``avail_in`` / ``avail_out`` / ``antic_in``: ``{block: MUST | MAY}`` (a block
    without an entry is NO); ``users`` / ``generators`` / ``kills``: U, D and K;
    ``duplicating``: the nodes where a general VNG's thread splits at a synonym, so that the flow
    leaving them may exceed the flow entering (§5.5; none in a separable VNG)."""
    freq: dict
    avail_in: dict
    avail_out: dict
    antic_in: dict
    users: set
    generators: set
    kills: set = field(default_factory=set)
    duplicating: frozenset = frozenset()

    def state(self, table: dict, block: str) -> str:
        return table.get(block, NO)

    @cached_property
    def succ(self) -> dict:
        """``{block: successors}`` (the virtual entry edge included)."""
        out = defaultdict(list)
        for a, b in self.freq:
            out[a].append(b)
        return out

    @cached_property
    def region(self) -> "Region":
        """``cmp_region(self)``, computed once for every estimator."""
        return cmp_region(self)

    @cached_property
    def definite(self) -> int:
        """``definite(self)``, computed once for every estimator."""
        return definite(self)

    @cached_property
    def leak(self) -> int:
        """Flow that stopped where the value was Must-anticipated: Σ over the blocks with
        ANTIC_in = Must that are not users of (entries − exits), where positive. A run that ends
        inside the function (``exit()``, a call that does not return) leaves such a block without
        reaching the user every path promised: the definite component and the Must exits count
        that flow as consumed, so the lower bounds give it back ([Inference]: the thesis's
        profiles are of complete runs; 921202-1.c's ``exxit()`` after a Must-anticipated edge)."""
        into, out = defaultdict(int), defaultdict(int)
        for (a, b), n in self.freq.items():
            out[a] += n
            into[b] += n
        return sum(max(0, into[b] - out[b]) for b, s in self.antic_in.items()
                   if s == MUST and b not in self.users)

    @cached_property
    def inner_reach(self) -> dict:
        """``_inner_reach(self, self.region)``, shared by CMP^c and CMP^r."""
        return _inner_reach(self, self.region)


# ---------------------------------------------------------------- the PRE estimator (Fig. 5.4)

def pre_estimate(flow: ValueFlow) -> tuple[Bounds, dict]:
    """``(bounds, {consumer edge: Bounds})`` of the PRE estimator (Fig. 5.4).

    Pr: edges out of a generator; Co: edges into a user; St: edges from a No-available block into
    a May-available one (where PRE would insert compensation code). A producer (stealer) counts
    for consumer c when a path from its head to c's tail avoids D, K and the stealers' edges.
    L(c) = max(0, freq(c) - Σ freq(St(c))), U(c) = min(freq(c), Σ freq(Pr(c))); L(c) is also
    capped by U(c) (a consumer no producer reaches has no reuse: Ex. 5.2's A, 0/0; [Inference]:
    Fig. 5.4 states only the max)."""
    producers = [e for e in flow.freq if e[0] in flow.generators]
    consumers = [e for e in flow.freq if e[1] in flow.users]
    stealers = {e for e in flow.freq if flow.state(flow.avail_out, e[0]) == NO
                and flow.state(flow.avail_in, e[1]) == MAY}
    blocked = flow.generators | flow.kills
    succ = flow.succ

    def reaches(start: str) -> set:
        """Blocks reachable from ``start`` through blocks outside D ∪ K and edges outside St
        (``start`` itself must be outside D ∪ K)."""
        if start in blocked:
            return set()
        seen, stack = {start}, [start]
        while stack:
            a = stack.pop()
            for b in succ[a]:
                if b not in seen and b not in blocked and (a, b) not in stealers:
                    seen.add(b)
                    stack.append(b)
        return seen

    reach = {}
    for _, head in producers + sorted(stealers):
        if head not in reach:
            reach[head] = reaches(head)
    per = {}
    total = Bounds(0, 0)
    for c in consumers:
        tail = c[0]
        if c in stealers:           # a stealer that is itself the consumer steals all of it
            pr, st = 0, flow.freq[c]
        else:
            pr = sum(flow.freq[r] for r in producers if tail in reach[r[1]] or r == c)
            st = sum(flow.freq[s] for s in stealers if tail in reach[s[1]])
        upper = min(flow.freq[c], pr)
        lower = min(upper, max(0, flow.freq[c] - st))
        per[c] = Bounds(lower, upper)
        total = total + per[c]
    return total, per


# ---------------------------------------------------------------- the CMP region (§5.4)

@dataclass(frozen=True)
class Region:
    """CMP nodes with their entry and exit edges, each Must or No (Lemma 5.3), and the flow
    duplication Δ = f_X − f_N (§5.5; 0 when the exits carry no more than the entries)."""
    nodes: frozenset
    must_entries: tuple
    no_entries: tuple
    must_exits: tuple
    no_exits: tuple
    delta: int = 0


def cmp_region(flow: ValueFlow) -> Region:
    """The CMP region (Def 5.3: AVAIL_in = ANTIC_in = May) and its classified entries/exits."""
    nodes = frozenset(b for b, s in flow.avail_in.items()
                      if s == MAY and flow.state(flow.antic_in, b) == MAY)
    entries = [e for e in sorted(flow.freq) if e[1] in nodes and e[0] not in nodes]
    exits = [e for e in sorted(flow.freq) if e[0] in nodes and e[1] not in nodes]
    return Region(
        nodes,
        tuple(e for e in entries if flow.state(flow.avail_out, e[0]) == MUST),
        tuple(e for e in entries if flow.state(flow.avail_out, e[0]) == NO),
        tuple(e for e in exits if flow.state(flow.antic_in, e[1]) == MUST),
        tuple(e for e in exits if flow.state(flow.antic_in, e[1]) == NO),
        duplication(entries, exits, flow.freq))


def duplication(entries: Iterable, exits: Iterable, freq: dict) -> int:
    """Δ = f_X − f_N (§5.5): the flow the exits carry beyond the entries' (0 if none)."""
    return max(0, sum(freq[e] for e in exits) - sum(freq[e] for e in entries))


def definite(flow: ValueFlow) -> int:
    """S_d (Fig. 5.7): Σ freq over Pr_d = {(u, v) | AVAIL_out[u] = Must ∧ (AVAIL_in[v] = May ∨
    v ∈ U) ∧ ANTIC_in[v] = Must}."""
    return sum(n for (u, v), n in flow.freq.items()
               if flow.state(flow.avail_out, u) == MUST
               and (flow.state(flow.avail_in, v) == MAY or v in flow.users)
               and flow.state(flow.antic_in, v) == MUST)


def _one(must_entries: Iterable, no_entries: Iterable, must_exits: Iterable,
         freq: dict, delta: int = 0) -> Bounds:
    produced = sum(freq[e] for e in must_entries) + delta      # §5.5: Δ is both produced
    stolen = sum(freq[e] for e in no_entries) + delta          # and stolen flow
    consumed = sum(freq[e] for e in must_exits)
    return Bounds(max(0, consumed - stolen), min(consumed, produced))


def _stopped(flow: ValueFlow, bounds: Bounds) -> Bounds:
    """``bounds`` with the flow that stopped before its user (``ValueFlow.leak``) taken from
    the lower bound."""
    if not flow.leak:
        return bounds
    return Bounds(max(0, bounds.lower - flow.leak), bounds.upper)


def cmp_one(flow: ValueFlow) -> Bounds:
    """CMP¹: the whole region at once: L_u = max(0, Σ ex^M - (Σ en^N + Δ)), U_u = min(Σ ex^M,
    Σ en^M + Δ) (Δ = 0 on a separable VNG)."""
    r, s_d = flow.region, flow.definite
    return _stopped(flow, Bounds(s_d, s_d) + _one(r.must_entries, r.no_entries, r.must_exits,
                                                  flow.freq, r.delta))


def _inner_reach(flow: ValueFlow, region: Region) -> dict:
    """``{entry edge: exit edges reachable from it inside the region}``."""
    succ = flow.succ
    out = {}
    exits = set(region.must_exits) | set(region.no_exits)
    for entry in region.must_entries + region.no_entries:
        seen, stack, got = {entry[1]}, [entry[1]], set()
        while stack:
            a = stack.pop()
            for b in succ[a]:
                if (a, b) in exits:
                    got.add((a, b))
                elif b in region.nodes and b not in seen:
                    seen.add(b)
                    stack.append(b)
        out[entry] = got
    return out


def cmp_connected(flow: ValueFlow) -> Bounds:
    """CMP^c: CMP¹ on each connected sub-region of the entry -> exit reachability graph, summed
    (each with its own duplication Δ_i, §5.5)."""
    import networkx as nx
    region = flow.region
    g = nx.Graph()
    for entry, exits in flow.inner_reach.items():
        g.add_node(("en", entry))
        g.add_edges_from((("en", entry), ("ex", x)) for x in exits)
    g.add_nodes_from(("ex", x) for x in region.must_exits + region.no_exits)
    s_d = flow.definite
    total = Bounds(s_d, s_d)
    for part in nx.connected_components(g):
        edges = {e for _, e in part}
        entries = [e for e in region.must_entries + region.no_entries if e in edges]
        exits = [e for e in region.must_exits + region.no_exits if e in edges]
        total = total + _one([e for e in region.must_entries if e in edges],
                             [e for e in region.no_entries if e in edges],
                             [e for e in region.must_exits if e in edges], flow.freq,
                             duplication(entries, exits, flow.freq))
    return _stopped(flow, total)


def _max_flow(edges: list, sources: dict, sinks: dict) -> int:
    """Max-flow from a super source feeding ``sources`` ``{node: capacity}`` to a super sink fed
    by ``sinks``; ``edges``: ``(u, v, capacity or None for unbounded)``."""
    import networkx as nx
    if not sources or not sinks:
        return 0
    g = nx.DiGraph()
    for u, v, cap in edges:
        if cap is None:
            g.add_edge(u, v)
        elif g.has_edge(u, v):
            g[u][v]["capacity"] += cap
        else:
            g.add_edge(u, v, capacity=cap)
    for node, cap in sources.items():
        g.add_edge("__source__", node, capacity=cap)
    for node, cap in sinks.items():
        g.add_edge(node, "__sink__", capacity=cap)
    return nx.maximum_flow_value(g, "__source__", "__sink__")


def _with_delta(edges: list, delta: int, targets: list) -> tuple[list, dict]:
    """``(edges, extra sources)``: a node δ, fed with capacity ``delta``, connected (unbounded)
    to ``targets`` (Fig. 5.10); nothing when there is no duplication."""
    if not delta:
        return edges, {}
    return edges + [("__delta__", t, None) for t in targets], {"__delta__": delta}


def cmp_reach(flow: ValueFlow) -> Bounds:
    """CMP^r: the bipartite network entries -> exits (an edge, unbounded, when a thread connects
    them inside the region; entries' and exits' capacities their frequencies): U_u =
    maxflow(EN^M, EX^M), L_u = max(0, Σ ex^M - maxflow(EN^N, EX^M)); with duplication (§5.5,
    Fig. 5.10) a node δ of capacity Δ beside each super source, connected to every consumer."""
    region = flow.region
    edges = [(("en", en), ("ex", ex), None) for en, exits in flow.inner_reach.items() for ex in exits]
    sinks = {("ex", x): flow.freq[x] for x in region.must_exits}
    edges, extra = _with_delta(edges, region.delta, list(sinks))
    produced = _max_flow(edges, {**{("en", e): flow.freq[e] for e in region.must_entries},
                                 **extra}, sinks)
    stolen = _max_flow(edges, {**{("en", e): flow.freq[e] for e in region.no_entries},
                               **extra}, sinks)
    consumed = sum(sinks.values())
    s_d = flow.definite
    return _stopped(flow, Bounds(s_d + max(0, consumed - stolen), s_d + produced))


def cmp_flow(flow: ValueFlow) -> Bounds:
    """CMP^f: CMP^r's formulas with max-flow on the edge-level network: every edge inside the
    region with its frequency as capacity (the "weak links" of Ex. 5.7). With duplication
    (§5.5) δ, of capacity Δ, feeds the flow-duplicating nodes inside the region (the consumers
    when none is known)."""
    region = flow.region
    inner = [(a, b, n) for (a, b), n in flow.freq.items()
             if a in region.nodes and b in region.nodes]
    sinks = {("ex", x): flow.freq[x] for x in region.must_exits}
    exits = [(x[0], ("ex", x), None) for x in region.must_exits]
    entries = [(("en", e), e[1], None) for e in region.must_entries + region.no_entries]
    dup = sorted(n for n in flow.duplicating if n in region.nodes)
    edges, extra = _with_delta(inner + exits + entries, region.delta, dup or list(sinks))
    produced = _max_flow(edges, {**{("en", e): flow.freq[e] for e in region.must_entries},
                                 **extra}, sinks)
    stolen = _max_flow(edges, {**{("en", e): flow.freq[e] for e in region.no_entries},
                               **extra}, sinks)
    consumed = sum(sinks.values())
    s_d = flow.definite
    return _stopped(flow, Bounds(s_d + max(0, consumed - stolen), s_d + produced))


#: Every estimator by the name reports use, cheapest first (§5.2's hierarchy).
ESTIMATORS = {
    "PRE": lambda flow: pre_estimate(flow)[0],
    "CMP1": cmp_one,
    "CMPc": cmp_connected,
    "CMPr": cmp_reach,
    "CMPf": cmp_flow,
}


def estimate(flow: ValueFlow) -> dict:
    """``{estimator name: Bounds}`` for one expression."""
    return {name: fn(flow) for name, fn in ESTIMATORS.items()}


# ---------------------------------------------------------------- the exact value

def exact_reuse(paths: Iterable[tuple], users: set, generators: set, kills: set) -> int:
    """Dynamic reuse along executed block paths (one path per call of the function): the number
    of times a block of U is entered while the value is available (a block of D left since the
    last block of K without D). A block is used at its entry and generates at its exit, as in
    the estimators (``pre_antloc`` / ``pre_comp``).

    This is what the estimators bound (Def. 5.2, with the trace that really ran); the independent
    check of the bounds."""
    count = 0
    for path in paths:
        available = False
        for block in path:
            if block in users and available:
                count += 1
            if block in generators:
                available = True
            elif block in kills:
                available = False
    return count
