"""What the HTML report of an ``analyze`` output directory shows (issue #17 item 1; issue #27:
the report renders, it never computes).

``analyze`` computes, once, what the report shows beyond ``OUT/facts`` and ``OUT/results``:
each predicated function's BDD / SAT / PPG relation matrix (``directory.matrix_rows``) and the
derivation tree of every shown row of the functions up to ``EXPLAIN_MAX_BLOCKS`` blocks
(``derivations``), written to ``OUT/report/`` (``write_report_data``). ``read_run`` gathers
everything a page shows from ``OUT`` alone: it loads no program and runs no engine.
Formatting is ``pylogic/report/html.py``'s.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pylogic.analysis.catalog import get as catalog_get
from pylogic.errors import PathlogicError, printable_name

#: Result relations drawn per function, with their columns after the function id.
#: The input relations ``read_run`` reads from OUT/facts (each function's blocks, instructions,
#: guards and edges), which ``analyze`` therefore always extracts.
REPORT_FACTS = ("block", "entry", "exit", "guard", "instr", "branch", "edge")
SHOWN = {"idom": ("d", "n"), "ipdom": ("d", "n"), "cdep": ("n", "b", "s"), "df": ("d", "n"),
         "back_edge": ("t", "h"), "loop_header": ("h",), "loop_block": ("h", "b"),
         "loop_depth": ("b", "k"), "unreachable": ("b",)}
#: The shipped analysis whose derivations explain each shown relation.
EXPLAINED_BY = {"idom": "dominance", "ipdom": "postdominance", "cdep": "control_dependence",
                "df": "dominance_frontier", "back_edge": "loops", "loop_header": "loops",
                "loop_block": "loops", "loop_depth": "loops", "unreachable": "reachability"}
#: Functions larger than this get no explanation pages (the CLI command is shown instead).
#: 30 before the library rule sets were folded (issue #30 item 5); at 60 the 33-block @main of
#: tests/ir/llvm/c/memory.c is explained too: analyze --html of the four C programs of
#: tests/ir/llvm/c (control, indirect_calls, memory, libc_strings) 6.8 -> 10.9 s CPU.
EXPLAIN_MAX_BLOCKS = 60
#: Predicates beyond which a function's matrix is left out of the page: every pair is asked
#: of the BDD, SAT and the PPG (SAT took 1.5 ms a query on csmith functions; its counts stay in
#: the index's predicate table).
MATRIX_MAX_PREDICATES = 16
#: Where ``analyze`` writes them, under OUT: ``{function id: matrix rows, or why there are
#: none}`` and ``{function id: {"note": why some are missing, "trees": [[relation, row,
#: tree], ...]}}``.
REPORT_DIR = "report"
MATRICES = "matrices.json"
EXPLANATIONS = "explanations.json"
#: ``{function id: analysis.decisions.decisions(fn)}``: each block's code and edge labels.
CODE = "code.json"


@dataclass
class FunctionView:
    """One function of the run: its CFG and result rows (without the function id column)."""

    fid: str
    file: str
    name: str
    stats: dict
    blocks: list = field(default_factory=list)
    instrs: dict = field(default_factory=dict)     # block -> [(instr, opcode, guard)]
    entry: Optional[str] = None
    exits: list = field(default_factory=list)
    edges: list = field(default_factory=list)      # (a, b, label)
    rows: dict = field(default_factory=dict)       # relation -> [tuple]
    matrix: Optional[list] = None                  # relation_matrix rows
    matrix_note: str = ""
    explanations: dict = field(default_factory=dict)   # (rel, row) -> tree
    explain_note: str = ""
    code: dict = field(default_factory=dict)       # block -> [instruction text] (code.json)


@dataclass
class RunView:
    out: Path
    summary: dict
    functions: list


def _tsv(path: Path) -> list[list[str]]:
    if not path.is_file():
        return []
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]


def _split_id(fid: str) -> tuple[str, str]:
    file, _, name = fid.rpartition("::")
    return file, name


def read_run(out: str | Path, *, explain: bool = True) -> RunView:
    """The report's data for the analyze output directory ``out``, read from its files only.
    ``explain``: also the derivation trees (else every row shows its ``pathlogic explain``).

    Raises
    ------
    PathlogicError
        ``out`` is not an analyze output directory (no readable ``summary.json``).
    """
    out = Path(out)
    summary = _json(out / "summary.json", "not an analyze output directory (no summary.json)")
    facts, results = out / "facts", out / "results"
    views: dict[str, FunctionView] = {}
    for entry in summary.get("functions", []):
        file, name = _split_id(entry["function"])
        views[entry["function"]] = FunctionView(entry["function"], file, name, entry)
    for fid, b in _tsv(facts / "block.facts"):
        if fid in views:
            views[fid].blocks.append(b)
    for fid, b in _tsv(facts / "entry.facts"):
        if fid in views:
            views[fid].entry = b
    for fid, b in _tsv(facts / "exit.facts"):
        if fid in views:
            views[fid].exits.append(b)
    guards = {(f, i): p for f, i, p in _tsv(facts / "guard.facts")}
    where = {}
    for fid, i, b, index, op in _tsv(facts / "instr.facts"):
        if fid in views:
            views[fid].instrs.setdefault(b, []).append((i, op, guards.get((fid, i))))
            where[(fid, i)] = (b, op)
    labels = defaultdict(list)
    for fid, i, target in _tsv(facts / "branch.facts"):
        if (fid, i) in where:
            b, op = where[(fid, i)]
            guard = guards.get((fid, i))
            labels[(fid, b, target)].append(f"{op} {i}" + (f" if {guard}" if guard else ""))
    code = _json(out / REPORT_DIR / CODE, "") if (out / REPORT_DIR / CODE).is_file() else None
    for fid, a, b in _tsv(facts / "edge.facts"):
        if fid in views:
            if code is not None:      # the decision taking the edge (analysis/decisions.py)
                label = code.get(fid, {}).get("edges", {}).get(a, {}).get(b, "")
            else:                     # a run written before code.json: the branch instruction
                label = "; ".join(labels.get((fid, a, b), [])) or "fall"
            views[fid].edges.append((a, b, label))
    for fid, entry in (code or {}).items():
        if fid in views:
            views[fid].code = entry.get("code", {})
    for rel in SHOWN:
        for row in _tsv(results / f"{rel}.tsv"):
            if row and row[0] in views:
                views[row[0]].rows.setdefault(rel, []).append(tuple(row[1:]))
    functions = list(views.values())
    _matrices(out / REPORT_DIR / MATRICES, summary, functions)
    if explain:
        _explanations(out / REPORT_DIR / EXPLANATIONS, functions)
    return RunView(out, summary, functions)


def _json(path: Path, missing: str):
    if not path.is_file():
        raise PathlogicError(f"{printable_name(str(path.parent))}: {missing}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PathlogicError(f"{printable_name(str(path))}: not JSON ({exc})") from None


def _matrices(path: Path, summary: dict, functions: list[FunctionView]) -> None:
    """Each predicated function's matrix as ``analyze`` stored it, or why there is none."""
    stored = _json(path, "no relation matrices") if path.is_file() else None
    counts = {p["function"]: p.get("predicates") for p in summary.get("predicates") or []}
    for f in functions:
        if "ppg" not in (f.stats.get("analyses") or ""):
            continue
        if (counts.get(f.fid) or 0) > MATRIX_MAX_PREDICATES:
            f.matrix_note = (f"{counts[f.fid]} predicates: the matrix of pairs is shown up to "
                             f"{MATRIX_MAX_PREDICATES} (pathlogic predicates FILE --function "
                             f"{f.name} --check sat prints it)")
            continue
        entry = None if stored is None else stored.get(f.fid)
        if isinstance(entry, list):
            f.matrix = entry
        elif isinstance(entry, str):
            f.matrix_note = entry
        elif stored is None:
            f.matrix_note = (f"no matrix: the run wrote no {REPORT_DIR}/{MATRICES} (analyze "
                             "writes it with --html or --report-data, not with --no-predicates)")
        else:
            f.matrix_note = "no matrix: the function's analyses failed"


def _explanations(path: Path, functions: list[FunctionView]) -> None:
    """The derivation trees ``analyze`` stored, and why some are missing."""
    if not path.is_file():
        return
    stored = _json(path, "no explanations")
    for f in functions:
        entry = stored.get(f.fid) or {}
        f.explain_note = entry.get("note", "")
        for rel, row, tree in entry.get("trees", ()):
            f.explanations[(rel, tuple(row))] = tree


def write_report_data(out: Path, matrices: Optional[dict], explanations: Optional[dict],
                      code: Optional[dict] = None) -> None:
    """``out/report/``: the matrices, derivation trees and block code ``analyze`` computed
    (None: not computed, no file)."""
    for name, data in ((MATRICES, matrices), (EXPLANATIONS, explanations), (CODE, code)):
        if data is not None:
            (out / REPORT_DIR).mkdir(parents=True, exist_ok=True)
            (out / REPORT_DIR / name).write_text(json.dumps(data, separators=(",", ":")) + "\n",
                                                 encoding="utf-8")


def derivations(run, engine: str = "clingo") -> dict:
    """The derivation tree of every shown row of the functions of ``run`` (an ``AnalysisRun``)
    with at most EXPLAIN_MAX_BLOCKS blocks, by function id, in ``EXPLANATIONS``' shape: one
    engine call per analysis over those functions' facts, one ranking of its model."""
    # imported here, for ``analyze --explain`` (#32: every analyze process compiled and ran
    # the explainer's modules)
    from pylogic.analysis.explain import explainer, user_level
    blocks = Counter(row[0] for row in run.facts.get("block", ()))
    functions = run.rows.functions()
    small = [f for f in functions if blocks[f] and blocks[f] <= EXPLAIN_MAX_BLOCKS
             and not run.failures.get(f)]
    out = {f: {"note": "", "trees": []} for f in functions}
    for f in functions:
        if f not in small:
            out[f]["note"] = (f"{blocks[f]} blocks: no explanation pages above "
                              f"{EXPLAIN_MAX_BLOCKS} (use pathlogic explain)")
    keep = set(small)
    tables = run.rows.sorted_tables()
    shown = defaultdict(lambda: defaultdict(list))       # relation -> function -> rows as text
    for rel in SHOWN:
        for row in tables.get(rel, ()):
            if row[0] in keep:
                shown[rel][row[0]].append(tuple(str(v) for v in row[1:]))
    for analysis in sorted(set(EXPLAINED_BY.values())):
        rels = [r for r, a in EXPLAINED_BY.items() if a == analysis]
        if not any(shown[r] for r in rels):
            continue
        checked = catalog_get(analysis).program()
        facts = {r: list(dict.fromkeys(row for row in run.facts.get(r, ()) if row[0] in keep))
                 for r in checked.inputs}
        try:
            ex = explainer(checked, rels, facts=facts, engine=engine)
        except PathlogicError as exc:
            for f in small:
                out[f]["note"] = f"no explanations from {analysis}: {exc}"
            continue
        for f in small:
            failed = []
            for rel in rels:
                kinds = checked.relations[rel].kinds
                for row in shown[rel].get(f, []):
                    typed = (f,) + tuple(int(v) if k == "number" else v
                                         for v, k in zip(row, kinds[1:]))
                    try:
                        if ex.holds(rel, typed):
                            tree = user_level(ex.explain(rel, typed), checked)
                            out[f]["trees"].append([rel, list(row), tree])
                    except PathlogicError as exc:   # this row only: the others are explained
                        failed.append(str(exc))
            if failed:
                note = (f"{len(failed)} row{'s' if len(failed) > 1 else ''} of {analysis} "
                        f"without an explanation: {failed[0]}")
                out[f]["note"] = "; ".join(filter(None, (out[f]["note"], note)))
    return out


def block_code(programs) -> dict:
    """``CODE``'s content for the loaded ``programs`` (``LoadedProgram``s)."""
    from facts_gen.naming import function_id
    from pylogic.analysis.decisions import decisions
    return {function_id(p.relpath, fn.name): decisions(fn)
            for p in programs for fn in p.module.functions if not fn.extern}


def explain_command(program: str, rel: str, fid: str, row: tuple, out: Path) -> str:
    """The ``pathlogic explain`` command line that prints one row's tree."""
    import shlex

    from pylogic.engines.explain import show_atom
    atom = show_atom(rel, (fid,) + tuple(row))
    return (f"pathlogic explain {shlex.quote(program)} {shlex.quote(atom)} "
            f"--facts {shlex.quote(str(out / 'facts'))}")
