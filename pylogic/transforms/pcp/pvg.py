"""The predicated value graph of a PSSA region and its local evaluation (predicated_cp.md
§2.7-§2.9 definitions, §3.5 construction, §3.6 basic and §3.7 full rules), with the digest's
resolutions: F1 (a predicate defined under a false guard is false), F2 (the super-node merge
skips components whose guard is false), F3/G1 (the filter is "guard value ≠ false", not the
paper's literal ``⊆ {true, ⊤}``), G3 (input and live-in leaves start at ⊥ or the entry info,
never ⊤), G4 (components match when one FPP path is a prefix of the other).

Example
-------
>>> graph = build_pvg(build_pssa(fn, region), full=True)         # doctest: +SKIP
>>> evaluate(graph); graph.value_of("z.3")
17

References: predicated_cp.md §2.7-§3.7, §3.9, §3.10; checklist §6.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Optional

from pylogic.flow.lattice import BOT, TOP, apply, meet_all
from pylogic.transforms.pcp.pssa import PSSA, TRUE, PSSAInstr, fpp_name

MODELS = ("C", "A")


@dataclass(eq=False)
class Node:
    """A PVG node. ``kind``: const | input | livein | op | super | pred.

    ``label``: the constant, the opcode, or for predicate nodes ``is`` / ``not`` / ``or``;
    ``path``: the FPP path of a component node (None otherwise); ``guard``: the node of the
    predicate guarding the defining instruction (full version only); ``var``: the SSA name.
    """
    kind: str
    label: object = None
    operands: list = field(default_factory=list)
    components: list = field(default_factory=list)
    path: Optional[tuple] = None
    guard: Optional["Node"] = None
    var: Optional[str] = None
    instr: Optional[PSSAInstr] = None
    value: object = TOP

    @property
    def is_component(self) -> bool:
        return self.path is not None

    def elem_nodes(self) -> list:
        """``ElemNodes(n)``: the components of a super node, else ``[n]`` (§2.8)."""
        return self.components if self.kind == "super" else [self]


def compatible(a: Optional[tuple], b: Optional[tuple]) -> bool:
    """Two FPP paths can lie on one execution: one is a prefix of the other (G4); a node that
    is not a component (None) is compatible with everything."""
    if a is None or b is None:
        return True
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def match(a: Node, b: Node) -> bool:
    """``match`` of §2.8 with G4: components match when their FPP paths are compatible (equal
    FPPs in the paper's examples); a component matches every non-component; two non-components
    match."""
    return compatible(a.path, b.path)


@dataclass
class PVG:
    """Nodes in construction (topological) order; ``gen``: SSA name -> generating node;
    ``preds``: predicate name -> node (full version); ``of_instr``: PSSA instruction index ->
    the node its right-hand side generates."""
    pssa: PSSA
    full: bool
    model: str = "C"
    nodes: list = field(default_factory=list)
    gen: dict = field(default_factory=dict)
    preds: dict = field(default_factory=dict)
    of_instr: dict = field(default_factory=dict)
    true: Optional[Node] = None

    def value_of(self, name: str):
        """The evaluated value of an SSA name (its node or super node)."""
        return self.gen[name].value

    def predicate_value(self, name: str):
        return self.preds[name].value if name in self.preds else TOP


def build_pvg(pssa: PSSA, full: bool = True, model: str = "C",
              entry: Optional[dict] = None) -> PVG:
    """The PVG of ``pssa`` (§3.5); ``full`` adds predicate nodes and guard edges (§2.9).

    ``entry``: value of each register live into the region (default ⊥: the start state σ⊥).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}")
    g = PVG(pssa, full, model)
    entry = entry or {}
    add = g.nodes.append

    def new(kind, **kw) -> Node:
        node = Node(kind, **kw)
        add(node)
        return node

    g.true = new("const", label=1, var=TRUE)
    g.preds["p0"] = g.preds["true"] = g.preds[TRUE] = g.true
    counts: dict = {}
    for ins in pssa.instrs:
        if ins.op not in ("OR", "cmp.unc"):
            for d in ins.dests:
                counts[d] = counts.get(d, 0) + 1

    def operand(a) -> Node:
        if isinstance(a, int):
            return new("const", label=a)
        if a not in g.gen:       # a version live into the region (x.0)
            source = pssa.versions.get(a, a.rsplit(".", 1)[0])
            g.gen[a] = new("livein", var=a, value=entry.get(source, BOT))
        return g.gen[a]

    def expression(e, path: Optional[tuple] = None) -> Node:
        """A condition's operation nodes; on a per-path compare they are components of that
        path, so a super-node operand contributes only its components on the path (G4)."""
        if isinstance(e, tuple):
            return new("op", label=e[0], operands=[expression(x, path) for x in e[1:]],
                       path=path)
        return operand(e)

    for k, ins in enumerate(pssa.instrs):
        guard = g.preds.get(ins.guard) if full else None
        if ins.op == "OR":
            if full:
                ops = [g.true if a == TRUE else g.preds.get(a, g.true) for a in ins.args]
                g.preds[ins.dests[0]] = new("pred", label="or", operands=ops, guard=guard,
                                            var=ins.dests[0], instr=ins)
            continue
        if ins.op == "cmp.unc":
            c = expression(ins.cond, ins.path)
            g.of_instr[k] = c
            if full:
                t, f = ins.dests
                g.preds[t] = new("pred", label="is", operands=[c], guard=guard, var=t, instr=ins)
                g.preds[f] = new("pred", label="not", operands=[c], guard=guard, var=f, instr=ins)
            continue
        (dest,) = ins.dests if ins.dests else (None,)
        duplicated = dest is not None and counts.get(dest, 0) > 1
        if ins.op == "print":
            continue                                        # no value; its operands are read
        if ins.op == "input":
            node = new("input", value=BOT)
        elif ins.op == "mov" and isinstance(ins.args[0], int) and not duplicated:
            node = new("const", label=ins.args[0])
        elif ins.op == "mov" and not duplicated:
            node = operand(ins.args[0])                     # trivial copy: same node
        else:
            node = new("op", label=ins.op, operands=[operand(a) for a in ins.args])
        if duplicated:
            node.path, node.var, node.instr, node.guard = ins.path, dest, ins, guard
            sup = g.gen.get(dest)
            if sup is None or sup.kind != "super":
                sup = g.gen[dest] = new("super", var=dest)
            sup.components.append(node)
        elif dest is not None:
            if node.instr is None:
                node.instr, node.guard = ins, guard
            g.gen[dest] = node
        g.of_instr[k] = node
    # super nodes were appended when their first component appeared: move each after its
    # last component so that node order is an evaluation order
    supers = [n for n in g.nodes if n.kind == "super"]
    g.nodes = [n for n in g.nodes if n.kind != "super"]
    for s in supers:
        at = max(g.nodes.index(c) for c in s.components) + 1
        g.nodes.insert(at, s)
    return g


def _truth(v):
    """A condition value as a predicate value (Model C): nonzero -> 1."""
    return v if v is TOP or v is BOT else int(v != 0)


def _passes(node: Node) -> bool:
    """The full version's filter for a component: its guard is not known false (G1/F3)."""
    return not node.is_component or node.guard is None or node.guard.value != 0


def evaluate(g: PVG) -> PVG:
    """One pass over the nodes in order (§3.6, §3.7): constants and leaves first, components
    before their super node, predicate nodes before what they guard."""
    full = g.full
    for n in g.nodes:
        if n.kind == "const":
            n.value = n.label
        elif n.kind in ("input", "livein"):
            pass                                            # set at construction (G3)
        elif n.kind == "super":
            comps = [c for c in n.components if not full or _passes(c)]          # F2
            n.value = meet_all(c.value for c in comps)
        elif n.kind == "pred":
            n.value = _predicate(n, g.model)
        else:                                               # op: rule 1 / 1'
            choices = [o.elem_nodes() for o in n.operands]
            vals = []
            for combo in itertools.product(*choices):
                if n.is_component and not all(compatible(c.path, n.path) for c in combo):
                    continue
                if not all(match(a, b) for a, b in itertools.combinations(combo, 2)):
                    continue
                if full and not all(_passes(c) for c in combo):
                    continue
                vals.append(apply(n.label, *(c.value for c in combo)))
            n.value = meet_all(vals)
    return g


def _predicate(n: Node, model: str):
    """Value of a predicate node: the condition / OR value (Model C), or its conjunction with
    the guard (Model A); false whenever the guard is false (F1)."""
    guard = n.guard.value if n.guard is not None else 1
    if guard == 0:
        return 0
    if n.label == "is":
        v = _truth(n.operands[0].value)
    elif n.label == "not":
        c = _truth(n.operands[0].value)
        v = c if c is TOP or c is BOT else 1 - c
    else:
        vals = [o.value for o in n.operands]
        if any(x == 1 for x in vals if x is not TOP and x is not BOT):
            v = 1
        elif all(x == 0 for x in vals if x is not TOP and x is not BOT) and \
                not any(x is BOT for x in vals) and not any(x is TOP for x in vals):
            v = 0
        elif any(x is BOT for x in vals):
            v = BOT
        else:
            v = TOP
    if model == "A" and guard is not TOP and v != 0:
        v = v if guard == 1 else (BOT if v is not TOP else TOP)
    return v


def false_predicates(g: PVG) -> set:
    """Predicate names whose value is false (full version)."""
    return {name for name, n in g.preds.items() if n.kind == "pred" and n.value == 0}


def off_predicated(g: PVG) -> list[int]:
    """Indices of PSSA instructions whose guard evaluates to false (§2.10, §3.9 [*])."""
    if not g.full:
        return []
    return [k for k, ins in enumerate(g.pssa.instrs)
            if ins.guard in g.preds and g.preds[ins.guard].value == 0]


def simplify(g: PVG, merge_duplicates: bool = True) -> list[PSSAInstr]:
    """The PSSA after CP (§3.9): off-predicated instructions removed, false OR operands
    dropped, constant compare conditions folded to TRUE/FALSE, right-hand sides replaced by
    their constant (per component), and (optionally, as Table 3 shows) the surviving
    duplicates of one name with one constant merged under their block predicate."""
    off = set(off_predicated(g))
    out: list = []
    merged: dict = {}                   # SSA name -> index in out of its merged instruction
    for k, ins in enumerate(g.pssa.instrs):
        if k in off:
            continue
        if ins.op == "OR":
            args = tuple(a for a in ins.args if g.predicate_value(a) != 0) if g.full else ins.args
            out.append(dataclasses.replace(ins, args=args))
            continue
        node = g.of_instr.get(k)
        if ins.op == "cmp.unc":
            v = node.value
            if v is not TOP and v is not BOT:
                ins = dataclasses.replace(ins, cond=TRUE if v != 0 else "FALSE")
            out.append(ins)
            continue
        v = node.value if node is not None else TOP
        if v is not TOP and v is not BOT and ins.dests:
            ins = dataclasses.replace(ins, op="mov", args=(v,))
        if merge_duplicates and ins.path is not None and ins.dests:
            sup = g.gen[ins.dests[0]]
            live = [c for c in sup.components if not g.full or _passes(c)]
            consts = {c.value for c in live}
            if len(live) > 1 and len(consts) == 1 and not ({TOP, BOT} & consts):
                if ins.dests[0] in merged:
                    continue
                merged[ins.dests[0]] = len(out)
                ins = dataclasses.replace(ins, guard=ins.origin[0], path=None)
        out.append(ins)
    return out


def source_constants(g: PVG) -> dict:
    """Remapping (§3.9, Fig. 3(b)/(c)): ``(block, index)`` of a source instruction that is not
    already a constant assignment -> its constant value: the value of its PSSA node or, when
    it was duplicated, of its super node."""
    out = {}
    for k, ins in enumerate(g.pssa.instrs):
        if ins.op in ("OR", "cmp.unc") or not ins.dests or not ins.origin:
            continue
        if ins.op == "mov" and isinstance(ins.args[0], int):
            continue
        v = g.gen[ins.dests[0]].value
        if v is not TOP and v is not BOT:
            out[ins.origin] = v
    return out


__all__ = ["Node", "PVG", "build_pvg", "evaluate", "match", "compatible", "false_predicates",
           "off_predicated", "simplify", "source_constants", "fpp_name"]
