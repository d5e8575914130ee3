"""Interprocedural and branch-correlation facts of a whole module (issue #15 slice 1): the call
graph resolved to function ids, call sites in normal form (arguments, result), return values,
copies, constant assignments, compares feeding branches, what an instruction or a branch edge
asserts about a register, and which of those assertions decide the module's branch queries.

PathFinder §7.1.3 (spec ``pathfinder.md`` §10.1, §10.3): a query ``(v relop c)`` raised at a
conditional branch is resolved by a constant assignment, by a branch condition on the incoming
edge, or by a value range (the unsigned-to-signed source: a zero-extended load, a 0/1 compare, an
``and`` with a non-negative mask, a 32-bit sign extension). Comparing 64-bit constants is done
here, once, into the table ``decides`` (Datalog integers are 32-bit on both engines).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from pylogic.ir.model import (Alloca, BinOp, Call, Cmp, CondBr, Function, Imm, Load, Module, Mov, Reg,
                              Ret)
from pylogic.ir.ops import NEGATED, SWAPPED, intervals
from facts_gen.constant_folding import block_constants
from pylogic.identity_cache import BodyCache, IdentityCache
from facts_gen.memory_cells import RELATIONS as CELL_RELATIONS, memory_cell_facts
from facts_gen.query_arithmetic import arithmetic_steps, decide_query, rewrite as arithmetic_rewrite
from facts_gen.value_sets import _disjoint, _subset, parse_condition
from facts_gen.naming import function_id, instr_id
from facts_gen.pair_queries import RELATIONS as PAIR_RELATIONS, pair_facts

RELATIONS = ("call_target", "call_arg", "call_result", "return_value", "external_entry",
             "copy", "const_assign", "branch_compare", "assert_def", "assert_edge", "const_cond", "decides",
             "correlation_budget", "correlation_window", "correlation_near", "query_rewrite") + CELL_RELATIONS + (
             "call_continuation", "return_exit") + PAIR_RELATIONS

#: Times a branch query may go from a procedure entry to its callers before its unresolved paths
#: become UNDEF (PathFinder §7.5 terminates after a node-query budget; a depth bound is the
#: Datalog form, spec §10.3).
DEFAULT_BUDGET = 4
#: Blocks of its own function a branch query may visit around the branch, in reverse postorder
#: (an order-independent bound on visited nodes, PathFinder §7.5's early termination inside a
#: procedure; this default does not bound the programs we analyze).
DEFAULT_WINDOW = 1 << 20
#: Blocks back from a branch that ``cbe`` looks for decided paths (its ``max_path``, at most
#: this): ``correlation_edge_near`` holds the answers its walk back along such paths reads
#: (datalog/correlation.dl; issue #28 item 1).
CORRELATION_NEAR = 4
#: Assertion x query pairs the ``decides`` table may examine in one module before it is cut to
#: the queries of each function's call-graph neighbours.
DECIDES_LIMIT = 2_000_000
#: Query rewriting makes a query at most REWRITE_DEPTH rewrites from its branch (a loop's
#: ``i = add i, 1`` would make new ones forever) and at most REWRITE_LIMIT new queries per
#: function; a query left without its rewrite is UNDEF at that definition.
REWRITE_DEPTH = 8
REWRITE_LIMIT = 64

@lru_cache(maxsize=1 << 16)
def decide(cond: str, rel: str, c: int) -> Optional[str]:
    """``TRUE`` when every value the assertion allows satisfies ``rel c``, ``FALSE`` when none
    does, else None (an empty assertion -- a dead path -- decides nothing). Pure, so cached: a
    module asks the same few assertions of its queries again and again (issue #32)."""
    if "." in rel or rel == "in":                # a width or set query (query_arithmetic.py)
        return decide_query(parse_condition(cond), rel, c)
    s, q = parse_condition(cond), intervals(rel, c)
    if not s:
        return None
    if _subset(s, q):
        return "TRUE"
    if _disjoint(s, q):
        return "FALSE"
    return None


def _range_of(ins) -> Optional[str]:
    """What the result of ``ins`` always satisfies, from its opcode alone (PathFinder source 3,
    the unsigned-to-signed conversion, generalised to ranges)."""
    if ins.guard is not None:
        return None
    if isinstance(ins, Mov) and isinstance(ins.src, Imm):
        return f"eq {ins.src.value}"
    if isinstance(ins, Alloca):     # an alloca's address is never 0 (docs/pir.md: fresh bytes; source 4)
        return "ne 0"
    if isinstance(ins, Cmp):
        if isinstance(ins.a, Imm) and isinstance(ins.b, Imm):      # a compare of constants
            return "eq 1" if decide(f"eq {ins.a.value}", ins.rel, ins.b.value) == "TRUE" else "eq 0"
        return "range 0 1"
    if isinstance(ins, Load) and not ins.signed and ins.size < 8:
        return f"range 0 {(1 << (8 * ins.size)) - 1}"
    if isinstance(ins, Load) and ins.size < 8:                  # sign-extended
        return f"range {-(1 << (8 * ins.size - 1))} {(1 << (8 * ins.size - 1)) - 1}"
    if isinstance(ins, BinOp):
        a, b = ins.a, ins.b
        if ins.op == "and":
            masks = [x.value for x in (a, b) if isinstance(x, Imm) and x.value >= 0]
            if masks:
                return f"range 0 {min(masks)}"
        if ins.op == "or":                  # every bit of a negative mask m set: m <= x | m <= -1
            masks = [x.value for x in (a, b) if isinstance(x, Imm) and x.value < 0]
            if masks:
                return f"range {min(masks)} -1"
        if ins.op == "shr" and isinstance(b, Imm) and 1 <= b.value % 64:
            return f"range 0 {(1 << (64 - b.value % 64)) - 1}"
        if ins.op == "sar" and isinstance(b, Imm) and 1 <= b.value % 64:
            k = b.value % 64
            return f"range {-(1 << (63 - k))} {(1 << (63 - k)) - 1}"
    return None


def _branch_condition(block, t: int) -> Optional[tuple[str, str, int]]:
    """``(v, rel, c)``: the unguarded ``cbr`` at index t decides on ``v rel c`` -- a compare of a
    register with a constant in the same block, neither redefined before the branch -- or on
    ``r ne 0`` for a condition register not computed by a compare here."""
    cbr = block.instrs[t]
    if cbr.guard is not None or not isinstance(cbr.cond, Reg):
        return None
    r = cbr.cond.name
    for k in range(t - 1, -1, -1):
        ins = block.instrs[k]
        if r not in ins.defs():
            continue
        if not isinstance(ins, Cmp) or ins.guard is not None:
            return (r, "ne", 0) if not isinstance(ins, Cmp) else None
        if isinstance(ins.a, Reg) and isinstance(ins.b, Imm):
            v, rel, c = ins.a.name, ins.rel, ins.b.value
        elif isinstance(ins.b, Reg) and isinstance(ins.a, Imm):
            v, rel, c = ins.b.name, SWAPPED[ins.rel], ins.a.value
        elif isinstance(ins.a, Imm) and isinstance(ins.b, Imm):
            return r, "ne", 0                   # decided by the compare's constant result
        elif ins.a == ins.b:
            return r, "ne", 0                   # a value compared with itself (folded)
        else:
            return None
        if v == r or any(v in later.defs() for later in block.instrs[k + 1:t]):
            return None
        return v, rel, c
    return r, "ne", 0


@dataclass(frozen=True)
class _FunctionPart:
    """What one function body contributes to a module's interprocedural facts, before the
    module-wide steps: its rows (per relation, in the order written), and what the module-wide
    steps read of it."""
    rows: dict            # relation -> this function's rows
    conds: frozenset      # assertions of its decides rows so far (``conds``)
    callees: tuple        # the defined functions its unguarded calls name, one per call
    queries: frozenset    # its branches' (rel, c)
    compares: tuple       # (f, i, t, a, rel, c): t = cmp.rel a, c
    arith: tuple          # (f, i, v, a, step): query_arithmetic.py
    asserts: tuple        # assert_def candidates (f, i, r, cond)


def _function_part(fn: Function, relpath: str, defined: frozenset) -> _FunctionPart:
    """The ``_FunctionPart`` of ``fn`` of file ``relpath`` (``defined``: the names of the
    module's defined functions, the callees whose calls are call sites)."""
    f = function_id(relpath, fn.name)
    out: dict[str, list[tuple]] = {r: [] for r in _PART_RELATIONS}
    mine = {"eq 0"}                                # a register never written reads 0 (docs/pir.md)
    callees, queries, compares, asserts = [], set(), [], []
    merged = _read_beyond_its_branch(fn)
    arith = [(f, instr_id(label, k), v, a, step) for label, k, v, a, step in _arithmetic_steps(fn)]
    for b in fn.blocks:
        folded = _FOLDED.get_or_compute(b, lambda: block_constants(b))   # (source 1)
        for k, ins in enumerate(b.instrs):
            i = instr_id(b.label, k)
            if isinstance(ins, Call):
                if ins.callee in defined and ins.guard is None:   # (only these args are read)
                    mine.update(f"eq {a.value}" for a in ins.args if isinstance(a, Imm))
                    callees.append(ins.callee)
                    out["call_target"].append((f, i, function_id(relpath, ins.callee)))
                    for pos, a in enumerate(ins.args):
                        kind, text = _operand(a)
                        out["call_arg"].append((f, i, pos, kind, text))
                    if ins.dest is not None:
                        out["call_result"].append((f, i, ins.dest))
                    out["call_continuation"].extend(   # exit splitting (docs/pir.md)
                        (f, i, e, t) for e, t in enumerate(ins.continuations))
            elif isinstance(ins, Ret) and ins.guard is None:
                kind, text = _operand(ins.value) if ins.value is not None else ("const", "0")
                out["return_value"].append((f, i, kind, text))
                out["return_exit"].append((f, i, ins.exit))
                if kind == "const":
                    mine.add(f"eq {text}")
            elif isinstance(ins, Mov) and ins.guard is None and isinstance(ins.src, Reg):
                out["copy"].append((f, i, ins.dest, ins.src.name))
            if isinstance(ins, Mov) and ins.guard is None and isinstance(ins.src, Imm):
                out["const_assign"].append((f, i, ins.dest, str(ins.src.value)))
            rng = f"eq {folded[k]}" if k in folded else _range_of(ins)
            if isinstance(ins, Cmp) and k not in folded and ins.guard is None:
                shape = _compare_shape(ins)
                if shape is not None and shape[0] != ins.dest and ins.dest in merged:
                    compares.append((f, i, ins.dest) + shape)
            if rng is not None:                   # kept below if a query can meet it
                asserts.append((f, i, ins.defs()[0], rng))
            if isinstance(ins, CondBr):
                cond = _branch_condition(b, k)
                if cond is None:
                    continue
                v, rel, c = cond
                queries.add((rel, c))
                out["branch_compare"].append((f, i, v, rel, str(c)))
                if ins.if_true == ins.if_false:
                    continue
                r = ins.cond.name
                for target, rel2 in ((ins.if_true, rel), (ins.if_false, NEGATED[rel])):
                    out["assert_edge"].append((f, b.label, target, v, f"{rel2} {c}"))
                    mine.add(f"{rel2} {c}")
                    if r != v:
                        z = "ne 0" if target == ins.if_true else "eq 0"
                        out["assert_edge"].append((f, b.label, target, r, z))
                        mine.add(z)
                        queries.add(("ne", 0))
    pair_facts(f, fn, out, out["copy"])                 # queries (v rel w): pair_queries.py
    return _FunctionPart({r: rows for r, rows in out.items() if rows}, frozenset(mine),
                         tuple(callees), frozenset(queries), tuple(compares), tuple(arith),
                         tuple(asserts))


#: the relations ``_function_part`` writes
_PART_RELATIONS = ("call_target", "call_arg", "call_result", "call_continuation", "return_value",
                   "return_exit", "copy", "const_assign", "branch_compare", "assert_edge") \
    + PAIR_RELATIONS


@dataclass(frozen=True)
class QuestionCuts:
    """What the limits whose cut depends on the whole module cut in one module's facts:
    ``decisions_whole``, every function's ``decides`` table holds every query of the module
    (else, over ``DECIDES_LIMIT``, only those of itself, its callers and callees); ``capped``,
    the functions whose new rewritten queries reached ``REWRITE_LIMIT`` (which ones got in
    depends on the order of the closure's work list); ``cut_branches``, the branches ``(f, i)``
    whose query's closure can meet, over its registers, a rewrite that limit refused (the
    others got every rewrite their queries asked for: no other branch's queries took their
    room; ``_refused_from``)."""
    decisions_whole: bool
    capped: frozenset
    cut_branches: frozenset = frozenset()


#: module -> its ``QuestionCuts``
_CUTS = IdentityCache(16)


def question_cuts(module: Module) -> Optional[QuestionCuts]:
    """The ``QuestionCuts`` of the last ``interprocedural_facts`` of ``module`` (None when its
    facts were not extracted)."""
    return _CUTS.get(module)


def interprocedural_facts(module: Module, relpath: str, out: dict[str, list[tuple]]) -> None:
    """Append the interprocedural and correlation relations of ``module`` to ``out``."""
    defined = {fn.name: fn for fn in module.defined_functions() if fn.blocks}
    callers: dict[str, int] = {name: 0 for name in defined}
    queries: set[tuple[str, int]] = set()
    own: dict[str, set] = {}                     # function id -> its branches' (rel, c)
    neighbours: dict[str, set] = {}              # function id -> itself, callers and callees
    conds: dict[str, set[str]] = {}
    compares: list[tuple] = []                   # (f, i, t, a, rel, c): t = cmp.rel a, c
    arith: list[tuple] = []                      # (f, i, v, a, step): query_arithmetic.py
    asserts: list[tuple] = []                    # assert_def candidates (f, i, r, cond)
    n_copy, n_ret, n_res, n_bc = (len(out[r]) for r in ("copy", "return_value", "call_result",
                                                        "branch_compare"))
    start = {r: len(out[r]) for r in READ_RELATIONS}       # this module's rows from here
    rewritten: set[tuple] = set()
    names = frozenset(defined)
    for fn in defined.values():
        f = function_id(relpath, fn.name)
        part = _part(fn, relpath, names)
        conds[f] = set(part.conds)
        for name, rows in part.rows.items():
            out[name].extend(rows)
        for callee in part.callees:
            callers[callee] += 1
            g = function_id(relpath, callee)
            neighbours.setdefault(f, {f}).add(g)
            neighbours.setdefault(g, {g}).add(f)
        if part.queries:
            queries |= part.queries
            own[f] = set(part.queries)
        compares.extend(part.compares)
        arith.extend(part.arith)
        asserts.extend(part.asserts)
    memory_cell_facts(module, relpath, out, conds)   # globals and dereferences (Fig. 7.4)
    # Only definitions a query can meet get their assertion (and their decisions): a query's
    # variable starts at a branch and changes only through copies (cells included), return
    # values, parameters and compare rewrites -- so the other registers are never asked about.
    rewriters: dict[tuple, list] = {}
    for f, i, t, a, rel1, c1 in compares:
        rewriters.setdefault((f, t), []).append((i, a, _compare_step(rel1, c1)))
    for f, i, v, a, step in arith:
        rewriters.setdefault((f, v), []).append((i, a, _arith_step(step)))
    pending = _pending(module, relpath, out, n_copy, n_ret, n_res, n_bc, rewriters)
    queried = set(pending)
    for f, i, r, cond in asserts:
        if (f, r) in queried:
            out["assert_def"].append((f, i, r, cond))
            conds[f].add(cond)
    # A query on a compare's 0/1 result t = cmp.REL a, C is the compare's own question (a REL C)
    # or its negation: back-substitution through the compare (PathFinder §7.1.3.1: richer
    # rewriting than copies), for the queries the 0/1 range does not decide; and through add/sub
    # of a constant and sign/zero extensions (query_arithmetic.py: the preimage of the query's
    # set, exact modulo the width). Rows only for the queries that may be pending on t
    # (``_pending``); the new queries are decided in the functions they may be pending in and
    # their neighbours (elsewhere they are UNDEF: the decides table stays small).
    extra: dict[str, set] = {}
    for (f, r), qs in pending.items():
        extra.setdefault(f, set()).update(q for q in qs if q not in queries)
    for (f, t), steps in sorted(rewriters.items()):
        asked = sorted(pending.get((f, t), {}).items(), key=str)    # once, not once per step
        for i, a, fn in steps:
            for q, depth in asked:
                if depth >= REWRITE_DEPTH:
                    continue
                new = fn(q)
                if new is not None and new in pending.get((f, a), ()):
                    row = (f, i, t, q[0], str(q[1]), a, new[0], str(new[1]))
                    if row not in rewritten:
                        rewritten.add(row)
                        out["query_rewrite"].append(row)
    for name, n in callers.items():
        if n == 0 or name.lstrip("@") == "main":
            out["external_entry"].append((function_id(relpath, name),))
    # Decisions are made for every query of the module; when that table would exceed
    # DECIDES_LIMIT pairs, a function gets only the queries of itself, its callers and callees
    # (fewer decisions: farther queries become UNDEF there, never a wrong answer).
    small = sum(len(m) for m in conds.values()) * len(queries) <= DECIDES_LIMIT
    _CUTS.put(module, QuestionCuts(small, frozenset(pending.capped), frozenset(pending.cut)))
    # a function's rows for one assertion depend only on it and the queries near: most functions
    # share both (every query of the module), so each pair is decided once (issue #28 item 1:
    # the queries sorted again per function and assertion were a third of these facts); kept
    # from module to module (``_DECIDED``): an iterated pass's rounds ask the same pairs again
    decided = _DECIDED if len(_DECIDED) < DECIDED_KEPT else _DECIDED.clear() or _DECIDED
    readable = readable_queries({r: out[r][start[r]:] for r in READ_RELATIONS},
                                parameter_positions(module, relpath))
    # the queries by their text in the facts, made once: a function's near queries are the
    # readable ones among them (issue #28 item 1: the text of every query of the module made
    # per function and round)
    by_text: dict[tuple, list] = {}
    for q in queries.union(*extra.values()):
        by_text.setdefault((q[0], str(q[1])), []).append(q)
    for f, mine in conds.items():
        out["correlation_budget"].append((f, DEFAULT_BUDGET))
        out["correlation_window"].append((f, DEFAULT_WINDOW))
        out["correlation_near"].append((f, CORRELATION_NEAR))
        # near: every query of the module if small, else those of f, its callers and callees;
        # and the rewritten queries of these functions (``extra``)
        around = neighbours.get(f, {f})
        sets = [extra[g] for g in around | {f} if g in extra]
        sets += [queries] if small else [own[g] for g in around if g in own]
        can = readable.get(f, ())
        near = frozenset(q for text, qs in by_text.items() if text in can for q in qs
                         if any(q in s for s in sets)) if can else frozenset()
        for cond in sorted(mine):
            if cond.startswith("eq "):
                out["const_cond"].append((f, cond[3:], cond))
            rows = decided.get((cond, near))
            if rows is None:
                order = decided.get(near)
                if order is None:
                    order = decided[near] = sorted(near, key=str)
                rows = decided[cond, near] = [(cond, rel, str(c), answer) for rel, c in order
                                              if (answer := decide(cond, rel, c)) is not None]
            out["decides"].extend((f,) + row for row in rows)


#: a block's folded constants, a function body's arithmetic steps and its part of the facts, kept
#: by identity: the rounds of an iterated pass (icbe) rebuild the Function objects but keep the
#: Block objects they did not change, and ask for the facts of the whole module every round
#: (issue #28 item 1)
_FOLDED = IdentityCache(1 << 14)
#: ``(assertion, queries)`` -> its ``decides`` rows but the function, and ``queries`` -> them
#: sorted (``interprocedural_facts``): a function of these alone, kept across modules, at most
#: about DECIDED_KEPT entries (then cleared)
_DECIDED: dict = {}
DECIDED_KEPT = 1 << 12
_STEPS = BodyCache(1 << 12)
_PARTS = BodyCache(1 << 12)


def _arithmetic_steps(fn: Function) -> list[tuple]:
    """``arithmetic_steps(fn, _range_of)``, computed once per function body (its blocks and
    parameters, all that it reads)."""
    return _STEPS.get_or_compute(fn, fn.params, lambda: arithmetic_steps(fn, _range_of))


def _part(fn: Function, relpath: str, defined: frozenset) -> _FunctionPart:
    """``_function_part(fn, relpath, defined)``, computed once per function body and what else
    it reads (its file, name, parameters, which of its callees are defined: icbe's rounds add
    functions, its clones)."""
    return _PARTS.get_or_compute(fn, (relpath, fn.name, fn.params, fn.callees() & defined),
                                 lambda: _function_part(fn, relpath, defined))


def _compare_step(rel1: str, c1: int):
    """The query on t = cmp.REL1 a, C1 that (rel0, c0) on t becomes, or None."""
    def step(q):
        rel0, c0 = q
        x, y = decide("eq 1", rel0, c0), decide("eq 0", rel0, c0)
        if (x, y) == ("TRUE", "FALSE"):
            return rel1, c1
        if (x, y) == ("FALSE", "TRUE"):
            return NEGATED[rel1], c1
        return None
    return step


def _arith_step(step: tuple):
    return lambda q: arithmetic_rewrite(step, q[0], q[1])


def _pending(module: Module, relpath: str, out: dict, n_copy: int, n_ret: int, n_res: int,
             n_bc: int, rewriters: dict) -> dict[tuple, dict]:
    """``{(function id, register): {(rel, c)}}``: the queries a branch query of this module may
    be pending on each register with: the closure of the branch queries under copies (this
    module's rows from the given offsets), call results (to the callee's returned registers),
    parameters (to the call sites' arguments) and ``rewriters`` (``(f, t) -> [(instr, a,
    step)]``: the query on t becomes ``step(query)`` on a, None for none; at most REWRITE_DEPTH
    rewrites from a branch and REWRITE_LIMIT new queries per function); a memory cell's query
    reaches the registers stored to it. Each query maps to the fewest rewrites it is reached
    with; the result (a ``_Pending``) names the functions REWRITE_LIMIT cut
    (``capped``)."""
    copies: dict[tuple, list] = {}
    for f, _, d, w in out["copy"][n_copy:]:
        copies.setdefault((f, d), []).append((f, w))
        if d.startswith("*"):
            copies.setdefault(("*", d), []).append((f, w))
    rets: dict[str, list] = {}
    for h, _, kind, text in out["return_value"][n_ret:]:
        if kind == "reg":
            rets.setdefault(h, []).append((h, text))
    targets = {(f, i): g for f, i, g in out["call_target"]}
    step: dict[tuple, list] = {}
    for f, i, r in out["call_result"][n_res:]:
        step.setdefault((f, r), []).extend(rets.get(targets.get((f, i)), []))
    params = {}
    for fn in module.defined_functions():
        for p, name in enumerate(fn.params):
            params[(function_id(relpath, fn.name), name)] = p
    args: dict[tuple, list] = {}
    for f, i, pos, kind, text in out["call_arg"]:
        if kind == "reg" and (f, i) in targets:
            args.setdefault((targets[(f, i)], pos), []).append((f, text))
    pending = _Pending()                         # (f, register) -> {query: fewest rewrites}
    branch = set()
    seeds = []                                   # (branch, its query's register)
    work = []
    made: dict[str, set] = {}

    def add(key, q, depth):
        qs = pending.setdefault(key, {})
        if depth < qs.get(q, REWRITE_DEPTH + 1):
            qs[q] = depth
            work.append((key, q, depth))
    nexts: dict = {}                             # (f, register) -> ``successors``

    def successors(f: str, v: str) -> list:
        """The registers a query on v in f is pending on next, as it is."""
        got = nexts.get((f, v))
        if got is None:
            got = copies.get((f, v), []) + step.get((f, v), [])
            if v.startswith("*"):
                got = got + copies.get(("*", v), [])
            if (f, v) in params:
                got = got + args.get((f, params[(f, v)]), [])
            nexts[(f, v)] = got
        return got
    for f, i, v, rel, c in out["branch_compare"][n_bc:]:
        branch.add((rel, int(c)))
        add((f, v), (rel, int(c)), 0)
        seeds.append(((f, i), (f, v)))
    while work:
        (f, v), q, depth = work.pop()
        if pending[(f, v)][q] < depth:
            continue                                 # reached with fewer rewrites since
        nxt = successors(f, v)
        for key in nxt:
            add(key, q, depth)
        if depth >= REWRITE_DEPTH:
            continue
        for _, a, rewrite_step in rewriters.get((f, v), ()):
            new = rewrite_step(q)
            if new is None:
                continue
            mine = made.setdefault(f, set())
            if new not in branch and new not in mine:
                if len(mine) >= REWRITE_LIMIT:
                    pending.capped.add(f)
                    pending.refused.add((f, v))
                    continue
                mine.add(new)
            add((f, a), new, depth + 1)
    if pending.capped:
        pending.cut = _refused_from(pending.refused, seeds, nexts, rewriters)
    return pending


def _refused_from(refused: set, seeds: list, nexts: dict, rewriters: dict) -> set:
    """The branches of ``seeds`` (branch, its register) whose query's closure can meet a rewrite
    ``REWRITE_LIMIT`` refused (on a register of ``refused``): reached over the registers, from a
    query's register to those it is pending on next (``nexts``: every register of the closure)
    and those its rewrites make queries on, whatever the query (a superset of the closure's
    edges). The other branches' queries got every rewrite they asked for: fewer branches (a
    later round's) free no room they need (icbe's settling, ``analysis.correlation_rounds``)."""
    preds: dict = {}
    for node, nxt in nexts.items():
        for key in nxt:
            preds.setdefault(key, []).append(node)
        for _, a, _step in rewriters.get(node, ()):
            preds.setdefault((node[0], a), []).append(node)
    marked = set(refused)
    work = list(marked)
    while work:
        for p in preds.get(work.pop(), ()):
            if p not in marked:
                marked.add(p)
                work.append(p)
    return {b for b, register in seeds if register in marked}


class _Pending(dict):
    """``_pending``'s result, ``capped``: the functions whose new queries reached
    ``REWRITE_LIMIT`` (the others were left out), ``refused``: the registers whose query's
    rewrite was left out, and ``cut``: the branches whose queries can meet one of them
    (``_refused_from``; empty when none was)."""

    def __init__(self):
        super().__init__()
        self.capped: set = set()
        self.refused: set = set()
        self.cut: set = set()


def parameter_positions(module: Module, relpath: str) -> dict[tuple, int]:
    """``(function id, register) -> position`` of every defined function's parameters: the
    ``params`` of :func:`readable_queries` (the ``param`` facts, from the module)."""
    return {(function_id(relpath, fn.name), name): p
            for fn in module.defined_functions() for p, name in enumerate(fn.params)}


#: the relations ``readable_queries`` reads
READ_RELATIONS = ("copy", "call_target", "call_arg", "call_result", "return_value", "cell_def",
                   "memory_cell", "query_rewrite", "branch_compare")


def readable_queries(rows: dict, params: dict, pending: Optional[set] = None) -> dict[str, set]:
    """``{function id: {(rel, c)}}`` (c as written in the facts): the queries whose ``decides``
    rows of that function ``correlation.dl`` can read, given the rows of READ_RELATIONS of one
    module (``branch_compare``: the branches asked) and ``params`` (``(function id, register)
    -> position``). It reads no other row of the table, so the rest are left out (issue #28
    item 1: they were most of the table, and ``_edge_decided`` and ``_def_decided`` joined every
    one of them with the function's assertions); the functions not named are read nothing of
    (``correlation_rounds``).

    Why no row left out is read. Every rule of correlation.dl that reads ``decides(g, cond, rel,
    c, _)`` has in its body a query (rel c) pending in g (``_cq``, ``_cdef``, ``_cqe``,
    ``_csummed``: ``_def_decided``, ``_edge_decided`` and ``_deref_decides`` are negated only
    next to one), or a summary (rel c) asked of g (``_csum``: its constant returns), or is one of
    the two rules reading a caller g's constant argument for a query (rel c) pending on the
    callee's parameter (``_cans`` at the entry, ``correlation_call``). So the table needs (g, rel,
    c) for those alone. They are bounded by a closure over (function, register or cell, query)
    that follows every rule making a pending query on a new register, function or question,
    without their conditions (blocks, depth, budget, window, context), so it only adds:
    branch_compare (the seeds); copy (a copy's source; a cell's load and store); a call defining
    v -- its result or a cell it may store (``call_result``, ``cell_def`` with ``call_target``,
    also a split call's) -- asks its callee's summary (``_csum``, ``_ccsum``: the returned
    registers, the cell at its returns); a parameter goes to every call site's register argument
    and reads the constant ones (a branch's query at the entry; a summary's TRANS path, which
    ``_ccarg`` continues at the call site that asked); a memory cell goes to every caller (a
    branch's at the entry, a summary's TRANS cell through ``_ccont``); ``query_rewrite`` (the
    question and register it names). A function none of these reaches has no pending query and
    is asked no summary, and every rule reading its facts has one of those in its body (or is
    one of the two constant-argument rules above, whose caller is named).

    ``pending``, when given, gets every ``(function id, register or cell, (rel, c))`` of the
    closure: the registers each query can be pending on there (``correlation_rounds._read_only``
    cuts ``decides`` to the assertions on them)."""
    copies: dict[tuple, list] = {}
    for f, _, d, w in rows["copy"]:
        copies.setdefault((f, d), []).append(w)
    targets = {(f, i): g for f, i, g in rows["call_target"]}
    callers: dict[str, set] = {}
    for (f, _), g in targets.items():
        callers.setdefault(g, set()).add(f)
    sites: dict[tuple, list] = {}                # (callee, position) -> (caller, kind, text)
    for f, i, pos, kind, text in rows["call_arg"]:
        if (f, i) in targets:
            sites.setdefault((targets[(f, i)], pos), []).append((f, kind, text))
    rets: dict[str, list] = {}
    for h, _, kind, text in rows["return_value"]:
        if kind == "reg":
            rets.setdefault(h, []).append(text)
    calls: dict[tuple, list] = {}                # (f, v) -> (call, callee, v is a cell)
    for f, i, r in rows["call_result"]:
        if (f, i) in targets:
            calls.setdefault((f, r), []).append((i, targets[(f, i)], False))
    for f, i, x in rows["cell_def"]:
        if (f, i) in targets:
            calls.setdefault((f, x), []).append((i, targets[(f, i)], True))
    cells = {(f, x) for f, x in rows["memory_cell"]}
    rewrites: dict[tuple, list] = {}
    for f, _, v, rel, c, w, rel2, c2 in rows["query_rewrite"]:
        rewrites.setdefault((f, v, (rel, c)), []).append((w, (rel2, c2)))
    readable: dict[str, set] = {}
    seen: set = set()
    work: list = []

    def add(f, v, q):
        if (f, v, q) not in seen:
            seen.add((f, v, q))
            work.append((f, v, q))
    for f, _, v, rel, c in rows["branch_compare"]:
        add(f, v, (rel, c))
    while work:
        f, v, q = work.pop()
        readable.setdefault(f, set()).add(q)
        if pending is not None:
            pending.add((f, v, q))
        for w in copies.get((f, v), ()):
            add(f, w, q)
        for i, h, cell in calls.get((f, v), ()):
            readable.setdefault(h, set()).add(q)
            if cell:
                add(h, v, q)
            else:
                for w in rets.get(h, ()):
                    add(h, w, q)
        if (f, v) in params:
            for g, kind, text in sites.get((f, params[(f, v)]), ()):
                if kind == "reg":
                    add(g, text, q)
                else:
                    readable.setdefault(g, set()).add(q)
        if (f, v) in cells:
            for g in callers.get(f, ()):
                add(g, v, q)
        for w, q2 in rewrites.get((f, v, q), ()):
            add(f, w, q2)
    return readable


def _read_beyond_its_branch(fn: Function) -> set[str]:
    """Registers read other than as the condition of a ``cbr`` in the block that computes them
    (a compare feeding its own block's ``cbr`` is asked about directly: branch_compare)."""
    out: set[str] = set()
    for b in fn.blocks:
        out |= b.derived("_read_beyond_its_branch", _read_in_block)
    return out


def _read_in_block(b) -> frozenset:
    """``_read_beyond_its_branch`` of one block (what it reads depends on it alone)."""
    own = {r for ins in b.instrs for r in ins.defs()}
    out: set[str] = set()
    for ins in b.instrs:
        if isinstance(ins, CondBr) and isinstance(ins.cond, Reg) and ins.cond.name in own:
            continue
        out.update(op.name for op in ins.uses() if isinstance(op, Reg))
    return frozenset(out)


def _compare_shape(ins: Cmp) -> Optional[tuple[str, str, int]]:
    """``(a, rel, c)`` when the compare is ``a rel c`` of a register and a constant."""
    if isinstance(ins.a, Reg) and isinstance(ins.b, Imm):
        return ins.a.name, ins.rel, ins.b.value
    if isinstance(ins.b, Reg) and isinstance(ins.a, Imm):
        return ins.b.name, SWAPPED[ins.rel], ins.a.value
    return None


def _operand(op) -> tuple[str, str]:
    if isinstance(op, Reg):
        return "reg", op.name
    if isinstance(op, Imm):
        return "const", str(op.value)
    return "global", op.name
