"""The in-process engine: every stratum of a CheckedProgram evaluated in Python, semi-naive over
hash indexes (``indexed.py``, the duckdb engine's evaluator of recursive components), with the
duckdb engine's values (``values.py``: symbols and records interned, 32-bit arithmetic, the
clingo engine's functors).

Why: a small call pays clingo's fixed cost per rule (preparing the rules for grounding, about
57 us a rule whatever the rows: 4 ms for ``dominance.dl``'s 72 rules with no facts, 12 ms for
``correlation.dl``'s 205) and the Control's; most of the optimizer's calls are small (a csmith
program's ``idom``: 343-427 rows, 8.5-9.7 ms in clingo, 3.4-4.4 ms here; issue #28 item 1,
docs/measurements.md). A program's components are compiled once per relation set
(``CompiledComponent``; a shipped program's plans kept across processes in the program cache,
``clingo_cache.kept``) and bound to each run's relations.

What it does not compile (float aggregates, an aggregate or a negation over its own component,
an ordering of records) is refused, located at the rule; "auto" then runs the call on the
first available engine (``run.auto_engine``). Registered as "python", after the others: "auto"
picks it only for a small call (``run.SMALL_CALL_ROWS``).
"""
from __future__ import annotations

from pathlib import Path

from pylogic.engines.base import register
from pylogic.engines.clingo_cache import kept
from pylogic.engines.functors import refusal
from pylogic.engines.indexed import CompiledComponent, Relations, Unsupported
from pylogic.engines.program import CheckedProgram
from pylogic.engines.relevance import can_fire, live_relations, needed_relations
from pylogic.engines.rows import sort_rows
from pylogic.engines.run import load_inputs
from pylogic.engines.semantics import derived, rules_by_head
from pylogic.engines.values import Values
from pylogic.collector import collector_paused
from pylogic.errors import DatalogError, SourceLoc


class Plan:
    """The components of one program and relation sets, compiled, bottom-up; ``values``: the
    tables holding the rules' constants (each run starts from a copy). ``refused``: why the
    program does not compile here (an ``Unsupported``), or None."""

    def __init__(self, checked: CheckedProgram, needed: set, live: frozenset):
        self.values = Values(checked.types)
        self.components: list[CompiledComponent] = []
        self.refused: Unsupported | None = None
        by_head = rules_by_head(checked.rules)
        try:
            for stratum in checked.strata:
                rels = [rel for rel in stratum if rel in needed and rel in by_head]
                rules = [r for rel in rels for r in by_head[rel] if can_fire(r, live)]
                if rules:
                    self.components.append(CompiledComponent(
                        [rel for rel in rels if any(r.head.rel == rel for r in rules)], rules))
        except Unsupported as exc:
            self.refused = exc


def plan(checked: CheckedProgram, shown, inputs: dict) -> tuple[Plan, set]:
    """``(compiled plan, needed relations)`` of a call of ``checked`` for ``shown`` with
    ``inputs`` (relation -> rows): the rules that can fire with the inputs that have rows
    (``relevance.live_relations``), compiled once per such sets."""
    needed = needed_relations(checked, shown)
    live = live_relations(checked, (rel for rel, rows in inputs.items() if rows and rel in needed))
    needed = needed_relations(checked, shown, live)
    key = ("python-plan", frozenset(needed), live)
    return derived(checked, key, lambda: kept(checked, "python", (sorted(needed), sorted(live)),
                                              Plan, lambda: Plan(checked, needed, live))), needed


def refused(checked: CheckedProgram, shown, inputs: dict) -> Unsupported | None:
    """Why this engine would refuse the call (None: it evaluates it)."""
    return plan(checked, shown, inputs)[0].refused


def run_python(checked: CheckedProgram, inputs: dict[str, list[tuple]], shown: list[str]
               ) -> dict[str, list[tuple]]:
    """Evaluate ``checked`` with the (already validated) input tuples; return the sorted tuples of
    every relation in ``shown``."""
    compiled, needed = plan(checked, shown, inputs)
    if compiled.refused is not None:
        exc = compiled.refused
        raise DatalogError(f"the python engine does not evaluate this rule ({exc}); "
                           "use --engine clingo", exc.loc or SourceLoc(checked.main_file))
    # the rows are sets of tuples without cycles (``CompiledComponent.bind``): the collector's
    # passes over them are waste, and they are freed before it is back on
    with collector_paused():
        values = compiled.values.copy()
        encoded = {rel: values.encode(checked.relations[rel].kinds, rows)
                   for rel, rows in inputs.items() if rows and rel in needed}
        store = Relations(lambda rel: encoded.pop(rel, ()))
        try:
            for component in compiled.components:
                component.bind(store, values).run()
        except RuntimeError as exc:      # a functor that fails (functors.py)
            located = refusal(str(exc))
            if located is not None:
                raise located from None
            raise DatalogError(f"python engine: {exc}", SourceLoc(checked.main_file)) from None
        result = {}
        for rel in shown:
            kinds = checked.relations[rel].kinds
            rows = list(store.full(rel))
            result[rel] = sort_rows(values.decode(kinds, rows) if kinds else [()] * len(rows))
        del store
    return result


class PythonEngine:
    """The in-process engine: always available (no package beyond pathlogic's own)."""

    name = "python"

    def available(self) -> bool:
        return True

    @staticmethod
    def refused(program: CheckedProgram, outputs: list[str], facts: dict):
        """Why a call of ``program`` for ``outputs`` with ``facts`` would be refused here (an
        ``indexed.Unsupported``), or None ("auto"'s choice: ``run.auto_engine``)."""
        return refused(program, outputs, facts)

    def unavailable_reason(self) -> str:
        return ""

    def run(self, program: CheckedProgram, facts_dir: str | Path | None,
            facts: dict[str, list[tuple]] | None, outputs: list[str], *,
            jobs: int | None = None, compiled: bool = False) -> dict[str, list[tuple]]:
        """Every relation of ``outputs``; what they do not depend on is neither read nor
        evaluated. ``jobs`` and ``compiled`` do not apply (ignored)."""
        needed = needed_relations(program, outputs)
        return run_python(program, load_inputs(program, facts_dir, facts, needed), outputs)


register(PythonEngine())
