"""Predicate partition graphs (ppg.md): answer queries from the output rows of ``datalog/ppg.dl``.

``datalog/ppg.dl`` builds three PPGs per function (graph tags): ``"cdg"`` (Algorithm 5, block
predicates from the labelled CDG), ``"cfg"`` (Algorithm 1, from the CFG with dummy completion)
and ``"pred"`` (predicate-register values, from the shapes of predicate defines, after [6]).
A node is a pair ``(name, kind)`` (see the header comments of ``datalog/ppg/cfg.dl`` and
``datalog/ppg/pred.dl``). Subset and disjointness are decided in Datalog (closure + cover rule,
ppg.md §4.8) and read in compact form: pairs proven without the constant nodes, plus the empty,
full and void nodes (a ⊆ b when (a, b) is a core pair, a is empty or b is full; the pairs
themselves, quadratic in a block of predicate defines, are ``datalog/ppg_closure.dl``'s);
``covers`` (a ∨ b always true) is answered here by a search over the partitions.
This module only reads rows (``PPG_RELATIONS``); the analysis layer runs the program.

Example
-------
>>> rows = module_rows(module, "fig3b.pir", relations=PPG_RELATIONS)    # doctest: +SKIP
>>> g = partition_graphs(module, rows, "fig3b.pir")["fig3b"]             # doctest: +SKIP
>>> g.disjoint("p4", "p2"), g.implies("p4", "p3")                        # doctest: +SKIP
(True, True)

References: ppg.md §3 (exactness of the closure rules), §4.3-§4.8; docs/pir.md (deposit types).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Optional

from pylogic.errors import PathlogicError, SourceLoc
from pylogic.ir.model import TRUE_PREDICATES, Function, Module
from pylogic.predicates.network import PredicateError, last_defining_blocks

#: The output relations of ``datalog/ppg.dl`` a ``PartitionGraph`` reads:
#: ``module_rows(module, relations=PPG_RELATIONS)``.
PPG_RELATIONS = ("ppg_node", "ppg_partition", "ppg_subset_core", "ppg_empty", "ppg_full",
                 "ppg_disjoint_core", "ppg_void", "ppg_value", "ppg_rep", "ppg_cdg", "ppg_dummy",
                 "ppg_cfg_edge", "ppg_violation")
GRAPHS = ("cdg", "cfg", "pred")
TRUE_NODE = ("true", "const")
FALSE_NODE = ("false", "const")

Node = tuple  # (name, kind)


def last_defining_block(function: Function, pred: str) -> str:
    """The block that defines ``pred`` last in layout order (the entry if none): the point PAS
    reads a bare predicate name at (pas.py ``PredicateAnalysis``)."""
    return last_defining_blocks(function).get(pred, function.blocks[0].label)


class PartitionGraph:
    """The PPGs of one function, read from ``ppg.dl`` output rows.

    Parameters
    ----------
    rows : FunctionRows
        The function's rows of ``PPG_RELATIONS`` (``rows.of("<relpath>::<name>")``, function
        column dropped).
    function : Function, optional
        The IR function, needed to read a bare predicate name at its last defining block.
    seconds : float
        Time the caller spent computing these rows (reported by ``stats``).

    Raises
    ------
    PredicateError
        ``rows`` lacks one of ``PPG_RELATIONS``.
    """

    def __init__(self, rows: Mapping, function: Optional[Function] = None, seconds: float = 0.0):
        self.function_id = getattr(rows, "function_id", function.name if function else "?")
        self.function = function
        self.seconds = seconds
        self.queries = 0

        def mine(rel: str) -> list:
            try:
                return rows[rel]
            except KeyError:
                raise PredicateError(
                    f"the PPG of {self.function_id} needs the relation {rel!r}, which was not "
                    f"computed: get the rows with module_rows(module, relations=PPG_RELATIONS)"
                ) from None

        self.nodes: dict = defaultdict(set)
        for g, n, k in mine("ppg_node"):
            self.nodes[g].add((n, k))
        self.partitions: dict = defaultdict(dict)      # g -> (kind, origin) -> (parent, [children])
        for g, pn, pk, kind, o, cn, ck in mine("ppg_partition"):
            parent, kids = self.partitions[g].setdefault((kind, o), ((pn, pk), []))
            kids.append((cn, ck))
        self._by_parent: dict = defaultdict(lambda: defaultdict(list))
        for g, parts in self.partitions.items():
            for parent, kids in parts.values():
                self._by_parent[g][parent].append(kids)
        self._core: dict = defaultdict(set)          # ppg_subset_core pairs (a, b)
        for g, an, ak, bn, bk in mine("ppg_subset_core"):
            self._core[g].add(((an, ak), (bn, bk)))
        self._empty, self._full, self._void = (self._node_sets(mine(rel)) for rel in
                                               ("ppg_empty", "ppg_full", "ppg_void"))
        self._dcore: dict = defaultdict(set)         # ppg_disjoint_core pairs
        for g, an, ak, bn, bk in mine("ppg_disjoint_core"):
            self._dcore[g].add(((an, ak), (bn, bk)))
        self._below: dict = {}
        self._equiv: dict = {}
        self._root_nodes: dict = {}
        self._root_frozen: dict = {}
        self._cover: dict = {}
        self.values = {(b, p): (n, k) for b, p, n, k in mine("ppg_value")}
        self.reps = {(vn, vk): (rn, rk) for vn, vk, rn, rk in mine("ppg_rep")}
        self.dummies = [((pn, pk), (cn, ck)) for pn, pk, cn, ck in mine("ppg_dummy")]
        self.cdg = [tuple(r) for r in mine("ppg_cdg")]
        self.edges = [((a, ak), (b, bk)) for a, ak, b, bk in mine("ppg_cfg_edge")]
        self.violations = [tuple(r) for r in mine("ppg_violation")]

    @staticmethod
    def _node_sets(rows) -> dict:
        out: dict = defaultdict(set)
        for g, n, k in rows:
            out[g].add((n, k))
        return out

    def is_subset(self, a: Node, b: Node, g: str) -> bool:
        """Dom(a) ⊆ Dom(b) for two nodes of graph g: ppg_subset from its compact form."""
        nodes = self.nodes[g]
        return (a, b) in self._core[g] or (a in self._empty[g] and b in nodes) or \
            (b in self._full[g] and a in nodes)

    def is_disjoint(self, a: Node, b: Node, g: str) -> bool:
        """Dom(a) ∩ Dom(b) = ∅ for two nodes of graph g: ppg_disjoint from its compact form."""
        void, nodes = self._void[g], self.nodes[g]
        return (a, b) in self._dcore[g] or (a in void and b in nodes) or (b in void and a in nodes)

    def _core_index(self, g: str) -> tuple[dict, dict]:
        """The core pairs of graph g indexed both ways: (below each node, above each node)."""
        hit = self._below.get(g)
        if hit is None:
            down, up = defaultdict(set), defaultdict(set)
            for a, b in self._core[g]:
                down[b].add(a)
                up[a].add(b)
            hit = self._below[g] = (down, up)
        return hit

    def below(self, b: Node, g: str) -> set:
        """Every a with Dom(a) ⊆ Dom(b) (the pairs of ppg_subset ending at b)."""
        out = set(self._core_index(g)[0].get(b, ()))
        if b in self._full[g]:
            out |= self.nodes[g]
        if b in self.nodes[g]:
            out |= self._empty[g]
        return out

    def above(self, a: Node, g: str) -> set:
        """Every b with Dom(a) ⊆ Dom(b) (the pairs of ppg_subset starting at a)."""
        out = set(self._core_index(g)[1].get(a, ()))
        if a in self._empty[g]:
            out |= self.nodes[g]
        if a in self.nodes[g]:
            out |= self._full[g]
        return out

    # ------------------------------------------------------------ references
    def value(self, pred: str, at: Optional[str] = None) -> Optional[Node]:
        """PPG node of predicate register ``pred`` at the end of block ``at`` (default: the block
        defining it last); ``None`` when the PPG does not model that value (a merge, a write by an
        ordinary instruction). ``p0``/``true`` are the constant true node."""
        if pred in TRUE_PREDICATES:
            return TRUE_NODE
        if at is None:
            if self.function is None:
                raise PredicateError("a bare predicate name needs the function (pass function=)")
            at = last_defining_block(self.function, pred)
        return self.values.get((at, pred))

    def block(self, label: str) -> Optional[Node]:
        """The (merged, ppg.md Def 8) predicate node of block ``label`` in the block PPGs."""
        return self.reps.get((label, "-"))

    def _node(self, ref, g: str) -> Node:
        if isinstance(ref, tuple) and len(ref) == 2 and ref in self.nodes[g]:
            return ref
        if g == "pred":
            node = self.value(*ref) if isinstance(ref, tuple) else self.value(ref)
        else:
            node = self.reps.get(ref) if isinstance(ref, tuple) else self.block(ref)
        if node is None:
            raise PredicateError(f"the {g} PPG of {self.function_id} does not model {ref!r}")
        return node

    # ------------------------------------------------------------ queries
    def implies(self, a, b, g: str = "pred") -> bool:
        """Dom(a) ⊆ Dom(b) is proven (ppg_subset: closure + cover rule)."""
        self.queries += 1
        return self.is_subset(self._node(a, g), self._node(b, g), g)

    subset = implies

    def disjoint(self, a, b, g: str = "pred") -> bool:
        """Dom(a) ∩ Dom(b) = ∅ is proven (ppg_disjoint: siblings, closure, cover rule)."""
        self.queries += 1
        return self.is_disjoint(self._node(a, g), self._node(b, g), g)

    def equivalent(self, a, b, g: str = "pred") -> bool:
        """Both inclusions are proven."""
        return self.implies(a, b, g) and self.implies(b, a, g)

    def covers(self, a, b, g: str = "pred") -> bool:
        """a ∨ b is always true: the root is covered, where a node is covered when it is ⊆ a or
        ⊆ b, or all members of one of its partitions (or of a node equal to it) are covered
        (a ∨ b ⊇ each member). The least such set, grown upwards from the nodes below a and b
        (a cycle proves nothing); the graph's indexes are built once, so a query touches only
        what it covers (issue #12 item 2: the walk down from the root cost ~1 ms a pair)."""
        self.queries += 1
        na, nb = self._node(a, g), self._node(b, g)
        sizes, member_of, always = self._cover_index(g)
        roots = self._root_set(g)
        covered: set = set()
        remaining: dict = {}
        stack = [*self.below(na, g), *self.below(nb, g), *always]
        while stack:
            x = stack.pop()
            if x in covered:
                continue
            covered.add(x)
            if x in roots:
                return True
            for pid in member_of.get(x, ()):
                left = remaining.get(pid, sizes[pid][1]) - 1
                remaining[pid] = left
                if left == 0:      # the parent is covered, and every node equal to it
                    stack.extend(self._equivalents(g, sizes[pid][0]))
        return False

    def _cover_index(self, g: str) -> tuple:
        """((parent, distinct member count) per partition, the partitions each node is a
        member of, and the nodes covered by an empty partition: its parent and every node
        equal to it)."""
        hit = self._cover.get(g)
        if hit is None:
            sizes: list = []
            member_of: dict = defaultdict(list)
            for parent, kid_lists in self._by_parent[g].items():
                for kids in kid_lists:
                    distinct = set(kids)
                    for m in distinct:
                        member_of[m].append(len(sizes))
                    sizes.append((parent, len(distinct)))
            always = [x for parent, n in sizes if n == 0 for x in self._equivalents(g, parent)]
            hit = self._cover[g] = (sizes, member_of, always)
        return hit

    def _root_set(self, g: str) -> frozenset:
        hit = self._root_frozen.get(g)
        if hit is None:
            hit = self._root_frozen[g] = frozenset(self._roots(g))
        return hit

    def _roots(self, g: str) -> list:
        """Every node the root is a subset of (so equal to it), found once per graph."""
        hit = self._root_nodes.get(g)
        if hit is None:
            root = TRUE_NODE if g == "pred" else ("__start__", "-")
            hit = self._root_nodes[g] = sorted(self.above(root, g))
        return hit

    def _equivalents(self, g: str, x) -> list:
        """Nodes with the same domain as x (proven both ways), x included."""
        eq = self._equiv.setdefault(g, {})
        hit = eq.get(x)
        if hit is None:
            if x in self._empty[g]:      # x ⊆ every node: y = x when y ⊆ x
                same = self.below(x, g)
            elif x in self._full[g]:     # every node ⊆ x: y = x when x ⊆ y
                same = self.above(x, g)
            else:                        # a full y equal to x is below it by a core pair
                down, up = self._core_index(g)
                same = {y for y in up.get(x, ()) if self.is_subset(y, x, g)}
                same |= {y for y in down.get(x, ()) if y in self._full[g] and
                         self.is_subset(x, y, g)}
            hit = eq[x] = sorted(same) or [x]
        return hit

    def relation(self, a, b, g: str = "pred", at: Optional[str] = None) -> Optional[dict]:
        """``{"disjoint", "a_implies_b", "b_implies_a", "covers"}`` for two references (with
        ``at``: two predicate names read at the end of block ``at``), or ``None`` when either
        value is not modelled."""
        if at is not None:
            a, b = (a, at), (b, at)
        try:
            self._node(a, g)
            self._node(b, g)
        except PredicateError:
            return None
        return {"disjoint": self.disjoint(a, b, g), "a_implies_b": self.implies(a, b, g),
                "b_implies_a": self.implies(b, a, g), "covers": self.covers(a, b, g)}

    def stats(self) -> dict:
        """Sizes of the three graphs (nodes, partitions, dummies) and the query count."""
        return {"function": self.function_id,
                **{f"{g}_nodes": len(self.nodes[g]) for g in GRAPHS},
                **{f"{g}_partitions": len(self.partitions[g]) for g in GRAPHS},
                "cfg_dummies": len(self.dummies), "violations": len(self.violations),
                "queries": self.queries, "seconds": self.seconds}


def partition_graphs(module: Module, rows, relpath: Optional[str] = None,
                     functions: Optional[list[str]] = None) -> dict[str, PartitionGraph]:
    """One ``PartitionGraph`` per defined function of ``module``, by name, read from ``rows``.

    Parameters
    ----------
    module : Module
    rows : Rows
        Rows of ``PPG_RELATIONS`` covering the module's functions (``pylogic.engines.rows``).
    relpath : str, optional
        The file name used in function ids ``relpath::name`` (default: the module's path).
    functions : list of str, optional
        Only these functions (default: every defined function).

    Raises
    ------
    PredicateError
        A relation of ``PPG_RELATIONS`` was not computed for a function.
    """
    relpath = relpath or module.path
    fns = [fn for fn in module.defined_functions() if functions is None or fn.name in functions]
    # function ids as in DESIGN.md's facts contract: "<relpath>::<name>"
    return {fn.name: PartitionGraph(rows.of(f"{relpath}::{fn.name}"), fn) for fn in fns}


def check_function_name(module: Module, name: str) -> Function:
    """The defined function ``name`` of ``module``, or a located error."""
    for fn in module.defined_functions():
        if fn.name == name:
            return fn
    known = ", ".join(f.name for f in module.defined_functions()) or "none"
    raise PathlogicError(f"no function {name!r} (defined: {known})", SourceLoc(module.path))
