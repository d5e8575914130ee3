"""Rows of ``datalog/correlation.dl`` for the rounds of an iterated whole-module pass (``icbe``):
the first round asks every branch, a later round only the branches whose answers a change can
have reached; the others keep the rows of the round before (issue #28 item 1: icbe on csmith
was one whole-module engine call per round, 73-75% of its time).

Why that is sound. Every output row belongs to one *context*: a branch ``(f, i)`` (the rows
keyed ``f, i``) or a summary instance ``(h, q, rel, c)`` (``q`` = ``"return"`` or a memory cell;
the ``correlation_return*`` rows keyed ``h, rel, c``). A context's rows are derived from
(a) the input facts of the functions its queries were pending in (``correlation_reach``; the
per-function helpers of correlation.dl, ``_cseg``, ``_clocal``, ..., read only their own
function's facts), (b) for a branch, the call sites of every function whose entry its query
or its entry-splitting chain reached (``correlation_reach_entry``: the parameter, cell, budget
and ``correlation_call`` rules join ``call_target(g2, j, g)`` over all callers ``g2``, and read
their ``call_arg``, ``const_cond``, ``decides``), and (c) the rows of the summary instances
it asked (``correlation_uses``), themselves contexts read the same way, their function h
included (a summary is answered at h's constant returns with no query pending there; it never
goes to callers: every caller rule has ``!_sumctx``). Module-wide facts reach a context only through
per-function rows (``memory_cell``, ``decides``, ``query_rewrite`` and ``external_entry`` are
computed module-wide but written per function), so comparing each function's rows finds every
change: ``changed`` is the set of functions whose facts differ from the previous round's (new
and removed ones included; not one whose only difference is the callee of a call site, which
only contexts reading that callee read: ``_changed``), plus every callee of a call site added,
removed or retargeted (its callers are part of (b)). A branch whose reads (a)-(c) of the
previous round miss ``changed`` reads the same facts now, so it derives the same rows (a
Datalog program's rows are a function of its facts; what it reads of them is what it reached,
and what it reached is decided by those same facts). The round asks the others (new branches
included; none: no engine call, as no seed means no context and no row): ``branch_compare``
and ``branch_pair`` -- the only seeds of contexts -- are restricted to them for the engine,
every other fact is whole but for the functions those branches cannot read and the
``decides`` rows they cannot read (``_read_only``), so the summaries they ask are computed
fresh, from current facts. A summary
instance asked by a kept branch (transitively) lies in that branch's reads, so it is unchanged
too and keeps its rows. The rows handed to the pass are the whole facts, the fresh rows and the
kept ones: the rows a whole-module run would give, in the same (sorted) order.

Settled branches (``narrowing``: icbe's rounds). A branch none of whose paths gave TRUE or FALSE
(no such ``correlation`` row: every answer found anywhere on its walk flows back to the branch,
so none of its edges, calls or exits is decided either) stays so after a round that only
narrows paths: threading splits the paths into a branch among copies of the same instructions
and drops the infeasible ones (a decided ``cbr`` is a ``br``), entry and exit splitting give a
callee's clone a subset of its callers or its returns, a dropped function has no caller. Each
path of the new module runs the instructions of a path of the old one, and what decides a query
on a path -- its constants, assertions, rewrites, summaries and crossings -- is read along the
path; so an answer set can only lose members. Some inputs are not read along a path, and the
round must not have widened them: the memory cells (a global becomes a cell when a function
taking its address is dropped), the limits that cut a question by what the whole module holds
-- the ``decides`` table (every query of the module unless ``DECIDES_LIMIT``) and the rewritten
queries (``REWRITE_LIMIT`` per function: which ones get in depends on the closure's order; on
csmith-18 a decided branch freed room for a loop's rewrites, and a branch no path had decided got
FALSE a round later; ``question_cuts``) -- and the window (``correlation_window`` bounds the
reverse-postorder ranks a walk visits, and copies shift ranks). When the last round's tables and
windows were whole, no cell is new, no rewrite the branch's query closure asked for was refused
by ``REWRITE_LIMIT`` then (``QuestionCuts.cut_branches``: a branch that got every rewrite it
asked for needs no room another branch frees) and no capped function is new since it was asked
(a clone it may read now), a settled branch is not asked again and gets
no rows (a pass acts on none of its rows: they decide nothing); else it is asked again. A
settled branch is never kept for its reads (what it read rounds ago is not what it would read
now), and a pair question (``branch_pair``: its walk is cut at ``PAIR_LIMIT`` pairs) never
settles.
"""
from __future__ import annotations

from itertools import chain, groupby
from operator import itemgetter
from typing import Optional, Sequence

from facts_gen.extract import MODULE_RELATIONS, RELATIONS, families_for
from facts_gen.interprocedural import (READ_RELATIONS, parameter_positions, question_cuts,
                                       readable_queries)
from facts_gen.naming import escape_field
from pylogic.analysis import catalog
from pylogic.analysis.run import analysis_groups, extract, run_analyses
from pylogic.collector import freeze_survivors
from pylogic.engines.rows import Rows, sorted_distinct
from pylogic.errors import PathlogicError, printable_name
from pylogic.ir.model import Module

#: outputs keyed by their branch ``(f, i)``: its first two columns
BRANCH_KEYED = ("correlation", "correlation_edge", "correlation_edge_near", "correlation_through",
                "correlation_through_near", "correlation_start", "correlation_inside", "correlation_call",
                "correlation_branch_call")
#: outputs keyed by a return-value summary ``(h, rel, c)``: the columns of h, rel and c (None:
#: every summary of h, ``correlation_return_call`` exists for h once any is asked)
SUMMARY_KEYED = {"correlation_return": (0, 2, 3), "correlation_return_trans": (0, 1, 2),
                 "correlation_return_edge": (0, 3, 4), "correlation_return_call": None}
#: what each context read (correlation.dl, last section)
TRACE = ("correlation_reach", "correlation_reach_entry", "correlation_uses")
#: the seeds of branch contexts
SEEDS = ("branch_compare", "branch_pair")


def supported(relations: Sequence[str]) -> bool:
    """Whether every output among ``relations`` is a correlation output this module can keep
    per context (else a round runs whole)."""
    return all(r in RELATIONS or r in BRANCH_KEYED or r in SUMMARY_KEYED for r in relations)


class CorrelationRounds:
    """The rows of one module after another (each round's output), correlation outputs asked
    again only for the branches the change can have reached (module docstring).

    ``rows(module)`` returns what ``module_rows(module, relpath, relations=relations,
    engine=engine)`` returns, as sets of rows per relation, but no rows of the settled branches
    when ``narrowing`` (each module after the first is a round of a pass that only narrows
    paths: module docstring); ``asked`` the number of branches each call asked of the engine,
    out of ``branches``; ``settled`` the number of them not asked as settled (``settled_now``
    those of the last module).
    """

    def __init__(self, relpath: str, relations: Sequence[str], engine: str = "auto",
                 narrowing: bool = False):
        self.relpath = relpath
        self.outputs = [r for r in relations if r not in RELATIONS]
        # settling reads each branch's answers (``correlation``) whatever the pass needs
        self.trace_outputs = self.outputs + list(TRACE) + (
            ["correlation"] if narrowing and "correlation" not in self.outputs else [])
        self.read = catalog.inputs_read(self.trace_outputs)
        self.engine_reads = self.read | set(SEEDS)
        self.families = families_for({r for r in relations if r in RELATIONS}
                                     | self.engine_reads)
        self.engine = engine
        self._facts: Optional[dict] = None          # previous round's, per function
        self._module_facts: Optional[dict] = None
        self._rows: Optional[dict] = None           # previous round's outputs (+ trace)
        self._callers: dict = {}                    # function id -> its callers' ids
        self.narrowing = narrowing
        # branch no path decided -> the round it was asked in
        self._settled: dict = {}
        self._whole = False                         # the last round's table and windows whole
        self._capped: frozenset = frozenset()       # the last round's capped functions
        self._cut: frozenset = frozenset()          # the last round's cut branches
        self._cells: frozenset = frozenset()        # the last round's memory cells
        self._born: dict = {}                       # function id -> the round it came in
        self.asked: list[int] = []
        self.branches: list[int] = []
        self.settled: list[int] = []
        self.settled_now: set = set()

    def rows(self, module: Module) -> Rows:
        failures: dict = {}
        facts = extract([(module, self.relpath)], None, failures, self.families)
        if failures:
            raise PathlogicError(f"{printable_name(self.relpath)}: {failures[self.relpath]}")
        freeze_survivors()          # the facts live on into the next round (collector.py)
        # the relations the engine can read (differences in the others change no row; issue
        # #28 item 1: operand, use, ... were half of the rows each round split and compared)
        read = {r: rows for r, rows in facts.items() if r in self.engine_reads}
        per_function = _by_function(read)
        module_facts = {r: facts[r] for r in MODULE_RELATIONS if r in facts}
        branches = {row[:2] for row in chain.from_iterable(facts.get(s, ()) for s in SEEDS)}
        keep: set = set()
        settled: set = set()
        cells = frozenset(v for _g, v in facts.get("memory_cell", ()))
        if self._rows is not None and module_facts == self._module_facts:
            changed = _changed(self._facts, per_function, facts, self._call_targets, self.read)
            keep = {b for b in branches if b in self._touched and not
                    (self._touched[b] & changed)}
            if self.narrowing and self._whole and cells <= self._cells:
                settled = {b for b in branches & self._settled.keys() - keep
                           if self._uncut(b, self._settled[b])}
        ask = branches - keep - settled
        engine_facts = dict(read)
        if keep or settled:
            for s in SEEDS:
                if s in facts:
                    engine_facts[s] = [row for row in facts[s] if row[:2] in ask]
        if ask:
            _read_only(engine_facts, parameter_positions(module, self.relpath))
            groups = analysis_groups([(module, self.relpath)], self.trace_outputs)
            run = run_analyses(engine_facts, groups, self.engine, outputs=self.trace_outputs)
            if run.failures:
                f, message = sorted(run.failures.items())[0]
                raise PathlogicError(f"{f}: analysis failed: {message}")
            fresh = {r: list(run.rows.get(r, ())) for r in self.trace_outputs}
        else:           # no seed, no context: no row (module docstring)
            fresh = {r: [] for r in self.trace_outputs}
        out = fresh if not keep else self._merged(fresh, keep)
        self._remember(out, facts, per_function, module_facts, branches - settled)
        resolved = {row[:2] for row in out["correlation"] if row[2] in ("TRUE", "FALSE")}
        now = len(self.asked)
        # (a pair question's walk is cut at PAIR_LIMIT pairs in an order of its own: asked)
        self._settled = {b: self._settled[b] if b in settled else now
                         for b in {row[:2] for row in facts.get("branch_compare", ())} - resolved}
        cuts = question_cuts(module)
        self._whole = cuts is not None and cuts.decisions_whole and _windows_whole(facts)
        self._capped = cuts.capped if cuts is not None else frozenset()
        self._cut = cuts.cut_branches if cuts is not None else frozenset()
        self._cells = cells
        for f in per_function:
            self._born.setdefault(f, now)
        self.asked.append(len(ask))
        self.branches.append(len(branches))
        self.settled.append(len(settled))
        self.settled_now = settled
        rows = Rows()
        every = sorted({row[0] for row in facts.get("function", ())})
        rows.add_run(facts, every)
        rows.add_run({r: out[r] for r in self.outputs}, every)
        rows.relpath = escape_field(self.relpath)
        return rows

    def _uncut(self, b: tuple, asked: int) -> bool:
        """Whether the last round's ``REWRITE_LIMIT`` cut nothing a settled branch ``b``
        (``asked`` in that round) can meet: no rewrite its query's closure asked for was refused
        (``QuestionCuts.cut_branches``), and no capped function is new since (a clone)."""
        return b not in self._cut and \
            not any(self._born.get(g, asked + 1) > asked for g in self._capped)

    def _merged(self, fresh: dict, keep: set) -> dict:
        """``fresh`` and the previous round's rows of the kept branches and of the summary
        instances they asked (transitively)."""
        old = self._rows
        uses: dict = {}
        for qf, qi, rel, c, h, q in old["correlation_uses"]:
            uses.setdefault((qf, qi), set()).add((h, q, rel, c))
        kept_summaries: set = set()
        work = [s for b in keep for s in uses.get(b, ())]
        while work:
            s = work.pop()
            if s in kept_summaries:
                continue
            kept_summaries.add(s)
            h, q, rel, c = s
            work.extend(t for t in uses.get((h, q), ()) if t[2:] == (rel, c))
        kept_contexts = keep | {s[:2] for s in kept_summaries}
        returns = {(h, rel, c) for h, q, rel, c in kept_summaries if q == "return"}
        returned = {h for h, _rel, _c in returns}
        out = {}
        for r, rows in fresh.items():
            if r in BRANCH_KEYED or r in ("correlation_reach_entry",):
                kept = [row for row in old[r] if row[:2] in keep]
            elif r in ("correlation_reach", "correlation_uses"):
                kept = [row for row in old[r] if row[:2] in kept_contexts]
            elif SUMMARY_KEYED[r] is None:
                kept = [row for row in old[r] if row[0] in returned]
            else:
                cols = SUMMARY_KEYED[r]
                kept = [row for row in old[r] if tuple(row[k] for k in cols) in returns]
            # in the engines' order (sorted): the rows of a whole-module run, row for row (two
            # sorted runs: the engine's rows and a subsequence of the last round's)
            out[r] = sorted_distinct(rows + kept)
        return out

    def _remember(self, out: dict, facts: dict, per_function: dict, module_facts: dict,
                  branches: set) -> None:
        """Keep this round's rows and what each branch read (its reads: module docstring)."""
        self._rows, self._facts, self._module_facts = out, per_function, module_facts
        self._call_targets = set(facts.get("call_target", ()))
        callers: dict = {}
        for f, _j, g in facts.get("call_target", ()):
            callers.setdefault(g, set()).add(f)
        reach: dict = {}
        for qf, qi, g in out["correlation_reach"]:
            reach.setdefault((qf, qi), set()).add(g)
        for qf, qi, g in out["correlation_reach_entry"]:
            reach.setdefault((qf, qi), set()).update(callers.get(g, ()))
        # the two outputs naming a call's callee without asking its summary (``_changed``)
        for f, i, _j, h in out.get("correlation_branch_call", ()):
            reach.setdefault((f, i), set()).add(h)
        for h, _jr, _j, g in out.get("correlation_return_call", ()):
            reach.setdefault((h, "return"), set()).add(g)
        uses: dict = {}
        for qf, qi, _rel, _c, h, q in out["correlation_uses"]:
            uses.setdefault((qf, qi), set()).add((h, q))
        touched = {}
        for b in branches:
            seen, work, reads = {b}, [b], set()
            while work:
                ctx = work.pop()
                reads.add(ctx[0])       # (a summary answered at h's constant returns: no query)
                reads |= reach.get(ctx, set())
                for s in uses.get(ctx, ()):
                    if s not in seen:
                        seen.add(s)
                        work.append(s)
            touched[b] = reads
        self._touched = touched


def _windows_whole(facts: dict) -> bool:
    """Whether no function's ``correlation_window`` is narrower than its highest
    reverse-postorder rank (no walk is cut short by it)."""
    top: dict = {}
    for f, _b, r in facts.get("rpo", ()):
        if r > top.get(f, -1):
            top[f] = r
    return all(w >= top.get(f, -1) for f, w in facts.get("correlation_window", ()))


def _read_only(facts: dict, params: dict) -> None:
    """Cut ``facts`` (the engine's, seeds restricted to the branches asked) to what the asked
    questions can read: the rows of the functions ``readable_queries`` names (a query of these
    branches can be pending there, or a summary asked, or a constant argument read) and of the
    functions of the asked pair branches (pairs.dl stays in its function); of ``decides``, the
    rows of those functions' readable questions and of the assertions those questions can meet
    there. Every rule of correlation.dl reading a function's facts has such a query, summary or
    argument of that function in its body (``readable_queries``), or reads ``memory_cell`` for
    the cells' names, which every function has alike; so the other rows cannot change an output
    (issue #28 item 1: a later round of icbe asks a third of the branches, which reach few
    functions).

    The assertions a question (rel c) can meet in g. Every rule reading ``decides(g, cond, rel,
    c, _)`` takes ``cond`` from an assertion on the register or cell v its query (rel c) is
    pending on in g (``assert_edge``, ``assert_def``, ``cell_init``: ``readable_queries``'s
    closure bounds those (g, v, (rel c))), or it is ``"eq 0"`` (a register read before any
    write) or ``"ne 0"`` (a dereference), or it is the ``const_cond`` of a constant g passes to
    a call or returns (the constant-argument and constant-return rules). The other rows of g's
    table are read by no rule (issue #28 item 1: they were half of what icbe fed the engine
    each round). Likewise the rows of a register or cell v of g in ``def``, ``deref``, ``copy``
    (its destination), ``assert_edge``, ``assert_def`` and ``memory_cell`` (which also names
    the cells: one row of each is kept): correlation.dl reads them only for a v some query is
    pending on in g (``_qdef``, ``_cderef``, ``_cdef``, ``_cthru``, ``_cret``'s walk back from a
    returned register, ``_edge_decided``, the entry rules; ``_cqreg``, ``_clocal`` and
    ``_casserted_elsewhere`` are read only next to such a query, and a query's register is
    still in ``_cqreg``: the copy it came through is kept), pairs.dl for its pair registers, in
    the functions of the asked pair branches (kept whole). Of ``instr`` and ``rpo``, the rows
    some rule can read (``_read_instructions``, ``_read_ranks``)."""
    pending: set = set()
    readable = readable_queries({r: facts.get(r, ()) for r in READ_RELATIONS}, params, pending)
    read = set(readable) | {row[0] for row in facts.get("branch_pair", ())}
    for r, rows in facts.items():
        if r not in MODULE_RELATIONS:
            facts[r] = [row for row in rows if row[0] in read]
    on: dict = {}                                  # (g, v) -> the assertions on v in g
    for g, _m, _n, v, cond in facts.get("assert_edge", ()):
        on.setdefault((g, v), set()).add(cond)
    for g, _j, v, cond in facts.get("assert_def", ()):
        on.setdefault((g, v), set()).add(cond)
    for g, v, cond in facts.get("cell_init", ()):
        on.setdefault((g, v), set()).add(cond)
    meets: dict = {}                               # (g, (rel, c)) -> the assertions it can meet
    for g, v, q in pending:
        meets.setdefault((g, q), {"eq 0", "ne 0"}).update(on.get((g, v), ()))
    constants = {(g, text) for g, _i, _p, kind, text in facts.get("call_arg", ()) if kind == "const"}
    constants |= {(g, text) for g, _j, kind, text in facts.get("return_value", ()) if kind == "const"}
    passed = {(g, cond) for g, x, cond in facts.get("const_cond", ()) if (g, x) in constants}
    walked = {(g, v) for g, v, _q in pending}
    paired = {row[0] for row in facts.get("branch_pair", ())}
    named = {v: (g, v) for g, v in reversed(facts.get("memory_cell", ()))}   # a row per cell
    walked |= set(named.values())
    for r, k in _REGISTER_COLUMN.items():
        if r in facts:
            facts[r] = _or_first([row for row in facts[r]
                                  if row[0] in paired or (row[0], row[k]) in walked], facts[r])
    decides = [row for row in facts.get("decides", ()) if (row[2], row[3]) in readable.get(row[0], ())]
    facts["decides"] = _or_first([row for row in decides
                                  if row[1] in ("eq 0", "ne 0") or (row[0], row[1]) in passed or
                                  row[1] in meets.get((row[0], (row[2], row[3])), ())], decides)
    if "instr" in facts:
        facts["instr"] = _read_instructions(facts, paired)
        if "rpo" in facts:
            facts["rpo"] = _read_ranks(facts)


def _read_ranks(facts: dict) -> list:
    """The rows of ``rpo`` that can change an output: each function's highest rank (``_cwhole``
    reads the maximum) and the ranks of its branches' blocks (``_branch_rpo``). The rules of the
    window (``_cout``) join every rank of f, but with ranks from 0 none holds where f's window
    is at least its highest rank (the distance of two ranks is at most that), nor does the rule
    of a branch without a rank where every branch's block has one; in the other functions every
    row is kept. (Issue #28 item 1: icbe's calls on csmith's median programs fed 6,590 rows,
    2,490 of these; the window rules' join of each branch with each block was 2-4% of the
    grounding.)"""
    rows = facts["rpo"]
    top: dict = {}
    for f, _b, r in rows:
        if r > top.get(f, -1):
            top[f] = r
    window = {f: w for f, w in facts.get("correlation_window", ())}
    ranked = {row[:2] for row in rows}
    places = {row[:2]: row[2] for row in facts["instr"]}
    at = {(f, places[f, i]) for f, i, *_ in facts.get("branch_compare", ()) if (f, i) in places}
    whole = {f for f, r in top.items() if window.get(f, -1) < r} | {f for f, b in at if (f, b) not in ranked}
    return [row for row in rows if row[0] in whole or row[:2] in at or row[2] == top[row[0]]]


#: the relations naming the instructions whose ``instr`` rows correlation.dl joins by id
_NAMING = ("branch_compare", "def", "cell_def", "deref", "copy", "call_target", "call_arg",
           "call_result", "return_value", "guard")


def _read_instructions(facts: dict, paired: set) -> list:
    """The rows of ``instr`` that correlation.dl can read, ``facts`` cut as above: those of the
    instructions a row of ``_NAMING`` names (every rule of correlation.dl reading ``instr(g, j,
    ...)`` but three joins it with one of them on ``g, j``), of each block's last instruction
    (``_qend``, ``_csplit``: ``block_size``), of every instruction of a block with a ``ret``
    (``_cret`` steps back from the return over each one, ``!def``) and of the functions of the
    asked pair branches (pairs.dl's walk steps over each one). The others are read by no rule:
    the in-block walk of a query jumps between the events of its register (``_cjump``). (Issue
    #28 item 1: icbe's calls on csmith's median programs fed 42,308 rows, 25,532 of these.)"""
    named = {row[:2] for r in _NAMING for row in facts.get(r, ())}
    last = {(g, m, s - 1) for g, m, s in facts.get("block_size", ())}
    instr = facts["instr"]
    returning = {(g, n) for g, _j, n, _k, op in instr if op == "ret"}
    return [row for row in instr if row[0] in paired or row[:2] in named or
            (row[0], row[2], row[3]) in last or (row[0], row[2]) in returning]


def _or_first(kept: list, rows: list) -> list:
    """``kept``, or the first of ``rows`` when the register-level cut left none: any row of the
    function-level cut may stay (no rule reads it), and a relation left without rows would
    change the engine's set of live relations, which costs the clingo engine another
    translation of the program (8-14 ms; issue #28 item 1)."""
    return kept if kept or not rows else rows[:1]


#: relation -> its column of the register or cell a query must be pending on to read the row
#: (``_read_only``)
_REGISTER_COLUMN = {"def": 2, "deref": 2, "copy": 2, "assert_edge": 3, "assert_def": 2,
                    "memory_cell": 1}


def _by_function(facts: dict) -> dict:
    """function id -> {relation: its rows} (per-file relations left out). (A function's rows of
    a relation are mostly written together: one step per run of them, not per row.)"""
    out: dict = {}
    for name, rows in facts.items():
        if name in MODULE_RELATIONS:
            continue
        for f, run in groupby(rows, _FIRST):
            mine = out.get(f)
            if mine is None:
                mine = out[f] = {}
            got = mine.get(name)
            if got is None:
                mine[name] = list(run)
            else:
                got.extend(run)
    return out


_FIRST = itemgetter(0)


def _changed(before: dict, after: dict, facts: dict, call_targets: set, read) -> set:
    """Function ids whose facts differ between two rounds (added and removed ones included),
    and every callee of a call site added or removed -- or retargeted: a function whose facts
    differ only in the callees of some call sites (icbe's entry splitting redirects ``main``'s
    calls to a clone every round) is not changed itself, its old and new callees are.

    Why a retargeted call site is no change of its function. ``correlation.dl`` reads the callee
    h of ``call_target(g, j, h)`` for a query pending in g at j in ``_csplit``, ``_csum``,
    ``_ccsum``, ``_ccont``, ``_ccarg``, ``_cown`` (each joining a summary of h, and
    ``correlation_uses`` names h whenever their bodies hold: h is among the context's reads),
    in ``correlation_branch_call`` and ``correlation_return_call`` (``_remember`` adds the
    callee they name to the reads) and else only as ``_`` (``_transparent``, ``!_csplit``:
    whether j is a call site, which it still is). Every other rule joins ``call_target`` on the
    callee, at its entry: a context there reads the callee. ``read``: the relations the engine
    reads (differences in the others change no row)."""
    changed = set()
    for f in before.keys() | after.keys():
        old, new = before.get(f), after.get(f)
        if old != new and not _retargeted(old, new, read):
            changed.add(f)
    changed |= {g for _f, _j, g in call_targets ^ set(facts.get("call_target", ()))}
    return changed


def _retargeted(old: Optional[dict], new: Optional[dict], read) -> bool:
    """Whether one function's facts of two rounds (relation -> rows) differ in the relations
    ``read`` only in the callees of ``call_target`` rows (the same call sites, in order)."""
    if old is None or new is None:
        return False
    for r in old.keys() | new.keys():
        a, b = old.get(r, ()), new.get(r, ())
        if a == b or r not in read:
            continue
        if r != "call_target" or len(a) != len(b) or any(x[:2] != y[:2] for x, y in zip(a, b)):
            return False
    return True
