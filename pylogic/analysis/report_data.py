"""What the HTML report of an ``analyze`` output directory shows (issue #17 item 1), gathered from
``OUT/summary.json``, ``OUT/facts`` and ``OUT/results``; the predicate relation matrices (BDD, SAT,
PPG) from the input programs again (``summary.json`` names them; an ``--if-convert`` run converts
them the same way first); each shown CFG row's derivation tree (``explain``) from the engine's
rows on that function's facts. Formatting is ``pylogic/report/html.py``'s.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pylogic.analysis.catalog import get as catalog_get
from pylogic.analysis.explain import explainer
from pylogic.engines import load_inputs
from pylogic.engines.explain import show_atom
from pylogic.errors import PathlogicError, printable_name

#: Result relations drawn per function, with their columns after the function id.
SHOWN = {"idom": ("d", "n"), "ipdom": ("d", "n"), "cdep": ("n", "b", "s"), "df": ("d", "n"),
         "back_edge": ("t", "h"), "loop_header": ("h",), "loop_block": ("h", "b"),
         "loop_depth": ("b", "k"), "unreachable": ("b",)}
#: The shipped analysis whose derivations explain each shown relation.
EXPLAINED_BY = {"idom": "dominance", "ipdom": "postdominance", "cdep": "control_dependence",
                "df": "dominance_frontier", "back_edge": "loops", "loop_header": "loops",
                "loop_block": "loops", "loop_depth": "loops", "unreachable": "reachability"}
#: Functions larger than this get no explanation pages (the CLI command is shown instead).
EXPLAIN_MAX_BLOCKS = 30
#: Predicates beyond which a function's matrix is left out of the page: every pair is asked
#: of the BDD, SAT and the PPG (SAT took 1.5 ms a query on csmith functions; its counts stay in
#: the index's predicate table).
MATRIX_MAX_PREDICATES = 16


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


def read_run(out: str | Path, *, matrices: bool = True, explain: bool = True,
             engine: str = "clingo") -> RunView:
    """The report's data for the analyze output directory ``out``.

    Raises
    ------
    PathlogicError
        ``out`` is not an analyze output directory (no readable ``summary.json``).
    """
    out = Path(out)
    summary_path = out / "summary.json"
    if not summary_path.is_file():
        raise PathlogicError(f"{printable_name(str(out))}: not an analyze output directory "
                             "(no summary.json)")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PathlogicError(f"{printable_name(str(summary_path))}: not JSON ({exc})") from None
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
    for fid, a, b in _tsv(facts / "edge.facts"):
        if fid in views:
            views[fid].edges.append((a, b, "; ".join(labels.get((fid, a, b), [])) or "fall"))
    for rel in SHOWN:
        for row in _tsv(results / f"{rel}.tsv"):
            if row and row[0] in views:
                views[row[0]].rows.setdefault(rel, []).append(tuple(row[1:]))
    functions = list(views.values())
    if matrices:
        _matrices(summary, functions)
    if explain:
        _explanations(facts, functions, engine)
    return RunView(out, summary, functions)


def _matrices(summary: dict, functions: list[FunctionView]) -> None:
    """The BDD / SAT / PPG relation matrix of every function with predicate defines."""
    from pylogic.ir.load import load_program
    from pylogic.predicates.ppg import partition_graphs
    from pylogic.predicates.relation_matrix import relation_matrix
    from pylogic.predicates.summary import SUMMARY_RELATIONS
    from pylogic.analysis.run import has_defines, module_rows
    from pylogic.transforms.ifconvert.if_convert import NEEDS as IF_CONVERT_NEEDS
    from pylogic.transforms.ifconvert.if_convert import if_convert

    counts = {p["function"]: p.get("predicates") for p in summary.get("predicates") or []}
    wanted = {}
    for f in functions:
        if "ppg" not in (f.stats.get("analyses") or ""):
            continue
        if (counts.get(f.fid) or 0) > MATRIX_MAX_PREDICATES:
            f.matrix_note = (f"{counts[f.fid]} predicates: the matrix of pairs is shown up to "
                             f"{MATRIX_MAX_PREDICATES} (pathlogic predicates FILE --function "
                             f"{f.name} --check sat prints it)")
            continue
        wanted[f.fid] = f
    by_file = defaultdict(list)
    for f in wanted.values():
        by_file[f.file].append(f)
    root = Path(summary.get("input_path") or summary.get("input") or ".")
    for relpath, views in by_file.items():
        source = root / relpath if root.is_dir() else root
        try:
            module, _ = load_program(str(source))
            if summary.get("if_conversion"):
                module, _ = if_convert(module, module_rows(module, relpath,
                                                           relations=IF_CONVERT_NEEDS))
            rows = module_rows(module, relpath, relations=SUMMARY_RELATIONS)
        except PathlogicError as exc:
            for v in views:
                v.matrix_note = f"the matrix could not be rebuilt from {relpath}: {exc}"
            continue
        fns = {fn.name: fn for fn in module.defined_functions()}
        graphs = partition_graphs(module, rows, relpath, [v.name for v in views if v.name in fns])
        for v in views:
            fn = fns.get(v.name)
            if fn is None or not has_defines(fn):
                v.matrix_note = "the function is no longer in its file"
                continue
            try:
                m = relation_matrix(fn, rows.of(v.fid), graphs.get(v.name), check="sat")
            except PathlogicError as exc:
                v.matrix_note = f"no matrix: {exc}"
                continue
            v.matrix = m


def _explanations(facts_dir: Path, functions: list[FunctionView], engine: str) -> None:
    """Derivation trees of every shown row of functions with at most EXPLAIN_MAX_BLOCKS blocks:
    one engine call per analysis over those functions' facts, one ranking of its model."""
    small = [f for f in functions if f.blocks and len(f.blocks) <= EXPLAIN_MAX_BLOCKS
             and not f.stats.get("error")]
    for f in functions:
        if f not in small:
            f.explain_note = (f"{len(f.blocks)} blocks: no explanation pages above "
                              f"{EXPLAIN_MAX_BLOCKS} (use pathlogic explain)")
    keep = {f.fid for f in small}
    for analysis in sorted(set(EXPLAINED_BY.values())):
        rels = [r for r, a in EXPLAINED_BY.items() if a == analysis]
        if not any(f.rows.get(r) for f in small for r in rels):
            continue
        checked = catalog_get(analysis).program()
        facts = {r: [row for row in rows if row[0] in keep]
                 for r, rows in load_inputs(checked, facts_dir, None).items()}
        try:
            ex = explainer(checked, rels, facts=facts, engine=engine)
        except PathlogicError as exc:
            for f in small:
                f.explain_note = f"no explanations from {analysis}: {exc}"
            continue
        for f in small:
            for rel in rels:
                kinds = checked.relations[rel].kinds
                for row in f.rows.get(rel, []):
                    typed = (f.fid,) + tuple(int(v) if k == "number" else v
                                             for v, k in zip(row, kinds[1:]))
                    try:
                        if ex.holds(rel, typed):
                            f.explanations[(rel, row)] = ex.explain(rel, typed)
                    except PathlogicError as exc:
                        f.explain_note = f"explanations stopped: {exc}"


def explain_command(program: str, rel: str, fid: str, row: tuple, out: Path) -> str:
    """The ``pathlogic explain`` command line that prints one row's tree."""
    import shlex
    atom = show_atom(rel, (fid,) + tuple(row))
    return (f"pathlogic explain {shlex.quote(program)} {shlex.quote(atom)} "
            f"--facts {shlex.quote(str(out / 'facts'))}")
