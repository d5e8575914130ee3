"""What ``pathlogic analyze`` prints: the per-function table, the predicate statistics (BDD vs
PPG) and the one-line summary, from a ``DirectoryAnalysis``."""
from __future__ import annotations

from pylogic.report.words import count_of

from pylogic.analysis.directory import DirectoryAnalysis
from pylogic.analysis.pre_stats import summary as pre_summary
from pylogic.report.docs import doc_path
from pylogic.report.table import format_table

PREDICATE_COLUMNS = (("function", "function"), ("defines", "defines"), ("preds", "predicates"),
                     ("bdd nodes", "bdd_nodes"), ("pairs", "pairs"),
                     ("disj bdd", "disjoint_bdd"), ("disj ppg", "disjoint_ppg"),
                     ("impl bdd", "implied_bdd"), ("impl ppg", "implied_ppg"),
                     ("ppg pairs", "ppg_modelled_pairs"), ("queries bdd", "queries_bdd"),
                     ("queries ppg", "queries_ppg"))


def function_table(result: DirectoryAnalysis) -> str:
    """One row per function: blocks, edges, unreachable blocks, loops, irreducible, cdep rows."""
    return format_table(
        ["function", "blocks", "edges", "unreach", "loops", "irred", "cdep", "analyses"],
        [[r["function"], r["blocks"], r["edges"], r["unreachable"], r["loops"],
          "yes" if r["irreducible"] else "", r["cdep"],
          "failed" if r["error"] else ("cfg+ppg" if "ppg" in r["analyses"] else "cfg")]
         for r in result.functions])


#: ``analyze --correlation`` columns (PathFinder §7.5, Table 7.2): heading, key.
CORRELATION_COLUMNS = (("function", "function"), ("cbr", "conditional"),
                       ("analyzable", "analyzable"), ("corr intra", "correlated_intra"),
                       ("corr inter", "correlated_inter"), ("full intra", "full_intra"),
                       ("full inter", "full_inter"), ("node-query pairs", "pairs"))


def correlation_table(result: DirectoryAnalysis) -> str:
    """Branch correlation per function, and the total as the last row."""
    rows = [[r[k] for _, k in CORRELATION_COLUMNS] for r in result.correlation or ()]
    total = ["total"] + [sum(r[k] for r in result.correlation or ())
                         for _, k in CORRELATION_COLUMNS[1:]]
    return format_table([h for h, _ in CORRELATION_COLUMNS], rows + [total])


#: ``analyze --pre`` columns (PathFinder Table 6.1): heading, key.
PRE_COLUMNS = (("function", "function"), ("computations", "computations"), ("loads", "loads"),
               ("redundant", "redundant"), ("strictly partial", "strictly_partial"),
               ("prevented (CMP)", "prevented"), ("loop invariant", "loop_invariant"),
               ("invariant prevented", "invariant_prevented"))
#: Table 6.1 ratios, ours next to the thesis' SPEC95 average: heading, key.
PRE_RATIOS = (("redundant / computations", "redundant_of_computations"),
              ("prevented / redundant", "prevented_of_redundant"),
              ("loop invariant / redundant", "loop_invariant_of_redundant"),
              ("invariant prevented / loop invariant", "invariant_prevented_of_loop_invariant"))


def pre_table(result: DirectoryAnalysis) -> str:
    """PRE statistics per function and in total, then the Table 6.1 ratios beside the thesis'."""
    s = pre_summary(result.pre or [])
    rows = [[r[k] for _, k in PRE_COLUMNS] for r in s["functions"]]
    rows.append(["total"] + [s["totals"][k] for _, k in PRE_COLUMNS[1:]])
    ratios = [[h, "-" if s["percent"][k] is None else f"{s['percent'][k]}%",
               f"{s['thesis'][k]}%"] for h, k in PRE_RATIOS]
    return (format_table([h for h, _ in PRE_COLUMNS], rows) + "\n\n"
            + format_table(["Table 6.1", "ours", "thesis (SPEC95 avg)"], ratios))


def predicate_table(result: DirectoryAnalysis) -> str:
    """PAS (BDD) vs PPG: pairs of predicates proved disjoint / implied by each."""
    return format_table([h for h, _ in PREDICATE_COLUMNS],
                        [[r.get(k, "-") for _, k in PREDICATE_COLUMNS] for r in result.predicates])


#: Functions the importer adds (INIT_FUNCTION and the like): counted apart in the summary.
SYNTHETIC_PREFIX = "@__pathlogic_"


def synthetic(function_id: str) -> bool:
    return function_id.rsplit("::", 1)[-1].startswith(SYNTHETIC_PREFIX)


def summary_line(result: DirectoryAnalysis) -> str:
    s = result.summary()
    made = [r["function"] for r in s["functions"] if synthetic(r["function"])]
    extra = f", {len(made)} of them synthetic ({SYNTHETIC_PREFIX}*, added by the importer)" \
        if made else ""
    failed = sum(1 for r in s["functions"] if r["error"])
    return (f"{count_of(len(s['functions']), 'functions')}{extra} in "
            f"{count_of(s['files_analyzed'], 'files')} "
            f"({count_of(len(s['files_failed']), 'files')} failed, "
            f"{count_of(failed, 'functions')} failed) -> {result.out} "
            f"[{_engines(result.engine, s['engine_calls'])}, "
            f"{count_of(len(s['engine_calls']), 'engine calls')}, "
            f"{s['seconds']['total']:.2f} s]")


def _engines(engine: str, calls: list) -> str:
    """The engines the calls ran on ("auto" chooses per call), else ``engine``."""
    return ", ".join(dict.fromkeys(c["engine"] for c in calls if c.get("engine"))) or engine


def closing_lines(result: DirectoryAnalysis) -> list[str]:
    """What a researcher reads at the end (issue #11 item 6): where the results are and how to
    read them, what was skipped at import by reason, every failure with its first line, and
    the one-line summary last."""
    s = result.summary()
    lines = [f"results: {result.out}/results/NAME.tsv (tab-separated, no header; columns of every "
             f"relation: {doc_path('relations.md')}), facts in {result.out}/facts, "
             f"{result.out}/summary.json"]
    cov = s["coverage"]
    if cov["functions_skipped"]:
        reasons = ", ".join(f"{reason} {n}" for reason, n in
                            sorted(cov["skipped_by_reason"].items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"skipped at import: {cov['functions_skipped']} of "
                     f"{cov['functions_skipped'] + cov['functions_imported']} functions "
                     f"({reasons})")
    files = [p.message.splitlines()[0] for p in result.loaded.problems if p.skipped]
    functions = [f.splitlines()[0] for f in result.failures]
    timed_out = sum(1 for f in functions if "timed out after" in f)
    if files or functions:
        parts = [f"{len(files)} of {len(files) + s['files_analyzed']} files"] if files else []
        if functions:
            parts.append(f"{len(functions)} in the files analysed"
                         + (f" ({timed_out} timed out)" if timed_out else ""))
        lines.append("failed: " + "; ".join(parts))
        lines += [f"  {line}" for line in files + functions]
    reuse = cache_line(s.get("cache") or {})
    if reuse:
        lines.append(reuse)
    lines.append(summary_line(result))
    return lines


def cache_line(cache: dict) -> str:
    """``cache: 12 of 12 files, 40 of 41 functions' analyses, ... reused (ROOT)``; '' when off."""
    if not cache.get("root"):
        return ""
    names = {"load": "files", "analyses": "functions' analyses", "if-convert": "if-conversions",
             "predicates": "functions' predicate statistics"}
    parts = [f"{c['hits']} of {c['hits'] + c['misses']} {names.get(kind, kind)}"
             for kind, c in cache.items() if kind != "root" and c["hits"] + c["misses"]]
    return f"cache: {', '.join(parts) or 'nothing'} reused ({cache['root']})"
