"""The model an explanation is rebuilt from (issue #17 item 2): input facts plus the engine's rows
of every relation the explained one depends on, intermediate ``_`` relations included.

Example
-------
>>> ex = explainer(load_query("datalog/dominance.dl"), "idom", facts_dir="runs/examples/facts")  # doctest: +SKIP
>>> ex.explain("idom", ("loop_call.pir::main", "entry", "head"))["rule"]                      # doctest: +SKIP
'.../datalog/dominance.dl:14:1'
"""
from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from pathlib import Path

from pylogic.analysis.query import run_query
from pylogic.engines import CheckedProgram, load_inputs, load_program, run_checked
from pylogic.engines.explain import Explainer
from pylogic.errors import DatalogError, SourceLoc


def explainer(checked: CheckedProgram, rel: str | list, facts_dir: str | Path | None = None,
              facts: dict | None = None, engine: str = "auto") -> Explainer:
    """An ``Explainer`` over the engine's result for ``rel`` (a relation or a list of them) and
    what it depends on.

    Raises
    ------
    DatalogError
        Bad facts; or the engine does not return an intermediate relation (it only shows
        ``.output`` ones), so no explanation can be rebuilt from its rows.
    """
    probe = Explainer(checked, {})
    wanted = [rel] if isinstance(rel, str) else list(rel)
    needed = sorted({r for w in wanted for r in probe._depends(w)} - set(checked.inputs))
    model = dict(load_inputs(checked, facts_dir, facts))
    extra = [r for r in needed if r not in checked.outputs]
    result = run_query(checked, facts_dir, facts=facts, engine=engine, extra=extra,
                       only=[r for r in needed if r in checked.outputs] + extra)
    unseen = [r for r in needed if r not in result]
    if unseen:   # an engine that shows only .output relations (Soufflé): ask for them too
        result.update(_with_outputs(checked, unseen, facts_dir, facts, engine))
        unseen = [r for r in needed if r not in result]
    if unseen:
        raise DatalogError(f"explain: the {engine} engine does not return the intermediate "
                           f"relations {', '.join(unseen[:5])}{' ...' if len(unseen) > 5 else ''}, "
                           "which the explanation is rebuilt from (use --engine clingo)",
                           SourceLoc(checked.main_file))
    model.update(result)
    return Explainer(checked, model)


def _with_outputs(checked: CheckedProgram, relations: list[str], facts_dir, facts,
                  engine: str) -> dict:
    """The rows of ``relations`` from a copy of the program that includes it and adds an
    ``.output`` directive for each (the same rules, so the same model)."""
    with tempfile.TemporaryDirectory(prefix="pathlogic-explain-") as tmp:
        main = Path(checked.main_file)
        text = getattr(checked, "source_text", None)
        if text is not None or not main.is_file():
            main = Path(tmp) / "query.dl"
            main.write_text(text or "")
        wrapper = Path(tmp) / "explain.dl"
        wrapper.write_text(f'#include "{main.resolve()}"\n'
                           + "".join(f".output {r}\n" for r in relations))
        dirs = [Path.cwd()] + [Path(d) for d in getattr(checked, "include_dirs", [])]
        copy = load_program(wrapper, include_dirs=dirs)
        return run_checked(copy, facts_dir, engine, facts, only=relations)


# ---- derivations at the user's level (issue #30 item 5) ------------------------------------

#: The shipped rule sets whose helper relations a derivation folds into one step.
LIBRARY = "lib"


def _rule_file(rule: str) -> str:
    """The file of a rule location ``FILE:LINE:COL``."""
    parts = rule.rsplit(":", 2)
    return parts[0] if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit() else rule


def rule_location(rule: str) -> str:
    """A rule location ``FILE:LINE:COL`` relative to the shipped ``datalog/`` when the rule is
    one of its programs (``postdominance.dl:15:1``, the name ``#include`` and ``explain`` take),
    else as given."""
    file = _rule_file(rule)
    # an absolute file's answer is kept (a relative one depends on the working directory)
    relative = _shipped_file(file) if os.path.isabs(file) else _shipped_file.__wrapped__(file)
    return rule if relative is None else relative + rule[len(file):]


@lru_cache(maxsize=1024)
def _shipped_file(file: str) -> str | None:
    """``file`` relative to the shipped ``datalog/`` (posix), None when it is not under it.
    Kept per file: a derivation tree names the same few files in every node, and resolving
    them again was half of replaying a ppg_closure tree (22,033 calls, trim42)."""
    from pylogic.analysis.catalog import datalog_dir
    try:
        return Path(file).resolve().relative_to(datalog_dir().resolve()).as_posix()
    except (ValueError, OSError):
        return None


def _library(rule: str) -> str | None:
    """The shipped library rule set (``lib/dominator_tree.dl``) a rule belongs to, if any."""
    where = rule_location(rule)
    return _rule_file(where) if where.startswith(LIBRARY + "/") else None


def user_level(tree: dict, checked: CheckedProgram, expand: bool = False) -> dict:
    """``tree`` (``Explainer.explain`` of ``checked``) as a user reads it: rule locations
    relative to ``datalog/`` and, unless ``expand``, each subtree derived inside a library rule
    set (``datalog/lib/``: the ``_dt_*`` dominator-tree walk, the ``_dq_*`` dominance queries)
    folded into one node of kind "library" naming the rule set (``ruleset``) and how many rule
    instances it folds (``steps``). The fold covers the relations the rule set declares, its
    inputs too (``_dt_edge``, filled by the including analysis); the node's children are what
    it read from outside: the including analysis's public rows and input facts.

    A tuple is expanded once, where it is first shown; later occurrences are "ref" nodes, as
    in the full tree (a tuple first met inside a folded part is expanded where it is shown)."""
    full: dict[str, dict] = {}

    def index(node: dict) -> None:
        if node["kind"] != "ref":
            full.setdefault(node["atom"], node)
        for child in node.get("children", ()):
            index(child)

    index(tree)
    shown: set[str] = set()
    # relation -> the library rule set declaring it
    owner = {name: lib for name, r in checked.relations.items()
             for lib in [_library(str(r.loc))] if lib}

    def ruleset_of(node: dict) -> str | None:
        if node["kind"] != "rule":
            return None
        return owner.get(node["rel"]) or _library(node["rule"])

    def frontier(node: dict, seen: set, out: list, steps: list) -> None:
        for child in node["children"]:
            child = full.get(child["atom"], child)
            if child["atom"] in seen:
                continue
            seen.add(child["atom"])
            if ruleset_of(child):
                steps[0] += 1
                frontier(child, seen, out, steps)
            else:
                out.append(child)

    def show(node: dict) -> dict:
        node = full.get(node["atom"], node)
        if node["atom"] in shown:
            return {"atom": node["atom"], "rel": node["rel"], "row": node["row"],
                    "rank": node["rank"], "kind": "ref", "children": [], "checks": []}
        shown.add(node["atom"])
        out = dict(node)
        if node["kind"] != "rule":
            return out
        out["rule"] = rule_location(node["rule"])
        ruleset = None if expand else ruleset_of(node)
        if ruleset is None:
            out["children"] = [show(c) for c in node["children"]]
            return out
        reads, steps = [], [1]
        frontier(node, {node["atom"]}, reads, steps)
        return {"atom": node["atom"], "rel": node["rel"], "row": node["row"],
                "rank": node["rank"], "kind": "library", "ruleset": ruleset, "steps": steps[0],
                "rule": out["rule"], "children": [show(c) for c in reads], "checks": []}

    return show(tree)


def why_not_user_level(answers: list[dict]) -> list[dict]:
    """``Explainer.why_not``'s answers with rule locations relative to ``datalog/``."""
    out = []
    for a in answers:
        a = dict(a, rule=rule_location(a["rule"]))
        if a.get("because"):
            a["because"] = dict(a["because"], rules=why_not_user_level(a["because"]["rules"]))
        out.append(a)
    return out
